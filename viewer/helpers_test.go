package viewer

import (
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/uitest"
	"github.com/voxlab/voxlab/processing/volume"
)

type harness struct {
	t *testing.T
	v *Viewer
	w fyne.Window
	q *uiQueue
}

const testW, testH = 900, 600

func newHarness(t *testing.T) *harness {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	q := &uiQueue{}
	v := newViewer(w, q.post)
	w.SetContent(v.root)
	w.Resize(fyne.NewSize(testW, testH))
	t.Cleanup(v.Close)
	return &harness{t: t, v: v, w: w, q: q}
}

// settle runs queued UI work until every loader is idle and the current
// slices are loaded.
func (h *harness) settle() {
	h.t.Helper()
	if err := h.v.settle(h.q, 2*time.Minute); err != nil {
		h.t.Fatal(err)
	}
}

// panel returns the first panel.
func (h *harness) panel() *sliceView { return h.v.panels[0] }

// pixelAt returns the colour drawn over data pixel (row, col) in panel p.
func (h *harness) pixelAt(p *sliceView, row, col float64) color.RGBA {
	h.t.Helper()
	sz := p.Size()
	x, y := p.xf().ToScreen(col+0.5, row+0.5, float64(sz.Width), float64(sz.Height))
	ps := p.pixelScale()
	return p.f.img.RGBAAt(int(x*ps), int(y*ps))
}

// memVolume builds an in-memory volume with values f(z, y, x).
func memVolume(t testing.TB, dt volume.DType, shape [3]int, f func(z, y, x int) float64) *volume.Volume {
	t.Helper()
	info := volume.Info{Shape: shape, DType: dt}
	data := make([]byte, info.Bytes())
	i := 0
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				v := f(z, y, x)
				switch dt {
				case volume.Uint8:
					data[i] = uint8(v)
				case volume.Uint16:
					volume.Uint16s(data)[i] = uint16(v)
				case volume.Int8:
					volume.Int8s(data)[i] = int8(v)
				case volume.Int16:
					volume.Int16s(data)[i] = int16(v)
				case volume.Int32:
					volume.Int32s(data)[i] = int32(v)
				case volume.Uint32:
					volume.Uint32s(data)[i] = uint32(v)
				case volume.Float32:
					volume.Float32s(data)[i] = float32(v)
				case volume.Float64:
					volume.Float64s(data)[i] = v
				}
				i++
			}
		}
	}
	m, err := volume.NewMemory(info, data)
	if err != nil {
		t.Fatal(err)
	}
	return volume.New("mem", m)
}

func gray(v uint8) color.RGBA { return color.RGBA{v, v, v, 255} }

// greenAround returns the largest green value and the number of
// green-dominant pixels within r data pixels of (row, col).
func (h *harness) greenAround(p *sliceView, row, col, r float64) (maxG uint8, n int) {
	sz := p.Size()
	ps := p.pixelScale()
	x0, y0 := p.xf().ToScreen(col-r, row-r, float64(sz.Width), float64(sz.Height))
	x1, y1 := p.xf().ToScreen(col+r+1, row+r+1, float64(sz.Width), float64(sz.Height))
	for y := int(y0 * ps); y < int(y1*ps); y++ {
		for x := int(x0 * ps); x < int(x1*ps); x++ {
			c := p.f.img.RGBAAt(x, y)
			if c.G > c.R+20 && c.G > c.B+20 {
				n++
				maxG = max(maxG, c.G)
			}
		}
	}
	return maxG, n
}

// findButton returns the button labelled text among the objects of o's
// containers.
func findButton(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	return uitest.FindButton(t, o, text)
}
