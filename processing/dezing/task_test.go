package dezing

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// runTasks runs the n tasks of a split run one after another, joins what
// they hand out in task order (as the part files are joined) and merges.
func runTasks(t testing.TB, be gpu.Backend, cfg Config, in Input, n int) (*memOutput, *Result) {
	t.Helper()
	s := in.Shapes()
	var joined []byte
	next := -1
	for i := range n {
		task := task.Task{Index: i, Count: n}
		info := TaskInfo(s, cfg, task)
		out := newMemOutput(info)
		if _, err := RunTask(context.Background(), nil, be, cfg, in, task, out); err != nil {
			t.Fatalf("task %s: %v", task, err)
		}
		if out.next != info.Shape[0] || out.dark != nil || out.flat != nil {
			t.Fatalf("task %s: wrote %d of %d projections, frames %v %v", task, out.next, info.Shape[0], out.dark != nil, out.flat != nil)
		}
		lo, hi := TaskRange(s, cfg, task)
		if next >= 0 && lo != next {
			t.Fatalf("task %s starts at %d, the previous ended at %d", task, lo, next)
		}
		next = hi
		joined = append(joined, out.data...)
	}
	info := s.Projections
	z0, z1 := cfg.span(s)
	info.Shape[0] = z1 - z0
	parts, err := volume.NewMemory(info, joined)
	if err != nil {
		t.Fatalf("the tasks' projections: %v", err)
	}
	out := newMemOutput(OutInfo(s, cfg))
	res, err := Merge(context.Background(), nil, be, cfg, in, parts, out)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if out.frames != 1 || out.next != out.info.Shape[0] {
		t.Fatalf("merge: %d frame calls and %d of %d projections", out.frames, out.next, out.info.Shape[0])
	}
	return out, res
}

func flatFieldWarnings(w []string) []string {
	var out []string
	for _, s := range w {
		if strings.HasPrefix(s, "flat-field:") {
			out = append(out, s)
		}
	}
	return out
}

// TestTasksMergeToWhole: for several task counts — 1, counts that do not
// divide the projections, as many tasks as projections and more (empty
// tasks) — the tasks run one after another and merged give exactly the
// single-process output: the same projections bit for bit, the same dark
// and flat frames, the same clipping counts and warnings. Kernel 5 with
// one projection per task reads halo frames two tasks away.
func TestTasksMergeToWhole(t *testing.T) {
	for _, tc := range []struct {
		dt       volume.DType
		kernel   int
		ff, log  bool
		nd, nf   int
		rng      [2]int
		clip     float32
		reduceMd bool
	}{
		{volume.Uint16, 3, false, false, 3, 4, [2]int{}, 0, false},
		{volume.Uint16, 5, true, true, 3, 4, [2]int{}, 0, true},
		{volume.Float32, 5, true, false, 2, 5, [2]int{}, 0, false},
		{volume.Float32, 3, false, false, 0, 0, [2]int{}, 0, false},
		{volume.Uint16, 3, true, false, 2, 2, [2]int{}, 0.05, false}, // most values clipped: a warning
		{volume.Uint16, 5, true, true, 2, 3, [2]int{3, 15}, 0, false},
	} {
		name := fmt.Sprintf("%s k%d ff=%v log=%v range=%v clip=%g", tc.dt, tc.kernel, tc.ff, tc.log, tc.rng, tc.clip)
		in := testScan(uint64(tc.kernel)+7, tc.dt, 17, tc.nd, tc.nf, 9, 11)
		cfg := DefaultConfig()
		cfg.Kernel, cfg.FlatField, cfg.MinusLog, cfg.Range = tc.kernel, tc.ff, tc.log, tc.rng
		if tc.reduceMd {
			cfg.Reduce = Median
		}
		if tc.clip > 0 {
			cfg.ClipLow, cfg.ClipHigh = -tc.clip, tc.clip
		}
		be := gpu.NewCPUWorkers(2)
		whole, wres := runAll(t, be, cfg, in)
		if tc.clip > 0 && len(flatFieldWarnings(wres.Warnings)) == 0 {
			t.Fatalf("%s: the whole run gave no clipping warning; the case tests nothing", name)
		}
		for _, n := range []int{1, 2, 3, 4, 7, 17, 20} {
			for _, block := range []int{0, 2} {
				c := cfg
				c.Block, c.FrameBlock = block, block
				merged, mres := runTasks(t, be, c, in, n)
				if !bytes.Equal(merged.data, whole.data) {
					t.Errorf("%s, %d tasks, block %d: the merged projections differ from the whole run's", name, n, block)
				}
				if i, ok := sameFloats(merged.dark, whole.dark); !ok {
					t.Errorf("%s, %d tasks: dark frame differs at %d", name, n, i)
				}
				if i, ok := sameFloats(merged.flat, whole.flat); !ok {
					t.Errorf("%s, %d tasks: flat frame differs at %d", name, n, i)
				}
				if mres.Clipped != wres.Clipped || mres.Values != wres.Values {
					t.Errorf("%s, %d tasks: clipped %d of %d, the whole run %d of %d", name, n, mres.Clipped, mres.Values, wres.Clipped, wres.Values)
				}
				if got, want := flatFieldWarnings(mres.Warnings), flatFieldWarnings(wres.Warnings); !slices.Equal(got, want) {
					t.Errorf("%s, %d tasks: warnings %q, want %q", name, n, got, want)
				}
			}
		}
	}
}

// TestTaskRangesTile: the tasks' ranges are contiguous, cover the run's
// projections once, and are empty only when there are more tasks than
// projections.
func TestTaskRangesTile(t *testing.T) {
	s := Shapes{Projections: volume.Info{Shape: [3]int{10, 4, 4}, DType: volume.Uint16}}
	for _, rg := range [][2]int{{}, {2, 9}} {
		cfg := DefaultConfig()
		cfg.Range = rg
		z0, z1 := cfg.span(s)
		for _, n := range []int{1, 3, 7, 10, 13} {
			next, empty := z0, 0
			for i := range n {
				lo, hi := TaskRange(s, cfg, task.Task{Index: i, Count: n})
				if lo != next || hi < lo {
					t.Fatalf("range %v, %d tasks: task %d has [%d, %d), want it to start at %d", rg, n, i, lo, hi, next)
				}
				if hi == lo {
					empty++
				}
				next = hi
			}
			if next != z1 {
				t.Errorf("range %v, %d tasks: the tasks end at %d, want %d", rg, n, next, z1)
			}
			if want := max(0, n-(z1-z0)); empty != want {
				t.Errorf("range %v, %d tasks: %d empty tasks, want %d", rg, n, empty, want)
			}
		}
	}
}

// TestMergePeakMatchesPlan: the merge's measured device peak (tracking
// allocator) is within 80-100% of MergePlan's prediction, and a tight
// budget gives blocks smaller than the run.
func TestMergePeakMatchesPlan(t *testing.T) {
	for i, tc := range []struct {
		dt     volume.DType
		ff     bool
		device int64
	}{
		{volume.Uint16, true, 0},
		{volume.Uint16, true, 24 << 10},
		{volume.Float32, true, 20 << 10},
		{volume.Uint16, false, 0},
	} {
		in := testScan(uint64(i), tc.dt, 30, 3, 4, 12, 16)
		cfg := DefaultConfig()
		cfg.FlatField = tc.ff
		cfg.Budget = plan.Budget{Device: tc.device}
		be := gpu.NewCPUWorkers(2)
		if tc.device > 0 {
			be.SetLimit(tc.device)
		}
		_, res := runTasks(t, be, cfg, in, 3)
		pred, got := res.Plan.PeakDevice, res.PeakDevice
		if got > pred || float64(got) < 0.8*float64(pred) {
			t.Errorf("case %d: merge peak %d bytes, predicted %d (want 80-100%%)", i, got, pred)
		}
		if tc.device > 0 && res.Plan.Phases[res.Plan.Main].Block >= 30 {
			t.Errorf("case %d: a %d-byte device should not hold every projection at once", i, tc.device)
		}
	}
}

// TestMergeRefusesWrongParts: parts of another shape or type are an
// error, not a silently wrong output.
func TestMergeRefusesWrongParts(t *testing.T) {
	in := testScan(1, volume.Uint16, 10, 2, 2, 6, 7)
	cfg := DefaultConfig()
	for _, info := range []volume.Info{
		{Shape: [3]int{9, 6, 7}, DType: volume.Uint16},
		{Shape: [3]int{10, 6, 7}, DType: volume.Float32},
	} {
		parts, _ := volume.NewMemory(info, make([]byte, info.Bytes()))
		_, err := Merge(context.Background(), nil, gpu.NewCPU(), cfg, in, parts, newMemOutput(OutInfo(in.Shapes(), cfg)))
		if err == nil || !strings.Contains(err.Error(), "the tasks' projections") {
			t.Errorf("parts %v %s: %v", info.Shape, info.DType, err)
		}
	}
}

func ExampleTaskRange() {
	// The field's scan (1800 projections) in 4 cluster tasks.
	s := Shapes{Projections: volume.Info{Shape: [3]int{1800, 2160, 2560}, DType: volume.Uint16}}
	for i := range 4 {
		lo, hi := TaskRange(s, DefaultConfig(), task.Task{Index: i, Count: 4})
		fmt.Printf("task %d: projections %d-%d\n", i, lo, hi-1)
	}
	// Output:
	// task 0: projections 0-449
	// task 1: projections 450-899
	// task 2: projections 900-1349
	// task 3: projections 1350-1799
}
