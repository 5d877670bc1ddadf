package classify

import (
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// Ops runs the network on a backend: one implementation per gpu backend
// (cpu_net.go; cuda_ops.go in the cuda build).
type Ops interface {
	// Prepare makes the network's parameters resident on the device and
	// allocates what Forward needs for batches of up to batch cubes.
	Prepare(net *resnet.Net, batch int) error
	// Forward runs the network on the n cubes in src (n x height x
	// width x depth x channels float32, channels-last, as Prepare's
	// network takes them) and writes their class probabilities, n x 2
	// float32 (column 1: cell), to dst.
	Forward(dst []float32, src *gpu.Buffer, n int) error
	// Release frees what Prepare allocated.
	Release()
}

// cudaOpsFor returns the CUDA operations for a CUDA backend (ok false
// for any other backend); set by cuda_ops.go in the cuda build.
var cudaOpsFor func(be gpu.Backend, opt OpsOptions) (ops Ops, ok bool, err error)

// OpsOptions are the choices an implementation may honour.
type OpsOptions struct {
	// Precision of the CUDA matrix products: "fp32" (default), "tf32"
	// or "fp16" (tensor cores; tolerance in BENCHMARKS.md and the CUDA
	// parity tests). The CPU computes in float32 whatever it says.
	Precision string
}

// opsFor returns the network operations for be.
func opsFor(be gpu.Backend, opt OpsOptions) (Ops, error) {
	var cuda func(gpu.Backend) (Ops, bool, error)
	if cudaOpsFor != nil {
		cuda = func(b gpu.Backend) (Ops, bool, error) { return cudaOpsFor(b, opt) }
	}
	return gpu.PickOps("classify", be, func(c *gpu.CPUBackend) Ops { return newCPUNet(c) }, cuda)
}

// f32 views b's bytes as float32s (device buffers of the CPU backend are
// Go byte slices, 8-byte aligned).
func f32(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// float32Bytes views fs as bytes.
func float32Bytes(fs []float32) []byte {
	if len(fs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*len(fs))
}

// CubeLen returns the float32s of one cube of arch's input.
func CubeLen(a resnet.Arch) int { return a.Input[0] * a.Input[1] * a.Input[2] * a.Input[3] }

// activationSizes returns the float32s per cube of the activation
// buffers a forward pass keeps: x (block inputs and outputs, and the
// pool's output), t1 (first convolutions of blocks), t2 (middle
// convolutions of bottleneck blocks; 0 for basic blocks) and s (the
// projection shortcuts).
func activationSizes(n *resnet.Net) (x, t1, t2, s int) {
	x = resnet.Positions(n.PoolOut) * n.PoolOut[3]
	for _, b := range n.Blocks {
		out := b.Last().Out
		x = max(x, resnet.Positions(out)*out[3])
		t1 = max(t1, resnet.Positions(b.A.Out)*b.A.Out[3])
		if b.C != nil {
			t2 = max(t2, resnet.Positions(b.B.Out)*b.B.Out[3])
		}
		if b.Shortcut != nil {
			s = max(s, resnet.Positions(b.Shortcut.Out)*b.Shortcut.Out[3])
		}
	}
	return x, t1, t2, s
}

// checkForward validates Forward's arguments.
func checkForward(net *resnet.Net, batch int, dst []float32, src *gpu.Buffer, n int) error {
	switch {
	case net == nil:
		return fmt.Errorf("classify: Forward before Prepare")
	case n < 0 || n > batch:
		return fmt.Errorf("classify: %d cubes in a batch of at most %d", n, batch)
	case len(dst) < 2*n:
		return fmt.Errorf("classify: %d probabilities for %d cubes", len(dst), n)
	case src == nil || src.Len() < int64(4*n*CubeLen(net.Arch)):
		return fmt.Errorf("classify: the cube buffer holds fewer than %d cubes", n)
	}
	return nil
}
