package main

// End-to-end tests of the registered pipelines split into tasks: each
// run as N tasks and a merge gives the single-process output, byte for
// byte where the format allows, and a stale or foreign part is refused.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/dezing"
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
// the flat-field; with file names that need quoting. -short runs 7
// tasks only (taskCounts).
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
		for _, n := range taskCounts([]int{1, 7, 100}, 7) {
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

// TestDetectTasksMerge: voxlab detect --task i/N for every i, then voxlab
// merge detect, writes the CSV and XML voxlab detect writes, byte for
// byte, and the same counts, on the demo brain (60 planes, 58 centre
// planes) in a folder whose name needs quoting: for 1 task, counts that
// do not divide the planes, one task per centre plane and more tasks than
// planes. -short runs 7 tasks only (taskCounts).
func TestDetectTasksMerge(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := hostileDir(t)
	if err := demo.WriteBrain(dir, demo.Small, 2); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, demo.BrainPlanes)
	flags := []string{"--xml", "--backend", "cpu", "--json"}
	whole := filepath.Join(dir, "whole cells.csv")
	var want detect.Summary
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"detect", in, whole}, flags...)...)), &want); err != nil {
		t.Fatal(err)
	}
	if want.Cells < 50 {
		t.Fatalf("the demo brain gives %d cells: too few to test", want.Cells)
	}
	wantCSV, wantXML := fileBytes(t, whole), fileBytes(t, strings.TrimSuffix(whole, ".csv")+".xml")
	for _, n := range taskCounts([]int{1, 4, 7, 58, 75}, 7) {
		out := filepath.Join(dir, fmt.Sprintf("merged 'n=%d' $x.csv", n))
		for i := range n {
			mustRun(t, append([]string{"detect", in, out, "--task", fmt.Sprintf("%d/%d", i, n)}, flags...)...)
		}
		var got detect.Summary
		stdout := mustRun(t, append([]string{"merge", "detect", in, out, "--tasks", fmt.Sprint(n)}, flags...)...)
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%d tasks: merge --json: %v\n%s", n, err, stdout)
		}
		if !bytes.Equal(fileBytes(t, out), wantCSV) {
			t.Errorf("%d tasks: the merged CSV differs from voxlab detect's", n)
		}
		if !bytes.Equal(fileBytes(t, strings.TrimSuffix(out, ".csv")+".xml"), wantXML) {
			t.Errorf("%d tasks: the merged XML differs from voxlab detect's", n)
		}
		if got.Cells != want.Cells || got.Artifacts != want.Artifacts || got.Structures != want.Structures ||
			got.Split != want.Split || got.Planes != want.Planes {
			t.Errorf("%d tasks: summary %+v, want %+v", n, got, want)
		}
		if got.Tasks != n || strings.Contains(stdout, "planes_per_second") {
			t.Errorf("%d tasks: the merge's summary says %d tasks and %v planes per second: a merge reads no plane\n%s", n, got.Tasks, got.PlanesPerS, stdout)
		}
		if _, err := os.Stat(cluster.PartsDir(out)); !os.IsNotExist(err) {
			t.Errorf("%d tasks: the parts folder is left (%v)", n, err)
		}
	}
	// Without --json: the merge's line, not a rate it did not achieve.
	out := filepath.Join(dir, "text.csv")
	for i := range 2 {
		mustRun(t, "detect", in, out, "--backend", "cpu", "--quiet", "--task", fmt.Sprintf("%d/2", i))
	}
	code, _, stderr := runCmd("merge", "detect", in, out, "--backend", "cpu", "--tasks", "2")
	line := fmt.Sprintf("merge detect: %d cells and %d artifacts in %d planes from 2 tasks, merged in", want.Cells, want.Artifacts, want.Planes)
	if code != 0 || !strings.Contains(stderr, line) || strings.Contains(stderr, "planes/s") {
		t.Errorf("merge detect: exit %d, want %q, no planes/s:\n%s", code, line, stderr)
	}
	noPWNED(t, dir)
}

// TestDetectTaskRerun: a merge missing a part, or given a part of other
// parameters, fails naming the task and writes nothing; running that task
// again alone lets it finish.
func TestDetectTaskRerun(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	in, _ := smallBrain(t)
	dir := t.TempDir()
	whole, out := filepath.Join(dir, "whole.csv"), filepath.Join(dir, "out.csv")
	mustRun(t, "detect", in, whole, "--quiet")
	for i := range 3 {
		mustRun(t, "detect", in, out, "--quiet", "--task", fmt.Sprintf("%d/3", i))
	}
	os.Remove(cluster.PartPath(cluster.PartsDir(out), "detect", cluster.Task{Index: 1, Count: 3}))
	code, _, stderr := runCmd("merge", "detect", in, out, "--quiet", "--tasks", "3")
	if code != 1 || !strings.Contains(stderr, "task 1 of 3 has left no part") {
		t.Errorf("merge without task 1's part: exit %d, %s", code, stderr)
	}
	mustRun(t, "detect", in, out, "--quiet", "--task", "1/3", "--threshold", "9")
	code, _, stderr = runCmd("merge", "detect", in, out, "--quiet", "--tasks", "3")
	if code != 1 || !strings.Contains(stderr, "another run") || !strings.Contains(stderr, "config") {
		t.Errorf("merge with a part of another threshold: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed merge left %s (%v)", out, err)
	}
	mustRun(t, "detect", in, out, "--quiet", "--task", "1/3")
	mustRun(t, "merge", "detect", in, out, "--quiet", "--tasks", "3")
	if !bytes.Equal(fileBytes(t, out), fileBytes(t, whole)) {
		t.Error("after running task 1 again, the merged CSV differs from voxlab detect's")
	}
}

// sameDistanceDirs compares two OUT_DIRs of voxlab distance: every
// matrix file (NPY, CSV, PNG) byte for byte, and summary.json but for
// what describes how the run went (timings, peaks).
func sameDistanceDirs(t *testing.T, want, got string) {
	t.Helper()
	names := onlyFiles(t, want)
	if g := onlyFiles(t, got); !slices.Equal(names, g) {
		t.Fatalf("%s holds %q, %s holds %q", got, g, want, names)
	}
	for _, n := range names {
		if n == "summary.json" {
			continue
		}
		if !bytes.Equal(fileBytes(t, filepath.Join(want, n)), fileBytes(t, filepath.Join(got, n))) {
			t.Errorf("%s differs from the single-process one", filepath.Join(got, n))
		}
	}
	var a, b map[string]any
	for _, s := range []struct {
		dir string
		to  *map[string]any
	}{{want, &a}, {got, &b}} {
		if err := json.Unmarshal(fileBytes(t, filepath.Join(s.dir, "summary.json")), s.to); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"n_ground_truth", "n_submitted", "ground_truth_rows", "masked_voxels", "chunk_size",
		"chunk_size_auto", "pipeline", "mask", "normalize", "metrics", "matrix_layout"} {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
			t.Errorf("summary.json: %s is %v, the single-process run's %v", k, b[k], a[k])
		}
	}
}

// TestDistanceTasksMerge: voxlab distance --task i/N for every i, then
// voxlab merge distance, writes the matrices voxlab distance writes, byte
// for byte, on the demo maps (40 ground-truth maps): in memory with the
// planned tile (one tile: the other tasks have nothing to do, and say
// so), in memory with tiles of 7 for counts that do not divide the 6
// tiles and more tasks than tiles, and low memory with the planned chunk;
// in a folder whose name needs quoting. -short (make test's race pass)
// runs the tiles of 7 on 4 tasks only (taskCounts): the same split and
// merge, on the tasks' goroutines, as the other two cases, which the
// plain pass runs.
func TestDistanceTasksMerge(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := hostileDir(t)
	// Only the maps (those demo.Write(dir, demo.Small, 3) writes, without
	// its scan and brain).
	if err := demo.WriteMaps(dir, demo.Small, 3); err != nil {
		t.Fatal(err)
	}
	gt, sub, mask := filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted), filepath.Join(dir, demo.MapsMask)
	for k, tc := range []struct {
		flags []string
		tasks []int
	}{
		{[]string{"--mask", mask}, []int{3}},
		{[]string{"--mask", mask, "--chunk-size", "7", "--metrics", "l2,corr,fsc"}, taskCounts([]int{1, 4, 6, 9}, 4)},
		{[]string{"--mask-radius", "10", "--low-memory", "--voxel-size", "2.1"}, []int{3}},
	} {
		if testing.Short() && k != 1 {
			continue // the plain pass runs the one-tile and low-memory splits
		}
		flags := append([]string{"--quiet", "--backend", "cpu"}, tc.flags...)
		whole := filepath.Join(dir, fmt.Sprintf("whole %d", k))
		mustRun(t, append([]string{"distance", gt, sub, whole}, flags...)...)
		for _, n := range tc.tasks {
			out := filepath.Join(dir, fmt.Sprintf("merged %d 'n=%d' $x", k, n))
			runSplit(t, "distance", n, append([]string{gt, sub, out}, flags...)...)
			sameDistanceDirs(t, whole, out)
			if _, err := os.Stat(cluster.PartsDir(out)); !os.IsNotExist(err) {
				t.Errorf("%d tasks: the parts folder is left (%v)", n, err)
			}
		}
	}
	noPWNED(t, dir)
}

// TestDistanceTaskTiles: a task with nothing to do says why; tasks that
// planned different tiles are not merged; a missing part names its task.
func TestDistanceTaskTiles(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := t.TempDir()
	// Only the maps (those demo.Write(dir, demo.Small, 3) writes, without
	// its scan and brain).
	if err := demo.WriteMaps(dir, demo.Small, 3); err != nil {
		t.Fatal(err)
	}
	gt, sub := filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted)
	out := filepath.Join(dir, "out")
	args := []string{gt, sub, out, "--metrics", "l2"}
	code, _, stderr := runCmd(append([]string{"distance", "--task", "2/3"}, args...)...)
	if code != 0 || !strings.Contains(stderr, "fewer than the 3 tasks") {
		t.Errorf("a task of a one-tile run: exit %d, %s", code, stderr)
	}
	mustRun(t, append([]string{"distance", "--task", "0/3", "--chunk-size", "7", "--quiet"}, args...)...)
	mustRun(t, append([]string{"distance", "--task", "1/3", "--chunk-size", "8", "--quiet"}, args...)...)
	mustRun(t, append([]string{"distance", "--task", "2/3", "--chunk-size", "7", "--quiet"}, args...)...)
	code, _, stderr = runCmd(append([]string{"merge", "distance", "--tasks", "3", "--chunk-size", "7"}, args...)...)
	if code != 1 || !strings.Contains(stderr, "planned tiles of 8 rows, task 0 of 7") {
		t.Errorf("tasks of different tiles: exit %d, %s", code, stderr)
	}
	os.Remove(cluster.PartPath(cluster.PartsDir(out), "distance", cluster.Task{Index: 1, Count: 3}))
	code, _, stderr = runCmd(append([]string{"merge", "distance", "--tasks", "3", "--chunk-size", "7"}, args...)...)
	if code != 1 || !strings.Contains(stderr, "task 1 of 3 has left no part") {
		t.Errorf("a missing part: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed merge left %s (%v)", out, err)
	}
	mustRun(t, append([]string{"distance", "--task", "1/3", "--chunk-size", "7", "--quiet"}, args...)...)
	mustRun(t, append([]string{"merge", "distance", "--tasks", "3", "--chunk-size", "7", "--quiet"}, args...)...)
	whole := filepath.Join(dir, "whole")
	mustRun(t, "distance", gt, sub, whole, "--metrics", "l2", "--chunk-size", "7", "--quiet")
	sameDistanceDirs(t, whole, out)
}
