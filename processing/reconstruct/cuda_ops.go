//go:build cuda

package reconstruct

import (
	_ "embed"
	"fmt"
	"math"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// The reconstruction kernels on CUDA (reconstruct.cu, compiled to
// reconstruct.ptx by scripts/build-ptx.sh): FBP's back-projection. Its
// slices equal the CPU's within BackProjectTolerance (cuda_ops_test.go
// checks it on a GPU). Compile-checked, not yet run on a GPU.

//go:embed reconstruct.ptx
var reconstructPTX string

func init() {
	cudaOpsFor = func(be gpu.Backend) (Ops, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		if err := c.LoadModule("reconstruct.ptx", reconstructPTX); err != nil {
			return nil, true, fmt.Errorf("reconstruct: load the CUDA kernels: %w", err)
		}
		return cudaOps{c}, true, nil
	}
}

// cudaOps are the operations on a CUDA backend, whose module of
// reconstruction kernels is loaded.
type cudaOps struct{ c *gpu.CUDABackend }

// BackProject launches recon_backproject: a block per 16 x 16 pixels of
// a slice, grid z the slice.
func (g cudaOps) BackProject(dst, filtered, trig *gpu.Buffer, s BackProjectShape) error {
	if err := s.checkBuffers(g.c.CheckBuffer, dst, filtered, trig); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if s.Slices == 0 {
		return nil
	}
	if s.Slices > 65535 {
		return fmt.Errorf("cuda: back-projection: %d slices in one call, at most 65535", s.Slices)
	}
	d, f, tr := gpu.DevPtr(dst, 0), gpu.DevPtr(filtered, 0), gpu.DevPtr(trig, 0)
	angles, width, size := int32(s.Angles), int32(s.Width()), int32(s.Size)
	centre := s.Center + float64(s.Pad)
	r2 := s.maskR2()
	if math.IsInf(r2, 1) {
		r2 = -1
	}
	scale := float32(math.Pi / float64(2*s.Angles))
	grid := [3]int{(s.Size + reconTX - 1) / reconTX, (s.Size + reconTY - 1) / reconTY, s.Slices}
	return g.c.Launch("recon_backproject", grid, [3]int{reconTX, reconTY, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&f), unsafe.Pointer(&tr), unsafe.Pointer(&angles),
		unsafe.Pointer(&width), unsafe.Pointer(&size), unsafe.Pointer(&centre), unsafe.Pointer(&r2),
		unsafe.Pointer(&scale))
}
