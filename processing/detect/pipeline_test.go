package detect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func dist(c Candidate, s sphere) float64 {
	return math.Sqrt(sq(float64(c.Z)-s.z) + sq(float64(c.Y)-s.y) + sq(float64(c.X)-s.x))
}

func sq(v float64) float64 { return v * v }

// TestFourSpheresSplit: four overlapping somata make one structure larger
// than a cell, which splitting separates into four cells, each within 3
// voxels of a true centre.
func TestFourSpheresSplit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Threshold = 2
	truth := []sphere{{z: 10, y: 50, x: 50}, {z: 10, y: 50, x: 60}, {z: 10, y: 60, x: 50}, {z: 11, y: 60, x: 60}}
	for i := range truth {
		truth[i].blur, truth[i].bright = 8, 1500
	}
	res := detectAll(t, gpu.NewCPU(), cfg, synth([3]int{22, 110, 110}, cfg.VoxelSize, truth, 5, 1))
	if res.Structures != 1 || res.Split != 1 {
		t.Errorf("%d structures, %d split: want the four somata to form one cluster that is split", res.Structures, res.Split)
	}
	if len(res.Candidates) != 4 {
		t.Fatalf("found %v, want 4 cells", res.Candidates)
	}
	used := make([]bool, len(truth))
	for _, c := range res.Candidates {
		best := -1
		for i, s := range truth {
			if !used[i] && dist(c, s) <= 3 && (best < 0 || dist(c, s) < dist(c, truth[best])) {
				best = i
			}
		}
		if best < 0 || c.Type != Cell {
			t.Errorf("%v is not a cell within 3 voxels of an unmatched centre of %v", c, truth)
			continue
		}
		used[best] = true
	}
}

// TestSplitterSeparatesBalls splits a cluster made of four overlapping
// balls of voxels directly.
func TestSplitterSeparatesBalls(t *testing.T) {
	cfg := DefaultConfig()
	p, err := cfg.Params(volume.Info{Shape: [3]int{50, 60, 60}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	centres := [][3]int{{10, 20, 20}, {10, 20, 33}, {10, 33, 20}, {11, 33, 33}}
	var pts []point
	for z := 0; z < 30; z++ {
		for y := 0; y < 60; y++ {
			for x := 0; x < 60; x++ {
				for _, c := range centres {
					// balls of 7 px in-plane and 5 planes
					if sq(float64(z-c[0])/5)+sq(float64(y-c[1])/7)+sq(float64(x-c[2])/7) <= 1 {
						pts = append(pts, point{int32(z), int32(y), int32(x)})
						break
					}
				}
			}
		}
	}
	if float64(len(pts)) < p.MaxCellVolume || len(pts) >= p.MaxCluster {
		t.Fatalf("cluster of %d voxels is not between a cell (%g) and a cluster (%d)", len(pts), p.MaxCellVolume, p.MaxCluster)
	}
	got, ok, err := newSplitter(&p, nil).split(pts)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(got) != 4 {
		t.Fatalf("split into %v, want 4", got)
	}
	for _, g := range got {
		near := false
		for _, c := range centres {
			near = near || sq(float64(g.z)-float64(c[0]))+sq(float64(g.y)-float64(c[1]))+sq(float64(g.x)-float64(c[2])) <= 9
		}
		if !near {
			t.Errorf("centre %v is more than 3 voxels from %v", g, centres)
		}
	}
}

// TestBlobIsArtifact: a bright blob whose centre structure reaches the max
// cluster size is one artifact.
func TestBlobIsArtifact(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Threshold = 4
	blob := sphere{z: 25, y: 80, x: 80, blur: 30, bright: 40000}
	res := detectAll(t, gpu.NewCPU(), cfg, synth([3]int{50, 160, 160}, cfg.VoxelSize, []sphere{blob}, 5, 1))
	if len(res.Candidates) != 1 || res.Candidates[0].Type != Artifact || dist(res.Candidates[0], blob) > 1 {
		t.Errorf("found %v, want one artifact at %v", res.Candidates, blob)
	}
}

// scene is a volume with scattered somata, a cluster that is split and
// (with cfg.Threshold 4) an artifact.
func scene(cfg Config, nz int) (*volume.Volume, []sphere) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s []sphere
	for len(s) < 25 {
		c := sphere{z: 3 + rng.Float64()*float64(nz-6), y: 38 + rng.Float64()*64, x: 38 + rng.Float64()*94, r: 8, bright: 1200 + rng.Float64()*800}
		ok := true
		for _, o := range s {
			ok = ok && sq(c.z-o.z)*6+sq(c.y-o.y)+sq(c.x-o.x) > 300
		}
		if ok {
			s = append(s, c)
		}
	}
	return synth([3]int{nz, 140, 170}, cfg.VoxelSize, s, 8, 5), s
}

// TestBatchSizeAndWorkersIndependent: the same cells whatever the batch
// size and however many CPU workers.
func TestBatchSizeAndWorkersIndependent(t *testing.T) {
	cfg := DefaultConfig()
	v, truth := scene(cfg, 25)
	var ref []Candidate
	for _, tc := range []struct{ batch, workers int }{{1, 1}, {3, 2}, {8, 3}, {0, 4}, {25, 1}} {
		c := cfg
		c.BatchSize = tc.batch
		res := detectAll(t, gpu.NewCPUWorkers(tc.workers), c, v)
		if ref == nil {
			ref = res.Candidates
			if len(ref) < len(truth)/2 {
				t.Fatalf("found %d of %d somata: the scene tests little", len(ref), len(truth))
			}
			continue
		}
		if !slices.Equal(res.Candidates, ref) {
			t.Errorf("batch %d, %d workers: %d candidates differ from batch 1's %d", res.Batch, tc.workers, len(res.Candidates), len(ref))
		}
	}
}

// TestPartialResultsAddUp: the partial results are the final candidates.
func TestPartialResultsAddUp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 2
	v, _ := scene(cfg, 20)
	var parts pipeline.Points
	var planes int64
	prog := job.NewProgress("detect", func(e job.Event) {
		switch e.Kind {
		case job.Partial:
			parts = append(parts, e.Partial.(pipeline.Points)...)
		case job.Progressed:
			planes = e.Done
		}
	})
	res, err := Run(context.Background(), prog, gpu.NewCPU(), cfg, v, plan.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	byPosition := func(a, b pipeline.Point) int {
		return cmp.Or(cmp.Compare(a.Z, b.Z), cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.Type, b.Type))
	}
	want := Points(res.Candidates)
	slices.SortFunc(parts, byPosition)
	slices.SortFunc(want, byPosition)
	if len(parts) == 0 || !slices.Equal(parts, want) {
		t.Errorf("partial results %d candidates, result %d", len(parts), len(res.Candidates))
	}
	if planes != 20 {
		t.Errorf("progress counted %d planes, want 20", planes)
	}
}

// TestPlaneRange: a sub-range finds the cells inside it at the same
// (absolute) positions.
func TestPlaneRange(t *testing.T) {
	cfg := DefaultConfig()
	v, _ := scene(cfg, 30)
	all := detectAll(t, gpu.NewCPU(), cfg, v).Candidates
	cfg.StartPlane, cfg.EndPlane = 8, 22
	part := detectAll(t, gpu.NewCPU(), cfg, v).Candidates
	var want []Candidate
	for _, c := range all {
		// Cells whose centre voxels all lie well inside the range.
		if c.Z >= 12 && c.Z < 18 {
			want = append(want, c)
		}
	}
	for _, c := range part {
		if c.Z < 9 || c.Z >= 21 {
			t.Errorf("%v outside the planes a 3-plane ball can centre in [8,22)", c)
		}
	}
	for _, w := range want {
		if !slices.Contains(part, w) {
			t.Errorf("%v found in the whole volume is missing from planes 8-22", w)
		}
	}
	if len(want) == 0 {
		t.Error("no cells in the middle planes: the test tests nothing")
	}
}

// TestMemoryPlanMatchesTracking: on several shapes and batch sizes the
// device peak measured by the tracking allocator is 80–100% of the plan.
func TestMemoryPlanMatchesTracking(t *testing.T) {
	for _, tc := range []struct {
		shape  [3]int
		batch  int
		budget int64
		tiled  bool
	}{
		{[3]int{12, 64, 80}, 1, 0, false},
		{[3]int{20, 100, 90}, 5, 0, true},
		{[3]int{9, 33, 200}, 0, 0, false},
		{[3]int{30, 128, 128}, 0, 1 << 20, false}, // budget picks the batch
	} {
		t.Run(fmt.Sprint(tc.shape), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BatchSize = tc.batch
			if tc.tiled {
				cfg.TileSize = 1.5
			}
			v := synth(tc.shape, cfg.VoxelSize, []sphere{{z: 5, y: 32, x: 40, r: 8, bright: 1500}}, 3, 2)
			be := gpu.NewCPU()
			res, err := Run(context.Background(), nil, be, cfg, v, plan.Budget{Device: tc.budget})
			if err != nil {
				t.Fatal(err)
			}
			peak, want := be.Stats().Peak, res.Plan.PeakDevice
			if r := float64(peak) / float64(want); r < 0.8 || r > 1 {
				t.Errorf("batch %d: measured peak %d is %.0f%% of the planned %d", res.Batch, peak, 100*r, want)
			}
			if be.Stats().Current != 0 {
				t.Errorf("%d bytes still allocated after the run", be.Stats().Current)
			}
			if tc.budget > 0 && float64(peak) > plan.DefaultMargin*float64(tc.budget) {
				t.Errorf("peak %d passes the budget %d", peak, tc.budget)
			}
		})
	}
}

func TestTooSmallDevice(t *testing.T) {
	cfg := DefaultConfig()
	v := synth([3]int{10, 200, 200}, cfg.VoxelSize, nil, 0, 1)
	_, err := Run(context.Background(), nil, gpu.NewCPU(), cfg, v, plan.Budget{Device: 100 << 10, DeviceSource: "--device-memory 100KiB"})
	var ts *plan.TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("got %v, want a TooSmallError", err)
	}
}

func TestBadParameters(t *testing.T) {
	u16 := volume.Info{Shape: [3]int{20, 64, 64}, DType: volume.Uint16}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		info volume.Info
		want string
	}{
		{"zero voxel", func(c *Config) { c.VoxelSize[1] = 0 }, u16, "voxel size"},
		{"negative voxel", func(c *Config) { c.VoxelSize[0] = -5 }, u16, "voxel size"},
		{"ball z rounds to 0", func(c *Config) { c.BallZ = 2 }, u16, "rounds to 0 planes"},
		{"too few planes", func(c *Config) {}, volume.Info{Shape: [3]int{2, 64, 64}, DType: volume.Uint16}, "at least ball-z planes"},
		{"float data", func(c *Config) {}, volume.Info{Shape: [3]int{20, 64, 64}, DType: volume.Float32}, "integer data"},
		{"int16 data", func(c *Config) {}, volume.Info{Shape: [3]int{20, 64, 64}, DType: volume.Int16}, "this volume is int16: convert it first"},
		{"uint32 data", func(c *Config) {}, volume.Info{Shape: [3]int{20, 64, 64}, DType: volume.Uint32}, "(uint8 or uint16), this volume is uint32"},
		{"bad range", func(c *Config) { c.StartPlane, c.EndPlane = 10, 5 }, u16, "planes 10 to 5"},
		{"overlap", func(c *Config) { c.BallOverlap = 1.5 }, u16, "between 0 and 1"},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		_, err := c.Params(tc.info)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

func TestDefaultsInVoxels(t *testing.T) {
	p, err := DefaultConfig().Params(volume.Info{Shape: [3]int{20, 64, 64}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	if p.SomaPx != 8 || p.Ball != (Ball{3, 3, 0.6}) || p.Radius != 6 || p.Clip != 65533 || p.MaxCluster != 5000 || p.BrainTile != 16 {
		t.Errorf("defaults in voxels: %+v", p)
	}
	if math.Abs(p.MaxCellVolume-4.0/3*math.Pi*5.6*5.6*5.6) > 1e-9 || math.Abs(p.Sigma-1.6) > 1e-12 {
		t.Errorf("max cell volume %g, sigma %g", p.MaxCellVolume, p.Sigma)
	}
}

// TestCancel: a cancelled run stops and says so.
func TestCancel(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 1
	v, _ := scene(cfg, 20)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	prog := job.NewProgress("detect", func(e job.Event) {
		if e.Kind == job.Progressed && e.Done > 0 {
			if n++; n == 3 {
				cancel()
			}
		}
	})
	be := gpu.NewCPU()
	_, err := Run(ctx, prog, be, cfg, v, plan.Budget{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if be.Stats().Current != 0 {
		t.Errorf("%d bytes still allocated after cancelling", be.Stats().Current)
	}
}

// TestUint8Volume: 8-bit data is clipped at 253 and detected the same way.
func TestUint8Volume(t *testing.T) {
	cfg := DefaultConfig()
	c := sphere{z: 6, y: 48, x: 50, r: 8, bright: 1500}
	v16 := synth([3]int{12, 96, 96}, cfg.VoxelSize, []sphere{c}, 0, 1)
	raw, err := v16.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	u8 := make([]byte, len(raw)/2)
	for i := range u8 {
		u8[i] = byte(min((int(raw[2*i])|int(raw[2*i+1])<<8)/8, 255))
	}
	info := v16.Info
	info.DType = volume.Uint8
	m, err := volume.NewMemory(info, u8)
	if err != nil {
		t.Fatal(err)
	}
	res := detectAll(t, gpu.NewCPU(), cfg, volume.New("u8", m))
	if want := (Candidate{6, 48, 50, Cell}); len(res.Candidates) != 1 || res.Candidates[0] != want {
		t.Errorf("found %v, want [%v]", res.Candidates, want)
	}
}

// TestClusterTooLargeToSplit: a cluster whose bounding box passes the
// splitting bound keeps its one centre (the caller warns).
func TestClusterTooLargeToSplit(t *testing.T) {
	p, err := DefaultConfig().Params(volume.Info{Shape: [3]int{500, 500, 500}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	var pts []point
	for i := int32(0); i < 400; i++ {
		pts = append(pts, point{i, i, i}, point{i, i, i + 1}, point{i, i + 1, i + 1})
	}
	got, ok, err := newSplitter(&p, nil).split(pts)
	if err != nil || ok || len(got) != 1 {
		t.Errorf("split of a %d-voxel diagonal: %v, ok %v, err %v; want its one centre, not split", len(pts), got, ok, err)
	}
}
