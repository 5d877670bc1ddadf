package viewer

import (
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"gonum.org/v1/plot/palette/moreland"

	"github.com/voxlab/voxlab/processing/volume"
)

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestCellImagePaintsEachCellAndGreysNaN(t *testing.T) {
	m := Matrix{Name: "m", Rows: 2, Cols: 3, Values: []float64{0, 1, math.NaN(), 2, 3, 4}}
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
	if got := img.RGBAAt(25, 5); got != nanGrey {
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
	m := Matrix{Name: "rows", Unit: "u", Rows: 3, Cols: 4, Values: []float64{0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1}}
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
	plotW := 400 - colourBarW
	yLo, nLo := meanY(img, plotW, rgba(lo))
	yMid, nMid := meanY(img, plotW, rgba(mid))
	if nLo < 500 || nMid < 500 {
		t.Fatalf("the cells are missing: %d low and %d middle pixels", nLo, nMid)
	}
	if yLo >= yMid {
		t.Errorf("row 0 (mean y %.0f) is not above row 1 (mean y %.0f)", yLo, yMid)
	}
	if _, err := HeatmapImage(Matrix{Name: "bad", Rows: 2, Cols: 2, Values: []float64{1}}, 100, 100); err == nil {
		t.Error("a matrix with too few values was drawn")
	}
}

func TestHistogramImage(t *testing.T) {
	vals := make([]float64, 200)
	for i := range vals {
		vals[i] = float64(i % 17)
	}
	vals[3] = math.NaN()
	img, err := HistogramImage(Matrix{Name: "h", Unit: "u", Rows: 20, Cols: 10, Values: vals}, 300, 200)
	if err != nil {
		t.Fatal(err)
	}
	_, n := meanY(img, 300, color.RGBA{0x3c, 0x78, 0xd8, 0xff})
	if n < 1000 {
		t.Errorf("only %d pixels of bars", n)
	}
	// No values yet: an empty plot, not an error.
	if _, err := HistogramImage(Matrix{Name: "e", Rows: 1, Cols: 1, Values: []float64{math.NaN()}}, 300, 200); err != nil {
		t.Error(err)
	}
}

func TestPlotsTabFillsIn(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := NewHeadless(w)
	w.Resize(fyne.NewSize(1200, 800))
	defer hl.Close()
	p := NewPlots(hl.Viewer, "Plots")
	vals := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	m := Matrix{Name: "l2", Rows: 2, Cols: 2, Values: vals}
	p.Set(m)
	vals[0], vals[1] = 1, 2 // Set copied the values
	m.Values = []float64{1, 2, 3, 4}
	p.Set(m)
	if err := hl.Until(10*time.Second, func() bool { return p.Idle() && hl.Drain() == 0 }); err != nil {
		t.Fatal(err)
	}
	heat, hist := p.Images("l2")
	if heat == nil || hist == nil {
		t.Fatal("no plots on the tab")
	}
	if heat.Bounds().Dx() != heatW || hist.Bounds().Dx() != histW || p.Err() != nil {
		t.Errorf("plots %v %v, err %v", heat.Bounds(), hist.Bounds(), p.Err())
	}
	if len(hl.tabs.Items) != 2 || hl.tabs.Items[1] != p.Tab() {
		t.Error("the plots tab is not beside the view")
	}
}

func TestLiveVolume(t *testing.T) {
	lv, err := NewLiveVolume(volume.Info{Shape: [3]int{4, 2, 3}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	block := volume.Bytes([]uint16{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if err := lv.Write(2, block); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 4*6*2)
	if err := lv.ReadSlab(0, 4, dst); err != nil {
		t.Fatal(err)
	}
	got := volume.Uint16s(dst)
	for i, v := range got {
		want := uint16(0)
		if i >= 12 {
			want = uint16(i - 11)
		}
		if v != want {
			t.Fatalf("voxel %d = %d, want %d (unwritten planes read as zeros)", i, v, want)
		}
	}
	if lv.Filled() != 2 {
		t.Errorf("filled %d planes, want 2", lv.Filled())
	}
	if err := lv.Write(3, block); err == nil {
		t.Error("a block past the end was written")
	}
	if err := lv.Write(0, block[:5]); err == nil {
		t.Error("a partial plane was written")
	}
}
