package train

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
)

// Products computes a training step's matrix products: each
// convolution's forward product (patches · kernel), its kernel's
// gradient (patchesᵀ · dz) and its patches' gradient (dz · kernelᵀ), the
// step's three GEMMs per unit. Everything else of a step (im2col and
// col2im, batch normalisation, ReLU, pooling, the dense layer, the loss
// and Adam) runs on the CPU whatever the backend.
//
// The CPU's are the inference engine's MatMul (cpuProducts); the cuda
// build's (cuda_products.go) are cuBLAS's fp32 GEMM on the CUDA backend,
// each product's operands uploaded and its result downloaded, so a step
// runs on the CPU and the GPU in turn: compile-checked, not yet run on a
// GPU.
type Products interface {
	// MatMul sets c (m x n, row stride n) = a (m x k, row stride lda) ·
	// b (k x n, row-major). buf keeps the CPU engine's packed copies
	// from call to call (a device's products keep their own buffers).
	MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *classify.MatMulBuffers) error
	// Close frees what the products hold (device buffers, a cuBLAS
	// handle).
	Close() error
}

// cpuProducts are the inference engine's GEMM, every element one chain
// of fused multiply-adds over k in order.
type cpuProducts struct{}

func (cpuProducts) MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *classify.MatMulBuffers) error {
	classify.MatMul(m, n, k, a, lda, b, c, workers, buf)
	return nil
}

func (cpuProducts) Close() error { return nil }

// cudaProductsFor is set by the cuda build (cuda_products.go): the
// products on be when it is a CUDA backend (ok false when it is not).
var cudaProductsFor func(be gpu.Backend) (p Products, ok bool, err error)

// ProductsFor returns the products of backend be: the CPU engine's on
// the CPU backend, cuBLAS's on CUDA in the cuda build, else an error
// naming the backend.
func ProductsFor(be gpu.Backend) (Products, error) {
	return gpu.PickOps("train", be, func(*gpu.CPUBackend) Products { return cpuProducts{} }, cudaProductsFor)
}

// SetProducts makes the model's steps compute their products with p
// (nil: the CPU engine's, as a new model does). The model does not close
// p.
func (m *Model) SetProducts(p Products) {
	if p == nil {
		p = cpuProducts{}
	}
	m.stem.s.products = p
}

// matMul is the unit's product i (0 forward, 1 kernel gradient, 2
// patches' gradient) through the model's products; the first error of
// a step is kept in the scratch for Step to return.
func (u *unit) matMul(i, m, n, k int, a []float32, lda int, b, c []float32, workers int) {
	s := u.s
	if s.products == nil {
		classify.MatMul(m, n, k, a, lda, b, c, workers, &s.mm[i])
		return
	}
	if s.err != nil {
		return
	}
	if err := s.products.MatMul(m, n, k, a, lda, b, c, workers, &s.mm[i]); err != nil {
		s.err = fmt.Errorf("train: product %d x %d x %d on the device: %w", m, n, k, err)
	}
}

// The self-check of the products (gpu.RegisterSelfCheck): before a run
// trusts a backend other than the CPU, one product of fixed 37 x 53 and
// 53 x 29 matrices must agree with the CPU engine's within the
// difference two float32 sums of 53 terms in different orders can have:
// 2·k·2⁻²⁴·Σ|a||b| (the bound of cuda_products_test.go).
func init() { gpu.RegisterSelfCheck("train", selfCheck) }

// checkMatrices are the self-check's a (m x k) and b (k x n) and the
// bound on the difference of their products.
func checkMatrices() (m, n, k int, a, b []float32, tol float64) {
	m, n, k = 37, 29, 53
	a, b = make([]float32, m*k), make([]float32, k*n)
	for i := range a {
		a[i] = float32(math.Sin(0.37*float64(i)) + 0.1*math.Cos(3.1*float64(i)))
	}
	for i := range b {
		b[i] = float32(math.Cos(0.23*float64(i)) - 0.2*math.Sin(1.7*float64(i)))
	}
	return m, n, k, a, b, ProductTolerance(m, n, k, a, k, b)
}

// ProductTolerance is the largest difference two float32 products of a
// (m x k, row stride lda) and b (k x n) summed in different orders can
// have at any element: 2·k·2⁻²⁴·max over the elements of Σ|a||b|.
func ProductTolerance(m, n, k int, a []float32, lda int, b []float32) float64 {
	worst := 0.0
	for i := range m {
		for j := range n {
			s := 0.0
			for l := range k {
				s += math.Abs(float64(a[i*lda+l]) * float64(b[l*n+j]))
			}
			worst = math.Max(worst, s)
		}
	}
	return 2 * float64(k) / (1 << 24) * worst
}

func selfCheck(be gpu.Backend) error {
	p, err := ProductsFor(be)
	if err != nil {
		return err
	}
	defer p.Close()
	m, n, k, a, b, tol := checkMatrices()
	got := make([]float32, m*n)
	if err := gpu.Guard(func() error { return p.MatMul(m, n, k, a, k, b, got, 1, &classify.MatMulBuffers{}) }); err != nil {
		return err
	}
	want := make([]float32, m*n)
	classify.MatMul(m, n, k, a, k, b, want, 1, &classify.MatMulBuffers{})
	return gpu.CompareFloats("product", got, want, tol)
}
