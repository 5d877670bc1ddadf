package viewer

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestRelayoutShowsThePointUnderReview walks to a point, which adds a
// line ("point 2: non-cell") to the layer's counts in its controls, and
// checks that after relayout (what a screenshot does before its capture)
// the counts end above the mode row under them: without it, Fyne's test
// canvas kept the counts' old height and drew their last line over the
// mode row (gui --walk screenshots).
func TestRelayoutShowsThePointUnderReview(t *testing.T) {
	h := newEditHarness(t, []Point{pt(2, 30, 20, "cell"), pt(9, 40, 70, "non-cell")})
	h.key(fyne.KeyPeriod)
	r := h.v.ctl.pts
	if !strings.Contains(r.count.Text, "\npoint 2: non-cell") {
		t.Fatalf("counts %q do not name the point under review", r.count.Text)
	}
	relayout(h.w.Canvas().Content())
	d := fyne.CurrentApp().Driver()
	bottom := d.AbsolutePositionForObject(r.count).Y + r.count.Size().Height
	if top := d.AbsolutePositionForObject(r.mode).Y; bottom > top+0.5 {
		t.Errorf("counts end at y %v, under the mode row's top %v", bottom, top)
	}
	if r.count.Size().Height < r.count.MinSize().Height-0.5 {
		t.Errorf("counts %v high, need %v", r.count.Size().Height, r.count.MinSize().Height)
	}
}
