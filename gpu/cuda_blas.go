//go:build cuda

package gpu

// cuBLAS matrix products on the backend's compute stream, for pipelines
// whose kernels are matrix products (classification's convolutions as
// im2col + GEMM). Like Launch, a product waits for the uploads into the
// buffers it reads or writes, and later uploads into them wait for it.

// #cgo LDFLAGS: -lcublas
// #include <cublas_v2.h>
// #include <cuda.h>
//
// static int blasCreate(cublasHandle_t *h, void *stream) {
// 	if (cublasCreate(h) != CUBLAS_STATUS_SUCCESS) return -1;
// 	if (cublasSetStream(*h, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS) { cublasDestroy(*h); return -2; }
// 	return 0;
// }
//
// // rowMajorGemm sets C (m x n, row-major, ldc) = A (m x k, lda) · B (k x
// // n, ldb) + beta·C, A and B of type ab (CUDA_R_32F or CUDA_R_16F), C
// // float32, computed as compute says: cuBLAS is column-major, so it
// // computes Cᵀ = Bᵀ·Aᵀ.
// static int rowMajorGemm(cublasHandle_t h, int m, int n, int k, unsigned long long a, int lda,
// 		unsigned long long b, int ldb, int ab, float beta, unsigned long long c, int ldc, int compute) {
// 	float alpha = 1;
// 	cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
// 		(const void *)b, (cudaDataType)ab, ldb, (const void *)a, (cudaDataType)ab, lda, &beta,
// 		(void *)c, CUDA_R_32F, ldc,
// 		(cublasComputeType_t)compute, CUBLAS_GEMM_DEFAULT);
// 	return (int)s;
// }
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// GemmPrecision says how a product computes.
type GemmPrecision int

// The precisions of BLAS.Gemm.
const (
	// GemmFP32: float32 inputs, float32 products and sums (no tensor
	// cores).
	GemmFP32 GemmPrecision = iota
	// GemmTF32: float32 inputs rounded to TF32 (10-bit mantissa) for the
	// tensor cores, float32 sums.
	GemmTF32
	// GemmFP16: half-precision inputs (the buffers hold float16), float32
	// sums on the tensor cores.
	GemmFP16
)

// String names the precision as the CLI does.
func (p GemmPrecision) String() string { return [...]string{"fp32", "tf32", "fp16"}[p] }

// BLAS is a cuBLAS handle bound to a CUDA backend's compute stream.
type BLAS struct {
	c *CUDABackend
	h C.cublasHandle_t
}

// NewBLAS creates a cuBLAS handle on c's compute stream. Close it before
// the backend.
func NewBLAS(c *CUDABackend) (*BLAS, error) {
	b := &BLAS{c: c}
	err := c.do(func() error {
		if rc := C.blasCreate(&b.h, unsafe.Pointer(c.compute.C())); rc != 0 {
			return fmt.Errorf("cuda: cuBLAS handle: cublasCreate/cublasSetStream failed (%d): is libcublas installed?", rc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Close destroys the handle once the work queued with it has run.
func (b *BLAS) Close() error {
	if b == nil || b.h == nil {
		return nil
	}
	err := b.c.do(func() error {
		if err := b.c.compute.Synchronize(); err != nil {
			return cudaErr("cuStreamSynchronize", err)
		}
		C.cublasDestroy(b.h)
		return nil
	})
	b.h = nil
	return err
}

// GemmOperand is a matrix in a device buffer: rows of Ld elements from
// byte Off.
type GemmOperand struct {
	Buf *Buffer
	Off int64
	Ld  int
}

// Gemm sets c (m x n) = a (m x k) · b (k x n) + beta·c, row-major, on
// the compute stream: a and b hold float32 for GemmFP32 and GemmTF32,
// float16 for GemmFP16; c holds float32.
func (b *BLAS) Gemm(p GemmPrecision, m, n, k int, a, bm GemmOperand, beta float32, c GemmOperand) error {
	if b == nil || b.h == nil {
		return errors.New("cuda: Gemm on a closed cuBLAS handle")
	}
	if m == 0 || n == 0 {
		return nil
	}
	elem := int64(4)
	ab, compute := C.CUDA_R_32F, C.CUBLAS_COMPUTE_32F
	switch p {
	case GemmTF32:
		compute = C.CUBLAS_COMPUTE_32F_FAST_TF32
	case GemmFP16:
		ab, elem = C.CUDA_R_16F, 2
	}
	check := func(what string, o GemmOperand, rows, cols int, size int64) error {
		if o.Ld < cols || rows < 0 || o.Off < 0 {
			return fmt.Errorf("cuda: gemm %s: %d x %d with leading dimension %d", what, rows, cols, o.Ld)
		}
		need := o.Off + (int64(rows-1)*int64(o.Ld)+int64(cols))*size
		return b.c.CheckBuffer("gemm "+what, o.Buf, need)
	}
	if err := errors.Join(check("a", a, m, k, elem), check("b", bm, k, n, elem), check("c", c, m, n, 4)); err != nil {
		return err
	}
	b.c.mu.Lock()
	var used []*devBuf
	for _, o := range []GemmOperand{a, bm, c} {
		if d := b.c.byBuf[o.Buf]; d != nil {
			used = append(used, d)
		}
	}
	b.c.mu.Unlock()
	return b.c.do(func() error {
		for _, d := range used {
			if err := b.c.awaitCopies(d); err != nil {
				return err
			}
		}
		rc := C.rowMajorGemm(b.h, C.int(m), C.int(n), C.int(k),
			C.ulonglong(a.Buf.dev+uintptr(a.Off)), C.int(a.Ld),
			C.ulonglong(bm.Buf.dev+uintptr(bm.Off)), C.int(bm.Ld), C.int(ab), C.float(beta),
			C.ulonglong(c.Buf.dev+uintptr(c.Off)), C.int(c.Ld), C.int(compute))
		if rc != 0 {
			return fmt.Errorf("cuda: cublasGemmEx (%s, %d x %d x %d) failed with status %d", p, m, n, k, rc)
		}
		return b.c.markUsed(used)
	})
}
