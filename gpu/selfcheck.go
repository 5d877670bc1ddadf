package gpu

import (
	"fmt"
	"math"
	"sync"
)

// A pipeline's device kernels are trusted only after they have agreed
// with its CPU kernels on its own backend: each pipeline registers a
// SelfCheck (RegisterSelfCheck), which runs every one of its ops once on
// a small fixed input through the backend's ops and through the CPU's and
// compares the results within the tolerance of the pipeline's parity
// tests. Verify runs it on the first use of a pipeline on a kind of
// backend in a process and remembers the outcome; the caller (the
// generic path of every pipeline, processing/pipeline's Device.Checked)
// runs a pipeline whose check failed on the CPU, with a warning.

// SelfCheck compares a pipeline's ops on be with its CPU ops: nil when
// they agree, a *Mismatch naming the op and the difference when one does
// not, or the error an op returned.
type SelfCheck func(be Backend) error

// Mismatch is an op whose result on a backend differs from the CPU's on
// the self-check's input.
type Mismatch struct {
	// Op names the operation ("median uint16", "gram").
	Op string
	// Diff says how the results differ ("value 0 where the CPU has 7 at
	// element 12 of 693; tolerance: bit for bit").
	Diff string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("%s differs from the CPU's: %s", m.Op, m.Diff)
}

// SelfCheckError is a failed Verify: the pipeline, the backend, and the
// mismatch, error or panic that failed it.
type SelfCheckError struct {
	Pipeline, Backend string
	Err               error
}

func (e *SelfCheckError) Error() string {
	return fmt.Sprintf("%s: the %s kernels failed their self-check against the CPU: %v", e.Pipeline, e.Backend, e.Err)
}

func (e *SelfCheckError) Unwrap() error { return e.Err }

var selfChecks = struct {
	sync.Mutex
	checks map[string]SelfCheck
	// done holds the outcome per pipeline and kind of backend.
	done map[string]error
}{checks: map[string]SelfCheck{}, done: map[string]error{}}

// RegisterSelfCheck sets pipeline's self-check (from its package's init).
// Registering a second check for a pipeline replaces the first and
// forgets the outcomes remembered for it.
func RegisterSelfCheck(pipeline string, check SelfCheck) {
	selfChecks.Lock()
	defer selfChecks.Unlock()
	selfChecks.checks[pipeline] = check
	for k := range selfChecks.done {
		if len(k) > len(pipeline) && k[:len(pipeline)+1] == pipeline+"\x00" {
			delete(selfChecks.done, k)
		}
	}
}

// Verify runs pipeline's self-check on be the first time the pipeline is
// used on that kind of backend (its Go type and Name) in this process,
// and returns the outcome of that first run: nil when the ops agree with
// the CPU's, else a *SelfCheckError wrapping the *Mismatch, the error an
// op returned, or the panic raised inside the check. The CPU backend,
// and a pipeline with no self-check, pass without a check.
func Verify(pipeline string, be Backend) error {
	if _, ok := be.(*CPUBackend); ok || be == nil {
		return nil
	}
	selfChecks.Lock()
	defer selfChecks.Unlock()
	check := selfChecks.checks[pipeline]
	if check == nil {
		return nil
	}
	key := fmt.Sprintf("%s\x00%T\x00%s", pipeline, be, be.Name())
	if err, ok := selfChecks.done[key]; ok {
		return err
	}
	err := runSelfCheck(check, be)
	if err != nil {
		err = &SelfCheckError{Pipeline: pipeline, Backend: be.Name(), Err: err}
	}
	selfChecks.done[key] = err
	return err
}

// runSelfCheck runs check on be, turning a panic into an error, and
// waits for the device so that an asynchronous error counts too.
func runSelfCheck(check SelfCheck, be Backend) error {
	return Guard(func() error {
		if err := check(be); err != nil {
			return err
		}
		return be.Sync()
	})
}

// Guard runs fn and returns its error, or the panic it raised as an
// error ("panic: …"): a self-check runs each op under it, so that the
// panic of an op names the op.
func Guard(fn func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("panic: %v", x)
		}
	}()
	return fn()
}

// CompareBits returns a *Mismatch for op unless got and want hold the
// same bytes, naming the first element (of size elem bytes) that
// differs.
func CompareBits(op string, got, want []byte, elem int) error {
	if len(got) != len(want) {
		return &Mismatch{Op: op, Diff: fmt.Sprintf("%d bytes where the CPU gives %d", len(got), len(want))}
	}
	for i := range got {
		if got[i] != want[i] {
			e := i / elem
			n := len(got) / elem
			differ := 0
			for j := 0; j < n; j++ {
				if string(got[j*elem:(j+1)*elem]) != string(want[j*elem:(j+1)*elem]) {
					differ++
				}
			}
			return &Mismatch{Op: op, Diff: fmt.Sprintf("%d of %d elements differ, the first at element %d (bytes %x where the CPU has %x); tolerance: bit for bit",
				differ, n, e, got[e*elem:(e+1)*elem], want[e*elem:(e+1)*elem])}
		}
	}
	return nil
}

// CompareFloats returns a *Mismatch for op when some |got − want| is
// above tol (a NaN on one side only counts as above), naming the largest
// difference and where it is.
func CompareFloats[T float32 | float64](op string, got, want []T, tol float64) error {
	return compareFloats(op, got, want, func(float64) float64 { return tol }, fmt.Sprint(tol))
}

// CompareRelative is CompareFloats with the tolerance rel·max(1, |want|)
// at each value.
func CompareRelative[T float32 | float64](op string, got, want []T, rel float64) error {
	return compareFloats(op, got, want, func(w float64) float64 { return rel * math.Max(1, math.Abs(w)) }, fmt.Sprintf("%g relative", rel))
}

func compareFloats[T float32 | float64](op string, got, want []T, tol func(want float64) float64, says string) error {
	if len(got) != len(want) {
		return &Mismatch{Op: op, Diff: fmt.Sprintf("%d values where the CPU gives %d", len(got), len(want))}
	}
	worst, at, over := 0.0, -1, 0
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) && math.IsNaN(w) {
			continue
		}
		d := math.Abs(g - w)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if d > tol(w) {
			over++
			if d > worst || at < 0 {
				worst, at = d, i
			}
		}
	}
	if at < 0 {
		return nil
	}
	return &Mismatch{Op: op, Diff: fmt.Sprintf("largest difference %.3g at value %d (%g where the CPU has %g), %d of %d values beyond the tolerance %s",
		worst, at, float64(got[at]), float64(want[at]), over, len(got), says)}
}

// CheckBuffers are the device buffers of a self-check: each call
// allocates, uploads or downloads on its backend, the first error sticks
// (later calls do nothing and return empty results), and Free releases
// every buffer.
type CheckBuffers struct {
	be   Backend
	bufs []*Buffer
	err  error
}

// NewCheckBuffers returns the check buffers of be.
func NewCheckBuffers(be Backend) *CheckBuffers { return &CheckBuffers{be: be} }

// Upload returns a buffer holding data.
func (c *CheckBuffers) Upload(label string, data []byte) *Buffer {
	b := c.Zero(label, int64(len(data)))
	if c.err == nil && len(data) > 0 {
		c.err = c.be.Upload(b, 0, data)
	}
	return b
}

// Zero returns a zeroed buffer of n bytes.
func (c *CheckBuffers) Zero(label string, n int64) *Buffer {
	if c.err != nil {
		return nil
	}
	b, err := c.be.Alloc("self-check "+label, n)
	if err != nil {
		c.err = err
		return nil
	}
	c.bufs = append(c.bufs, b)
	return b
}

// Download returns b's bytes.
func (c *CheckBuffers) Download(b *Buffer) []byte {
	if c.err != nil || b == nil {
		return nil
	}
	out := make([]byte, b.Len())
	c.err = c.be.Download(out, b, 0)
	return out
}

// Fail records err (the error of an op) unless an error is recorded.
func (c *CheckBuffers) Fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Err returns the first error.
func (c *CheckBuffers) Err() error { return c.err }

// Free releases every buffer.
func (c *CheckBuffers) Free() {
	for _, b := range c.bufs {
		c.be.Free(b)
	}
	c.bufs = nil
}
