package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/voxlab/voxlab/processing/dezing"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
)

// sameHDF5 reports how two HDF5 files differ other than in the object
// modification times HDF5 stamps into object headers (so that even two
// runs of voxlab dezing differ when a second passes between them): every
// byte must be equal, except bytes inside a little-endian 32-bit word
// that reads, in both files, as a time since start.
func sameHDF5(a, b []byte, start time.Time) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d bytes, not %d", len(b), len(a))
	}
	lo, hi := uint32(start.Unix()-1), uint32(time.Now().Unix()+1)
	stamp := func(p []byte, i int) bool {
		v := binary.LittleEndian.Uint32(p[i:])
		return v >= lo && v <= hi
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		ok := false
		for w := max(0, i-3); w <= i && w+4 <= len(a); w++ {
			if stamp(a, w) && stamp(b, w) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("byte %d: %#x, not %#x (not a time stamp)", i, b[i], a[i])
		}
	}
	return nil
}

// TestDezingTasksMerge: voxlab dezing --task i/N for every i, then voxlab
// merge dezing, writes the very file voxlab dezing writes (byte for byte:
// datasets, frames, attributes, but for HDF5's time stamps: sameHDF5), for 1 task, a count that does not divide
// the 90 projections, and more tasks than projections; with and without
// the flat-field; with file names that need quoting.
func TestDezingTasksMerge(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	start := time.Now()
	scan, _ := dezingScan(t)
	dir := hostileDir(t)
	scan = hostileCopy(t, scan, dir, ".nxs")
	for k, flags := range [][]string{
		{"--backend", "cpu", "--quiet"},
		{"--backend", "cpu", "--quiet", "--flat-field", "--minus-log", "--darks-flats", "median", "--kernel", "5", "--batch-size", "4"},
	} {
		whole := filepath.Join(dir, fmt.Sprintf("whole %d.h5", k))
		mustRun(t, append([]string{"dezing", scan, whole}, flags...)...)
		for _, n := range []int{1, 7, 100} {
			out := filepath.Join(dir, fmt.Sprintf("merged '%d' $x.h5", n))
			runSplit(t, "dezing", n, append([]string{scan, out}, flags...)...)
			if err := sameHDF5(fileBytes(t, whole), fileBytes(t, out), start); err != nil {
				t.Errorf("flags %q, %d tasks: the merged file differs from voxlab dezing's: %v", flags, n, err)
			}
			if _, err := os.Stat(cluster.PartsDir(out)); !os.IsNotExist(err) {
				t.Errorf("%d tasks: the parts folder is left after the merge (%v)", n, err)
			}
		}
	}
	// The merge's summary counts its tasks, and no rate of dezinging
	// projections it only copied.
	out := filepath.Join(dir, "json.h5")
	for i := range 2 {
		mustRun(t, "dezing", scan, out, "--backend", "cpu", "--quiet", "--task", fmt.Sprintf("%d/2", i))
	}
	stdout := mustRun(t, "merge", "dezing", scan, out, "--backend", "cpu", "--json", "--tasks", "2")
	var got dezing.Summary
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Tasks != 2 || got.Projections != 90 || strings.Contains(stdout, "voxels_per_second") {
		t.Errorf("merge dezing --json (%v):\n%s", err, stdout)
	}
	noPWNED(t, dir)
}

// TestDezingTaskRerun: a missing part fails the merge, naming the task to
// run again and writing nothing; running that task alone (and running a
// finished task again) then gives the single-process file. Parts of
// another run are refused.
func TestDezingTaskRerun(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	start := time.Now()
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.h5")
	mustRun(t, "dezing", scan, whole, "--quiet")
	out := filepath.Join(dir, "out.h5")
	for i := range 4 {
		mustRun(t, "dezing", scan, out, "--quiet", "--task", fmt.Sprintf("%d/4", i))
	}
	partsDir := cluster.PartsDir(out)
	os.Remove(cluster.PartPath(partsDir, "dezing", cluster.Task{Index: 2, Count: 4}))
	code, _, stderr := runCmd("merge", "dezing", scan, out, "--quiet", "--tasks", "4")
	if code != 1 || !strings.Contains(stderr, "task 2 of 4 has left no part") || !strings.Contains(stderr, "--task 2/4") {
		t.Errorf("merge without task 2's part: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed merge left %s (%v)", out, err)
	}

	code, _, stderr = runCmd("merge", "dezing", scan, out, "--quiet", "--tasks", "4", "--kernel", "5")
	if code != 1 || !strings.Contains(stderr, "another run") || !strings.Contains(stderr, "kernel 3, not 5") {
		t.Errorf("merge with another kernel: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCmd("merge", "dezing", scan, out, "--tasks", "4", "--task", "1/4")
	if code != 2 || !strings.Contains(stderr, "not --task") {
		t.Errorf("merge with --task: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCmd("merge", "dezing", scan, filepath.Join(dir, "never.h5"), "--tasks", "4")
	if code != 1 || !strings.Contains(stderr, "no parts folder") {
		t.Errorf("merge of tasks never run: exit %d, %s", code, stderr)
	}

	mustRun(t, "dezing", scan, out, "--quiet", "--task", "2/4")
	mustRun(t, "dezing", scan, out, "--quiet", "--task", "1/4")
	mustRun(t, "merge", "dezing", scan, out, "--quiet", "--tasks", "4")
	if err := sameHDF5(fileBytes(t, whole), fileBytes(t, out), start); err != nil {
		t.Errorf("after running task 2 again, the merged file differs from voxlab dezing's: %v", err)
	}
	if names := onlyFiles(t, dir); len(names) != 2 {
		t.Errorf("the folder holds %q, want the two outputs only", names)
	}
}

// TestSameHDF5Catches: the comparison sees a real difference (another
// dif changes a few voxels) and lets through only time stamps.
func TestSameHDF5Catches(t *testing.T) {
	start := time.Now()
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.h5"), filepath.Join(dir, "b.h5")
	mustRun(t, "dezing", scan, a, "--quiet")
	mustRun(t, "dezing", scan, b, "--quiet", "--dif", "999")
	if err := sameHDF5(fileBytes(t, a), fileBytes(t, b), start); err == nil {
		t.Error("files of different runs compare equal")
	}
	// Move every time stamp of a by a second, as a later run would.
	orig := fileBytes(t, a)
	later := slices.Clone(orig)
	moved := 0
	for i := 0; i+4 <= len(orig); i++ {
		if v := binary.LittleEndian.Uint32(orig[i:]); v >= uint32(start.Unix()-1) && v <= uint32(time.Now().Unix()) {
			binary.LittleEndian.PutUint32(later[i:], v+1)
			moved++
			i += 3
		}
	}
	if moved == 0 {
		t.Fatal("no time stamp found in an HDF5 file: sameHDF5's premise is wrong")
	}
	if err := sameHDF5(orig, later, start); err != nil {
		t.Errorf("time stamps count as a difference: %v", err)
	}
}
