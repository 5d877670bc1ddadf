//go:build !noopenblas

package hostblas

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestOpenBLASStartsOneThread: the C constructor of openblas.go runs
// before OpenBLAS's, so a process that links this package starts
// OpenBLAS with one thread unless the user set OPENBLAS_NUM_THREADS, whose
// value then wins. Each case runs in a child process (this test binary,
// which has not multiplied a matrix there), as OpenBLAS reads the variable
// once, at load.
func TestOpenBLASStartsOneThread(t *testing.T) {
	if os.Getenv("VOXLAB_BLAS_CHILD") == "1" {
		env, threads := state()
		fmt.Printf("blas: env=%q threads=%d\n", env, threads)
		return
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENBLAS_NUM_THREADS=") {
			base = append(base, kv)
		}
	}
	for _, c := range []struct{ user, want string }{
		{"", `blas: env="1" threads=1`},
		{"2", `blas: env="2" threads=`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenBLASStartsOneThread$", "-test.count=1")
		cmd.Env = append(base[:len(base):len(base)], "VOXLAB_BLAS_CHILD=1")
		if c.user != "" {
			cmd.Env = append(cmd.Env, "OPENBLAS_NUM_THREADS="+c.user)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child (OPENBLAS_NUM_THREADS=%q): %v\n%s", c.user, err, out)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("child with OPENBLAS_NUM_THREADS=%q printed\n%s\nwant %s", c.user, out, c.want)
		}
	}
}

// TestThreadCount: a product sets OpenBLAS's thread count to its
// workers (at least 1).
func TestThreadCount(t *testing.T) {
	c := make([]float64, 4)
	for _, workers := range []int{2, 1, 0} {
		Dgemm(workers, blas.NoTrans, blas.Trans, 2, 2, 2, 1, []float64{1, 2, 3, 4}, 2, []float64{1, 2, 3, 4}, 2, 0, c, 2)
		if _, n := state(); n != max(workers, 1) {
			t.Errorf("after a product with %d workers OpenBLAS has %d threads", workers, n)
		}
	}
}
