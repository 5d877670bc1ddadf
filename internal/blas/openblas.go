//go:build !noopenblas

package blas

// OpenBLAS is linked statically (libopenblas.a from Debian's
// libopenblas-dev), so binaries, the CUDA test binaries included, run on
// machines without OpenBLAS installed. On this project's 2-core reference
// machine its dgemm is 5.5 times gonum's pure-Go Dgemm (distance: 106,000
// vs 19,500 pairs/s for 200 x 40 maps of 64³). OpenBLAS, and the
// constructor below, are in every binary that links this package: the
// voxlab binary whatever its command, and the tests of the packages that
// use it (TestOpenBLASStartsOneThread checks the constructor).

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
// // Dgemm raises the count when a product asks for more. The variables
// // are set in the C environment only (Go and its child processes keep
// // the one they started with), and a value the user gave wins.
// __attribute__((constructor(101))) static void voxlabBLASEnv(void) {
// 	setenv("OPENBLAS_NUM_THREADS", "1", 0);
// }
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// Name says which BLAS computes the matrix products.
const Name = "OpenBLAS (static, via gonum.org/v1/netlib)"

// setThreads sets OpenBLAS's thread count.
func setThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// DgemmNT sets c (m x n, row stride ldc) = a (m x k, stride lda) · bᵀ
// (b: n x k, stride ldb) with OpenBLAS using workers threads.
func DgemmNT(workers, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	defer threads.hold(workers)()
	netlib.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

// Sgemm1 sets c (m x n, row stride ldc) = a (m x k, stride lda) · b (k x
// n, stride ldb) + beta·c, row-major, with one OpenBLAS thread: callers
// run several at once, one per goroutine.
func Sgemm1(m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	defer threads.hold(1)()
	netlib.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

// state returns OPENBLAS_NUM_THREADS as the C environment has it (""
// when unset) and the number of threads OpenBLAS uses now, for the test
// of the constructor.
func state() (env string, n int) {
	name := C.CString("OPENBLAS_NUM_THREADS")
	defer C.free(unsafe.Pointer(name))
	if v := C.getenv(name); v != nil {
		env = C.GoString(v)
	}
	return env, int(C.openblas_get_num_threads())
}
