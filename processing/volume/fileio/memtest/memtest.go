// Package memtest runs part of a test in a child process under a
// memory limit and reports the child's peak resident memory, so that a
// test can assert that a reader's memory stays bounded on hostile input
// (a device that never ends, a line of hundreds of MB) without the old,
// unbounded code taking the test binary or the machine down with it:
// under the limit, a runaway allocation kills only the child, and the
// parent test fails saying so.
//
// Only tests import it.
package memtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const envChild = "VOXLAB_MEMTEST_CHILD"

// InChild reports whether this process is the child Run started for
// test t. In the child it also caps the address space at extra bytes
// above what the process has mapped now, so that a runaway allocation
// fails there.
func InChild(t testing.TB, extra int64) bool {
	if os.Getenv(envChild) != t.Name() {
		return false
	}
	vm := vmSize()
	lim := uint64(vm + extra)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	return true
}

// Result is what a child run did.
type Result struct {
	// Output is the child's standard output and error.
	Output string
	// PeakRSS is the child's peak resident memory in bytes (getrusage's
	// ru_maxrss).
	PeakRSS int64
	// Err is the child's exit error (nil when it passed).
	Err error
}

// hang is how long a child may run before Run kills it: the deadline
// only catches a child that hangs (the old code blocking on a FIFO);
// a child that ends does so in seconds.
const hang = 5 * time.Minute

// Run runs test t again in a child process (the same test binary,
// -test.run naming t alone), where InChild is true, and returns what it
// did. The child inherits the environment, and the working directory.
// A child still running after 5 minutes is killed, and Err says it hung.
func Run(t testing.TB) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	var parts []string
	for _, p := range strings.Split(t.Name(), "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envChild+"="+t.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := Result{Output: out.String(), Err: err}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("the child hung: killed after %v", hang)
	}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSS = int64(ru.Maxrss) << 10 // KiB on Linux
		}
	}
	if err == nil && !strings.Contains(r.Output, "--- PASS") {
		r.Err = fmt.Errorf("the child ran no test:\n%s", r.Output)
	}
	return r
}

// vmSize returns the process's mapped address space in bytes (VmSize of
// /proc/self/status).
func vmSize() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

// Bound returns a peak-RSS bound of n bytes for a child run, scaled up
// under the race detector (whose shadow memory multiplies what the
// program touches); the address-space limit still stops runaway code.
func Bound(n int64) int64 { return n * raceFactor }
