package classify

import (
	"context"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/task"
)

type netConfig struct {
	Tag    string     `json:"tag"`
	Depth  int        `json:"depth"`
	Input  [4]int     `json:"input"`
	Voxel  [3]float64 `json:"voxel"`
	Layout string     `json:"layout"`
	PCell  []float64  `json:"p_cell"`
	F32    float64    `json:"float32_max_diff"`
}

func netGolden(t testing.TB) []netConfig {
	var g struct {
		Configs []netConfig `json:"configs"`
	}
	readJSON(t, "net_golden.json", &g)
	return g.Configs
}

// netModel returns the weights of a golden configuration in memory:
// the generator's weights rebuilt with synth and its calibration.
func netModel(t testing.TB, c netConfig) *keras.Model {
	t.Helper()
	cal, err := synth.ReadCalibration(filepath.Join("testdata", "calib_"+c.Tag+".json"))
	if err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: c.Depth, Input: c.Input}
	return &keras.Model{Path: c.Tag, Format: "in memory", Weights: synth.Weights(arch, cal), Depth: c.Depth}
}

// configFor returns a classification of golden configuration c on the
// crop.
func configFor(c netConfig, model string) Config {
	cfg := DefaultConfig()
	cfg.Model = model
	cfg.VoxelSize = c.Voxel
	cfg.CubeSize = [3]int{c.Input[0], c.Input[1], c.Input[2]}
	cfg.NetworkDepth = c.Depth
	return cfg
}

// classify runs a classification of the candidates in on be, with the
// model m (nil: the file cfg.Model).
func classify(t testing.TB, cfg Config, in Inputs, be gpu.Backend, m *keras.Model) *Result {
	t.Helper()
	var s *Session
	var err error
	if m != nil {
		s, err = OpenModel(cfg, in, m)
	} else {
		s, err = Open(cfg, in)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), job.NewProgress("classify"), be, plan.Budget{Shared: be.Name() == "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func checkGolden(t *testing.T, c netConfig, res *Result) {
	t.Helper()
	k, worst := 0, 0.0
	for i, cl := range res.Candidates {
		if cl.Class == points.Unknown {
			continue
		}
		if k >= len(c.PCell) {
			t.Fatalf("more candidates classified than the reference's %d", len(c.PCell))
		}
		want := c.PCell[k]
		k++
		d := math.Abs(float64(cl.P) - want)
		worst = max(worst, d)
		if d > 1e-3 {
			t.Errorf("candidate %d: p(cell) %.6f, torch %.6f", i, cl.P, want)
		}
		if math.Abs(want-0.5) > 1e-3 && (cl.Class == points.Cell) != (want > 0.5) {
			t.Errorf("candidate %d: class %v, torch p(cell) %.6f", i, cl.Class, want)
		}
	}
	if k != len(c.PCell) {
		t.Errorf("%d candidates classified, the reference %d", k, len(c.PCell))
	}
	t.Logf("%s: %d classified (%d cells), %d unknown; largest difference from torch %.2g (torch float32 vs float64: %.2g)", c.Tag, k, res.Cells, res.Unknown, worst, c.F32)
}

// TestBatchWorkersTasks: the probabilities do not depend on the batch
// size, the number of workers or a split into tasks merged: the same
// float32 values. Under -race -short it runs batches of 64 on 2 workers
// and of 5 on 3 (partial batches, more workers than a batch's share)
// and a split into 3 tasks; the plain pass adds batches of 1 and 17 and
// splits into 1 and 7 tasks.
func TestBatchWorkersTasks(t *testing.T) {
	runs := []struct{ batch, workers int }{{64, 2}, {1, 1}, {5, 3}, {17, 2}}
	splits := []int{1, 3, 7}
	if raceShort() {
		runs, splits = []struct{ batch, workers int }{{64, 2}, {5, 3}}, []int{3}
	}
	c := netGolden(t)[0]
	pts := candidates(t)
	sig, bg := cropVolumes(t)
	in := Inputs{Signal: sig, Background: bg, Points: pts}
	cfg := configFor(c, c.Tag)
	m := netModel(t, c)
	var ref *Result
	for _, r := range runs {
		cfg.BatchSize = r.batch
		res := classify(t, cfg, in, gpu.NewCPUWorkers(r.workers), m)
		if ref == nil {
			ref = res
			continue
		}
		for i := range res.Candidates {
			a, b := ref.Candidates[i], res.Candidates[i]
			if a.Class != b.Class || math.Float32bits(a.P) != math.Float32bits(b.P) {
				t.Fatalf("batch %d, %d workers: candidate %d %v, batch 64 %v", r.batch, r.workers, i, b, a)
			}
		}
	}
	s, err := OpenModel(cfg, in, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range splits {
		var parts []*TaskResult
		for k := range n {
			tr, err := s.RunTask(context.Background(), job.NewProgress("task"), gpu.NewCPU(), plan.Budget{Shared: true}, taskOf(k, n))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, tr)
		}
		merged, err := Merge(pts, parts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range merged.Candidates {
			a, b := ref.Candidates[i], merged.Candidates[i]
			if a.Class != b.Class || (a.Class != points.Unknown && math.Float32bits(a.P) != math.Float32bits(b.P)) {
				t.Fatalf("%d tasks: candidate %d %v, single run %v", n, i, b, a)
			}
		}
		if merged.Unknown != ref.Unknown || merged.Cells != ref.Cells {
			t.Errorf("%d tasks: %d cells %d unknown, single run %d %d", n, merged.Cells, merged.Unknown, ref.Cells, ref.Unknown)
		}
		if _, err := Merge(pts, parts[:n-1]); n > 1 && err == nil {
			t.Errorf("a merge missing a task succeeded")
		}
	}
}

func taskOf(i, n int) task.Task { return task.Task{Index: i, Count: n} }

// TestLivePointsCarryProbabilities: the points a live run sends the
// window are the candidates just classified, each with its class and
// cell probability (cellfinder's XML output cannot hold the
// probability, so the window keeps these); the unknown are not sent.
func TestLivePointsCarryProbabilities(t *testing.T) {
	c := netGolden(t)[0]
	sig, bg := cropVolumes(t)
	in := Inputs{Signal: sig, Background: bg, Points: candidates(t)}
	cfg := configFor(c, c.Tag)
	cfg.BatchSize = 5
	s, err := OpenModel(cfg, in, netModel(t, c))
	if err != nil {
		t.Fatal(err)
	}
	s.Live = true
	var mu sync.Mutex
	var sent pipeline.Points
	prog := job.NewProgress("classify", func(e job.Event) {
		if pts, ok := e.Partial.(pipeline.Points); ok {
			mu.Lock()
			sent = append(sent, pts...)
			mu.Unlock()
		}
	})
	res, err := s.Run(context.Background(), prog, gpu.NewCPUWorkers(2), plan.Budget{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != len(res.Candidates)-res.Unknown || len(sent) == 0 {
		t.Fatalf("%d points sent, want the %d classified of %d", len(sent), len(res.Candidates)-res.Unknown, len(res.Candidates))
	}
	at := map[[3]float64]Classified{}
	for _, cl := range res.Candidates {
		p := res.Points[cl.Index]
		at[[3]float64{p.Z, p.Y, p.X}] = cl
	}
	for _, p := range sent {
		cl, ok := at[[3]float64{p.Z, p.Y, p.X}]
		switch {
		case !ok:
			t.Fatalf("sent %+v, not a candidate", p)
		case !p.Scored || p.Probability != float64(cl.P) || p.Type != cl.Class.String():
			t.Errorf("sent %+v, the result says %v p %v", p, cl.Class, cl.P)
		}
	}
}
