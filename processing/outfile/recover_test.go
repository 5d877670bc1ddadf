package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The crash tests run this test binary as a writer that dies by SIGKILL
// at a point of its commit (crashPoint), as kill -9 or a power cut would
// leave it: no deferred cleanup runs. crashEnv holds "ACTION\tPOINT\tTARGET".
const (
	crashEnv         = "VOXLAB_OUTFILE_CRASH"
	crashNoExchange  = "VOXLAB_OUTFILE_NO_EXCHANGE"
	crashWriteMarker = "new"
)

func init() {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		return
	}
	f := strings.Split(spec, "\t")
	action, point, target := f[0], f[1], f[2]
	if os.Getenv(crashNoExchange) != "" {
		exchange = func(a, b string) error { return errExchange }
	}
	crashPoint = func(p string) {
		if p == point {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
	if err := crashWriter(action, target); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0) // the point was never reached
}

// crashWriter writes target as a rerun would: "dir" replaces a folder
// holding one file, "files" commits two files (target and target.xml)
// together, "file" writes one and dies before its commit.
func crashWriter(action, target string) error {
	switch action {
	case "dir":
		d, err := ReplaceDir(target, func(string) bool { return true })
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d.Path, "data"), []byte(crashWriteMarker), 0o644); err != nil {
			return err
		}
		return d.Commit()
	case "files":
		var files []*File
		for _, p := range []string{target, target + ".xml"} {
			f, err := Create(p)
			if err != nil {
				return err
			}
			io.WriteString(f, crashWriteMarker)
			files = append(files, f)
		}
		return CommitAll(files...)
	case "file":
		f, err := Create(target)
		if err != nil {
			return err
		}
		io.WriteString(f, crashWriteMarker)
		f.Sync()
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return fmt.Errorf("unknown action %q", action)
}

// crash runs a writer in a child process that SIGKILLs itself at point,
// and checks that it died so.
func crash(t *testing.T, action, point, target string, noExchange bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+action+"\t"+point+"\t"+target)
	if noExchange {
		cmd.Env = append(cmd.Env, crashNoExchange+"=1")
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer was not killed at %s: %v\n%s", point, err, out)
	}
}

// hidden lists the hidden entries of dir.
func hidden(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A folder replaced by exchange holds the old store or the new one at
// every instant: killed right after the exchange, the target holds the
// new one, and the old one (in the dead writer's temporary) is removed
// by the next run.
func TestReplaceDirKilledAfterExchange(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out.zarr")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "data"), []byte("old"), 0o644)
	if err := exchange(parent, parent); errors.Is(err, errExchange) {
		t.Skipf("the file system of %s cannot exchange folders atomically (the fallback is TestReplaceDirKilledBetweenRenames)", parent)
	}
	crash(t, "dir", "dir-exchanged", target, false)
	if got := readString(t, filepath.Join(target, "data")); got != crashWriteMarker {
		t.Errorf("after the exchange the target holds %q, want the new store", got)
	}
	if len(hidden(t, parent)) != 1 {
		t.Fatalf("the killed writer left %v, want its temporary holding the old store", hidden(t, parent))
	}
	if err := Recover(target); err != nil {
		t.Fatal(err)
	}
	if h := hidden(t, parent); len(h) != 0 {
		t.Errorf("the next run left %v", h)
	}
	if got := readString(t, filepath.Join(target, "data")); got != crashWriteMarker {
		t.Errorf("after the next run the target holds %q, want the new store", got)
	}
}

// Where the file system cannot exchange, a writer killed between moving
// the old folder aside and renaming the new one in leaves no target; the
// next run puts the old one back (the new one was never committed) and
// removes the rest.
func TestReplaceDirKilledBetweenRenames(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out.zarr")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "data"), []byte("old"), 0o644)
	crash(t, "dir", "dir-moved-aside", target, true)
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the crash point is not between the renames: the target is there (%v)", err)
	}
	// The next run, as zarr.Create starts one.
	d, err := ReplaceDir(target, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	if got := readString(t, filepath.Join(target, "data")); got != "old" {
		t.Errorf("the next run found %q in the target, want the old store put back", got)
	}
	if h := hidden(t, parent); !slices.Equal(h, []string{filepath.Base(d.Path)}) {
		t.Errorf("beside the target: %v, want only the new run's temporary", h)
	}
}

// A writer killed between the renames of CommitAll leaves each target
// whole (old or new) and hidden copies of the old ones, which the next
// run removes.
func TestCommitAllKilledBetweenRenames(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "cells.csv")
	for _, p := range []string{target, target + ".xml"} {
		os.WriteFile(p, []byte("old"), 0o644)
	}
	crash(t, "files", "files-renamed", target, false)
	for _, p := range []string{target, target + ".xml"} {
		if got := readString(t, p); got != "old" && got != crashWriteMarker {
			t.Errorf("%s holds %q", p, got)
		}
	}
	if len(hidden(t, dir)) == 0 {
		t.Fatal("the crash left nothing beside the targets: the crash point is not between the renames")
	}
	for _, p := range []string{target, target + ".xml"} {
		if err := Recover(p); err != nil {
			t.Fatal(err)
		}
	}
	if h := hidden(t, dir); len(h) != 0 {
		t.Errorf("after the next run: %v", h)
	}
}

// A writer killed (kill -9) before its commit leaves its temporary file;
// the next run for the same target removes it, and its own commit leaves
// nothing else.
func TestRerunRemovesTheKilledWritersPart(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.h5")
	os.WriteFile(target, []byte("old"), 0o644)
	crash(t, "file", "", target, false)
	if len(hidden(t, dir)) != 1 {
		t.Fatalf("the killed writer left %v, want its temporary", hidden(t, dir))
	}
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "rerun")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.h5"}) {
		t.Errorf("after the rerun the folder holds %v", got)
	}
}

// Recover judges each temporary by its owner: it removes those of
// processes that have ended (or whose pid a later process took), and
// keeps this process's, a live process's, another host's and names it
// does not know.
func TestRecoverKeepsLiveOwners(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.h5")
	me := self()
	if !me.known {
		t.Skip("no /proc here: nothing is judged dead")
	}
	// A live process other than this one.
	live := exec.Command("cat")
	stdin, err := live.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); live.Wait() }()
	liveStart, ok := procStart(live.Process.Pid)
	if !ok {
		t.Fatal("cannot read the start time of a live process")
	}
	// A process that has ended.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	name := func(tag string, o owner) string {
		return "." + filepath.Base(target) + tag + o.String() + "-123"
	}
	keep := []string{
		name(partTag, me),
		name(partTag, owner{pid: live.Process.Pid, start: liveStart, host: me.host}),
		name(partTag, owner{pid: dead.Process.Pid, start: 1, host: "0badc0de"}), // another host
		".out.h5.part-123456789", // an older voxlab's: no owner
		".out.h5x.part-1-1-" + me.host + "-1",
	}
	remove := []string{
		name(partTag, owner{pid: dead.Process.Pid, start: 1, host: me.host}),
		name(partTag, owner{pid: live.Process.Pid, start: liveStart + 1, host: me.host}), // pid reused
		name(oldTag, owner{pid: dead.Process.Pid, start: 2, host: me.host}),
	}
	for _, n := range append(slices.Clone(keep), remove...) {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	os.WriteFile(target, []byte("current"), 0o644)
	if err := Recover(target); err != nil {
		t.Fatal(err)
	}
	got := names(t, dir)
	for _, n := range keep {
		if !slices.Contains(got, n) {
			t.Errorf("Recover removed %s", n)
		}
	}
	for _, n := range remove {
		if slices.Contains(got, n) {
			t.Errorf("Recover kept %s", n)
		}
	}
	if readString(t, target) != "current" {
		t.Error("Recover changed the target")
	}
}

// The temporaries name their owner, as Recover reads it back.
func TestTempNamesNameTheirOwner(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a-b.part-1-2.h5")
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	tag, o, ok := parseTemp(filepath.Base(target), filepath.Base(f.Name()))
	if !ok || tag != partTag || o.pid != os.Getpid() || o.start != self().start || o.host != self().host {
		t.Errorf("temporary %s parses as %q %+v %v", f.Name(), tag, o, ok)
	}
	d, err := ReplaceDir(filepath.Join(dir, "s.zarr"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	if _, o, ok := parseTemp("s.zarr", filepath.Base(d.Path)); !ok || o.pid != os.Getpid() {
		t.Errorf("temporary folder %s parses as %+v %v", d.Path, o, ok)
	}
}
