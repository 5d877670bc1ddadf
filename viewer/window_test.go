package viewer

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestBadContrastSaysWhy: contrast limits that are not numbers, or
// whose low is above the high, are refused with a message beside the
// entries that names the problem, and the limits stay; good ones clear
// it.
func TestBadContrastSaysWhy(t *testing.T) {
	h := newHarness(t)
	l, _ := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{3, 10, 10}, func(z, y, x int) float64 { return float64(x * 100) }), ImageOptions{Contrast: [2]float64{0, 900}})
	h.settle()
	c := &h.v.ctl
	for _, bad := range []struct{ lo, hi, says string }{
		{"abc", "500", `"abc" is not a number`},
		{"600", "100", "above the high limit"},
		{"10", "", "is not a number"},
	} {
		c.lo.SetText(bad.lo)
		c.hi.SetText(bad.hi)
		c.lo.OnSubmitted(bad.lo)
		if c.limitsMsg.Hidden || !strings.Contains(c.limitsMsg.Text, bad.says) {
			t.Errorf("%q-%q: message %q (hidden %v), want it to say %q", bad.lo, bad.hi, c.limitsMsg.Text, c.limitsMsg.Hidden, bad.says)
		}
		if lo, hi := l.ContrastLimits(); lo != 0 || hi != 900 {
			t.Errorf("%q-%q changed the limits to %v-%v", bad.lo, bad.hi, lo, hi)
		}
	}
	c.lo.SetText("100")
	c.hi.SetText("600")
	c.hi.OnSubmitted("600")
	if lo, hi := l.ContrastLimits(); lo != 100 || hi != 600 || !c.limitsMsg.Hidden {
		t.Errorf("good limits: %v-%v, message %q", lo, hi, c.limitsMsg.Text)
	}
}

// TestNewAxisStartsAtItsMiddle: slicing along an axis for the first
// time starts at its middle plane, not plane 0; coming back to an axis
// finds the plane left there.
func TestNewAxisStartsAtItsMiddle(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{10, 20, 30}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	h.v.Dims().SetSlice(4)
	h.settle()
	h.v.Dims().SetAxis(Y)
	if got := h.v.Dims().Slice(); got != 10 {
		t.Errorf("first y slice %d, want the middle 10", got)
	}
	h.v.Dims().SetSlice(3)
	h.v.Dims().SetAxis(X)
	if got := h.v.Dims().Slice(); got != 15 {
		t.Errorf("first x slice %d, want the middle 15", got)
	}
	h.v.Dims().SetAxis(Y)
	if got := h.v.Dims().Slice(); got != 3 {
		t.Errorf("back to y: slice %d, want the 3 left there", got)
	}
	h.v.Dims().SetAxis(Z)
	if got := h.v.Dims().Slice(); got != 4 {
		t.Errorf("back to z: slice %d, want 4", got)
	}
}

// TestStatusFollowsTheDrag: in the select mode a box dragged to a voxel
// leaves the status bar naming that voxel, not the one the drag started
// on.
func TestStatusFollowsTheDrag(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	h.panel().hover(h.screen(2, 3))
	h.key(fyne.Key3)
	h.drag(2, 3, 40, 50, false)
	if got := h.v.bar.status.Text; !strings.HasPrefix(got, "z 5  y 40  x 50") {
		t.Errorf("status after a drag to (40, 50): %q", got)
	}
}

// TestStatusWords: one point is "1 point"; the 3D view gives its own
// zoom, not the hidden slice panel's; a running result is not said to
// be ready.
func TestStatusWords(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	if got := h.v.ctl.pts.count.Text; !strings.HasPrefix(got, "1 point: 1 cell") {
		t.Errorf("controls say %q", got)
	}
	h.v.Scene().SetOn(true)
	h.settle()
	if got := h.v.bar.info.Text; !strings.Contains(got, "3D zoom 100%") || strings.Contains(got, "   zoom ") {
		t.Errorf("3D status %q, want the 3D zoom", got)
	}
	h.v.Scene().SetOn(false)
	lv, err := NewLiveVolume(volume.Info{Shape: [3]int{20, 60, 80}, DType: volume.Uint16}, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := h.v.AddImage("out.h5 (running)", volume.New("out", lv), ImageOptions{})
	h.v.Offer().Compare(h.v.Layers()[0], res)
	if got := h.v.offer.text.Text; strings.Contains(got, "ready") {
		t.Errorf("offer for a running result: %q", got)
	}
	done, _ := h.v.AddImage("out.h5", memVolume(t, volume.Uint8, [3]int{20, 60, 80}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	h.v.Offer().Compare(h.v.Layers()[0], done)
	if got := h.v.offer.text.Text; got != fmt.Sprintf("%s is ready", done.Name()) {
		t.Errorf("offer for a finished result: %q", got)
	}
}

// TestStatusBarNeverCutsTheReadout: at 1280 px, a readout of four
// layers' values beside two points layers' counts goes on two lines
// rather than being cut short; with room for both, one line; the layer
// list names a long file whole.
func TestStatusBarNeverCutsTheReadout(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	for _, n := range []string{"scan-dezinged-2.h5 (running)", "projections of scan.nxs", "planes"} {
		h.v.AddImage(n, memVolume(t, volume.Uint16, [3]int{4, 30, 40}, func(z, y, x int) float64 { return 12345 }), ImageOptions{})
	}
	h.v.AddPoints("planes-cells-2.csv (running)", []Point{pt(2, 3, 4, "cell")})
	h.v.AddPoints("ground-truth-cells.xml", []Point{pt(2, 5, 4, "non-cell")})
	h.settle()
	h.panel().hover(fyne.NewPos(h.panel().Size().Width/2, h.panel().Size().Height/2))
	h.settle()
	fits := func(l *widget.Label) bool { return l.Size().Width+0.5 >= natural(l) }
	if !fits(h.v.bar.status) || !fits(h.v.bar.info) {
		t.Errorf("at 1280 px: readout %v wide for %v of text (%q), counts %v for %v (%q)",
			h.v.bar.status.Size().Width, natural(h.v.bar.status), h.v.bar.status.Text, h.v.bar.info.Size().Width, natural(h.v.bar.info), h.v.bar.info.Text)
	}
	if h.v.bar.Size().Height < 1.5*h.v.bar.status.MinSize().Height {
		t.Errorf("status bar %v tall for %v of readout and counts: want two lines", h.v.bar.Size(), natural(h.v.bar.status)+natural(h.v.bar.info))
	}
	// Wide enough for both: one line.
	h.w.Resize(fyne.NewSize(4000, 800))
	h.settle()
	if !fits(h.v.bar.status) || !fits(h.v.bar.info) || h.v.bar.Size().Height > 1.2*h.v.bar.status.MinSize().Height {
		t.Errorf("at 4000 px: status bar %v, readout %v, counts %v", h.v.bar.Size(), h.v.bar.status.Size(), h.v.bar.info.Size())
	}
	// The layer list at 1280: the longest name is not cut.
	h.w.Resize(fyne.NewSize(1280, 800))
	h.settle()
	list := test.RenderObjectToMarkup(h.v.list)
	if !strings.Contains(list, ">scan-dezinged-2.h5 (running)<") || strings.Contains(list, "…") {
		t.Errorf("layer list at 1280 px cuts names:\n%s", list)
	}
}
