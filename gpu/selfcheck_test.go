package gpu

import (
	"errors"
	"strings"
	"testing"
)

// checkedBackend is a backend other than the CPU, named for the test.
type checkedBackend struct {
	*CPUBackend
	name string
}

func (b checkedBackend) Name() string { return b.name }

// TestVerifyRunsOncePerKindOfBackend: the check runs on the first use of
// a pipeline on a kind of backend and its outcome is remembered; the CPU
// backend and a pipeline without a check are not checked; a failure is a
// SelfCheckError naming the pipeline and the backend, wrapping what
// failed, a panic included.
func TestVerifyRunsOncePerKindOfBackend(t *testing.T) {
	calls := 0
	RegisterSelfCheck("selfcheck-test", func(be Backend) error {
		calls++
		if be.Name() == "bad" {
			return &Mismatch{Op: "sum", Diff: "3 where the CPU has 2"}
		}
		if be.Name() == "panics" {
			var m map[string]int
			m["x"] = 1
		}
		return nil
	})
	if err := Verify("selfcheck-test", NewCPU()); err != nil || calls != 0 {
		t.Fatalf("CPU backend: %v after %d calls, want no check", err, calls)
	}
	if err := Verify("no-such-pipeline", checkedBackend{NewCPU(), "good"}); err != nil {
		t.Fatalf("a pipeline without a check: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := Verify("selfcheck-test", checkedBackend{NewCPU(), "good"}); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("two uses of a good backend ran the check %d times, want 1", calls)
	}
	err := Verify("selfcheck-test", checkedBackend{NewCPU(), "bad"})
	var se *SelfCheckError
	var m *Mismatch
	if !errors.As(err, &se) || !errors.As(err, &m) || m.Op != "sum" ||
		err.Error() != "selfcheck-test: the bad kernels failed their self-check against the CPU: sum differs from the CPU's: 3 where the CPU has 2" {
		t.Errorf("bad backend: %v", err)
	}
	if again := Verify("selfcheck-test", checkedBackend{NewCPU(), "bad"}); again != err || calls != 2 {
		t.Errorf("the second use of a bad backend: %v after %d calls, want the first outcome, not a new check", again, calls)
	}
	if err := Verify("selfcheck-test", checkedBackend{NewCPU(), "panics"}); err == nil || !strings.Contains(err.Error(), "panic: assignment to entry in nil map") {
		t.Errorf("a panicking check: %v", err)
	}
}

func TestCompareBitsAndFloats(t *testing.T) {
	if err := CompareBits("op", []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4}, 2); err != nil {
		t.Errorf("equal bytes: %v", err)
	}
	err := CompareBits("median", []byte{1, 2, 3, 5, 7, 7}, []byte{1, 2, 3, 4, 7, 8}, 2)
	if err == nil || err.Error() != "median differs from the CPU's: 2 of 3 elements differ, the first at element 1 (bytes 0305 where the CPU has 0304); tolerance: bit for bit" {
		t.Errorf("different bytes: %v", err)
	}
	if err := CompareFloats("p", []float32{1, 2.0001}, []float32{1, 2}, 1e-3); err != nil {
		t.Errorf("within the tolerance: %v", err)
	}
	nan := float32(0)
	nan = nan / nan
	if err := CompareFloats("p", []float32{nan, 1}, []float32{nan, 1}, 0); err != nil {
		t.Errorf("NaN on both sides: %v", err)
	}
	err = CompareFloats("probabilities", []float64{0.5, 0.9, nan64()}, []float64{0.5, 0.1, 0.2}, 1e-3)
	if err == nil || !strings.Contains(err.Error(), "probabilities differs from the CPU's: largest difference +Inf at value 2 (NaN where the CPU has 0.2), 2 of 3 values beyond the tolerance 0.001") {
		t.Errorf("beyond the tolerance: %v", err)
	}
}

func nan64() float64 { z := 0.0; return z / z }
