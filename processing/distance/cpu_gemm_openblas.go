//go:build !noopenblas

package distance

// The CPU kernels' matrix products go to OpenBLAS through gonum's
// cgo binding: on this project's 2-core reference machine its dgemm is
// 5.5 times gonum's pure-Go Dgemm (106,000 vs 19,500 pairs/s for 200 x 40
// maps of 64³; /work/briefs/bench-distance.md). It is linked statically
// (libopenblas.a from Debian's libopenblas-dev), so binaries, the CUDA test
// binaries included, run on machines without OpenBLAS installed. Build
// with -tags noopenblas to use gonum's pure-Go BLAS instead. OpenBLAS,
// and the constructor below, are in every binary that links this package:
// the voxlab binary whatever its command, and this package's tests
// (TestOpenBLASStartsOneThread checks the constructor there).

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
// // gemmNT raises the count when a product runs. The variables are set
// // in the C environment only (Go and its child processes keep the one
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

// BLASName says which BLAS computes the matrix products on the CPU
// backend.
const BLASName = "OpenBLAS (static, via gonum.org/v1/netlib)"

var blasThreads struct {
	sync.Mutex
	n int
}

// gemmNT sets c (m x n, row stride ldc) = a (m x k, stride lda) · bᵀ
// (b: n x k, stride ldb) with OpenBLAS using workers threads.
func gemmNT(workers, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	// One product at a time: the thread count is OpenBLAS-global.
	blasThreads.Lock()
	defer blasThreads.Unlock()
	if blasThreads.n != workers {
		C.openblas_set_num_threads(C.int(workers))
		blasThreads.n = workers
	}
	netlib.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

// blasState returns OPENBLAS_NUM_THREADS as the C environment has it (""
// when unset) and the number of threads OpenBLAS uses now, for the test
// of the constructor.
func blasState() (env string, threads int) {
	name := C.CString("OPENBLAS_NUM_THREADS")
	defer C.free(unsafe.Pointer(name))
	if v := C.getenv(name); v != nil {
		env = C.GoString(v)
	}
	return env, int(C.openblas_get_num_threads())
}
