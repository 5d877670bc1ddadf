package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteNPYMatchesNumpy: the bytes numpy.save writes (testdata/gen.py).
func TestWriteNPYMatchesNumpy(t *testing.T) {
	want, err := os.ReadFile("testdata/golden.npy")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.npy")
	if err := WriteNPY(path, 2, 3, []float64{0.1, -2.5, 1e-300, math.Pi, math.Inf(1), math.Float64frombits(0x7ff8000000000000)}); err != nil { // numpy's NaN bits
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Errorf("WriteNPY wrote\n%q\nnumpy.save wrote\n%q", got, want)
	}
	if err := WriteNPY(path, 2, 2, []float64{1}); err == nil {
		t.Error("wrong count accepted")
	}
}

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.csv")
	if err := WriteCSV(path, 2, 2, []float64{0.1, 2, -3e-20, 1.0 / 3}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "0.1,2\n-3e-20,0.3333333333333333\n"; string(got) != want {
		t.Errorf("CSV %q, want %q", got, want)
	}
}

func TestWritePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.png")
	v := make([]float64, 30*7)
	for i := range v {
		v[i] = float64(i%7) + float64(i/7)/10
	}
	v[3] = math.NaN()
	if err := WritePNG(path, Heatmap{Title: "l2 (distance)", XLabel: "submitted map", YLabel: "ground-truth map", Unit: "l2", Rows: 30, Cols: 7, Values: v}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
		t.Errorf("image %v, want 800 x 600", b)
	}
	colours := map[[3]uint32]bool{}
	for y := 0; y < 600; y += 3 {
		for x := 0; x < 800; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("only %d colours: the heat map looks empty", len(colours))
	}
	for _, bad := range []Heatmap{{Rows: 0, Cols: 1}, {Rows: 2, Cols: 2, Values: []float64{1}}} {
		if err := WritePNG(path, bad); err == nil || !strings.Contains(err.Error(), "heat map") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestIntTicks(t *testing.T) {
	ticks := intTicks(-0.5, 399.5)
	if len(ticks) < 4 || len(ticks) > 10 || ticks[0].Value != 0 {
		t.Errorf("ticks for 400 rows: %v", ticks)
	}
	for _, tk := range ticks {
		if tk.Value != math.Trunc(tk.Value) {
			t.Errorf("tick %v is not a whole index", tk)
		}
	}
}
