package dezing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// randomScan makes a volume of smooth data with noise and hot and cold
// zingers.
func randomScan(rng *rand.Rand, shape [3]int, dt volume.DType, level float64) *volume.Memory {
	info := volume.Info{Shape: shape, DType: dt}
	n := int(info.Len())
	data := make([]byte, info.Bytes())
	u, f := volume.Uint16s(data), volume.Float32s(data)
	for i := 0; i < n; i++ {
		x, y := i%shape[2], (i/shape[2])%shape[1]
		v := level*(1+0.3*math.Sin(float64(x)/4)*math.Cos(float64(y)/6)) + 80*rng.NormFloat64()
		switch rng.IntN(50) {
		case 0:
			v += 5000 + 20000*rng.Float64()
		case 1:
			v -= 3000
		}
		v = min(max(v, 0), 65535)
		if dt == volume.Uint16 {
			u[i] = uint16(v)
		} else {
			f[i] = float32(v)
		}
	}
	m, err := volume.NewMemory(info, data)
	if err != nil {
		panic(err)
	}
	return m
}

func testScan(seed uint64, dt volume.DType, np, nd, nf, rows, cols int) Input {
	rng := rand.New(rand.NewPCG(seed, 99))
	in := Input{Projections: randomScan(rng, [3]int{np, rows, cols}, dt, 12000)}
	if nd > 0 {
		in.Darks = randomScan(rng, [3]int{nd, rows, cols}, dt, 300)
	}
	if nf > 0 {
		in.Flats = randomScan(rng, [3]int{nf, rows, cols}, dt, 30000)
	}
	return in
}

// TestBlockSizesAgree runs whole scans with blocks of 1, 2, 7 and the
// whole stack (for projections, darks and flats, and for the rows of the
// reduction), on 1 and 2 workers: every output must be bit-identical.
func TestBlockSizesAgree(t *testing.T) {
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		for _, kernel := range []int{3, 5} {
			for _, ff := range []bool{false, true} {
				in := testScan(uint64(kernel), dt, 17, 6, 9, 11, 14)
				var ref *memOutput
				for _, block := range []int{17, 1, 2, 7} {
					for _, workers := range []int{1, 2} {
						cfg := DefaultConfig()
						cfg.Kernel, cfg.FlatField, cfg.MinusLog = kernel, ff, ff
						cfg.Reduce = Median
						cfg.Block, cfg.FrameBlock, cfg.ReduceRows = block, block, block
						out, _ := runAll(t, gpu.NewCPUWorkers(workers), cfg, in)
						if ref == nil {
							ref = out
							continue
						}
						name := fmt.Sprintf("%s kernel %d flat-field %v block %d workers %d", dt, kernel, ff, block, workers)
						if !bytes.Equal(out.data, ref.data) {
							t.Errorf("%s: projections differ from the whole-stack run", name)
						}
						if _, ok := sameFloats(out.dark, ref.dark); !ok {
							t.Errorf("%s: dark frame differs", name)
						}
						if _, ok := sameFloats(out.flat, ref.flat); !ok {
							t.Errorf("%s: flat frame differs", name)
						}
					}
				}
			}
		}
	}
}

// TestAgainstNaive checks the pipeline's projections against a naive
// reference of its own (full sort of every neighbourhood).
func TestAgainstNaive(t *testing.T) {
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		for _, kernel := range []int{3, 5, 7} {
			in := testScan(7, dt, 9, 0, 0, 10, 13)
			cfg := DefaultConfig()
			cfg.Kernel, cfg.Block = kernel, 2
			out, _ := runAll(t, gpu.NewCPU(), cfg, in)
			src := in.Projections.(*volume.Memory).Data()
			want := naive(src, in.Projections.Info(), kernel, cfg.Dif)
			if !bytes.Equal(out.data, want) {
				t.Errorf("%s kernel %d: differs from the naive reference", dt, kernel)
			}
			if bytes.Equal(want, src) {
				t.Errorf("%s kernel %d: nothing replaced", dt, kernel)
			}
		}
	}
}

// naive is remove_outlier by sorting every clamped neighbourhood.
func naive(src []byte, info volume.Info, kernel int, dif float64) []byte {
	out := make([]byte, len(src))
	nz, ny, nx := info.Shape[0], info.Shape[1], info.Shape[2]
	r := kernel / 2
	cl := func(v, n int) int { return min(max(v, 0), n-1) }
	val := func(b []byte, i int) float64 {
		if info.DType == volume.Uint16 {
			return float64(volume.Uint16s(b)[i])
		}
		return float64(volume.Float32s(b)[i])
	}
	nb := make([]float64, 0, kernel*kernel*kernel)
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				nb = nb[:0]
				for dz := -r; dz <= r; dz++ {
					for dy := -r; dy <= r; dy++ {
						for dx := -r; dx <= r; dx++ {
							nb = append(nb, val(src, (cl(z+dz, nz)*ny+cl(y+dy, ny))*nx+cl(x+dx, nx)))
						}
					}
				}
				sortFloats(nb)
				m := nb[len(nb)/2]
				i := (z*ny+y)*nx + x
				v := val(src, i)
				if info.DType == volume.Uint16 {
					o := v
					if math.Abs(v-m) >= dif {
						o = m
					}
					volume.Uint16s(out)[i] = uint16(o)
				} else {
					o := float32(v)
					if d := float32(v) - float32(m); float32(math.Abs(float64(d))) >= float32(dif) {
						o = float32(m)
					}
					volume.Float32s(out)[i] = o
				}
			}
		}
	}
	return out
}

func sortFloats(s []float64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j-1] > s[j]; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

// TestRangeMatchesWhole: a sub-range of projections (a cluster task's
// share) gives the same frames as the whole run.
func TestRangeMatchesWhole(t *testing.T) {
	in := testScan(3, volume.Uint16, 20, 3, 4, 9, 10)
	cfg := DefaultConfig()
	cfg.Kernel, cfg.FlatField = 5, true
	whole, _ := runAll(t, gpu.NewCPU(), cfg, in)
	pb := whole.info.PlaneBytes()
	for _, rg := range [][2]int{{0, 20}, {0, 1}, {1, 19}, {5, 12}, {18, 20}} {
		for _, block := range []int{0, 1, 3} {
			c := cfg
			c.Range, c.Block = rg, block
			part, _ := runAll(t, gpu.NewCPU(), c, in)
			if !bytes.Equal(part.data, whole.data[int64(rg[0])*pb:int64(rg[1])*pb]) {
				t.Errorf("range %v block %d: differs from the whole run", rg, block)
			}
		}
	}
}

// TestPeakMatchesPlan: with the tracking allocator, the measured peak of
// device buffers is between 80% and 100% of the plan's prediction, on
// several shapes, types, kernels and budgets.
func TestPeakMatchesPlan(t *testing.T) {
	for i, tc := range []struct {
		dt              volume.DType
		np, nd, nf      int
		rows, cols      int
		kernel          int
		ff, median, pin bool
		device          int64
	}{
		{volume.Uint16, 30, 4, 6, 20, 24, 3, false, false, false, 0},
		{volume.Uint16, 30, 4, 6, 20, 24, 3, true, true, false, 64 << 10},
		{volume.Float32, 25, 0, 0, 16, 33, 5, false, false, true, 48 << 10},
		{volume.Float32, 12, 5, 5, 40, 9, 7, true, false, false, 30 << 10},
		{volume.Uint16, 50, 2, 3, 32, 32, 3, true, true, false, 40 << 10},
	} {
		in := testScan(uint64(i), tc.dt, tc.np, tc.nd, tc.nf, tc.rows, tc.cols)
		cfg := DefaultConfig()
		cfg.Kernel, cfg.FlatField, cfg.Pin = tc.kernel, tc.ff, tc.pin
		if tc.median {
			cfg.Reduce = Median
		}
		cfg.Budget = plan.Budget{Device: tc.device}
		be := gpu.NewCPUWorkers(2)
		if tc.device > 0 {
			be.SetLimit(tc.device)
		}
		_, res := runAll(t, be, cfg, in)
		pred := res.Plan.PeakDevice
		got := be.Stats().Peak
		if got > pred || float64(got) < 0.8*float64(pred) {
			t.Errorf("case %d: measured peak %d bytes, predicted %d (want 80-100%%)", i, got, pred)
		}
		if tc.device > 0 && res.Plan.Block() >= tc.np {
			t.Errorf("case %d: a %d-byte budget should not hold all %d projections at once", i, tc.device, tc.np)
		}
		if be.Stats().Current != 0 {
			t.Errorf("case %d: %d bytes still allocated after the run", i, be.Stats().Current)
		}
	}
}

// The field's failure case (httomo issue 245): 1800 projections of 2160 x
// 2560 uint16, 20 darks, 50 flats, kernel 3, a 2 GiB device.
var fieldCase = Shapes{
	Projections: volume.Info{Shape: [3]int{1800, 2160, 2560}, DType: volume.Uint16},
	Darks:       volume.Info{Shape: [3]int{20, 2160, 2560}, DType: volume.Uint16},
	Flats:       volume.Info{Shape: [3]int{50, 2160, 2560}, DType: volume.Uint16},
}

func TestFieldCasePlans(t *testing.T) {
	for _, be := range []gpu.Backend{gpu.NewCPUWorkers(2), gpu.NewCPUWorkers(16)} {
		for _, ff := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.FlatField = ff
			cfg.Budget = plan.Budget{Device: 2 << 30, DeviceSource: "--device-memory 2GiB"}
			pl, err := Plan(be, fieldCase, cfg)
			if err != nil {
				t.Fatalf("flat-field %v: %v", ff, err)
			}
			margin := plan.DefaultMargin
			usable := int64(margin * (2 << 30))
			for _, ph := range pl.Phases {
				if ph.Device > usable {
					t.Errorf("phase %s needs %d bytes of a usable %d", ph.Name, ph.Device, usable)
				}
			}
			if pl.Block() < 10 {
				t.Errorf("flat-field %v: only %d projections per block", ff, pl.Block())
			}
			// Every block is capped at what throughput needs (about
			// 128 MiB of input for kernel 3), though 2 GiB holds more;
			// the reductions work on the whole dezinged set.
			for _, ph := range pl.Phases {
				frame := fieldCase.Projections.PlaneBytes()
				if ph.Unit != "rows" && int64(ph.Block)*frame > blockTarget {
					t.Errorf("phase %s: blocks of %d frames, %d bytes", ph.Name, ph.Block, int64(ph.Block)*frame)
				}
				if ph.Unit == "rows" && ph.Blocks != 1 {
					t.Errorf("phase %s in %d blocks", ph.Name, ph.Blocks)
				}
			}
			t.Logf("flat-field %v: %d projections per block, peak %s", ff, pl.Block(), plan.FormatBytes(pl.PeakDevice))
		}
	}
}

// TestFieldCaseDryRun runs the field's case at full size under a 2 GiB
// cap on the tracking allocator: the same buffers, staging, uploads and
// downloads as a real run (DryRun: only the kernels and the file reads are
// skipped). It moves about 40 GB through memory, so -short skips it.
func TestFieldCaseDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("moves about 40 GB through memory; run without -short")
	}
	if raceEnabled {
		t.Skip("moves about 40 GB through memory, which the race detector makes take many minutes; the run without -race covers it")
	}
	const cap2G = 2 << 30
	be := gpu.NewCPUWorkers(2)
	be.SetLimit(cap2G)
	cfg := DefaultConfig()
	cfg.FlatField = true
	cfg.Budget = plan.Budget{Device: cap2G, DeviceSource: "--device-memory 2GiB"}
	var stages []string
	p := job.NewProgress("dry", func(e job.Event) {
		if e.Kind == job.Progressed && (len(stages) == 0 || stages[len(stages)-1] != e.Stage) {
			stages = append(stages, e.Stage)
		}
	})
	res, err := DryRun(context.Background(), p, be, cfg, fieldCase)
	if err != nil {
		t.Fatal(err)
	}
	peak := be.Stats().Peak
	if peak > cap2G {
		t.Fatalf("peak %d bytes passes the 2 GiB cap", peak)
	}
	if pred := res.Plan.PeakDevice; peak > pred || float64(peak) < 0.8*float64(pred) {
		t.Errorf("measured peak %d, predicted %d", peak, pred)
	}
	want := []string{StageDarks, StageDarksReduce, StageFlats, StageFlatsReduce, StageProjections}
	if strings.Join(stages, ",") != strings.Join(want, ",") {
		t.Errorf("stages %v, want %v", stages, want)
	}
	frame := int64(2160 * 2560)
	if up := res.ToDevice; up < (1800+70)*frame*2 {
		t.Errorf("only %d bytes uploaded", up)
	}
	t.Logf("peak %d bytes (%s) of 2 GiB, predicted %d; %d projections per block; %.1f GB up, %.1f GB down",
		peak, plan.FormatBytes(peak), res.Plan.PeakDevice, res.Plan.Block(), float64(res.ToDevice)/1e9, float64(res.FromDevice)/1e9)
}

// TestTooSmallDevice: a device that cannot hold one block gives the
// planner's error, and allocates nothing.
func TestTooSmallDevice(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Budget = plan.Budget{Device: 30 << 20, DeviceSource: "--device-memory 30MiB"}
	_, err := Plan(gpu.NewCPU(), fieldCase, cfg)
	var ts *plan.TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("error %v, want a *plan.TooSmallError", err)
	}
	if !strings.Contains(err.Error(), "30MiB") || ts.Need <= ts.Usable {
		t.Errorf("error %q should name the budget and need more than is usable", err)
	}
	be := gpu.NewCPU()
	if _, err := DryRun(context.Background(), nil, be, cfg, fieldCase); !errors.As(err, &ts) {
		t.Errorf("dry run: %v", err)
	}
	if be.Stats().Allocs != 0 {
		t.Errorf("%d allocations after a failed plan", be.Stats().Allocs)
	}
}

func TestBadInput(t *testing.T) {
	good := testScan(1, volume.Uint16, 4, 2, 2, 6, 7)
	other := testScan(2, volume.Uint16, 4, 2, 2, 6, 8)
	f64, _ := volume.NewMemory(volume.Info{Shape: [3]int{2, 6, 7}, DType: volume.Float64}, make([]byte, 8*84))
	for _, tc := range []struct {
		name string
		in   Input
		edit func(*Config)
		want string
	}{
		{"no projections", Input{}, nil, "no projections"},
		{"darks frame size", Input{Projections: good.Projections, Darks: other.Darks}, nil, "same size"},
		{"flats frame size", Input{Projections: good.Projections, Flats: other.Flats}, nil, "same size"},
		{"float64", Input{Projections: f64}, nil, "convert float64 data to float32"},
		{"dif 0", good, func(c *Config) { c.Dif = 0 }, "dif"},
		{"dif negative", good, func(c *Config) { c.Dif = -5 }, "dif"},
		{"even kernel", good, func(c *Config) { c.Kernel = 4 }, "odd"},
		{"kernel 15", good, func(c *Config) { c.Kernel = 15 }, "3 to 13"},
		{"flat-field without flats", Input{Projections: good.Projections, Darks: good.Darks}, func(c *Config) { c.FlatField = true }, "needs darks and flats"},
		{"minus-log alone", good, func(c *Config) { c.MinusLog = true }, "flat-field"},
		{"range", good, func(c *Config) { c.Range = [2]int{2, 9} }, "passes"},
	} {
		cfg := DefaultConfig()
		if tc.edit != nil {
			tc.edit(&cfg)
		}
		out := newMemOutput(volume.Info{Shape: [3]int{1, 1, 1}, DType: volume.Uint16})
		_, err := Run(context.Background(), nil, gpu.NewCPU(), cfg, tc.in, out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if out.frames != 0 || out.next != 0 {
			t.Errorf("%s: output written before the error", tc.name)
		}
	}
}

// failingSource fails to read after a number of reads.
type failingSource struct {
	volume.Source
	left int
}

func (f *failingSource) ReadSlab(z0, z1 int, dst []byte) error {
	if f.left == 0 {
		return errors.New("disk on fire")
	}
	f.left--
	return f.Source.ReadSlab(z0, z1, dst)
}

func TestReadErrorAndCancel(t *testing.T) {
	in := testScan(5, volume.Uint16, 30, 2, 2, 8, 8)
	cfg := DefaultConfig()
	cfg.Block = 3
	be := gpu.NewCPU()
	bad := in
	bad.Projections = &failingSource{Source: in.Projections, left: 4}
	_, err := Run(context.Background(), nil, be, cfg, bad, newMemOutput(OutInfo(in.Shapes(), cfg)))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "projections") {
		t.Errorf("read error: %v", err)
	}
	if be.Stats().Current != 0 {
		t.Errorf("%d bytes left allocated after a read error", be.Stats().Current)
	}

	// Cancel from the sink after the first partial block.
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Partials = true
	var partials []*Block
	p := job.NewProgress("dezing", func(e job.Event) {
		if b, ok := e.Partial.(*Block); ok {
			partials = append(partials, b)
			cancel()
		}
	})
	out := newMemOutput(OutInfo(in.Shapes(), cfg))
	_, err = Run(ctx, p, be, cfg, in, out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if len(partials) != 1 || out.next != 3 {
		t.Errorf("cancelled after %d partial blocks and %d projections written, want 1 and 3", len(partials), out.next)
	}
	if be.Stats().Current != 0 {
		t.Errorf("%d bytes left allocated after cancelling", be.Stats().Current)
	}
	b := partials[0]
	if b.Z0 != 0 || b.Shape != [3]int{3, 8, 8} || b.DType != volume.Uint16 || !bytes.Equal(b.Data, out.data[:len(b.Data)]) {
		t.Errorf("partial block %+v does not hold the first 3 processed projections", b.Shape)
	}
}

func TestClipWarning(t *testing.T) {
	in := testScan(6, volume.Float32, 5, 2, 2, 6, 6)
	cfg := DefaultConfig()
	cfg.FlatField = true
	cfg.ClipLow, cfg.ClipHigh = 0, 0.01 // projections/flats ≈ 0.4: all clipped
	var warnings []string
	p := job.NewProgress("dezing", func(e job.Event) {
		if e.Kind == job.Warning {
			warnings = append(warnings, e.Message)
		}
	})
	out := newMemOutput(OutInfo(in.Shapes(), cfg))
	res, err := Run(context.Background(), p, gpu.NewCPU(), cfg, in, out)
	if err != nil {
		t.Fatal(err)
	}
	// The scan's zingers (4% of its voxels) also bring the warning about
	// how many voxels were replaced (TestReplacedWarning).
	clipWarnings := 0
	for _, w := range warnings {
		if strings.Contains(w, "were clipped") {
			clipWarnings++
		}
	}
	if res.Clipped < res.Values/2 || clipWarnings != 1 {
		t.Errorf("clipped %d of %d, warnings %q", res.Clipped, res.Values, warnings)
	}
}

// TestRAMMatchesPlan runs scans on the CPU backend with one shared budget
// and a tracker counting every host array, device buffer and staging
// buffer: the run's peak RAM never passes the plan's PeakRAM and comes
// near it (the plan is not padded).
func TestRAMMatchesPlan(t *testing.T) {
	for i, tc := range []struct {
		dt         volume.DType
		np, nd, nf int
		rows, cols int
		kernel     int
		ff         bool
		host       int64
	}{
		{volume.Uint16, 30, 4, 6, 20, 24, 3, false, 0},
		{volume.Uint16, 30, 4, 6, 20, 24, 3, true, 64 << 10},
		{volume.Float32, 25, 0, 0, 16, 33, 5, false, 64 << 10},
		{volume.Float32, 12, 5, 5, 40, 9, 7, true, 0},
		{volume.Uint16, 50, 2, 3, 32, 32, 3, true, 96 << 10},
	} {
		in := testScan(uint64(i), tc.dt, tc.np, tc.nd, tc.nf, tc.rows, tc.cols)
		cfg := DefaultConfig()
		cfg.Kernel, cfg.FlatField = tc.kernel, tc.ff
		cfg.Budget = plan.Budget{Host: tc.host, Shared: true}
		cfg.Track = plan.NewTracker()
		be := gpu.NewCPUWorkers(2)
		be.CountHost(cfg.Track)
		_, res := runAll(t, be, cfg, in)
		pred, got := res.Plan.PeakRAM, cfg.Track.Peak()
		if got > pred || float64(got) < 0.8*float64(pred) {
			t.Errorf("case %d: peak RAM %d bytes (%v), predicted %d (want 80-100%%)", i, got, cfg.Track.PeakBreakdown(), pred)
		}
		if tc.host > 0 && float64(pred) > plan.DefaultMargin*float64(tc.host) {
			t.Errorf("case %d: plan of %d bytes passes the usable share of a %d-byte budget", i, pred, tc.host)
		}
		if tc.host > 0 && res.Plan.Block() >= tc.np {
			t.Errorf("case %d: a %d-byte budget should not hold all %d projections at once", i, tc.host, tc.np)
		}
	}
}
