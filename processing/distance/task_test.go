package distance

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/task"
)

// sameBits reports the first index where two matrices differ bit for bit
// (NaN equal to NaN), or -1.
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	return -1
}

// mergeTasks runs the n tasks of a split run with tiles of tile rows,
// merges them and checks that every matrix is whole's bit for bit.
func mergeTasks(t *testing.T, name string, be gpu.Backend, cfg Config, gt, sub Maps, tile, n int, whole *Result) *Result {
	t.Helper()
	var parts []*Result
	for i := range n {
		r, err := RunTask(context.Background(), nil, be, cfg, gt, sub, tile, task.Task{Index: i, Count: n})
		if err != nil {
			t.Fatalf("%s: task %d: %v", name, i, err)
		}
		parts = append(parts, r)
	}
	merged, err := Merge(parts, gt.Len())
	if err != nil {
		t.Fatalf("%s: merge: %v", name, err)
	}
	for k, m := range whole.Metrics {
		if i := sameBits(merged.Matrices[k], whole.Matrices[k]); i >= 0 {
			t.Errorf("%s: %s[%d,%d] = %.17g, the whole run %.17g", name, m, i/whole.NSub, i%whole.NSub, merged.Matrices[k][i], whole.Matrices[k][i])
		}
	}
	return merged
}

// TestTasksMergeToWhole: for both pipelines, fixed and planned tiles,
// with and without a mask, the tasks of a split run merged give the
// single-process matrices bit for bit, for task counts from 1 to more
// than there are tiles (37 rows: no count divides them evenly). A split
// by rows rather than whole tiles may not: TestRowSplitAgreesToRounding.
func TestTasksMergeToWhole(t *testing.T) {
	const ngt, nsub, box = 37, 7, 10
	gt, sub := testMaps(t, ngt, box, 11), testMaps(t, nsub, box, 12)
	sphere, err := SphereMask(box, 4)
	if err != nil {
		t.Fatal(err)
	}
	be := gpu.NewCPU()
	for _, mask := range []*Mask{nil, sphere} {
		for _, low := range []bool{false, true} {
			for _, chunk := range []int{0, 3, 8} {
				cfg := Config{Metrics: AllMetrics(), Mask: mask, VoxelSize: 1.5, LowMemory: low, Chunk: chunk, AutoChunk: chunk == 0}
				whole := mustRun(t, be, cfg, gt, sub)
				tile, err := TaskTile(cfg, gt, sub, be)
				if err != nil {
					t.Fatal(err)
				}
				if tile != whole.Chunk {
					t.Fatalf("TaskTile %d, the whole run's tile %d", tile, whole.Chunk)
				}
				for _, n := range []int{1, 2, 3, 5, 13, 40} {
					name := fmt.Sprintf("mask=%v low=%v chunk=%d tile=%d tasks=%d", mask != nil, low, chunk, tile, n)
					merged := mergeTasks(t, name, be, cfg, gt, sub, tile, n, whole)
					if merged.Voxels != whole.Voxels || merged.Box != box || merged.NGT != ngt || merged.Chunk != tile {
						t.Errorf("%s: merged %d voxels of %d³, %d rows, tile %d", name, merged.Voxels, merged.Box, merged.NGT, merged.Chunk)
					}
				}
			}
		}
	}
}

// TestRowSplitAgreesToRounding: rows computed in tiles of another
// composition are the whole run's rows up to rounding (1e-9 relative),
// which is all a row split may change; whether they also agree bit for
// bit depends on the BLAS (when they do not, tasks need whole tiles:
// TestTasksMergeToWhole), and is only logged.
func TestRowSplitAgreesToRounding(t *testing.T) {
	gt, sub := testMaps(t, 37, 10, 11), testMaps(t, 7, 10, 12)
	cfg := Config{Metrics: []Metric{L2, Corr}, Chunk: 8}
	whole := mustRun(t, gpu.NewCPU(), cfg, gt, sub)
	differ := 0
	for _, rows := range [][2]int{{3, 8}, {5, 37}, {0, 1}} {
		c := cfg
		c.Rows, c.Chunk = rows, 3
		part := mustRun(t, gpu.NewCPU(), c, gt, sub)
		for k := range part.Matrices {
			want := whole.Matrices[k][rows[0]*7 : rows[1]*7]
			if len(part.Matrices[k]) != len(want) {
				t.Fatalf("rows %v, metric %d: %d values, want %d", rows, k, len(part.Matrices[k]), len(want))
			}
			for i, w := range want {
				if g := part.Matrices[k][i]; !closeTo(g, w, 1e-9) && !(g != g && w != w) {
					t.Errorf("rows %v, metric %d, value %d: %v, the whole run's %v", rows, k, i, g, w)
				}
			}
			if sameBits(part.Matrices[k], want) >= 0 {
				differ++
			}
		}
	}
	t.Logf("%d of 6 matrices differ in their last bits when rows are tiled differently", differ)
}

// TestTaskRowsTile: whole tiles, contiguous, covering every row once;
// empty tasks only when there are more tasks than tiles.
func TestTaskRowsTile(t *testing.T) {
	for _, tc := range []struct{ ngt, tile int }{{37, 8}, {37, 1}, {40, 10}, {5, 8}} {
		tiles := (tc.ngt + tc.tile - 1) / tc.tile
		for _, n := range []int{1, 3, tiles, tiles + 4} {
			next, empty := 0, 0
			for i := range n {
				lo, hi := TaskRows(tc.ngt, tc.tile, task.Task{Index: i, Count: n})
				if lo != next || hi < lo || (lo%tc.tile != 0 && lo != tc.ngt) || (hi%tc.tile != 0 && hi != tc.ngt) {
					t.Fatalf("%d rows in tiles of %d, %d tasks: task %d has [%d, %d) after %d", tc.ngt, tc.tile, n, i, lo, hi, next)
				}
				if lo == hi {
					empty++
				}
				next = hi
			}
			if next != tc.ngt || empty != max(0, n-tiles) {
				t.Errorf("%d rows in tiles of %d, %d tasks: end at %d, %d empty", tc.ngt, tc.tile, n, next, empty)
			}
		}
	}
}

func TestMergeRefusesGapsAndMixes(t *testing.T) {
	gt, sub := testMaps(t, 9, 6, 1), testMaps(t, 3, 6, 2)
	cfg := Config{Metrics: []Metric{L2}, Chunk: 3}
	var parts []*Result
	for i := range 3 {
		r, err := RunTask(context.Background(), nil, gpu.NewCPU(), cfg, gt, sub, 3, task.Task{Index: i, Count: 3})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	for name, ps := range map[string][]*Result{
		"a task missing": {parts[0], parts[2]},
		"out of order":   {parts[1], parts[0], parts[2]},
	} {
		if _, err := Merge(ps, 9); err == nil {
			t.Errorf("%s: merged", name)
		}
	}
	other := *parts[1]
	other.Metrics = []Metric{Corr}
	if _, err := Merge([]*Result{parts[0], &other, parts[2]}, 9); err == nil || !strings.Contains(err.Error(), "different runs") {
		t.Errorf("tasks of other metrics: %v", err)
	}
}
