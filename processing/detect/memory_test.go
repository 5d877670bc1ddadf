package detect

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// ramRun runs cfg on v on a CPU backend whose buffers, and the run's host
// arrays, are counted by one tracker, and returns the result and the
// tracker.
func ramRun(t *testing.T, cfg Config, v *volume.Volume, b plan.Budget) (*Result, *plan.Tracker) {
	t.Helper()
	tr := plan.NewTracker()
	be := gpu.NewCPU()
	be.CountHost(tr)
	cfg.Memory = tr
	res, err := Run(context.Background(), nil, be, cfg, v, b)
	if err != nil {
		t.Fatal(err)
	}
	return res, tr
}

// TestRunRAMWithinPlan: on the CPU backend a run's RAM — the backend's
// buffers and the host arrays, counted once — peaks at most at the plan's
// PeakRAM and at more than half of it, with a roomy host budget and with
// one so tight that the planner drops to one plane per batch; the
// candidates are the same, and nothing stays counted after the run.
func TestRunRAMWithinPlan(t *testing.T) {
	split := DefaultConfig()
	split.Threshold = 2
	four := []sphere{{z: 10, y: 120, x: 120}, {z: 10, y: 120, x: 130}, {z: 10, y: 130, x: 120}, {z: 11, y: 130, x: 130}}
	for i := range four {
		four[i].blur, four[i].bright = 8, 1500
	}
	for _, sc := range []struct {
		name string
		cfg  Config
		v    *volume.Volume
	}{
		{"demo brain", DefaultConfig(), lightsheet.New(lightsheet.SmallShape, 1).Volume()},
		{"split cluster", split, synth([3]int{22, 256, 256}, split.VoxelSize, four, 5, 1)},
		{"2048 x 2048 planes", DefaultConfig(), lightsheet.New([3]int{10, 2048, 2048}, 1).Volume()},
	} {
		t.Run(sc.name, func(t *testing.T) {
			if testing.Short() && sc.v.Shape[1] > 1000 {
				t.Skip("field-size planes take seconds: run without -short")
			}
			roomy := plan.Budget{Host: 8 << 30, Shared: true}
			ref, tr := ramRun(t, sc.cfg, sc.v, roomy)
			checkRAM(t, "roomy", ref, tr)
			tight := plan.Budget{Host: tightHost(t, sc.cfg, sc.v), Shared: true, HostSource: "--host-memory"}
			res, tr := ramRun(t, sc.cfg, sc.v, tight)
			checkRAM(t, "tight", res, tr)
			if res.Batch != 1 {
				t.Errorf("tight budget %d: batch %d, want 1", tight.Host, res.Batch)
			}
			if u := int64(plan.DefaultMargin * float64(tight.Host)); tr.Peak() > u {
				t.Errorf("tight budget: peak %d passes the %d usable", tr.Peak(), u)
			}
			if !slices.Equal(res.Candidates, ref.Candidates) {
				t.Errorf("tight budget: %d candidates, roomy %d", len(res.Candidates), len(ref.Candidates))
			}
		})
	}
}

// tightHost returns a host budget between the RAM of batches of one and
// two planes.
func tightHost(t *testing.T, cfg Config, v *volume.Volume) int64 {
	t.Helper()
	ram := func(batch int) int64 {
		c := cfg
		c.BatchSize = batch
		pl, err := MakePlan(v, c, plan.Budget{Shared: true}, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		return pl.PeakRAM
	}
	return int64(float64(ram(1)+ram(2)) / 2 / plan.DefaultMargin)
}

func checkRAM(t *testing.T, what string, res *Result, tr *plan.Tracker) {
	t.Helper()
	peak, want := tr.Peak(), res.Plan.PeakRAM
	r := float64(peak) / float64(want)
	t.Logf("%s: batch %d, peak %d of the planned %d (%.0f%%), %d candidates, %d split", what, res.Batch, peak, want, 100*r, len(res.Candidates), res.Split)
	if r > 1 || r < 0.5 {
		t.Errorf("%s: peak RAM %d is %.0f%% of the planned %d; at the peak %v; planned %v", what, peak, 100*r, want, tr.PeakBreakdown(), res.Plan.Phases[0].Breakdown)
	}
	if c := tr.Current(); c != 0 {
		t.Errorf("%s: %d bytes still counted after the run", what, c)
	}
}

// denseSplit is split as cellfinder writes it: the whole padded box is
// ball-filtered at once (naiveBall) and its centres labelled by flood
// fill, round after round.
func denseSplit(s *splitter, pts []point) []point {
	z, y, x := centre(pts)
	best := []point{{int32(z), int32(y), int32(x)}}
	lo, hi := bounds(pts)
	k := s.k
	nz, ny, nx := int(hi.z-lo.z)+k.KZ, int(hi.y-lo.y)+k.KY, int(hi.x-lo.x)+k.KX
	plane := ny * nx
	m := make([]byte, nz*plane)
	for _, p := range pts {
		m[(int(p.z-lo.z)+k.MidZ)*plane+(int(p.y-lo.y)+k.OffY)*nx+int(p.x-lo.x)+k.OffX] = 1
	}
	k.H, k.W, k.Ring, k.First, k.Count = ny, nx, nz, 0, nz-k.KZ+1
	bestN := 1
	for it := 0; it < s.iter; it++ {
		c := naiveBall(m, nil, s.kern.W, &k)
		clear(m)
		copy(m[k.MidZ*plane:], c)
		structs := naiveComponents(m, nz, ny, nx)
		if len(structs) > bestN {
			bestN, best = len(structs), nil
			for _, st := range structs {
				cz, cy, cx := centre(st)
				best = append(best, point{
					lo.z + int32(clampInt(cz-k.MidZ, 0, int(hi.z-lo.z))),
					lo.y + int32(clampInt(cy-k.OffY, 0, int(hi.y-lo.y))),
					lo.x + int32(clampInt(cx-k.OffX, 0, int(hi.x-lo.x))),
				})
			}
		}
		if len(structs) == 0 {
			break
		}
	}
	return best
}

// TestSplitStreamsLikeDenseBox: streaming a cluster's box through a ring
// of mask planes finds the centres filtering the whole box does, on
// random clusters of overlapping balls.
func TestSplitStreamsLikeDenseBox(t *testing.T) {
	p, err := DefaultConfig().Params(volume.Info{Shape: [3]int{60, 80, 80}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	byZYX := func(a, b point) int {
		return cmp.Or(cmp.Compare(a.z, b.z), cmp.Compare(a.y, b.y), cmp.Compare(a.x, b.x))
	}
	for trial := 0; trial < 12; trial++ {
		var pts []point
		n := 1 + rng.IntN(5)
		var balls [][4]float64
		for i := 0; i < n; i++ {
			balls = append(balls, [4]float64{10 + rng.Float64()*8, 20 + rng.Float64()*25, 20 + rng.Float64()*25, 3 + rng.Float64()*5})
		}
		for z := 0; z < 30; z++ {
			for y := 0; y < 70; y++ {
				for x := 0; x < 70; x++ {
					for _, b := range balls {
						if sq((float64(z)-b[0])*2.5)+sq(float64(y)-b[1])+sq(float64(x)-b[2]) <= b[3]*b[3] {
							pts = append(pts, point{int32(z), int32(y), int32(x)})
							break
						}
					}
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		s := newSplitter(&p, nil)
		got, ok, err := s.split(pts)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		want := denseSplit(s, pts)
		slices.SortFunc(got, byZYX)
		slices.SortFunc(want, byZYX)
		if !slices.Equal(got, want) {
			t.Errorf("trial %d (%d voxels, %d balls): streamed %v, dense %v", trial, len(pts), n, got, want)
		}
	}
}

// TestDetectorCompacts: over many planes of random centres the detector
// finds the flood fill's structures while renumbering its labels, and
// its union-find arrays stay the size of a plane's structures, not the
// volume's.
func TestDetectorCompacts(t *testing.T) {
	nz, ny, nx := 400, 30, 40
	rng := rand.New(rand.NewPCG(7, 8))
	v := make([]byte, nz*ny*nx)
	for i := range v {
		if rng.Float64() < 0.2 {
			v[i] = 1
		}
	}
	tr := plan.NewTracker()
	d := newDetector(ny, nx, tr, "labels")
	var got [][]point
	most := 0
	for z := 0; z < nz; z++ {
		got = append(got, d.plane(z, v[z*ny*nx:(z+1)*ny*nx])...)
		most = max(most, len(d.parent))
	}
	got = append(got, d.flush()...)
	want := naiveComponents(v, nz, ny, nx)
	if g, w := canon(got), canon(want); !slices.Equal(g, w) {
		t.Fatalf("%d structures, flood fill %d", len(g), len(w))
	}
	if limit := 2*ny*nx + 1025; most > limit || len(want) < 2*limit {
		t.Errorf("up to %d labels held for %d structures: want at most %d", most, len(want), limit)
	}
	d.release()
	if tr.Current() != 0 || tr.Peak() < labelPlanesBytes(ny, nx) {
		t.Errorf("tracker: %d bytes left, peak %d", tr.Current(), tr.Peak())
	}
}
