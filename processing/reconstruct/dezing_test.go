package reconstruct

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// addZingers sets about a fraction frac of the NPY volume at path to the
// saturated count 60000 (direct hits on the detector), isolated enough
// that each 3³ neighbourhood holds a few at most.
func addZingers(t *testing.T, path string, frac float64, seed uint64) int {
	t.Helper()
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := v.ReadAll()
	v.Close()
	if err != nil {
		t.Fatal(err)
	}
	data := make([]uint16, len(raw)/2)
	copy(volume.Bytes(data), raw)
	rng := rand.New(rand.NewPCG(seed, 1))
	n := 0
	for i := range data {
		if rng.Float64() < frac {
			data[i] = 60000
			n++
		}
	}
	if err := writeNPY(path, data, v.Shape[0], v.Shape[1], v.Shape[2]); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRunDezing: a scan with zingers in its projections, darks and
// flats reconstructs, once dezinged (--dezing), as the clean scan does:
// within 5 % of the slices' peak at any voxel (a zinger becomes its
// neighbourhood's median, not the count it hid; 3.4 % seen for kernel
// 3, 4.2 % for 5), while without --dezing the zingers' streaks are over
// 10 times that. The dezinged slices are
// the same bytes whatever the block of rows (the kernel's halo rows are
// read with each block), for kernels 3 and 5.
func TestRunDezing(t *testing.T) {
	e := exampleScan{nproj: 40, rows: 9, cols: 40, axis: 20, x: 4, y: -2, r: 9, mu: 0.03}
	clean, dirty := t.TempDir(), t.TempDir()
	proj, darks, flats, err := e.write(clean)
	if err != nil {
		t.Fatal(err)
	}
	zproj, zdarks, zflats, err := e.write(dirty)
	if err != nil {
		t.Fatal(err)
	}
	hits := addZingers(t, zproj, 0.005, 1) + addZingers(t, zdarks, 0.01, 2) + addZingers(t, zflats, 0.01, 3)
	if hits < 50 {
		t.Fatalf("only %d zingers", hits)
	}
	out := filepath.Join(t.TempDir(), "slices.npy")
	flags := map[string]any{"darks": darks, "flats": flats}
	if _, err := runSpec(t, proj, out, 0, flags); err != nil {
		t.Fatal(err)
	}
	want, _ := readFloats(t, out)
	zflags := map[string]any{"darks": zdarks, "flats": zflats}
	if _, err := runSpec(t, zproj, out, 0, zflags); err != nil {
		t.Fatal(err)
	}
	raw, _ := readFloats(t, out)
	undezinged, peak := maxAbsDiff(raw, f64(want))
	if math.IsNaN(undezinged) {
		undezinged = math.Inf(1) // a zinger in a dark or flat can make the −log NaN
	}
	const tol = 0.05 // of the slices' peak
	if undezinged < 10*tol*peak {
		t.Fatalf("the zingers change the slices by only %.3g (peak %.3g): the test would not see them", undezinged, peak)
	}
	for _, kernel := range []int{3, 5} {
		var first []byte
		for _, batch := range []int{0, 1, 2, 4} {
			f := with(with(with(zflags, "dezing", true), "kernel", kernel), "dif", 2000.0)
			if _, err := runSpec(t, zproj, out, batch, f); err != nil {
				t.Fatal(err)
			}
			got, _ := readFloats(t, out)
			if d, _ := maxAbsDiff(got, f64(want)); d > tol*peak || math.IsNaN(d) {
				t.Errorf("kernel %d, blocks of %d rows: dezinged slices differ from the clean scan's by %.3g (peak %.3g; %.3g without --dezing)",
					kernel, batch, d, peak, undezinged)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = data
			} else if !bytes.Equal(first, data) {
				t.Errorf("kernel %d: blocks of %d rows write other bytes than planned blocks", kernel, batch)
			}
		}
	}
}

// dezingedCopy writes remove_outlier of the whole NPY volume at path,
// in one call over every frame, as a float32 NPY in dir: the reference
// a fused run must equal.
func dezingedCopy(t *testing.T, path, dir string, dz DezingParams) string {
	t.Helper()
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	raw, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	in := make([]float32, v.Len())
	volume.ToFloat32(in, raw, v.DType)
	out := make([]float32, len(in))
	if err := dezingStack(context.Background(), out, in, v.Shape[0], v.Shape[1], v.Shape[2], dz); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(path))
	w, err := volume.CreateNPY(p, volume.Info{Shape: v.Shape, DType: volume.Float32})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, volume.Bytes(out)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunDezingFused: --dezing in the chain gives the bytes of
// dezinging the projections, darks and flats whole first (one median
// call over each stack) and reconstructing those without it — in
// blocks of rows with their halo, and with --paganin, where each whole
// projection is dezinged over its neighbours.
func TestRunDezingFused(t *testing.T) {
	e := exampleScan{nproj: 30, rows: 8, cols: 32, axis: 16, x: 3, y: -2, r: 7, mu: 0.03}
	dir, ref := t.TempDir(), t.TempDir()
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	addZingers(t, proj, 0.005, 4)
	addZingers(t, darks, 0.01, 5)
	addZingers(t, flats, 0.01, 6)
	dz := DezingParams{Kernel: 3, Dif: 2000}
	rproj, rdarks, rflats := dezingedCopy(t, proj, ref, dz), dezingedCopy(t, darks, ref, dz), dezingedCopy(t, flats, ref, dz)
	for _, pg := range []bool{false, true} {
		base := map[string]any{"paganin": pg, "energy": 30.0, "distance": 200.0, "pixel-size": 3.0, "ratio": 100.0}
		want := filepath.Join(ref, "want.npy")
		if _, err := runSpec(t, rproj, want, 2, with(with(base, "darks", rdarks), "flats", rflats)); err != nil {
			t.Fatal(err)
		}
		got := filepath.Join(dir, "got.npy")
		f := with(with(with(with(with(base, "darks", darks), "flats", flats), "dezing", true), "kernel", dz.Kernel), "dif", dz.Dif)
		if _, err := runSpec(t, proj, got, 3, f); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(want)
		b, _ := os.ReadFile(got)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("paganin %v: the fused run differs from dezinging first", pg)
		}
	}
}

// TestDezingStackCancel: a cancelled context stops the median between
// rows (it leaves the output unwritten) and is the error returned.
func TestDezingStackCancel(t *testing.T) {
	const planes, rows, cols = 8, 64, 64
	src, dst := make([]float32, planes*rows*cols), make([]float32, planes*rows*cols)
	for i := range src {
		src[i] = float32(i % 97)
	}
	sentinel := float32(-1)
	for i := range dst {
		dst[i] = sentinel
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := dezingStack(ctx, dst, src, planes, rows, cols, DezingParams{Kernel: 3, Dif: 10}); err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	written := 0
	for _, v := range dst {
		if v != sentinel {
			written++
		}
	}
	if written > len(dst)/4 {
		t.Errorf("%d of %d values written after the cancel", written, len(dst))
	}
	if err := dezingStack(context.Background(), dst, src, planes, rows, cols, DezingParams{Kernel: 3, Dif: 10}); err != nil {
		t.Fatal(err)
	}
	for i, v := range dst {
		if v == sentinel {
			t.Fatalf("value %d unwritten by an uncancelled call", i)
		}
	}
}
