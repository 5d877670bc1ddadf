package viewer

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestGoldenFrame draws a two-layer scene (viridis with gamma under a
// half-opaque magenta layer, zoomed 3x and panned) and compares it pixel
// for pixel with testdata/frame_blend.png, which gen_golden.py computes
// independently with numpy and matplotlib.
func TestGoldenFrame(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("a", memVolume(t, volume.Uint16, [3]int{3, 48, 64}, func(z, y, x int) float64 {
		return float64((1000*x + 300*y + 50*z) % 65536)
	}), ImageOptions{Contrast: [2]float64{2000, 50000}, Gamma: 0.7, Colormap: "viridis"})
	h.v.AddImage("b", memVolume(t, volume.Uint8, [3]int{3, 20, 30}, func(z, y, x int) float64 {
		return float64((8*x + 5*y) % 256)
	}), ImageOptions{Contrast: [2]float64{0, 255}, Colormap: "magenta", Opacity: 0.5})
	h.v.Dims().SetSlice(1)
	h.settle()
	var f frame
	f.resize(160, 120)
	c := drawCtx{at: &h.v.at, axis: h.v.at.Axis(), t: xform{CX: 20, CY: 15, Scale: 3}, sw: 160, sh: 120, ps: 1}
	c.paint(&f, shownIn(h.v.stack.All(), nil))

	want := testutil.ReadPNG(t, "testdata/frame_blend.png")
	if want.Bounds() != f.img.Bounds() {
		t.Fatalf("frame %v, golden %v", f.img.Bounds(), want.Bounds())
	}
	bad := 0
	for y := range 120 {
		for x := range 160 {
			r, g, b, _ := want.At(x, y).RGBA()
			got := f.img.RGBAAt(x, y)
			if uint32(got.R) != r>>8 || uint32(got.G) != g>>8 || uint32(got.B) != b>>8 {
				if bad < 5 {
					t.Errorf("pixel (%d,%d) = %v, golden %d %d %d", x, y, got, r>>8, g>>8, b>>8)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels differ from the golden frame", bad, 160*120)
		testutil.WriteFailed("frame_blend.png", f.img)
	}
}

// TestWindowMarkup guards the window's layout (toolbar, controls, layer
// list, canvas, dims bar, status bar) against testdata/window.xml.
func TestWindowMarkup(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint8, [3]int{5, 40, 60}, func(z, y, x int) float64 { return float64(x * 4) })
	vol.VoxelSize = [3]float64{2, 0.5, 0.5}
	h.v.AddImage("raw", vol, ImageOptions{Colormap: "inferno"})
	h.v.AddPoints("cells", []Point{{Z: 2, Y: 20, X: 30, Type: "cell"}})
	h.v.Select(h.v.stack.At(0))
	h.v.Dims().SetSlice(2)
	h.settle()
	test.AssertRendersToMarkup(t, "window.xml", h.w.Canvas())
}
