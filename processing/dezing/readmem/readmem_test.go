package readmem_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/hdf5"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/internal/testutil"
	. "github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
	_ "github.com/voxlab/voxlab/processing/volume/zarr"
)

// memOutput keeps a run's projections in memory.
type memOutput struct {
	pb   int64
	data []byte
	next int
}

func (m *memOutput) Frames(dark, flat []float32) error { return nil }

func (m *memOutput) Slab(z0 int, data []byte) error {
	if z0 != m.next {
		return errors.New("slab out of order")
	}
	copy(m.data[int64(z0)*m.pb:], data)
	m.next = z0 + int(int64(len(data))/m.pb)
	return nil
}

// runAll runs dezinging over in into memory.
func runAll(t testing.TB, be gpu.Backend, cfg Config, in Input) (*memOutput, *Result) {
	t.Helper()
	info := OutInfo(in.Shapes(), cfg)
	out := &memOutput{pb: info.PlaneBytes(), data: make([]byte, info.Bytes())}
	res, err := Run(context.Background(), nil, be, cfg, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if out.next != info.Shape[0] {
		t.Fatalf("output got %d of %d projections", out.next, info.Shape[0])
	}
	return out, res
}

// scanValue is a projection voxel of the compressed layouts below: a
// level of ~1000 counts with noise, and a zinger every 997 voxels.
func scanValue(z, y, x int) uint16 {
	h := uint32(z*73856093 ^ y*19349663 ^ x*83492791)
	v := 1000 + uint16(h>>8)%64
	if (z*7919+y*31+x)%997 == 0 {
		v += 20000
	}
	return v
}

// scanBytes returns scanValue over shape, little-endian.
func scanBytes(shape [3]int) []byte {
	b := make([]byte, 2*shape[0]*shape[1]*shape[2])
	i := 0
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				binary.LittleEndian.PutUint16(b[i:], scanValue(z, y, x))
				i += 2
			}
		}
	}
	return b
}

// writeZstdZarr writes scanValue over shape as a Zarr v2 array in zstd
// chunks of the given shape, as zarr-python stores them.
func writeZstdZarr(t testing.TB, path string, shape, chunks [3]int) {
	t.Helper()
	testutil.WriteZarr(t, path, volume.Info{Shape: shape, DType: volume.Uint16}, scanBytes(shape), chunks)
}

// writeGzipH5 writes scanValue over shape as /data of an HDF5 file, in
// gzip chunks of the given shape.
func writeGzipH5(t testing.TB, path string, shape, chunks [3]int) {
	t.Helper()
	f, err := hdf5.CreateFile(path, hdf5.F_ACC_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	space, _ := hdf5.CreateSimpleDataspace([]uint{uint(shape[0]), uint(shape[1]), uint(shape[2])}, nil)
	defer space.Close()
	dcpl, _ := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	defer dcpl.Close()
	if err := dcpl.SetChunk([]uint{uint(chunks[0]), uint(chunks[1]), uint(chunks[2])}); err != nil {
		t.Fatal(err)
	}
	if err := dcpl.SetDeflate(1); err != nil {
		t.Fatal(err)
	}
	ds, err := f.CreateDatasetWith("data", hdf5.T_NATIVE_UINT16, space, dcpl)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	data := volume.Uint16s(scanBytes(shape))
	if err := ds.Write(&data); err != nil {
		t.Fatal(err)
	}
}

// testLayouts are issue 23's compressed layouts at a test's scale: one
// chunk, chunks of many planes, and cubes across the plane.
func testLayouts(t testing.TB, dir string) map[string]string {
	shape := [3]int{48, 256, 256}
	out := map[string]string{
		"one chunk":    filepath.Join(dir, "single.zarr"),
		"zstd 16-deep": filepath.Join(dir, "deep.zarr"),
		"zstd cubes":   filepath.Join(dir, "cubes.zarr"),
		"gzip 20-deep": filepath.Join(dir, "deep.h5"),
	}
	writeZstdZarr(t, out["one chunk"], shape, shape)
	writeZstdZarr(t, out["zstd 16-deep"], shape, [3]int{16, 256, 256})
	writeZstdZarr(t, out["zstd cubes"], shape, [3]int{16, 64, 64})
	writeGzipH5(t, out["gzip 20-deep"], shape, [3]int{20, 256, 256})
	return out
}

// TestReadersInPlanAndTracked runs dezinging on each compressed layout
// at budgets from generous to the smallest that works, with a tracking
// allocator that counts the run's arrays, the Zarr reader's decode
// buffers and cache as they are held, and libhdf5's chunk cache: the
// plan counts the readers' memory at the level it chose, the tracked
// peak stays within the plan, and the output is the same as from the
// voxels in memory at every level.
func TestReadersInPlanAndTracked(t *testing.T) {
	shape := [3]int{48, 256, 256}
	mem, _ := volume.NewMemory(volume.Info{Shape: shape, DType: volume.Uint16}, scanBytes(shape))
	ref, _ := runAll(t, gpu.NewCPUWorkers(2), DefaultConfig(), Input{Projections: mem})
	for name, path := range testLayouts(t, t.TempDir()) {
		v, err := volume.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Projections: v.Source()}
		levels := map[int]bool{}
		// From no limit down, each budget 70% of the one before, until
		// the plan refuses: then the smallest budget it names must work.
		var last error
		for budget := int64(0); ; {
			cfg := DefaultConfig()
			cfg.Budget = plan.Budget{Host: budget, Shared: true}
			pl, err := Plan(gpu.NewCPUWorkers(2), in.Shapes(), cfg)
			var ts *plan.TooSmallError
			if errors.As(err, &ts) {
				if budget == ts.Smallest() {
					t.Fatalf("%s: a budget of %d is too small and the smallest that works: %v", name, budget, err)
				}
				last, budget = err, ts.Smallest()
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			levels[pl.Choice] = true
			bd := pl.Phases[pl.PeakPhase].Breakdown
			if bd["host:"+volume.LabelDecode] < 2*int64(shape[1]*shape[2]*2) {
				t.Errorf("%s, budget %d: the plan counts %d bytes of decode buffers (%v)", name, budget, bd["host:"+volume.LabelDecode], bd)
			}
			cfg.Track = plan.NewTracker()
			be := gpu.NewCPUWorkers(2)
			be.CountHost(cfg.Track)
			out, res := runAll(t, be, cfg, in)
			if !bytes.Equal(out.data, ref.data) {
				t.Errorf("%s, budget %d (level %d, blocks of %d): output differs from the run on the voxels in memory", name, budget, pl.Choice, pl.Block())
			}
			got := cfg.Track.PeakBreakdown()
			if cfg.Track.Peak() > res.Plan.PeakRAM {
				t.Errorf("%s, budget %d (level %d): tracked peak %d > plan %d\ntracked %v\nplanned %v", name, budget, pl.Choice,
					cfg.Track.Peak(), res.Plan.PeakRAM, got, bd)
			}
			for _, l := range []string{volume.LabelDecode, volume.LabelCache} {
				if got[l] > bd["host:"+l] {
					t.Errorf("%s, budget %d (level %d): %s tracked at %d bytes, planned %d", name, budget, pl.Choice, l, got[l], bd["host:"+l])
				}
			}
			if last != nil {
				break // the smallest budget worked
			}
			if budget == 0 {
				budget = res.Plan.PeakRAM
			}
			budget = budget * 7 / 10
		}
		// Budgets from roomy to the smallest go through read levels,
		// unless caching costs nothing more (one chunk: it is decoded
		// into the cache's slot).
		rd := in.Shapes().Readers.Overlap(2 * (DefaultConfig().Kernel / 2))
		if sum := func(k int) (n int64) {
			for _, a := range rd.Arrays(k) {
				n += a.Fixed
			}
			return n
		}; len(levels) < 2 && sum(volume.ReadAllCached) > sum(volume.ReadOne) {
			t.Errorf("%s: the budgets tried planned only read levels %v", name, levels)
		}
		v.Close()
	}
}

// TestPlanWarnsOfRepeatedDecodes: a budget that leaves no room for a
// cache of decoded chunks, over chunks deeper than the blocks, decodes
// each chunk once per block that reads it; the plan says how many times.
// With the memory to cache the layer, it says nothing.
func TestPlanWarnsOfRepeatedDecodes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep.zarr")
	writeZstdZarr(t, path, [3]int{64, 128, 128}, [3]int{32, 64, 64})
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	in := Input{Projections: v.Source()}
	planAt := func(budget int64) (*plan.Plan, error) {
		cfg := DefaultConfig()
		cfg.Budget = plan.Budget{Host: budget, Shared: true}
		return Plan(gpu.NewCPUWorkers(2), in.Shapes(), cfg)
	}
	warned := func(pl *plan.Plan) bool {
		want := fmt.Sprintf("each chunk is decoded about %d times", (32+pl.Block()-1)/pl.Block()+1)
		for _, w := range pl.Warnings {
			if strings.Contains(w, want) {
				return true
			}
		}
		return false
	}
	pl, err := planAt(0)
	if err != nil {
		t.Fatal(err)
	}
	if warned(pl) {
		t.Errorf("no limit (%s, blocks of %d): warned of repeated decodes %q", pl.Reading, pl.Block(), pl.Warnings)
	}
	// The smallest budget that works holds no cache here.
	_, err = planAt(1 << 20)
	var ts *plan.TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("a budget of 1 MiB: %v", err)
	}
	if pl, err = planAt(ts.Smallest()); err != nil {
		t.Fatal(err)
	}
	if pl.Block() >= 32 || !warned(pl) {
		t.Errorf("at the smallest budget (%s, blocks of %d): warnings %q, want one saying how often each chunk is decoded", pl.Reading, pl.Block(), pl.Warnings)
	}
}
