package heatplot

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/palette/moreland"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/matrix"
)

func TestWritePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.png")
	v := make([]float64, 30*7)
	for i := range v {
		v[i] = float64(i%7) + float64(i/7)/10
	}
	v[3] = math.NaN()
	if err := WritePNG(path, matrix.Heatmap{Title: "l2 (distance)", XLabel: "submitted map", YLabel: "ground-truth map", Unit: "l2", Rows: 30, Cols: 7, Values: v}); err != nil {
		t.Fatal(err)
	}
	img := testutil.ReadPNG(t, path)
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
	for _, bad := range []matrix.Heatmap{{Rows: 0, Cols: 1}, {Rows: 2, Cols: 2, Values: []float64{1}}} {
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

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestCellImagePaintsEachCellAndGreysNaN(t *testing.T) {
	m := matrix.Heatmap{Title: "m", Rows: 2, Cols: 3, Values: []float64{0, 1, math.NaN(), 2, 3, 4}}
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(0)
	cm.SetMax(4)
	img := cellImage(m, cm, 30, 20)
	if b := img.Bounds(); b.Dx() != 30 || b.Dy() != 20 {
		t.Fatalf("image %v, want 30x20 (10 pixels a cell)", b)
	}
	for _, c := range []struct {
		x, y int
		v    float64
	}{{5, 5, 0}, {15, 5, 1}, {5, 15, 2}, {15, 15, 3}, {25, 15, 4}, {29, 19, 4}, {0, 10, 2}} {
		want, _ := cm.At(c.v)
		if got := img.RGBAAt(c.x, c.y); got != rgba(want) {
			t.Errorf("pixel (%d,%d) = %v, want the colour of %v: %v", c.x, c.y, got, c.v, rgba(want))
		}
	}
	if got := img.RGBAAt(25, 5); got != NaNGrey {
		t.Errorf("the NaN cell is %v, want grey", got)
	}
}

// meanY returns the mean row of the pixels of img within x < xmax that
// are close to c, and how many there are.
func meanY(img *image.RGBA, xmax int, c color.RGBA) (float64, int) {
	sum, n := 0, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := 0; x < xmax; x++ {
			p := img.RGBAAt(x, y)
			if absDiff(p.R, c.R) < 8 && absDiff(p.G, c.G) < 8 && absDiff(p.B, c.B) < 8 {
				sum += y
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestHeatmapImageRowZeroAtTheTop(t *testing.T) {
	// Row 0 low, row 2 high: on the plot (left of the colour bar) the low
	// colour must lie above the middle one.
	m := matrix.Heatmap{Title: "rows", Unit: "u", Rows: 3, Cols: 4, Values: []float64{0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1}}
	img, err := HeatmapImage(m, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 300 {
		t.Fatalf("image %v, want 400x300", b)
	}
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(0)
	cm.SetMax(1)
	lo, _ := cm.At(0)
	mid, _ := cm.At(0.5)
	plotW := 400 - ColourBarWidth
	yLo, nLo := meanY(img, plotW, rgba(lo))
	yMid, nMid := meanY(img, plotW, rgba(mid))
	if nLo < 500 || nMid < 500 {
		t.Fatalf("the cells are missing: %d low and %d middle pixels", nLo, nMid)
	}
	if yLo >= yMid {
		t.Errorf("row 0 (mean y %.0f) is not above row 1 (mean y %.0f)", yLo, yMid)
	}
	if _, err := HeatmapImage(matrix.Heatmap{Title: "bad", Rows: 2, Cols: 2, Values: []float64{1}}, 100, 100); err == nil {
		t.Error("a matrix with too few values was drawn")
	}
}

func TestHistogramImage(t *testing.T) {
	vals := make([]float64, 200)
	for i := range vals {
		vals[i] = float64(i % 17)
	}
	vals[3] = math.NaN()
	img, err := HistogramImage(matrix.Heatmap{Title: "h", Unit: "u", Rows: 20, Cols: 10, Values: vals}, 300, 200)
	if err != nil {
		t.Fatal(err)
	}
	_, n := meanY(img, 300, color.RGBA{0x3c, 0x78, 0xd8, 0xff})
	if n < 1000 {
		t.Errorf("only %d pixels of bars", n)
	}
	// No values yet: an empty plot, not an error.
	if _, err := HistogramImage(matrix.Heatmap{Title: "e", Rows: 1, Cols: 1, Values: []float64{math.NaN()}}, 300, 200); err != nil {
		t.Error(err)
	}
}

// TestStyleColoursThePlots: a style's background fills the images and its
// foreground draws their text and axes (the viewer draws dark plots).
func TestStyleColoursThePlots(t *testing.T) {
	dark := Style{Background: color.RGBA{0x17, 0x17, 0x18, 0xff}, Foreground: color.RGBA{0xf3, 0xf3, 0xf3, 0xff}, TextPx: 13}
	m := matrix.Heatmap{Title: "m", XLabel: "x", YLabel: "y", Unit: "u", Rows: 3, Cols: 4, Values: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	heat, err := HeatmapImageStyle(m, 400, 300, dark)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := HistogramImageStyle(m, 300, 300, dark)
	if err != nil {
		t.Fatal(err)
	}
	for name, img := range map[string]*image.RGBA{"heat map": heat, "histogram": hist} {
		if c := img.RGBAAt(1, 1); c != dark.Background {
			t.Errorf("%s: corner %v, want the background", name, c)
		}
		fg := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				// Antialiased text and thin axes: light, not all white.
				if c := img.RGBAAt(x, y); c.R > 0x90 && c.G > 0x90 && c.B > 0x90 {
					fg++
				}
			}
		}
		if fg < 150 {
			t.Errorf("%s: %d light pixels: no light text and axes", name, fg)
		}
	}
}
