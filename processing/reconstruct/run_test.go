package reconstruct

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// runSpec runs `voxlab reconstruct in out` with flags, in blocks of
// batch rows (0: planned).
func runSpec(t *testing.T, in, out string, batch int, flags map[string]any) (*pipeline.Report, error) {
	t.Helper()
	return runSpecContext(context.Background(), t, in, out, batch, flags)
}

func runSpecContext(ctx context.Context, t *testing.T, in, out string, batch int, flags map[string]any, sinks ...job.Sink) (*pipeline.Report, error) {
	t.Helper()
	v := Spec.Defaults()
	for k, x := range flags {
		if _, ok := v[k]; !ok {
			t.Fatalf("no parameter %s", k)
		}
		v[k] = x
	}
	j, err := Spec.Open(pipeline.Request{Args: []string{in, out}, Values: v, Batch: batch})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	d := pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}
	return j.Run(ctx, job.NewProgress("reconstruct", sinks...), d)
}

func readFloats(t *testing.T, path string) ([]float32, [3]int) {
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
	out := make([]float32, v.Len())
	volume.ToFloat32(out, raw, v.DType)
	return out, v.Shape
}

// TestRunExample: the pipeline reconstructs the example scan as the
// kernels do, step by step from the counts written (flat-field, −log and
// FBP or gridrec of each row's sinogram, written here from the example's
// own numbers), whatever the block of rows; the centre is in the report.
func TestRunExample(t *testing.T) {
	dir := t.TempDir()
	e := defaultExample
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	angles := evenAngles(e.nproj)
	for _, alg := range []string{"fbp", "gridrec"} {
		rec, err := Config{Gridrec: alg == "gridrec"}.newSlicer(Geometry{Angles: angles, Columns: e.cols, Center: 16,
			Pad: DiagonalPad(e.cols), PadZeros: true, MaskRadius: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, e.rows*e.cols*e.cols)
		sino := make([]float32, e.nproj*e.cols)
		for y := 0; y < e.rows; y++ {
			for p, th := range angles {
				for u := 0; u < e.cols; u++ {
					counts := float32(math.Round(100 + 1000*math.Exp(-e.lineIntegral(th, u, y))))
					sino[p*e.cols+u] = float32(-math.Log(float64((counts - 100) / 1000)))
				}
			}
			if err := rec.SliceContext(context.Background(), want[y*e.cols*e.cols:(y+1)*e.cols*e.cols], sino); err != nil {
				t.Fatal(err)
			}
		}
		checkExample(t, dir, proj, darks, flats, alg, want)
	}
}

// checkExample runs the example with --algorithm alg in blocks of 0
// (planned), 1 and 3 rows and compares the slices with want, and the
// outputs with each other byte for byte.
func checkExample(t *testing.T, dir, proj, darks, flats, alg string, want []float32) {
	t.Helper()
	e := defaultExample
	var first []byte
	for _, batch := range []int{0, 1, 3} {
		out := filepath.Join(dir, "slices.npy")
		rep, err := runSpec(t, proj, out, batch, map[string]any{"darks": darks, "flats": flats, "algorithm": alg})
		if err != nil {
			t.Fatal(err)
		}
		got, shape := readFloats(t, out)
		if shape != [3]int{e.rows, e.cols, e.cols} {
			t.Fatalf("batch %d: shape %v", batch, shape)
		}
		if d, peak := maxAbsDiff(got, f64(want)); d > 1e-5*peak || peak < 0.01 {
			t.Errorf("%s, batch %d: differs from the kernels by %.3g (peak %.3g)", alg, batch, d, peak)
		}
		if s := rep.Summary.(Summary); s.Center != 16 || s.CenterFrom != "columns/2" {
			t.Errorf("batch %d: report says centre %g (%s)", batch, s.Center, s.CenterFrom)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = data
		} else if !bytes.Equal(data, first) {
			t.Errorf("%s: blocks of %d rows write other bytes than planned blocks", alg, batch)
		}
	}
}

// TestRunAutoCenterAndRows: --center auto finds the example's axis
// within half a pixel (a detector wide beside the search of ±50 columns), and --rows reconstructs only
// the rows asked.
func TestRunAutoCenterAndRows(t *testing.T) {
	for _, e := range []exampleScan{
		{nproj: 90, rows: 6, cols: 256, axis: 137.3, x: 20, y: -10, r: 60, mu: 0.005},
		{nproj: 90, rows: 6, cols: 128, axis: 69.3, x: 10, y: -5, r: 30, mu: 0.01},
	} {
		dir := t.TempDir()
		proj, darks, flats, err := e.write(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "slices.npy")
		rep, err := runSpec(t, proj, out, 0, map[string]any{"darks": darks, "flats": flats, "center": "auto", "rows": "2:4", "stripes": "sorting"})
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Summary.(Summary)
		t.Logf("%d columns: auto centre %g, axis %g", e.cols, s.Center, e.axis)
		if math.Abs(s.Center-e.axis) > 0.5 || !strings.HasPrefix(s.CenterFrom, "auto") {
			t.Errorf("%d columns: auto centre %g (%s), axis %g", e.cols, s.Center, s.CenterFrom, e.axis)
		}
		if _, shape := readFloats(t, out); shape != [3]int{2, e.cols, e.cols} {
			t.Errorf("--rows 2:4: shape %v", shape)
		}
	}
}

// TestRunBadInput: angles whose count does not match, a centre outside
// the detector, no flats, flats darker than the darks, rows outside the
// detector: each refused with what is wrong and no output.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	angles := filepath.Join(dir, "angles.txt")
	if err := os.WriteFile(angles, []byte("0\n7.5\n15\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "slices.npy")
	for _, c := range []struct {
		flags map[string]any
		want  string
	}{
		{map[string]any{"darks": darks, "flats": flats, "angles": angles}, "3 angles for 24 projections"},
		{map[string]any{"darks": darks, "flats": flats, "center": "40"}, "outside the detector"},
		{map[string]any{"darks": darks}, "has no flats"},
		{map[string]any{"darks": flats, "flats": darks}, "no brighter than the darks"},
		{map[string]any{"darks": darks, "flats": flats, "rows": "2:9"}, "outside the detector's 4 rows"},
	} {
		_, err := runSpec(t, proj, out, 0, c.flags)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.flags, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: wrote %s", c.flags, out)
		}
	}
}

// TestRunCancel: a run cancelled once its first slice is done stops
// before the next (FBP checks between rows of a slice) and leaves no
// output, not even a temporary one.
func TestRunCancel(t *testing.T) {
	dir := t.TempDir()
	e := exampleScan{nproj: 60, rows: 6, cols: 64, axis: 32, x: 5, y: 3, r: 12, mu: 0.02}
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done int64
	sink := func(ev job.Event) {
		if ev.Kind == job.Progressed && strings.HasPrefix(ev.Stage, "reconstructing") {
			done = ev.Done
			if ev.Done == 1 {
				cancel()
			}
		}
	}
	out := filepath.Join(dir, "out", "slices.npy")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = runSpecContext(ctx, t, proj, out, 1, map[string]any{"darks": darks, "flats": flats}, sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if done != 1 {
		t.Errorf("the cancelled run reconstructed %d slices, want to stop after the first", done)
	}
	if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
		t.Errorf("a cancelled run left %v", left)
	}
}

// TestRunCenterSweep: a sweep writes one slice of the row per centre,
// the one at the axis bit for bit the slice a run at that centre writes
// and the others different; a sweep reaching off the detector is
// refused.
func TestRunCenterSweep(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	one, sweep := filepath.Join(dir, "one.npy"), filepath.Join(dir, "sweep.npy")
	ff := map[string]any{"darks": darks, "flats": flats, "rows": "2:3"}
	if _, err := runSpec(t, proj, one, 0, with(ff, "center", "16")); err != nil {
		t.Fatal(err)
	}
	rep, err := runSpec(t, proj, sweep, 2, with(ff, "center-sweep", "14:18:1"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readFloats(t, one)
	got, shape := readFloats(t, sweep)
	if shape != [3]int{5, 32, 32} {
		t.Fatalf("sweep shape %v", shape)
	}
	plane := 32 * 32
	for k := 0; k < 5; k++ {
		d, _ := maxAbsDiff(got[k*plane:(k+1)*plane], f64(want))
		if (k == 2) != (d == 0) {
			t.Errorf("slice %d (centre %d): differs from the run at 16 by %g", k, 14+k, d)
		}
	}
	if s := rep.Summary.(Summary).Sweep; len(s) != 5 || s[4] != 18 {
		t.Errorf("report's sweep %v", s)
	}
	if _, err := runSpec(t, proj, sweep, 0, with(ff, "center-sweep", "20:40:5")); err == nil || !strings.Contains(err.Error(), "outside the detector") {
		t.Errorf("a sweep off the detector: %v", err)
	}
}

// with returns a copy of flags with k set to v.
func with(flags map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for a, b := range flags {
		out[a] = b
	}
	return out
}

// TestRunPartials: a run asked for partial results (the panel) hands
// every block of slices to its progress as it is written, together the
// output's bytes.
func TestRunPartials(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := Spec.Defaults()
	v["darks"], v["flats"] = darks, flats
	out := filepath.Join(dir, "slices.npy")
	j, err := Spec.Open(pipeline.Request{Args: []string{proj, out}, Values: v, Batch: 3, Partials: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var live []byte
	sink := func(e job.Event) {
		if b, ok := e.Partial.(*pipeline.VolumeBlock); ok && e.Kind == job.Partial {
			if b.Depth != 4 || b.Shape[1] != 32 || len(live) != b.Z0*32*32*4 {
				t.Errorf("block at %d of %d, shape %v, after %d bytes", b.Z0, b.Depth, b.Shape, len(live))
			}
			live = append(live, b.Data...)
		}
	}
	d := pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}
	if _, err := j.Run(context.Background(), job.NewProgress("reconstruct", sink), d); err != nil {
		t.Fatal(err)
	}
	got, _ := readFloats(t, out)
	if !bytes.Equal(live, volume.Bytes(got)) {
		t.Errorf("the partial results (%d bytes) are not the output's slices (%d)", len(live), 4*len(got))
	}
}

// TestRunPaganin: with --paganin the pipeline retrieves the phase of
// each whole projection before taking the rows asked (--rows 1:3), as
// the kernels do step by step (flat-field from the example's numbers,
// Paganin of the frame, FBP of each row); in two tasks it merges to the
// whole run's bytes.
func TestRunPaganin(t *testing.T) {
	dir := t.TempDir()
	e := defaultExample
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	pp := PaganinParams{Energy: 30, Distance: 0.2, PixelSize: 3, Ratio: 100}
	angles := evenAngles(e.nproj)
	plane := e.rows * e.cols
	frames := make([]float32, e.nproj*plane)
	pg := NewPaganin(pp, e.rows, e.cols)
	for p, th := range angles {
		f := frames[p*plane : (p+1)*plane]
		for y := 0; y < e.rows; y++ {
			for u := 0; u < e.cols; u++ {
				counts := float32(math.Round(100 + 1000*math.Exp(-e.lineIntegral(th, u, y))))
				f[y*e.cols+u] = (counts - 100) / 1000
			}
		}
		pg.Apply(f, f)
	}
	fbp, err := NewFBP(Geometry{Angles: angles, Columns: e.cols, Center: 16, Pad: DiagonalPad(e.cols), PadZeros: true, MaskRadius: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	n := e.cols * e.cols
	want := make([]float32, 2*n)
	sino := make([]float32, e.nproj*e.cols)
	for r, y := range []int{1, 2} {
		for p := range angles {
			copy(sino[p*e.cols:(p+1)*e.cols], frames[p*plane+y*e.cols:])
		}
		fbp.Slice(want[r*n:(r+1)*n], sino)
	}
	flags := map[string]any{"darks": darks, "flats": flats, "rows": "1:3", "paganin": true,
		"energy": 30.0, "distance": 200.0, "pixel-size": 3.0, "ratio": 100.0}
	out := filepath.Join(dir, "slices.npy")
	if _, err := runSpec(t, proj, out, 1, flags); err != nil {
		t.Fatal(err)
	}
	got, _ := readFloats(t, out)
	if d, peak := maxAbsDiff(got, f64(want)); d > 1e-5*peak || peak == 0 {
		t.Errorf("differs from the kernels by %.3g (peak %.3g)", d, peak)
	}
	whole, _ := os.ReadFile(out)
	merged := filepath.Join(dir, "merged.npy")
	splitRun(t, t.TempDir(), proj, merged, 2, flags)
	if m, _ := os.ReadFile(merged); !bytes.Equal(m, whole) {
		t.Error("two tasks merge to other bytes than the whole run")
	}
}
