//go:build cuda

package classify

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// classifyPTX is classify.cu compiled by scripts/build-ptx.sh.
//
//go:embed classify.ptx
var classifyPTX string

func init() {
	cudaOpsFor = func(be gpu.Backend, opt OpsOptions) (Ops, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		if err := c.LoadModule("classify.ptx", classifyPTX); err != nil {
			return nil, true, fmt.Errorf("classify: load the CUDA kernels: %w", err)
		}
		prec := gpu.GemmFP32
		switch opt.Precision {
		case "tf32":
			prec = gpu.GemmTF32
		case "fp16":
			prec = gpu.GemmFP16
		}
		return &cudaNet{be: c, prec: prec}, true, nil
	}
	cudaWorkspace = func(s *Session) (perCube, fixed int64) {
		net := s.Net
		p1 := int64(resnet.Positions(net.Conv1.Out) * net.Conv1.Out[3])
		fixed = colBytes
		if s.Cfg.Precision == "fp16" {
			fixed += net.WeightBytes() / 2
		}
		return 4 * (p1 + int64(net.Features) + 2), fixed
	}
}

// colBytes bounds the im2col workspace: rows are taken in blocks that fit.
const colBytes = 256 << 20

// cudaConv is a convolution's parameters on the device.
type cudaConv struct {
	c *resnet.Conv
	// w and w16 are the byte offsets of the weights in the float32 and
	// half buffers; scale and shift those of the folded normalisation.
	w, w16       int64
	scale, shift int64
}

// cudaNet runs the network with cuBLAS products and the kernels of
// classify.cu.
type cudaNet struct {
	be    *gpu.CUDABackend
	blas  *gpu.BLAS
	prec  gpu.GemmPrecision
	net   *resnet.Net
	batch int
	convs map[*resnet.Conv]*cudaConv
	bufs  []*gpu.Buffer
	// weights holds every float32 parameter; w16 the convolution
	// weights in half precision (fp16 only).
	weights, w16                     *gpu.Buffer
	dense, bias                      int64
	x, y, t1, t2, s, stem, col, feat *gpu.Buffer
	probs                            *gpu.Buffer
	host                             []float32
}

func (e *cudaNet) alloc(label string, n int64) (*gpu.Buffer, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := e.be.Alloc(label, n)
	if err == nil {
		e.bufs = append(e.bufs, b)
	}
	return b, err
}

// Prepare uploads the parameters and allocates the activations.
func (e *cudaNet) Prepare(net *resnet.Net, batch int) error {
	e.Release()
	e.net, e.batch = net, batch
	var err error
	if e.blas, err = gpu.NewBLAS(e.be); err != nil {
		return err
	}
	// Lay the parameters out in one buffer.
	var all []float32
	e.convs = map[*resnet.Conv]*cudaConv{}
	var off16 int64
	for _, c := range net.Convs() {
		cc := &cudaConv{c: c, w: int64(4 * len(all)), w16: off16}
		off16 += 2 * int64(len(c.W))
		all = append(all, c.W...)
		cc.scale = int64(4 * len(all))
		all = append(all, c.Scale...)
		cc.shift = int64(4 * len(all))
		all = append(all, c.Shift...)
		e.convs[c] = cc
	}
	e.dense = int64(4 * len(all))
	all = append(all, net.Dense...)
	e.bias = int64(4 * len(all))
	all = append(all, net.Bias...)
	if e.weights, err = e.alloc("network weights", int64(4*len(all))); err != nil {
		return err
	}
	if err := e.be.Upload(e.weights, 0, float32Bytes(all)); err != nil {
		return err
	}
	if e.prec == gpu.GemmFP16 {
		if e.w16, err = e.alloc("network weights (half)", off16); err != nil {
			return err
		}
		for _, c := range net.Convs() {
			cc := e.convs[c]
			if err := e.toHalf(e.w16, cc.w16, e.weights, cc.w, int64(len(c.W))); err != nil {
				return err
			}
		}
	}
	x, t1, t2, s := activationSizes(net)
	p1 := resnet.Positions(net.Conv1.Out) * net.Conv1.Out[3]
	for _, a := range []struct {
		dst   **gpu.Buffer
		label string
		n     int
	}{
		{&e.x, "activations (block inputs)", batch * x}, {&e.y, "activations (block outputs)", batch * x},
		{&e.t1, "activations (first convolutions)", batch * t1}, {&e.t2, "activations (middle convolutions)", batch * t2},
		{&e.s, "activations (shortcuts)", batch * s}, {&e.stem, "conv1 output", batch * p1},
		{&e.feat, "features", batch * net.Features}, {&e.probs, "probabilities", batch * 2},
	} {
		if *a.dst, err = e.alloc(a.label, 4*int64(a.n)); err != nil {
			e.Release()
			return err
		}
	}
	if e.col, err = e.alloc("im2col workspace", colBytes); err != nil {
		e.Release()
		return err
	}
	e.host = make([]float32, 2*batch)
	return nil
}

// Release frees the buffers and the cuBLAS handle.
func (e *cudaNet) Release() {
	if e.blas != nil {
		e.blas.Close()
		e.blas = nil
	}
	for _, b := range e.bufs {
		e.be.Free(b)
	}
	e.bufs = nil
}

const threads = 256

func blocks(n int64) int { return int((n + threads - 1) / threads) }

func (e *cudaNet) toHalf(dst *gpu.Buffer, dstOff int64, src *gpu.Buffer, srcOff, n int64) error {
	d, s := gpu.DevPtr(dst, dstOff), gpu.DevPtr(src, srcOff)
	return e.be.Launch("classify_to_half", [3]int{blocks(n), 1, 1}, [3]int{threads, 1, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&n))
}

// Forward runs the network on n cubes; see Ops.
func (e *cudaNet) Forward(dst []float32, src *gpu.Buffer, n int) error {
	if err := checkForward(e.net, e.batch, dst, src, n); err != nil {
		return err
	}
	if err := e.be.CheckBuffer("cubes", src, int64(4*n*CubeLen(e.net.Arch))); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	net := e.net
	if err := e.conv(net.Conv1, src, e.stem, n, nil, true); err != nil {
		return err
	}
	c1 := net.Conv1.Out
	if err := e.maxPool(n, c1); err != nil {
		return err
	}
	x, y := e.x, e.y
	for i := range net.Blocks {
		b := &net.Blocks[i]
		if err := e.conv(b.A, x, e.t1, n, nil, true); err != nil {
			return err
		}
		short := x
		if b.Shortcut != nil {
			if err := e.conv(b.Shortcut, x, e.s, n, nil, false); err != nil {
				return err
			}
			short = e.s
		}
		var err error
		if b.C != nil {
			if err = e.conv(b.B, e.t1, e.t2, n, nil, true); err == nil {
				err = e.conv(b.C, e.t2, y, n, short, true)
			}
		} else {
			err = e.conv(b.B, e.t1, y, n, short, true)
		}
		if err != nil {
			return err
		}
		x, y = y, x
	}
	last := net.Blocks[len(net.Blocks)-1].Last().Out
	if err := e.head(x, n, resnet.Positions(last)); err != nil {
		return err
	}
	if err := e.be.Download(float32Bytes(e.host[:2*n]), e.probs, 0); err != nil {
		return err
	}
	copy(dst, e.host[:2*n])
	return nil
}

// conv runs convolution c over n cubes of in into out: im2col blocks
// into the workspace (the input itself for a 1x1x1 convolution of stride
// 1 in float32), a cuBLAS product, the epilogue.
func (e *cudaNet) conv(c *resnet.Conv, in, out *gpu.Buffer, n int, res *gpu.Buffer, relu bool) error {
	cc := e.convs[c]
	k, cout := c.K(), c.Out[3]
	total := n * resnet.Positions(c.Out)
	prec := e.prec
	if prec == gpu.GemmFP16 && c == e.net.Conv1 {
		// conv1 reads the raw data: 16-bit grey levels pass half
		// precision's largest value (65504). It stays in float32.
		prec = gpu.GemmFP32
	}
	elem := 4
	wb, woff := e.weights, cc.w
	if prec == gpu.GemmFP16 {
		elem, wb, woff = 2, e.w16, cc.w16
	}
	direct := c.Pointwise() && c.Stride == [3]int{1, 1, 1} && prec != gpu.GemmFP16
	rows := total
	if !direct {
		rows = min(total, colBytes/(elem*k))
	}
	for r0 := 0; r0 < total; r0 += rows {
		m := min(rows, total-r0)
		a := gpu.GemmOperand{Buf: in, Off: int64(4 * r0 * k), Ld: k}
		if !direct {
			if err := e.im2col(c, in, r0, m, prec == gpu.GemmFP16); err != nil {
				return err
			}
			a = gpu.GemmOperand{Buf: e.col, Ld: k}
		}
		o := gpu.GemmOperand{Buf: out, Off: int64(4 * r0 * cout), Ld: cout}
		if err := e.blas.Gemm(prec, m, cout, k, a, gpu.GemmOperand{Buf: wb, Off: woff, Ld: cout}, 0, o); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		if err := e.epilogue(cc, out, res, r0, m, relu); err != nil {
			return err
		}
	}
	return nil
}

func (e *cudaNet) im2col(c *resnet.Conv, in *gpu.Buffer, r0, rows int, toHalf bool) error {
	d, d16, src := gpu.DevPtr(e.col, 0), gpu.DevPtr(e.col, 0), gpu.DevPtr(in, 0)
	half := int32(0)
	if toHalf {
		half = 1
	}
	args := []int32{int32(r0), int32(rows), int32(c.In[0]), int32(c.In[1]), int32(c.In[2]), int32(c.In[3]),
		int32(c.Out[0]), int32(c.Out[1]), int32(c.Out[2]), int32(c.Kernel[0]), int32(c.Kernel[1]), int32(c.Kernel[2]),
		int32(c.Stride[0]), int32(c.Stride[1]), int32(c.Stride[2]), int32(c.Pad[0]), int32(c.Pad[1]), int32(c.Pad[2]), half}
	ptrs := []unsafe.Pointer{unsafe.Pointer(&d), unsafe.Pointer(&d16), unsafe.Pointer(&src)}
	for i := range args {
		ptrs = append(ptrs, unsafe.Pointer(&args[i]))
	}
	return e.be.Launch("classify_im2col", [3]int{blocks(int64(rows) * int64(c.K())), 1, 1}, [3]int{threads, 1, 1}, 0, ptrs...)
}

func (e *cudaNet) epilogue(cc *cudaConv, out, res *gpu.Buffer, r0, rows int, relu bool) error {
	c := cc.c
	o := gpu.DevPtr(out, int64(4*r0*c.Out[3]))
	sc, sh := gpu.DevPtr(e.weights, cc.scale), gpu.DevPtr(e.weights, cc.shift)
	var r uintptr
	if res != nil {
		r = gpu.DevPtr(res, int64(4*r0*c.Out[3]))
	}
	a := []int32{int32(r0), int32(rows), int32(c.Out[3]), int32(c.Out[2]), 0}
	if relu {
		a[4] = 1
	}
	return e.be.Launch("classify_epilogue", [3]int{blocks(int64(rows) * int64(c.Out[3])), 1, 1}, [3]int{threads, 1, 1}, 0,
		unsafe.Pointer(&o), unsafe.Pointer(&sc), unsafe.Pointer(&sh), unsafe.Pointer(&r),
		unsafe.Pointer(&a[0]), unsafe.Pointer(&a[1]), unsafe.Pointer(&a[2]), unsafe.Pointer(&a[3]), unsafe.Pointer(&a[4]))
}

func (e *cudaNet) maxPool(n int, in [4]int) error {
	net := e.net
	d, s := gpu.DevPtr(e.x, 0), gpu.DevPtr(e.stem, 0)
	o, k, st := net.PoolOut, net.PoolKernel, net.PoolStride
	a := []int32{int32(n), int32(in[0]), int32(in[1]), int32(in[2]), int32(in[3]), int32(o[0]), int32(o[1]), int32(o[2]),
		int32(k[0]), int32(k[1]), int32(k[2]), int32(st[0]), int32(st[1]), int32(st[2])}
	ptrs := []unsafe.Pointer{unsafe.Pointer(&d), unsafe.Pointer(&s)}
	for i := range a {
		ptrs = append(ptrs, unsafe.Pointer(&a[i]))
	}
	return e.be.Launch("classify_maxpool", [3]int{blocks(int64(n) * int64(resnet.Positions(o)*o[3])), 1, 1}, [3]int{threads, 1, 1}, 0, ptrs...)
}

func (e *cudaNet) head(x *gpu.Buffer, n, positions int) error {
	f, xs := gpu.DevPtr(e.feat, 0), gpu.DevPtr(x, 0)
	nn, p, nf := int32(n), int32(positions), int32(e.net.Features)
	if err := e.be.Launch("classify_gap", [3]int{blocks(int64(n) * int64(nf)), 1, 1}, [3]int{threads, 1, 1}, 0,
		unsafe.Pointer(&f), unsafe.Pointer(&xs), unsafe.Pointer(&nn), unsafe.Pointer(&p), unsafe.Pointer(&nf)); err != nil {
		return err
	}
	pr, k, b := gpu.DevPtr(e.probs, 0), gpu.DevPtr(e.weights, e.dense), gpu.DevPtr(e.weights, e.bias)
	return e.be.Launch("classify_dense", [3]int{blocks(int64(n)), 1, 1}, [3]int{threads, 1, 1}, 0,
		unsafe.Pointer(&pr), unsafe.Pointer(&f), unsafe.Pointer(&k), unsafe.Pointer(&b), unsafe.Pointer(&nn), unsafe.Pointer(&nf))
}
