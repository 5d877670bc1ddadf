//go:build cuda

package train

import (
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/volume"
)

// The training step's products on CUDA: cuBLAS's GEMM in fp32 (no tensor
// cores, so the products differ from the CPU engine's only by the order
// of their float32 sums; ProductTolerance bounds it). Each product
// uploads its two operands and downloads its result: the activations stay
// on the host, where the rest of the step runs. Compile-checked, not yet
// run on a GPU.

func init() {
	cudaProductsFor = func(be gpu.Backend) (Products, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		b, err := gpu.NewBLAS(c)
		if err != nil {
			return nil, true, fmt.Errorf("train: %w", err)
		}
		return &cudaProducts{c: c, blas: b}, true, nil
	}
}

// cudaProducts holds a cuBLAS handle and the operands' device buffers,
// each grown to the largest product seen.
type cudaProducts struct {
	c       *gpu.CUDABackend
	blas    *gpu.BLAS
	a, b, r *gpu.Buffer
}

// grow makes *buf hold at least n bytes.
func (p *cudaProducts) grow(buf **gpu.Buffer, label string, n int64) error {
	if *buf != nil && (*buf).Len() >= n {
		return nil
	}
	if *buf != nil {
		p.c.Free(*buf)
		*buf = nil
	}
	b, err := p.c.Alloc(label, max(n, 4))
	if err != nil {
		return err
	}
	*buf = b
	return nil
}

func (p *cudaProducts) MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *classify.MatMulBuffers) error {
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 {
		clear(c[:m*n])
		return nil
	}
	na, nb, nc := (m-1)*lda+k, k*n, m*n
	if lda < k || len(a) < na || len(b) < nb || len(c) < nc {
		return fmt.Errorf("cuda products: %d x %d x %d (lda %d) with %d, %d and %d values", m, n, k, lda, len(a), len(b), len(c))
	}
	if err := errors.Join(p.grow(&p.a, "train product a", int64(na)*4), p.grow(&p.b, "train product b", int64(nb)*4),
		p.grow(&p.r, "train product c", int64(nc)*4)); err != nil {
		return err
	}
	if err := p.c.Upload(p.a, 0, volume.Bytes(a[:na])); err != nil {
		return err
	}
	if err := p.c.Upload(p.b, 0, volume.Bytes(b[:nb])); err != nil {
		return err
	}
	if err := p.blas.Gemm(gpu.GemmFP32, m, n, k, gpu.GemmOperand{Buf: p.a, Ld: lda}, gpu.GemmOperand{Buf: p.b, Ld: n},
		0, gpu.GemmOperand{Buf: p.r, Ld: n}); err != nil {
		return err
	}
	return p.c.Download(volume.Bytes(c[:nc]), p.r, 0)
}

func (p *cudaProducts) Close() error {
	err := p.blas.Close()
	for _, b := range []*gpu.Buffer{p.a, p.b, p.r} {
		if b != nil {
			p.c.Free(b)
		}
	}
	p.a, p.b, p.r = nil, nil, nil
	return err
}
