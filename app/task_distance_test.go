package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/demo"
)

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
// in a folder whose name needs quoting.
func TestDistanceTasksMerge(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := hostileDir(t)
	if err := demo.Write(dir, demo.Small, 3); err != nil {
		t.Fatal(err)
	}
	gt, sub, mask := filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted), filepath.Join(dir, demo.MapsMask)
	for k, tc := range []struct {
		flags []string
		tasks []int
	}{
		{[]string{"--mask", mask}, []int{3}},
		{[]string{"--mask", mask, "--chunk-size", "7", "--metrics", "l2,corr,fsc"}, []int{1, 4, 6, 9}},
		{[]string{"--mask-radius", "10", "--low-memory", "--voxel-size", "2.1"}, []int{3}},
	} {
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
	if err := demo.Write(dir, demo.Small, 3); err != nil {
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
