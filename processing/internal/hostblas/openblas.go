//go:build !noopenblas

package hostblas

// OpenBLAS, and the constructor below, are in every binary that links
// this package: the voxlab binary whatever its command, and the tests of
// the packages that import it (TestOpenBLASStartsOneThread checks the
// constructor).

// #cgo LDFLAGS: -l:libopenblas.a -lm -lpthread
// #include <stdlib.h>
// void openblas_set_num_threads(int num_threads);
// int openblas_get_num_threads(void);
//
// // OpenBLAS starts a thread per core from its own constructor, and its
// // idle threads spin in sched_yield for about 2^28 cycles before they
// // sleep: every voxlab process lost most of a core for its first tenth
// // of a second, a third of a short dezinging run, whether or not it
// // multiplied a matrix. This constructor runs before OpenBLAS's (a
// // lower priority number runs first) and starts it with one thread;
// // each product sets the count it was given. The variables are set in
// // the C environment only (Go and its child processes keep the one
// // they started with), and a value the user gave wins.
// __attribute__((constructor(101))) static void voxlabBLASEnv(void) {
// 	setenv("OPENBLAS_NUM_THREADS", "1", 0);
// }
import "C"

import (
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// Name says which BLAS computes the products.
const Name = "OpenBLAS (static, via gonum.org/v1/netlib)"

// Workspace is the host memory OpenBLAS holds for products on workers
// threads: a buffer of 32 MiB a thread (its BUFFER_SIZE on x86-64, for
// the packed panels of both operands), allocated at the first product
// and kept for the process. A bound: a product touches the part its
// shape packs (svd's 600 maps on two threads: about 60 MiB more peak RSS
// than gonum's Dsyrk).
func Workspace(workers int) int64 { return int64(max(workers, 1)) * 32 << 20 }

var threads struct {
	sync.Mutex
	n int
}

// with runs f under the lock with OpenBLAS on workers threads: the count
// is process-wide, so products run one at a time.
func with(workers int, f func(netlib.Implementation)) {
	workers = max(workers, 1)
	threads.Lock()
	defer threads.Unlock()
	if threads.n != workers {
		C.openblas_set_num_threads(C.int(workers))
		threads.n = workers
	}
	f(netlib.Implementation{})
}

// Dgemm is BLAS's dgemm, c = alpha·op(a)·op(b) + beta·c (row-major), on
// workers threads.
func Dgemm(workers int, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	with(workers, func(im netlib.Implementation) {
		im.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	})
}

// Dsyrk is BLAS's dsyrk, the ul triangle of c = alpha·a·aᵀ + beta·c (t
// NoTrans; aᵀ·a for Trans), row-major, on workers threads.
func Dsyrk(workers int, ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	with(workers, func(im netlib.Implementation) {
		im.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
	})
}

// state returns OPENBLAS_NUM_THREADS as the C environment has it (""
// when unset) and the number of threads OpenBLAS uses now, for the test
// of the constructor.
func state() (env string, threads int) {
	name := C.CString("OPENBLAS_NUM_THREADS")
	defer C.free(unsafe.Pointer(name))
	if v := C.getenv(name); v != nil {
		env = C.GoString(v)
	}
	return env, int(C.openblas_get_num_threads())
}
