package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/demo"
)

// heldRun is voxlab running in a child process (the test binary, see
// sigintEnv), held in the middle of its job (sigintHoldEnv) with its
// temporary output on disk until a signal comes.
type heldRun struct {
	t     *testing.T
	cmd   *exec.Cmd
	mu    sync.Mutex
	out   strings.Builder
	held  chan struct{}
	ended chan struct{}
	err   error
}

// holdRun starts voxlab with args and waits until its job is held.
func holdRun(t *testing.T, args ...string) *heldRun {
	t.Helper()
	r := &heldRun{t: t, held: make(chan struct{}), ended: make(chan struct{})}
	r.cmd = exec.Command(os.Args[0], "-test.run=^$")
	r.cmd.Env = childEnv(t.TempDir(), sigintEnv+"="+strings.Join(args, "\t"), sigintHoldEnv+"=1")
	pr, pw := io.Pipe()
	r.cmd.Stdout, r.cmd.Stderr = pw, pw
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		once := sync.OnceFunc(func() { close(r.held) })
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			if strings.Contains(sc.Text(), holdMarker) {
				once()
			}
		}
	}()
	go func() {
		r.err = r.cmd.Wait()
		pw.Close()
		<-scanned
		close(r.ended)
	}()
	select {
	case <-r.held:
	case <-r.ended:
		t.Fatalf("voxlab %q ended before its job was held: %v\n%s", args, r.err, r.output())
	case <-time.After(60 * time.Second):
		r.cmd.Process.Kill()
		t.Fatalf("voxlab %q: its job was not held within 60 s\n%s", args, r.output())
	}
	return r
}

func (r *heldRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// stop sends sig and waits for the process to end; it returns the exit
// code (-1 when a signal ended it) and the signal that ended it.
func (r *heldRun) stop(sig syscall.Signal) (int, syscall.Signal) {
	r.t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatal(err)
	}
	select {
	case <-r.ended:
	case <-time.After(60 * time.Second):
		r.cmd.Process.Kill()
		r.t.Fatalf("voxlab did not end within 60 s of %v\n%s", sig, r.output())
	}
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			return -1, ws.Signal()
		}
		return ee.ExitCode(), 0
	}
	return 0, 0
}

// temporaries lists the hidden temporaries of out beside it.
func temporaries(t *testing.T, out string) []string {
	t.Helper()
	var tmp []string
	for _, n := range onlyFiles(t, filepath.Dir(out)) {
		if strings.HasPrefix(n, "."+filepath.Base(out)+".") {
			tmp = append(tmp, n)
		}
	}
	return tmp
}

// TestHangupLeavesNoPartialOutput: SIGHUP (a closed terminal or dropped
// ssh session) stops a run as Ctrl-C does, removing its temporary output
// and exiting 1, instead of killing the process with its temporary file
// left behind.
func TestHangupLeavesNoPartialOutput(t *testing.T) {
	dir := writeDemo(t)
	for _, out := range []string{filepath.Join(dir, "out.h5"), filepath.Join(dir, "out.zarr")} {
		r := holdRun(t, "dezing", filepath.Join(dir, demo.TomoScan), out, "--backend", "cpu")
		if tmp := temporaries(t, out); len(tmp) != 1 {
			t.Fatalf("the held run has %v beside %s, want its temporary", tmp, out)
		}
		code, sig := r.stop(syscall.SIGHUP)
		if code != 1 || !strings.Contains(r.output(), "cancelled; no output was written") {
			t.Errorf("%s: SIGHUP: exit %d (signal %v):\n%s", out, code, sig, r.output())
		}
		if tmp := temporaries(t, out); len(tmp) != 0 {
			t.Errorf("SIGHUP left %v", tmp)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("SIGHUP left %s (%v)", out, err)
		}
	}
}

// TestRerunRemovesKilledRunsParts: a run killed with SIGKILL (which no
// process can catch) leaves its temporary output (an HDF5 file, a Zarr
// store, a distance OUT_DIR); the next run of the same output removes
// it, and leaves alone the temporary of a run that is still going.
func TestRerunRemovesKilledRunsParts(t *testing.T) {
	dir := writeDemo(t)
	scan := filepath.Join(dir, demo.TomoScan)
	gt, sub := filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted)
	for _, tc := range []struct {
		out  string
		args func(out string) []string
	}{
		{filepath.Join(dir, "out.h5"), func(out string) []string { return []string{"dezing", scan, out} }},
		{filepath.Join(dir, "out.zarr"), func(out string) []string { return []string{"dezing", scan, out} }},
		{filepath.Join(dir, "dist"), func(out string) []string { return []string{"distance", gt, sub, out, "--voxel-size", "2"} }},
	} {
		args := append(tc.args(tc.out), "--backend", "cpu")
		killed := holdRun(t, args...)
		left := temporaries(t, tc.out)
		if len(left) != 1 {
			t.Fatalf("the held run has %v beside %s, want its temporary", left, tc.out)
		}
		if _, sig := killed.stop(syscall.SIGKILL); sig != syscall.SIGKILL {
			t.Fatalf("the run was not killed: signal %v", sig)
		}
		if tmp := temporaries(t, tc.out); !slices.Equal(tmp, left) {
			t.Fatalf("after kill -9: %v, want %v", tmp, left)
		}
		mustRun(t, append(args, "--quiet")...)
		if tmp := temporaries(t, tc.out); len(tmp) != 0 {
			t.Errorf("%s: the rerun left the killed run's %v", tc.out, tmp)
		}
		// A run still going, whose temporary the rerun must not touch.
		live := holdRun(t, args...)
		var mine []string
		for _, n := range temporaries(t, tc.out) {
			if strings.Contains(n, fmt.Sprintf(".part-%d-", live.cmd.Process.Pid)) {
				mine = append(mine, n)
			}
		}
		if len(mine) != 1 {
			t.Fatalf("the live run's temporary is not named after its pid %d: %v", live.cmd.Process.Pid, temporaries(t, tc.out))
		}
		mustRun(t, append(args, "--quiet")...)
		if tmp := temporaries(t, tc.out); !slices.Equal(tmp, mine) {
			t.Errorf("%s: after the rerun: %v, want only the live run's %v", tc.out, tmp, mine)
		}
		if _, err := os.Stat(tc.out); err != nil {
			t.Errorf("the rerun wrote no %s: %v", tc.out, err)
		}
		if code, _ := live.stop(syscall.SIGINT); code != 1 {
			t.Errorf("the live run, interrupted: exit %d\n%s", code, live.output())
		}
		if tmp := temporaries(t, tc.out); len(tmp) != 0 {
			t.Errorf("%s: at the end: %v", tc.out, tmp)
		}
	}
}
