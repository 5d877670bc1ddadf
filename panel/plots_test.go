package panel

import (
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/widgets"
)

// TestPlotsTabFillsIn: the plots tab draws each matrix's heat map with,
// beside it, its histogram, in the app theme's colours (dark background,
// light text and axes, contrast at least 4.5:1), at the size they are
// shown (so that their text keeps at least widgets.MinTextSize pixels), and
// redraws them when the tab is resized.
func TestPlotsTabFillsIn(t *testing.T) {
	hl, w := themedHeadless(t, 1200, 800)
	p := NewPlots(hl.Viewer, "Plots")
	vals := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	m := Matrix{Name: "l2", Rows: 2, Cols: 2, Values: vals}
	p.Set(m)
	vals[0], vals[1] = 1, 2 // Set copied the values
	m.Values = []float64{1, 2, 3, 4}
	p.Set(m)
	if err := hl.Until(2*time.Minute, func() bool { return p.Idle() && hl.Drain() == 0 }); err != nil {
		t.Fatal(err)
	}
	heat, hist := p.Images("l2")
	if heat == nil || hist == nil {
		t.Fatal("no plots on the tab")
	}
	if tabs := viewTabs(t, hl.Viewer); len(tabs) != 2 || tabs[1] != p.Tab() {
		t.Error("the plots tab is not beside the view")
	}
	st := p.Style()
	if st.TextPx < widgets.MinTextSize {
		t.Errorf("plot text %v px, want at least %d", st.TextPx, widgets.MinTextSize)
	}
	if r := testutil.Contrast(st.Foreground, st.Background, st.Background); r < 4.5 {
		t.Errorf("plot text contrast %.2f:1", r)
	}
	if st.Background != widgets.Theme().Color(theme.ColorNameBackground, theme.VariantDark) {
		t.Errorf("plot background %v is not the theme's", st.Background)
	}
	// Shown, the plots are redrawn at their size on screen.
	hl.Dock().ShowTab(p.Tab())
	it := p.items["l2"]
	drawnAtSize := func() bool {
		for _, ci := range []*canvas.Image{it.heat, it.hist} {
			b, s := ci.Image.Bounds(), ci.Size()
			if s.Width < 100 || math.Abs(float64(b.Dx())-float64(s.Width)) > 1 || math.Abs(float64(b.Dy())-float64(s.Height)) > 1 {
				return false
			}
		}
		return true
	}
	if err := hl.Until(2*time.Minute, func() bool { return p.Idle() && hl.Drain() == 0 && drawnAtSize() }); err != nil {
		t.Fatalf("plots %v and %v shown at %v and %v: %v", it.heat.Image.Bounds(), it.hist.Image.Bounds(), it.heat.Size(), it.hist.Size(), err)
	}
	d := fyne.CurrentApp().Driver()
	hp, sp := d.AbsolutePositionForObject(it.heat), d.AbsolutePositionForObject(it.hist)
	if sp.Y != hp.Y || sp.X < hp.X+it.heat.Size().Width {
		t.Errorf("the histogram (at %v) is not beside its heat map (at %v, %v wide)", sp, hp, it.heat.Size().Width)
	}
	// The corner is the theme's background; text and axes are light.
	img := it.hist.Image.(*image.RGBA)
	if c := img.RGBAAt(1, 1); testutil.Luminance(testutil.Flatten(c, color.Black)) > 0.05 {
		t.Errorf("histogram background %v is not dark", c)
	}
	light := 0
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			// Antialiased text and thin axes: light, not all white.
			if c := img.RGBAAt(x, y); c.R > 0x90 && c.G > 0x90 && c.B > 0x90 {
				light++
			}
		}
	}
	if light < 150 {
		t.Errorf("only %d light pixels: no light axes and labels", light)
	}
	// A narrower window redraws them smaller.
	before := it.heat.Image.Bounds().Dx()
	w.Resize(fyne.NewSize(900, 800))
	if err := hl.Until(2*time.Minute, func() bool { return p.Idle() && hl.Drain() == 0 && drawnAtSize() }); err != nil || it.heat.Image.Bounds().Dx() >= before {
		t.Errorf("after resizing: heat map %d px wide (was %d): %v", it.heat.Image.Bounds().Dx(), before, err)
	}
	if p.Err() != nil {
		t.Error(p.Err())
	}
}
