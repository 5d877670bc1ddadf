package dezing

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestGoldenRemoveOutlier compares remove_outlier with scipy's
// median_filter(size=k, mode='nearest') plus the replacement in NumPy
// (testdata/gen_golden.py), whole-volume and in blocks of 1, 2 and 7.
func TestGoldenRemoveOutlier(t *testing.T) {
	n := 0
	for _, c := range loadGolden(t) {
		if c.Kind != "outlier" {
			continue
		}
		n++
		src, raw := c.Input.read(t)
		_, want := c.Output.read(t)
		if c.Replaced == 0 || bytes.Equal(raw, want) {
			t.Fatalf("%s: the golden output replaces nothing", c.Output.File)
		}
		for _, block := range []int{0, 1, 2, 7} {
			for _, workers := range []int{1, 2} {
				cfg := DefaultConfig()
				cfg.Kernel, cfg.Dif, cfg.Block = c.Kernel, c.Dif, block
				out, _ := runAll(t, gpu.NewCPUWorkers(workers), cfg, Input{Projections: src})
				if !bytes.Equal(out.data, want) {
					t.Errorf("%s (block %d, %d workers): differs from scipy", c.Output.File, block, workers)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d remove_outlier cases in golden.json", n)
	}
}

// TestGoldenPipeline compares the darks and flats (dezinged as their own
// stacks, then reduced) and the flat-field correction with NumPy.
func TestGoldenPipeline(t *testing.T) {
	n := 0
	for _, c := range loadGolden(t) {
		if c.Kind != "pipeline" {
			continue
		}
		n++
		proj, _ := c.Arrays["projections"].read(t)
		darks, _ := c.Arrays["darks"].read(t)
		flats, _ := c.Arrays["flats"].read(t)
		_, dezinged := c.Arrays["dezinged"].read(t)
		in := Input{Projections: proj, Darks: darks, Flats: flats}
		for _, red := range []Reduction{Mean, Median} {
			dark, _ := c.Arrays["dark_"+red.String()].read(t)
			flat, _ := c.Arrays["flat_"+red.String()].read(t)
			ff, _ := c.Arrays["flatfield_"+red.String()].read(t)
			ml, _ := c.Arrays["minuslog_"+red.String()].read(t)
			name := fmt.Sprintf("%s %s", proj.Info().DType, red)

			cfg := DefaultConfig()
			cfg.Kernel, cfg.Dif, cfg.Reduce = c.Kernel, c.Dif, red
			out, _ := runAll(t, gpu.NewCPU(), cfg, in)
			if !bytes.Equal(out.data, dezinged) {
				t.Errorf("%s: dezinged projections differ from scipy", name)
			}
			if i, ok := sameFloats(out.dark, volume.Float32s(dark.Data())); !ok {
				t.Errorf("%s: dark frame differs from NumPy at %d", name, i)
			}
			if i, ok := sameFloats(out.flat, volume.Float32s(flat.Data())); !ok {
				t.Errorf("%s: flat frame differs from NumPy at %d", name, i)
			}

			cfg.FlatField = true
			out, res := runAll(t, gpu.NewCPU(), cfg, in)
			if out.info.DType != volume.Float32 {
				t.Fatalf("%s: flat-field output is %s", name, out.info.DType)
			}
			if i, ok := sameFloats(volume.Float32s(out.data), volume.Float32s(ff.Data())); !ok {
				t.Errorf("%s: flat-field differs from NumPy at %d", name, i)
			}
			if res.Clipped != 0 || res.Values != int64(out.info.Len()) {
				t.Errorf("%s: clipped %d of %d values", name, res.Clipped, res.Values)
			}

			cfg.MinusLog = true
			out, _ = runAll(t, gpu.NewCPU(), cfg, in)
			if i, ok := sameFloats(volume.Float32s(out.data), volume.Float32s(ml.Data())); !ok {
				t.Errorf("%s: -log differs from NumPy at %d", name, i)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d pipeline cases in golden.json, want 2", n)
	}
}
