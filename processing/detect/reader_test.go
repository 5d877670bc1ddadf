package detect

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/zarr"
)

// writeZarr writes v as a Zarr v2 array in zstd chunks.
func writeZarr(t *testing.T, v *volume.Volume, path string, chunks [3]int) {
	t.Helper()
	data, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteZarr(t, path, v.Info, data, chunks)
}

// TestReaderInPlan: detection on the demo brain stored in zstd chunks of
// 8 planes (and in cubes) plans its reader's decode buffers and the
// cache of the chunk layer a batch ends inside, holds the run's RAM —
// the reader's buffers and cache counted as they are held — within the
// plan with a roomy budget and a tight one (one chunk at a time, no
// cache), and finds the candidates it finds in memory.
func TestReaderInPlan(t *testing.T) {
	v := lightsheet.New(lightsheet.SmallShape, 1).Volume()
	cfg := DefaultConfig()
	ref, _ := ramRun(t, cfg, v, plan.Budget{Host: 8 << 30, Shared: true})
	for _, chunks := range [][3]int{{8, v.Shape[1], v.Shape[2]}, {8, 64, 64}} {
		path := filepath.Join(t.TempDir(), "brain.zarr")
		writeZarr(t, v, path, chunks)
		z, err := volume.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		roomy, err := MakePlan(z, cfg, plan.Budget{Shared: true}, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		bd := roomy.Phases[0].Breakdown
		chunk := int64(chunks[0] * chunks[1] * chunks[2] * 2)
		layer := chunk * int64((v.Shape[1]+chunks[1]-1)/chunks[1]) * int64((v.Shape[2]+chunks[2]-1)/chunks[2])
		if bd["host:"+volume.LabelDecode] < chunk || bd["host:"+volume.LabelCache] < layer || roomy.Choice != volume.ReadAllCached {
			t.Errorf("chunks %v: plan (%s) counts decode buffers %d (chunk %d), cache %d (a layer is %d)", chunks,
				roomy.Reading, bd["host:"+volume.LabelDecode], chunk, bd["host:"+volume.LabelCache], layer)
		}
		// The smallest budget that works: one chunk at a time, with a
		// cache only where it costs nothing more (chunks across the whole
		// plane are decoded into its slot).
		_, err = MakePlan(z, cfg, plan.Budget{Host: 1 << 20, Shared: true}, "cpu")
		var ts *plan.TooSmallError
		if !errors.As(err, &ts) {
			t.Fatalf("chunks %v: a 1 MiB budget: %v", chunks, err)
		}
		for _, b := range []plan.Budget{{Host: 8 << 30, Shared: true}, {Host: ts.Smallest(), Shared: true}} {
			res, tr := ramRun(t, cfg, z, b)
			// The plan bounds what the reader holds (each chunk's stored
			// bytes at the most a codec can expand them to, every decoder
			// at once): the run holds less, but never more.
			if peak := tr.Peak(); peak > res.Plan.PeakRAM || peak < res.Plan.PeakRAM/3 || tr.Current() != 0 {
				t.Errorf("chunks %v, budget %d (%s): peak RAM %d of the planned %d, %d still counted; at the peak %v",
					chunks, b.Host, res.Plan.Reading, peak, res.Plan.PeakRAM, tr.Current(), tr.PeakBreakdown())
			}
			if !slices.Equal(res.Candidates, ref.Candidates) {
				t.Errorf("chunks %v, budget %d: %d candidates, in memory %d", chunks, b.Host, len(res.Candidates), len(ref.Candidates))
			}
		}
		z.Close()
	}
}
