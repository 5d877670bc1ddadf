package main

// Helpers that the app's tests share: running commands in-process, the
// demo inputs they run on, files with hostile names, reading outputs.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/volume"
)

// childEnv is the environment of a voxlab process that a test starts:
// the test's own with extra, and with voxlab's settings (configDirEnv),
// Fyne's configuration folder (XDG_CONFIG_HOME) and its font index
// (XDG_CACHE_HOME) in config, so that the process never reads or writes
// the user's recent files or writes Fyne's files under $HOME.
func childEnv(config string, extra ...string) []string {
	env := append(os.Environ(), extra...)
	return append(env, configDirEnv+"="+filepath.Join(config, "voxlab"),
		"XDG_CONFIG_HOME="+filepath.Join(config, "xdg"), "XDG_CACHE_HOME="+filepath.Join(config, "cache"))
}

// taskCounts is the task counts a split test runs: all of them, or under
// -short (make test's race pass) only short. A count is an edge of the
// split (one task, tasks that do not divide the work, more tasks than
// there is work), which the plain pass checks whole; each task is the
// same run with the same goroutines, which the race detector then checks
// on one count at a fraction of the time.
func taskCounts(all []int, short int) []int {
	if testing.Short() {
		return []int{short}
	}
	return all
}

// runCmd runs a voxlab command line and returns its exit code and output.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &env{stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCmd(args...)
	if code != 0 {
		t.Fatalf("voxlab %q: exit %d: %s", args, code, stderr)
	}
	return stdout
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyFiles lists a folder's entries.
func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// hostileDir makes a folder whose name would run something, split, or
// change meaning if it were quoted wrongly anywhere.
func hostileDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "out it's \"q\" $HOME `touch PWNED` $(touch PWNED); x")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// hostileCopy copies a file into dir under a hostile name.
func hostileCopy(t *testing.T, src, dir, ext string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "in 'a' \"b\" $(touch PWNED) `x` ;"+ext)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// noPWNED fails if a payload of a hostile name ran.
func noPWNED(t *testing.T, dirs ...string) {
	t.Helper()
	wd, _ := os.Getwd()
	for _, d := range append(dirs, wd) {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Name() == "PWNED" {
				t.Errorf("a file name ran a command: %s exists", p)
			}
			return nil
		})
	}
}

// runSplit runs the n tasks of a pipeline one after another, then the
// merge, all with args (the pipeline's arguments and flags).
func runSplit(t *testing.T, pipeline string, n int, args ...string) {
	t.Helper()
	for i := range n {
		mustRun(t, append([]string{pipeline, "--task", fmt.Sprintf("%d/%d", i, n)}, args...)...)
	}
	mustRun(t, append([]string{"merge", pipeline, "--tasks", fmt.Sprint(n)}, args...)...)
}

// dezingScan writes the small demo scan (seed 5) into a temporary
// folder: a copy of the one the test process generates once (tomoScan).
func dezingScan(t *testing.T) (scan, zingers string) {
	t.Helper()
	dir := tomoScan.copyTo(t)
	return filepath.Join(dir, demo.TomoScan), filepath.Join(dir, demo.TomoZingers)
}

// smallBrain writes a short demo brain (planes 20-39 of the small one)
// as a TIFF plane folder and returns the folder and its true cells.
func smallBrain(t *testing.T) (string, [][3]int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "planes")
	b := demo.NewBrain(demo.Small, 1)
	info := b.Info()
	info.Shape[0] = 20
	w, err := volume.CreatePlaneDir(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 20*info.PlaneBytes())
	if err := b.ReadSlab(20, 40, buf); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	var cells [][3]int
	for _, c := range b.Cells() {
		if c[0] >= 22 && c[0] < 38 {
			cells = append(cells, [3]int{c[0] - 20, c[1], c[2]})
		}
	}
	return dir, cells
}

// distDemo writes the small cryo-EM demo (seed 11) into a temporary
// folder: a copy of the one the test process generates once (mapsDemo).
func distDemo(t *testing.T) (gt, sub, mask string) {
	t.Helper()
	dir := mapsDemo.copyTo(t)
	return filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted), filepath.Join(dir, demo.MapsMask)
}

// writeDemo writes the small demo data (seed 1) into a new folder: a
// copy of the one the test process generates once (smallDemo).
func writeDemo(t *testing.T) string {
	t.Helper()
	return smallDemo.copyTo(t)
}
