package detect

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// splitScene is a volume whose structures cross many plane borders:
// scattered single cells, a cluster of four somata that must be split, a
// tall column of somata (an artifact spanning many planes), and a U of
// two columns joined only at their bottom — within any task above the
// join they look like two structures.
func splitScene(t *testing.T) (*volume.Volume, Config) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Threshold = 2
	cfg.MaxCluster = 24000 // µm³, 1200 voxels: the column is an artifact, the U and the cluster are split
	rng := rand.New(rand.NewPCG(5, 6))
	var s []sphere
	for range 30 {
		s = append(s, sphere{z: 2 + 44*rng.Float64(), y: 15 + 100*rng.Float64(), x: 15 + 30*rng.Float64(), r: 7, bright: 1500})
	}
	for _, c := range [][3]float64{{20, 50, 80}, {20, 50, 90}, {20, 60, 80}, {21, 60, 90}} {
		s = append(s, sphere{z: c[0], y: c[1], x: c[2], blur: 8, bright: 1500})
	}
	for z := 4.0; z <= 44; z += 2 {
		s = append(s, sphere{z: z, y: 100, x: 100, r: 8, bright: 1500})
	}
	for z := 8.0; z <= 36; z += 2 {
		s = append(s, sphere{z: z, y: 25, x: 75, r: 6, bright: 1500}, sphere{z: z, y: 25, x: 95, r: 6, bright: 1500})
	}
	for x := 75.0; x <= 95; x += 3 {
		s = append(s, sphere{z: 36, y: 25, x: x, r: 6, bright: 1500})
	}
	return synth([3]int{48, 130, 130}, cfg.VoxelSize, s, 5, 3), cfg
}

// runSplitDetect runs the n tasks of a split detection one after another,
// passes their results through JSON (as the part files do) and merges.
func runSplitDetect(t *testing.T, be gpu.Backend, cfg Config, v *volume.Volume, n int) (*Result, int) {
	t.Helper()
	var trs []*TaskResult
	border := 0
	for i := range n {
		tr, err := RunTask(context.Background(), nil, be, cfg, v, plan.Budget{}, task.Task{Index: i, Count: n})
		if err != nil {
			t.Fatalf("task %d/%d: %v", i, n, err)
		}
		data, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var back TaskResult
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		border += len(back.Border)
		trs = append(trs, &back)
	}
	res, err := Merge(nil, cfg, v.Info, trs)
	if err != nil {
		t.Fatalf("merge of %d tasks: %v", n, err)
	}
	return res, border
}

// structureWarnings drops the warnings that are about the run (plan,
// pinning) rather than its structures.
func structureWarnings(w []string) []string {
	var out []string
	for _, s := range w {
		if strings.Contains(s, "cluster of") {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestTasksMergeToWhole: for task counts from 1 to more than there are
// centre planes — most not dividing them — the merged candidates equal
// the whole run's exactly (positions and types), and so do the counts of
// structures and of clusters split or not, and the warnings about them.
// The scene makes sure structures do cross borders, that a cluster is
// split and that an artifact spans several tasks.
func TestTasksMergeToWhole(t *testing.T) {
	v, cfg := splitScene(t)
	be := gpu.NewCPUWorkers(2)
	whole := detectAll(t, be, cfg, v)
	cells, artifacts := 0, 0
	for _, c := range whole.Candidates {
		if c.Type == Artifact {
			artifacts++
		} else {
			cells++
		}
	}
	if whole.Split == 0 || artifacts == 0 || cells < 20 {
		t.Fatalf("the scene gives %d cells, %d artifacts, %d clusters split: it tests too little", cells, artifacts, whole.Split)
	}
	for _, n := range []int{1, 2, 3, 5, 8, 13, 46, 60} {
		for _, batch := range []int{0, 3} {
			c := cfg
			c.BatchSize = batch
			got, border := runSplitDetect(t, be, c, v, n)
			if n >= 3 && border == 0 {
				t.Errorf("%d tasks: no structure crossed a border", n)
			}
			if !slices.Equal(got.Candidates, whole.Candidates) {
				t.Errorf("%d tasks, batch %d: %d candidates, the whole run %d\n got %v\nwant %v", n, batch, len(got.Candidates), len(whole.Candidates), got.Candidates, whole.Candidates)
			}
			if got.Structures != whole.Structures || got.Split != whole.Split || got.Unsplit != whole.Unsplit {
				t.Errorf("%d tasks: %d structures, %d split, %d not; the whole run %d, %d, %d", n,
					got.Structures, got.Split, got.Unsplit, whole.Structures, whole.Split, whole.Unsplit)
			}
			if g, w := structureWarnings(got.Warnings), structureWarnings(whole.Warnings); !slices.Equal(g, w) {
				t.Errorf("%d tasks: warnings %q, want %q", n, g, w)
			}
		}
	}
}

// TestTasksInAPlaneRange: a run restricted to planes (StartPlane,
// EndPlane) splits within that range.
func TestTasksInAPlaneRange(t *testing.T) {
	v, cfg := splitScene(t)
	cfg.StartPlane, cfg.EndPlane = 7, 40
	be := gpu.NewCPU()
	whole := detectAll(t, be, cfg, v)
	for _, n := range []int{2, 7} {
		got, _ := runSplitDetect(t, be, cfg, v, n)
		if !slices.Equal(got.Candidates, whole.Candidates) {
			t.Errorf("planes 7-40, %d tasks: candidates differ from the whole run's", n)
		}
	}
}

// TestTaskPlanesTile: the tasks' centre planes are contiguous and cover
// the run's centre planes once; each task reads its centres and the
// ball's reach around them, never past the run's planes.
func TestTaskPlanesTile(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		ballZ      float64
		start, end int
	}{{15, 0, 0}, {15, 5, 30}, {20, 0, 0}, {5, 0, 0}} {
		cfg.BallZ, cfg.StartPlane, cfg.EndPlane = tc.ballZ, tc.start, tc.end
		p, err := cfg.Params(volume.Info{Shape: [3]int{40, 50, 50}, DType: volume.Uint16})
		if err != nil {
			t.Fatal(err)
		}
		first, last := centreSpan(&p)
		for _, n := range []int{1, 4, 9, 100} {
			next := first
			for i := range n {
				cen, in := TaskPlanes(&p, task.Task{Index: i, Count: n})
				if cen[0] != next || cen[1] < cen[0] {
					t.Fatalf("ball z %g, %d tasks: task %d has centres %v, want them from %d", tc.ballZ, n, i, cen, next)
				}
				next = cen[1]
				if cen[0] < cen[1] && (in[0] < p.Start || in[1] > p.End || in[1]-in[0] != cen[1]-cen[0]+p.Ball.Z-1) {
					t.Errorf("ball z %g, %d tasks: task %d reads planes %v for centres %v (run planes %d-%d)", tc.ballZ, n, i, in, cen, p.Start, p.End)
				}
			}
			if next != last {
				t.Errorf("ball z %g, %d tasks: centres end at %d, want %d", tc.ballZ, n, next, last)
			}
		}
	}
}

// TestMergeRefusesOtherRuns: task results of another split are refused.
func TestMergeRefusesOtherRuns(t *testing.T) {
	cfg := DefaultConfig()
	info := volume.Info{Shape: [3]int{20, 40, 40}, DType: volume.Uint16}
	p, _ := cfg.Params(info)
	var trs []*TaskResult
	for i := range 3 {
		cen, _ := TaskPlanes(&p, task.Task{Index: i, Count: 3})
		trs = append(trs, &TaskResult{Centres: cen})
	}
	if _, err := Merge(nil, cfg, info, trs); err != nil {
		t.Fatalf("empty tasks of the right run: %v", err)
	}
	if _, err := Merge(nil, cfg, info, trs[:2]); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("two of three tasks merged as a split in two: %v", err)
	}
}

func ExampleTaskPlanes() {
	// cellfinder's defaults: ball z 15 µm of 5 µm planes = 3 planes.
	p, _ := DefaultConfig().Params(volume.Info{Shape: [3]int{100, 512, 512}, DType: volume.Uint16})
	for i := range 3 {
		cen, in := TaskPlanes(&p, task.Task{Index: i, Count: 3})
		fmt.Printf("task %d: centres in planes %d-%d, reads planes %d-%d\n", i, cen[0], cen[1]-1, in[0], in[1]-1)
	}
	// Output:
	// task 0: centres in planes 1-32, reads planes 0-33
	// task 1: centres in planes 33-65, reads planes 32-66
	// task 2: centres in planes 66-98, reads planes 65-99
}
