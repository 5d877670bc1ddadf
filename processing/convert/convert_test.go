package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// noOutput fails unless dir holds only the names given.
func noOutput(t *testing.T, dir string, keep ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		ok := false
		for _, k := range keep {
			ok = ok || e.Name() == k
		}
		if !ok {
			t.Errorf("%s left behind in %s", e.Name(), dir)
		}
	}
}

// TestDTypeOverflow: a value that does not fit --dtype stops the run
// with an error naming it and where it is, and nothing is written.
func TestDTypeOverflow(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{4, 3, 5}, DType: volume.Float32}
	vals := make([]float32, info.Len())
	for i := range vals {
		vals[i] = float32(i)
	}
	vals[2*15+1*5+3] = 70000 // (2, 1, 3): beyond uint16
	vals[3*15+0*5+0] = -1    // later, also bad
	vals[1*15+2*5+4] = 12.5  // (1, 2, 4): not whole: the first
	write(t, in, info, volume.Bytes(vals))
	for _, tc := range []struct {
		dtype string
		say   []string
	}{
		{"uint16", []string{"--dtype uint16", "float32 value 12.5", "(1, 2, 4)", "not a whole number"}},
		{"int8", []string{"--dtype int8", "float32 value 12.5", "(1, 2, 4)"}},
	} {
		_, err := run(context.Background(), in, filepath.Join(dir, "out.tif"), 1, map[string]any{"dtype": tc.dtype})
		mustContain(t, err, tc.say...)
	}
	vals[1*15+2*5+4] = 12
	write(t, in, info, volume.Bytes(vals))
	_, err := run(context.Background(), in, filepath.Join(dir, "out.tif"), 0, map[string]any{"dtype": "uint16"})
	mustContain(t, err, "float32 value 70000", "(2, 1, 3)", "outside its range", "uint16 holds 0 to 65535")
	noOutput(t, dir, "in.npy")
	// With the box past the bad values, the crop fits; positions are the
	// input's.
	_, err = run(context.Background(), in, filepath.Join(dir, "out.tif"), 0, map[string]any{"dtype": "uint16", "box": "0:2,:,:"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(context.Background(), in, filepath.Join(dir, "out2.tif"), 0, map[string]any{"dtype": "uint8", "box": "1:4,1:3,2:5"})
	// The crop's first bad value is 70000 at the input's (2, 1, 3).
	mustContain(t, err, "float32 value 70000", "(2, 1, 3)")
}

// TestBox: a crop reads back as the same voxels of the input, whether
// the reader crops (HDF5 elsewhere) or the planes are cropped in place.
func TestBox(t *testing.T) {
	dir := t.TempDir()
	info := volume.Info{Shape: [3]int{6, 7, 8}, DType: volume.Int16, VoxelSize: [3]float64{2, 1, 1}}
	data := ramp(info)
	in := filepath.Join(dir, "in.npy")
	write(t, in, info, data)
	out := filepath.Join(dir, "crop.npy")
	if _, err := run(context.Background(), in, out, 2, map[string]any{"box": "1:5,2:,:3"}); err != nil {
		t.Fatal(err)
	}
	got, b := readAll(t, out)
	if got.Shape != [3]int{4, 5, 3} || got.DType != volume.Int16 {
		t.Fatalf("crop is %v %s", got.Shape, got.DType)
	}
	var want []byte
	for z := 1; z < 5; z++ {
		for y := 2; y < 7; y++ {
			i := ((z*7+y)*8 + 0) * 2
			want = append(want, data[i:i+3*2]...)
		}
	}
	if !bytes.Equal(b, want) {
		t.Fatal("the crop differs from the input's voxels")
	}
	for _, bad := range []string{"1:5,2:", "0:7,:,:", "3:3,:,:", "a:b,:,:"} {
		_, err := run(context.Background(), in, filepath.Join(dir, "x.npy"), 0, map[string]any{"box": bad})
		var ue pipeline.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("--box %q: %v, want a usage error", bad, err)
		}
	}
}

// TestBadOutput: an output whose name says no format voxlab writes, or
// options the format cannot take, is refused before anything is
// written.
func TestBadOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{2, 3, 4}, DType: volume.Uint8}
	write(t, in, info, ramp(info))
	for _, tc := range []struct {
		out   string
		flags map[string]any
		say   string
	}{
		{"out.xyz", nil, "cannot write this file type"},
		{"out", nil, "cannot write this file type"},
		{"out.tif", map[string]any{"levels": 3}, "holds one level"},
		{"out.npy", map[string]any{"compression": "zstd"}, "--compression zstd"},
		{"out.npy", map[string]any{"chunks": "1,2,2"}, "not chunked"},
		{"out.levels", map[string]any{"chunks": "1,2"}, "want z,y,x"},
	} {
		_, err := run(context.Background(), in, filepath.Join(dir, tc.out), 0, tc.flags)
		mustContain(t, err, tc.say)
	}
	noOutput(t, dir, "in.npy")
}

// TestCancel: a run cancelled after its first slab leaves no output and
// no temporary file.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{40, 16, 16}, DType: volume.Uint16}
	write(t, in, info, ramp(info))
	for _, out := range []string{"out.tif", "out.npy", "planes/"} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := run(ctx, in, dir+"/"+out, 1, nil, func(e job.Event) {
			if e.Done >= 1 {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", out, err)
		}
		noOutput(t, dir, "in.npy")
	}
}

// TestBigTIFF: a TIFF past the classic limit is written as BigTIFF (the
// limit lowered for the test), and reads back the same.
func TestBigTIFF(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{5, 20, 30}, DType: volume.Uint16}
	data := ramp(info)
	write(t, in, info, data)
	version := func(p string) uint16 {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint16(b[2:4])
	}
	small := filepath.Join(dir, "small.tif")
	if _, err := run(context.Background(), in, small, 0, nil); err != nil {
		t.Fatal(err)
	}
	restore := volume.SetBigTIFFThreshold(info.Bytes()) // below the file with its IFDs
	defer restore()
	big := filepath.Join(dir, "big.tif")
	if _, err := run(context.Background(), in, big, 2, nil); err != nil {
		t.Fatal(err)
	}
	if v := version(small); v != 42 {
		t.Errorf("small file: TIFF version %d, want 42 (classic)", v)
	}
	if v := version(big); v != 43 {
		t.Errorf("file over the limit: TIFF version %d, want 43 (BigTIFF)", v)
	}
	for _, p := range []string{small, big} {
		if _, b := readAll(t, p); !bytes.Equal(b, data) {
			t.Errorf("%s differs from the input", p)
		}
	}
}

// TestPlanBudget: the plan counts the slabs, and a budget below the
// smallest block is refused, saying the smallest that works.
func TestPlanBudget(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{12, 64, 64}, DType: volume.Uint16}
	write(t, in, info, ramp(info))
	v := Spec.Defaults()
	v["dtype"] = "float32"
	j, err := Spec.Open(pipeline.Request{Args: []string{in, filepath.Join(dir, "o.levels")}, Values: v, PlanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p, err := j.Plan(pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	// Two read slabs of uint16 and a cast slab of float32 per plane.
	perPlane := int64(2*64*64*2 + 64*64*4)
	if b := p.Block(); p.PeakRAM != int64(b)*perPlane+(1<<20) && p.PeakRAM != int64(b)*perPlane {
		t.Errorf("plan peak %d for %d planes, want %d per plane", p.PeakRAM, b, perPlane)
	}
	_, err = j.Plan(pipeline.Device{Budget: plan.Budget{Host: 3 * perPlane, Shared: true}})
	var tse *plan.TooSmallError
	if !errors.As(err, &tse) {
		t.Fatalf("a budget below 3 planes (the memory format's chunk depth): %v, want TooSmallError", err)
	}
}
