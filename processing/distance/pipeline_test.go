package distance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// testMaps makes n smooth random maps of box³ (a few Gaussian blobs plus
// noise), deterministic from seed.
func testMaps(t testing.TB, n, box int, seed uint64) *MemMaps {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	v := box * box * box
	data := make([]float32, n*v)
	for i := 0; i < n; i++ {
		type blob struct{ z, y, x, w, a float64 }
		var bs []blob
		for range 3 {
			bs = append(bs, blob{rng.Float64() * float64(box), rng.Float64() * float64(box), rng.Float64() * float64(box), 1 + rng.Float64()*float64(box)/5, 0.5 + rng.Float64()})
		}
		m := data[i*v : (i+1)*v]
		for z := 0; z < box; z++ {
			for y := 0; y < box; y++ {
				for x := 0; x < box; x++ {
					s := 0.2 * rng.NormFloat64()
					for _, b := range bs {
						d2 := sq(float64(z)-b.z) + sq(float64(y)-b.y) + sq(float64(x)-b.x)
						s += b.a * math.Exp(-d2/(2*b.w*b.w))
					}
					m[(z*box+y)*box+x] = float32(s)
				}
			}
		}
	}
	mm, err := NewMemMaps(data, n, box)
	if err != nil {
		t.Fatal(err)
	}
	return mm
}

func sq(x float64) float64 { return x * x }

func mustRun(t *testing.T, be gpu.Backend, cfg Config, gt, sub Maps) *Result {
	t.Helper()
	res, err := Run(context.Background(), nil, be, cfg, gt, sub)
	if err != nil {
		t.Fatalf("Run(low=%v chunk=%d auto=%v): %v", cfg.LowMemory, cfg.Chunk, cfg.AutoChunk, err)
	}
	return res
}

// TestPipelinesAgree: in memory and low memory give the same matrices for
// every metric, whatever the chunk size (1, 3, n−1, n, > n; 10 is not a
// multiple of 3), with and without a mask.
func TestPipelinesAgree(t *testing.T) {
	const ngt, nsub, box = 10, 4, 10
	gt, sub := testMaps(t, ngt, box, 1), testMaps(t, nsub, box, 2)
	sphere, err := SphereMask(box, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, mask := range []*Mask{nil, sphere} {
		base := Config{Metrics: AllMetrics(), Mask: mask, VoxelSize: 1.5, AutoChunk: true}
		ref := mustRun(t, gpu.NewCPU(), base, gt, sub)
		for _, low := range []bool{false, true} {
			for _, chunk := range []int{1, 3, ngt - 1, ngt, ngt + 5} {
				cfg := base
				cfg.LowMemory, cfg.AutoChunk, cfg.Chunk = low, false, chunk
				res := mustRun(t, gpu.NewCPU(), cfg, gt, sub)
				if res.Chunk != min(chunk, ngt) {
					t.Errorf("chunk %d: the run used %d", chunk, res.Chunk)
				}
				for k, m := range res.Metrics {
					for i, want := range ref.Matrices[k] {
						if got := res.Matrices[k][i]; !relClose(got, want, 1e-6) {
							t.Errorf("mask=%v low=%v chunk=%d %s[%d,%d] = %.12g, in memory %.12g", mask != nil, low, chunk, m, i/nsub, i%nsub, got, want)
						}
					}
				}
			}
		}
	}
}

// relClose reports |a − b| ≤ tol·|b| (or both tiny).
func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Abs(b) || math.Abs(a-b) < 1e-12
}

// TestGroundTruthNormalisedInBothPipelines guards against the challenge's
// bug, where only the low-memory path normalised the ground truth: scaling
// and shifting the ground truth must not change any metric in either
// pipeline, since median-zscore undoes it.
func TestGroundTruthNormalisedInBothPipelines(t *testing.T) {
	gt, sub := testMaps(t, 5, 8, 3), testMaps(t, 3, 8, 4)
	moved := &MemMaps{Data: make([]float32, len(gt.Data)), N: gt.N, Edge: gt.Edge}
	for i, v := range gt.Data {
		moved.Data[i] = 3*v + 7
	}
	for _, low := range []bool{false, true} {
		cfg := Config{Metrics: AllMetrics(), VoxelSize: 1, LowMemory: low, Chunk: 2}
		a, b := mustRun(t, gpu.NewCPU(), cfg, gt, sub), mustRun(t, gpu.NewCPU(), cfg, moved, sub)
		for k, m := range a.Metrics {
			for i := range a.Matrices[k] {
				// float32 rounding of 3x+7 moves values by ~1e-7 of the maps'
				// scale; forgetting to normalise would move them by O(1).
				if d := math.Abs(b.Matrices[k][i] - a.Matrices[k][i]); d > 1e-4*math.Max(1, math.Abs(a.Matrices[k][i])) {
					t.Fatalf("low=%v %s[%d]: %g after scaling the ground truth, %g before", low, m, i, b.Matrices[k][i], a.Matrices[k][i])
				}
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	gt, sub := testMaps(t, 4, 6, 1), testMaps(t, 2, 6, 2)
	empty := &MemMaps{Edge: 6}
	other := testMaps(t, 2, 8, 2)
	mask8, _ := SphereMask(8, 3)
	ok := Config{Metrics: []Metric{L2}, Chunk: 2}
	cases := []struct {
		name    string
		cfg     Config
		gt, sub Maps
		want    string
	}{
		{"chunk 0", Config{Metrics: []Metric{L2}, Chunk: 0}, gt, sub, "chunk size 0"},
		{"chunk 0 low", Config{Metrics: []Metric{L2}, Chunk: 0, LowMemory: true}, gt, sub, "chunk size 0"},
		{"negative chunk", Config{Metrics: []Metric{L2}, Chunk: -3, LowMemory: true}, gt, sub, "chunk size -3"},
		{"empty ground truth", ok, empty, sub, "ground-truth set is empty"},
		{"empty submitted", ok, gt, empty, "submitted set is empty"},
		{"box mismatch", ok, gt, other, "same box"},
		{"mask box", Config{Metrics: []Metric{L2}, Chunk: 2, Mask: mask8}, gt, sub, "mask is a 8³ box"},
		{"res without voxel size", Config{Metrics: []Metric{Res}, Chunk: 2}, gt, sub, "voxel size"},
		{"no metrics", Config{Chunk: 2}, gt, sub, "no metrics"},
		{"rows outside", Config{Metrics: []Metric{L2}, Chunk: 2, Rows: [2]int{3, 9}}, gt, sub, "outside"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), nil, gpu.NewCPU(), c.cfg, c.gt, c.sub)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestBadMaps(t *testing.T) {
	sub := testMaps(t, 2, 6, 2)
	nan := testMaps(t, 3, 6, 1)
	nan.Data[216+5] = float32(math.NaN())
	flat := testMaps(t, 3, 6, 1)
	for i := 2 * 216; i < 3*216; i++ {
		flat.Data[i] = 1
	}
	for _, c := range []struct {
		name string
		gt   Maps
		want string
	}{
		{"nan", nan, "map 1 of the ground-truth set: voxel (z 0, y 0, x 5) inside the mask is NaN"},
		{"constant", flat, "map 2 of the ground-truth set: constant inside the mask"},
	} {
		for _, low := range []bool{false, true} {
			_, err := Run(context.Background(), nil, gpu.NewCPU(), Config{Metrics: []Metric{L2}, Chunk: 2, LowMemory: low}, c.gt, sub)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s low=%v: error %v, want %q", c.name, low, err, c.want)
			}
		}
	}
	// Without normalisation a constant map is fine.
	if _, err := Run(context.Background(), nil, gpu.NewCPU(), Config{Metrics: []Metric{L2}, Chunk: 2, Normalize: NoNormalization}, flat, sub); err != nil {
		t.Errorf("constant map without normalisation: %v", err)
	}
}

// countingMaps records every read.
type countingMaps struct {
	Maps
	mu      sync.Mutex
	reads   [][2]int
	failAt  int // fail the read that includes this map (−1: never)
	maxSpan int
}

func (c *countingMaps) ReadMaps(i0, i1 int, dst []float32) error {
	c.mu.Lock()
	c.reads = append(c.reads, [2]int{i0, i1})
	c.maxSpan = max(c.maxSpan, i1-i0)
	c.mu.Unlock()
	if i0 <= c.failAt && c.failAt < i1 {
		return errors.New("disk on fire")
	}
	return c.Maps.ReadMaps(i0, i1, dst)
}

// TestLowMemoryReadsByChunk: the ground truth is read once, chunk by
// chunk, never more than a chunk at a time.
func TestLowMemoryReadsByChunk(t *testing.T) {
	gt := &countingMaps{Maps: testMaps(t, 11, 6, 1), failAt: -1}
	sub := testMaps(t, 3, 6, 2)
	res := mustRun(t, gpu.NewCPU(), Config{Metrics: []Metric{L2, FSC}, LowMemory: true, Chunk: 4}, gt, sub)
	if gt.maxSpan != 4 {
		t.Errorf("largest read %d maps, want the chunk of 4", gt.maxSpan)
	}
	seen := make([]int, 11)
	for _, r := range gt.reads {
		for i := r[0]; i < r[1]; i++ {
			seen[i]++
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("map %d read %d times", i, n)
		}
	}
	if res.NGT != 11 {
		t.Errorf("NGT %d", res.NGT)
	}
}

func TestReadErrorStops(t *testing.T) {
	for _, low := range []bool{false, true} {
		gt := &countingMaps{Maps: testMaps(t, 9, 6, 1), failAt: 4}
		_, err := Run(context.Background(), nil, gpu.NewCPU(), Config{Metrics: []Metric{L2}, LowMemory: low, Chunk: 2}, gt, testMaps(t, 2, 6, 2))
		if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "read ground-truth maps") {
			t.Errorf("low=%v: error %v", low, err)
		}
	}
}

// cancelAfter cancels a context after n rows were reported done.
func TestCancel(t *testing.T) {
	for _, low := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var once sync.Once
		p := job.NewProgress("t", func(e job.Event) {
			if e.Stage == "distances" && e.Done >= 2 {
				once.Do(cancel)
			}
		})
		be := gpu.NewCPU()
		_, err := Run(ctx, p, be, Config{Metrics: []Metric{L2}, LowMemory: low, Chunk: 2}, testMaps(t, 12, 6, 1), testMaps(t, 2, 6, 2))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("low=%v: error %v, want context.Canceled", low, err)
		}
		if cur := be.Stats().Current; cur != 0 {
			t.Errorf("low=%v: %d device bytes still allocated after the cancelled run", low, cur)
		}
		cancel()
	}
}

// TestPartials: every chunk of every metric is handed out once, with the
// final values.
func TestPartials(t *testing.T) {
	var mu sync.Mutex
	var got []Chunk
	p := job.NewProgress("t", func(e job.Event) {
		if e.Kind == job.Partial {
			mu.Lock()
			got = append(got, e.Partial.(Chunk))
			mu.Unlock()
		}
	})
	const ngt, nsub = 7, 3
	res, err := Run(context.Background(), p, gpu.NewCPU(), Config{Metrics: []Metric{L2, Corr}, LowMemory: true, Chunk: 3}, testMaps(t, ngt, 6, 1), testMaps(t, nsub, 6, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3*2 {
		t.Fatalf("%d partials, want 3 chunks x 2 metrics", len(got))
	}
	for _, c := range got {
		k := map[string]int{"l2": 0, "corr": 1}[c.Name]
		if c.Cols != nsub || c.TotalRows != ngt || len(c.Values) != c.Rows*nsub {
			t.Errorf("partial %+v has the wrong shape", c)
		}
		for i, v := range c.Values {
			if v != res.Matrices[k][c.Row0*nsub+i] {
				t.Errorf("partial %s row %d differs from the result", c.Name, c.Row0)
			}
		}
	}
}

// TestRowsRange: a task computing rows [3, 8) gets those rows of the full
// matrix.
func TestRowsRange(t *testing.T) {
	gt, sub := testMaps(t, 10, 6, 1), testMaps(t, 3, 6, 2)
	full := mustRun(t, gpu.NewCPU(), Config{Metrics: []Metric{BioEM, FSC}, Chunk: 4}, gt, sub)
	part := mustRun(t, gpu.NewCPU(), Config{Metrics: []Metric{BioEM, FSC}, Chunk: 2, LowMemory: true, Rows: [2]int{3, 8}}, gt, sub)
	if part.NGT != 5 || part.Row0 != 3 {
		t.Fatalf("rows [3,8): NGT %d Row0 %d", part.NGT, part.Row0)
	}
	for k := range part.Matrices {
		for i, v := range part.Matrices[k] {
			if want := full.Matrices[k][3*3+i]; !relClose(v, want, 1e-9) {
				t.Errorf("%s[%d] = %g, full run %g", part.Metrics[k], i, v, want)
			}
		}
	}
}

// TestPeakMatchesPlan: on several shapes, the device memory a run really
// held (the CPU backend's tracking allocator) is 80–100% of the plan's
// prediction, for both pipelines and for planned and fixed chunks.
func TestPeakMatchesPlan(t *testing.T) {
	shapes := []struct {
		ngt, nsub, box int
		metrics        []Metric
		mask           float64
	}{
		{9, 4, 8, []Metric{L2}, 0},
		{13, 5, 10, []Metric{L2, Corr, BioEM}, 4},
		{6, 7, 12, AllMetrics(), 5},
		{20, 2, 8, []Metric{FSC, Res}, 0},
	}
	for _, s := range shapes {
		gt, sub := testMaps(t, s.ngt, s.box, 1), testMaps(t, s.nsub, s.box, 2)
		var mask *Mask
		if s.mask > 0 {
			mask, _ = SphereMask(s.box, s.mask)
		}
		for _, low := range []bool{false, true} {
			for _, chunk := range []int{0, 3} {
				cfg := Config{Metrics: s.metrics, Mask: mask, VoxelSize: 1, LowMemory: low, Chunk: chunk, AutoChunk: chunk == 0}
				want := chunk
				if chunk == 0 {
					// A host budget that holds about a third of the maps;
					// the chunk must be the largest whose phase fits it
					// (found here by a linear scan), at most a quarter of
					// the maps in low-memory mode.
					phases, _, err := Phases(cfg, Shape{NGT: s.ngt, NSub: s.nsub, Box: s.box}, "cpu", gpu.NewCPU().Workers())
					if err != nil {
						t.Fatal(err)
					}
					total := func(ph plan.Phase, b int) int64 { u := ph.UsageAt(b); return u.Device + u.Host + u.Pinned }
					dist := phaseNamed(t, phases, "distances")
					need := total(dist, max(1, s.ngt/3))
					for _, ph := range phases {
						if ph.Name != "distances" {
							need = max(need, total(ph, max(ph.Block, ph.MaxBlock, 1)))
						}
					}
					budget := int64(float64(need)/plan.DefaultMargin) + 1
					cfg.Budget = plan.Budget{Host: budget}
					limit := s.ngt
					if low {
						limit = (s.ngt + 3) / 4
					}
					want = 0
					for b := 1; b <= limit; b++ {
						if float64(total(dist, b)) <= plan.DefaultMargin*float64(budget) {
							want = b
						}
					}
				}
				be := gpu.NewCPU()
				res, err := Run(context.Background(), nil, be, cfg, gt, sub)
				if err != nil {
					t.Fatalf("%+v low=%v chunk=%d: %v", s, low, chunk, err)
				}
				if res.Chunk != want {
					t.Errorf("%+v low=%v: chunk %d, want %d", s, low, res.Chunk, want)
				}
				peak, planned := be.Stats().Peak, res.Plan.PeakDevice
				r := float64(peak) / float64(planned)
				t.Logf("%dx%d box %d low=%v: chunk %d of %d maps, device peak %d = %.3f of the plan", s.ngt, s.nsub, s.box, low, res.Chunk, s.ngt, peak, r)
				if r < 0.8 || r > 1 {
					t.Errorf("%dx%d box %d low=%v chunk=%d: device peak %d is %.2f of the plan's %d", s.ngt, s.nsub, s.box, low, res.Chunk, peak, r, planned)
				}
			}
		}
	}
}

// TestPlanFitsBudget: the planned chunk is the largest whose device and
// host arrays fit the host budget on the CPU backend.
func TestPlanFitsBudget(t *testing.T) {
	cfg := Config{Metrics: []Metric{L2, FSC}, LowMemory: true, AutoChunk: true, Budget: plan.Budget{Host: 64 << 20}}
	sh := Shape{NGT: 500, NSub: 10, Box: 32}
	p, err := MakePlan(cfg, sh, "cpu", 2)
	if err != nil {
		t.Fatal(err)
	}
	phases, _, _ := Phases(cfg, sh, "cpu", 2)
	ph := phaseNamed(t, phases, "distances")
	total := func(b int) int64 { u := ph.UsageAt(b); return u.Device + u.Host + u.Pinned }
	budget := float64(64 << 20)
	lim := int64(budget * plan.DefaultMargin)
	if b := p.Block(); total(b) > lim || (b < (sh.NGT+3)/4 && total(b+1) <= lim) {
		t.Errorf("chunk %d: uses %d, next %d, limit %d", b, total(b), total(b+1), lim)
	}
	// Too small for one map: a clear error naming the smallest budget
	// that works, and that budget does work.
	cfg.Budget.Host = 1 << 20
	_, err = MakePlan(cfg, sh, "cpu", 2)
	var ts *plan.TooSmallError
	if err == nil || !strings.Contains(err.Error(), "smallest block needs") || !errors.As(err, &ts) ||
		!strings.Contains(err.Error(), "smallest budget that works is "+plan.FormatBytes(ts.Smallest())) {
		t.Fatalf("1 MiB budget: %v", err)
	}
	cfg.Budget.Host = ts.Smallest()
	if _, err := MakePlan(cfg, sh, "cpu", 2); err != nil {
		t.Errorf("the smallest budget the error named, %d bytes: %v", ts.Smallest(), err)
	}
	// In memory, the hint says to stream.
	cfg.LowMemory = false
	cfg.Budget.Host = 8 << 20
	if _, err := MakePlan(cfg, sh, "cpu", 2); err == nil || !strings.Contains(err.Error(), "--low-memory") {
		t.Errorf("in memory over budget: %v", err)
	}
}

func phaseNamed(t *testing.T, phases []plan.Phase, name string) plan.Phase {
	t.Helper()
	for _, ph := range phases {
		if ph.Name == name {
			return ph
		}
	}
	t.Fatalf("no phase %q", name)
	return plan.Phase{}
}

// TestTrackedRAMWithinPlan: the host RAM a run really holds at its peak —
// every device buffer and staging buffer (the CPU backend counts them)
// and every host array (the run's tracker) — is at most the plan's
// PeakRAM, and not much less (≥ 60%), so that the plan is neither short
// nor padded. In memory and low memory, with the planner's chunks under
// the default (unlimited) budget and under a host budget that forces
// many chunks, with a mask and FFT scratch, and through a reader that
// converts (uint16 maps). The maps are large enough that the run, not
// the output writer's fixed share, makes the peak.
func TestTrackedRAMWithinPlan(t *testing.T) {
	gt, sub := noiseMemMaps(t, 120, 40, 1), noiseMemMaps(t, 10, 40, 2)
	gt16, err := uint16Maps(gt)
	if err != nil {
		t.Fatal(err)
	}
	sphere, _ := SphereMask(40, 15)
	l2corr := []Metric{L2, Corr}
	cases := []struct {
		name string
		cfg  Config
		gt   Maps
		// chunks, when positive, asks for a budget that makes at least
		// that many chunks.
		chunks int
	}{
		{"in memory", Config{Metrics: l2corr, AutoChunk: true}, gt, 0},
		{"in memory, all metrics, sphere", Config{Metrics: AllMetrics(), Mask: sphere, VoxelSize: 1, AutoChunk: true}, gt, 0},
		{"in memory, uint16", Config{Metrics: l2corr, AutoChunk: true}, gt16, 0},
		{"low memory", Config{Metrics: l2corr, LowMemory: true, AutoChunk: true}, gt, 0},
		{"low memory, small budget", Config{Metrics: l2corr, LowMemory: true, AutoChunk: true}, gt, 10},
		{"low memory, uint16, small budget", Config{Metrics: l2corr, LowMemory: true, AutoChunk: true}, gt16, 8},
		{"low memory, all metrics, fixed chunk", Config{Metrics: AllMetrics(), Mask: sphere, VoxelSize: 1, LowMemory: true, Chunk: 7}, gt, 0},
	}
	for _, c := range cases {
		be := gpu.NewCPU()
		cfg := c.cfg
		if c.chunks > 0 {
			cfg.Budget = smallBudget(t, cfg, ShapeOf(c.gt, sub), be)
		}
		tr := plan.NewTracker()
		be.CountHost(tr)
		cfg.Tracker = tr
		res, err := Run(context.Background(), nil, be, cfg, c.gt, sub)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		peak, planned := tr.Peak(), res.Plan.PeakRAM
		chunks := (res.NGT + res.Chunk - 1) / res.Chunk
		t.Logf("%s: chunk %d (%d chunks), tracked peak %s of a planned %s (%.3f)", c.name, res.Chunk, chunks,
			plan.FormatBytes(peak), plan.FormatBytes(planned), float64(peak)/float64(planned))
		if peak > planned || float64(peak) < 0.6*float64(planned) {
			t.Errorf("%s: tracked peak %d bytes, planned %d (%.3f): %v", c.name, peak, planned, float64(peak)/float64(planned), tr.PeakBreakdown())
		}
		if c.chunks > 0 && chunks < c.chunks {
			t.Errorf("%s: %d chunks of %d, want at least %d", c.name, chunks, res.Chunk, c.chunks)
		}
		if cur := tr.Current(); cur != res.Plan.Phases[res.Plan.Main].Breakdown["host:distance matrices"] {
			t.Errorf("%s: %d bytes still counted after the run, want the matrices' %d: %v", c.name, cur,
				res.Plan.Phases[res.Plan.Main].Breakdown["host:distance matrices"], tr.PeakBreakdown())
		}
	}
}

// smallBudget returns the smallest host budget every phase fits, as the
// planner's error says it.
func smallBudget(t *testing.T, cfg Config, sh Shape, be *gpu.CPUBackend) plan.Budget {
	t.Helper()
	cfg.Budget = plan.Budget{Host: 1 << 20}
	_, err := MakePlan(cfg, sh, "cpu", be.Workers())
	var ts *plan.TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("a 1 MiB budget: %v, want a TooSmallError", err)
	}
	return plan.Budget{Host: ts.Smallest(), HostSource: "test"}
}

// noiseMemMaps makes n maps of box³ uniform noise in [0, 1000), quickly.
func noiseMemMaps(t *testing.T, n, box int, seed uint64) *MemMaps {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	d := make([]float32, n*box*box*box)
	for i := range d {
		d[i] = float32(rng.IntN(1000))
	}
	m, err := NewMemMaps(d, n, box)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// uint16Maps returns m's maps (whole numbers below 65536) as a stack of
// uint16, which StackMaps converts through a scratch buffer.
func uint16Maps(m *MemMaps) (*StackMaps, error) {
	v := m.Edge * m.Edge * m.Edge
	raw := make([]uint16, len(m.Data))
	for i, x := range m.Data {
		raw[i] = uint16(x)
	}
	mem, err := volume.NewMemory(volume.Info{Shape: [3]int{m.N * m.Edge, m.Edge, m.Edge}, DType: volume.Uint16}, volume.Bytes(raw))
	if err != nil {
		return nil, err
	}
	s, err := volume.NewStack("uint16 maps", m.N, mem)
	if err != nil {
		return nil, err
	}
	_ = v
	return FromStack(s)
}

func ExampleRun() {
	// Two tiny sets of 4³ maps: ground-truth map i is submitted map i
	// scaled and shifted, so after median-zscore they are the same map
	// and their correlation is Σa²/n, just under 1 (std divides by n−1).
	box := 4
	mk := func(n int, f func(i, v int) float32) *MemMaps {
		d := make([]float32, n*box*box*box)
		for i := range d {
			d[i] = f(i/(box*box*box), i%(box*box*box))
		}
		m, _ := NewMemMaps(d, n, box)
		return m
	}
	gt := mk(3, func(i, v int) float32 { return float32((v*(i+1))%7) + float32(i) })
	sub := mk(2, func(i, v int) float32 { return float32((v*(i+1))%7) * 2 })
	res, err := Run(context.Background(), nil, gpu.NewCPU(),
		Config{Metrics: []Metric{Corr}, AutoChunk: true}, gt, sub)
	if err != nil {
		panic(err)
	}
	for i := 0; i < res.NGT; i++ {
		fmt.Printf("%.3f %.3f\n", res.Matrices[0][i*2], res.Matrices[0][i*2+1])
	}
	// Output:
	// 0.985 0.509
	// 0.509 0.985
	// 0.272 0.272
}

// TestRunsUnderPlannedCap: a device capped at the plan's peak is enough
// (a simulated device of exactly that size), one byte less is not.
func TestRunsUnderPlannedCap(t *testing.T) {
	gt, sub := testMaps(t, 11, 8, 1), testMaps(t, 3, 8, 2)
	for _, low := range []bool{false, true} {
		cfg := Config{Metrics: AllMetrics(), VoxelSize: 1, LowMemory: low, Chunk: 4}
		p, err := PlanRun(cfg, gt, sub, gpu.NewCPU())
		if err != nil {
			t.Fatal(err)
		}
		be := gpu.NewCPU()
		be.SetLimit(p.PeakDevice)
		if _, err := Run(context.Background(), nil, be, cfg, gt, sub); err != nil {
			t.Errorf("low=%v: under a cap of the planned %d bytes: %v", low, p.PeakDevice, err)
		}
		be = gpu.NewCPU()
		be.SetLimit(p.PeakDevice - 1)
		if _, err := Run(context.Background(), nil, be, cfg, gt, sub); !errors.Is(err, gpu.ErrOutOfMemory) {
			t.Errorf("low=%v: a cap one byte under the plan: %v, want out of memory", low, err)
		}
	}
}
