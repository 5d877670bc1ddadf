package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestStatusBarFitsThreePointsLayers: at 1280 px, with three points
// layers of long names, the status bar's counts line fits its label
// (it was truncated, dropping the last layer's counts and the zoom):
// every layer is named and the zoom shows, the selected layer's counts
// whole.
func TestStatusBarFitsThreePointsLayers(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	h.v.AddImage("ch0", memVolume(t, volume.Uint16, [3]int{30, 200, 200}, func(z, y, x int) float64 { return 1 }), ImageOptions{})
	var pts []Point
	for i := range 60 {
		pts = append(pts, Point{Z: float64(i % 30), Y: float64(3 * i), X: float64(2 * i), Type: []string{points.TypeCell, points.TypeNonCell}[i%2]})
	}
	layers := []string{"cell_classification.xml", "ch0-detected.xml (running)", "ch0-classified.xml"}
	for _, n := range layers {
		h.v.AddPoints(n, pts)
	}
	h.v.Dims().SetSlice(15)
	h.settle()
	info := h.v.bar.info
	if w := natural(info); w > info.Size().Width+0.5 {
		t.Fatalf("status line %q needs %v px, its label is %v: cut", info.Text, w, info.Size().Width)
	}
	for _, n := range append(layers, "zoom") {
		if !strings.Contains(info.Text, n) {
			t.Errorf("status line %q does not name %q", info.Text, n)
		}
	}
	sel := h.v.Selected().(*PointsLayer)
	if !strings.Contains(info.Text, sel.statusText(imageExtent(h.v.stack.All()))) {
		t.Errorf("status line %q lacks the selected layer's whole counts", info.Text)
	}
}

// TestReviewShowsClassAndProbability: walking a classified CSV's
// points shows the point's class and the classifier's probability in
// the layer controls and the status bar; a point without one shows its
// class alone.
func TestReviewShowsClassAndProbability(t *testing.T) {
	csv := "z,y,x,type,probability\n" +
		"1,10,10,2,0.9\n" + // cell
		"2,20,20,1,0.125\n" + // non-cell
		"3,30,30,1,\n" // unknown
	path := filepath.Join(t.TempDir(), "classified.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{8, 60, 60}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	if _, err := h.v.Open(path); err != nil {
		t.Fatal(err)
	}
	h.settle()
	for _, want := range []string{"point 2: non-cell, probability 0.125", "point 1: cell, probability 0.900", "point 3: unknown"} {
		if !h.v.Curation().Next(+1) {
			t.Fatalf("the walk ended before %q", want)
		}
		h.settle()
		if got := h.v.ctl.pts.count.Text; !strings.Contains(got, want) {
			t.Errorf("layer controls %q, want %q", got, want)
		}
		if got := h.v.bar.info.Text; !strings.Contains(got, want) {
			t.Errorf("status bar %q, want %q", got, want)
		}
	}
	if got := h.v.bar.info.Text; strings.Contains(got, "point 3: unknown, probability") {
		t.Errorf("status bar %q gives the unknown point a probability", got)
	}
}

// TestEditMenuShowsTheKeys: the Edit menu's Delete, Next point and
// Previous point show the keys that do the same (their shortcuts), and
// those keys do what the items do.
func TestEditMenuShowsTheKeys(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{8, 60, 60}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	pl := h.v.AddPoints("cells", []Point{{Z: 1, Y: 10, X: 10}, {Z: 2, Y: 20, X: 20}, {Z: 3, Y: 30, X: 30}})
	h.settle()
	items := map[string]*fyne.MenuItem{}
	for _, m := range h.v.mainMenu().Items {
		if m.Label != "Edit" {
			continue
		}
		for _, it := range m.Items {
			items[it.Label] = it
		}
	}
	key := func(label string) fyne.KeyName {
		it := items[label]
		if it == nil {
			t.Fatalf("no %q in the Edit menu", label)
		}
		sc, ok := it.Shortcut.(fyne.KeyboardShortcut)
		if !ok {
			t.Fatalf("%q shows no key (shortcut %v)", label, it.Shortcut)
		}
		if sc.Mod() != 0 {
			t.Errorf("%q shows %v with modifiers %v, the key alone works", label, sc.Key(), sc.Mod())
		}
		return sc.Key()
	}
	// Each key, pressed, does what its item does, from the same state.
	for _, label := range []string{"Next point", "Previous point"} {
		pl.SetWalkAt(1)
		pl.SetSelected(false, 1)
		h.v.typedKey(&fyne.KeyEvent{Name: key(label)})
		byKey := pl.Selected()
		pl.SetWalkAt(1)
		pl.SetSelected(false, 1)
		items[label].Action()
		if byItem := pl.Selected(); len(byKey) != 1 || len(byItem) != 1 || byKey[0] != byItem[0] || byKey[0] == 1 {
			t.Errorf("%s: the key selects %v, the item %v", label, byKey, byItem)
		}
	}
	pl.SetSelected(false, 1)
	h.v.typedKey(&fyne.KeyEvent{Name: key("Delete selected points")})
	if pl.Len() != 2 {
		t.Errorf("the Delete item's key left %d points, want 2", pl.Len())
	}
}

// TestSelectingKeepsThePanelAndZoom: at 1280x800, selecting each layer
// in turn (an image's controls, a points layer's with a long name, which
// widened the side panel and so shrank the canvas and its zoom) leaves
// the side panel's width, the canvas's size and the zoom as they were.
func TestSelectingKeepsThePanelAndZoom(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	// The voxel size is the file's, set before the layer's loader starts
	// reading the volume.
	vol := memVolume(t, volume.Uint16, [3]int{30, 200, 300}, func(z, y, x int) float64 { return float64(x) })
	vol.VoxelSize = [3]float64{5, 2, 2}
	img, _ := h.v.AddImage("ch0", vol, ImageOptions{})
	pts := h.v.AddPoints("brain_2026-12-02_ch0-detected-candidates-with-a-long-name.xml (running)", []Point{{Z: 15, Y: 100, X: 100}})
	h.settle()
	type look struct {
		side, canvas fyne.Size
		zoom         float64
	}
	now := func() look {
		// The driver lays the window out again when a minimum size
		// grew (its EnsureMinSize); Fyne's test canvas does not: a
		// resize there and back does it.
		h.w.Resize(fyne.NewSize(1281, 800))
		h.w.Resize(fyne.NewSize(1280, 800))
		h.settle()
		return look{h.v.controls.Size(), h.panel().Size(), h.panel().xf().Scale}
	}
	h.v.Select(img)
	h.settle()
	want := now()
	for _, l := range []Layer{pts, img, pts} {
		h.v.Select(l)
		h.settle()
		if got := now(); got.side.Width != want.side.Width || got.canvas != want.canvas || got.zoom != want.zoom {
			t.Errorf("selecting %s: side panel %v, canvas %v, zoom %v; with ch0 selected %v, %v, %v",
				l.Name(), got.side, got.canvas, got.zoom, want.side, want.canvas, want.zoom)
		}
	}
}

// TestVoxelSizeErrorInSight: at 1280x800 a wrong voxel size ("1,2")
// typed in an image layer's controls is refused with a message that
// says what is wanted, on show in the side panel without scrolling (it
// was under the last control, below the panel's fold).
func TestVoxelSizeErrorInSight(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	l, _ := h.v.AddImage("ch0", memVolume(t, volume.Uint16, [3]int{30, 50, 50}, func(z, y, x int) float64 { return 1 }), ImageOptions{})
	h.settle()
	h.v.ctl.voxel.SetText("1,2")
	h.v.ctl.voxel.OnSubmitted(h.v.ctl.voxel.Text)
	h.settle()
	msg := h.v.ctl.voxelMsg
	if msg.Hidden || !strings.Contains(msg.Text, "three numbers z,y,x in µm") {
		t.Fatalf("message %q (hidden %v): want it to ask for three numbers z,y,x in µm", msg.Text, msg.Hidden)
	}
	if l.Volume().VoxelSize != ([3]float64{}) {
		t.Errorf("the wrong size was taken: %v", l.Volume().VoxelSize)
	}
	// The side panel's scroll shows its top: the message must lie
	// within its height.
	d := fyne.CurrentApp().Driver()
	var scroll *container.Scroll
	walkObjects(h.v.root, func(o fyne.CanvasObject) {
		if s, ok := o.(*container.Scroll); ok && scroll == nil && contains(s.Content, h.v.controls) {
			scroll = s
		}
	})
	if scroll == nil {
		t.Fatal("no scroll holds the layer controls")
	}
	top := d.AbsolutePositionForObject(scroll).Y
	bottom := d.AbsolutePositionForObject(msg).Y + msg.Size().Height
	if scroll.Offset.Y != 0 || bottom > top+scroll.Size().Height {
		t.Errorf("the message ends %v px below the side panel's top, which shows %v px (scrolled %v)", bottom-top, scroll.Size().Height, scroll.Offset.Y)
	}
}

// walkObjects calls f on o and every object inside it.
func walkObjects(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, x := range c.Objects {
			walkObjects(x, f)
		}
	case fyne.Widget:
		for _, x := range test.WidgetRenderer(c).Objects() {
			walkObjects(x, f)
		}
	}
}

// contains reports whether want is o or inside it.
func contains(o, want fyne.CanvasObject) bool {
	found := false
	walkObjects(o, func(x fyne.CanvasObject) { found = found || x == want })
	return found
}

// TestStatusBarFitsManyPointsLayers: with eight points layers even
// their short counts do not fit 1280 px: the line names the selected
// one and says how many more there are, and still fits.
func TestStatusBarFitsManyPointsLayers(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	h.v.AddImage("ch0", memVolume(t, volume.Uint16, [3]int{30, 200, 200}, func(z, y, x int) float64 { return 1 }), ImageOptions{})
	var sel *PointsLayer
	for i := range 8 {
		pl := h.v.AddPoints(fmt.Sprintf("brain_ch0-detected-candidates-run-%d.xml", i), []Point{{Z: 15, Y: 10, X: 10}})
		if i == 3 {
			sel = pl
		}
	}
	h.v.Select(sel)
	h.v.Dims().SetSlice(15)
	h.settle()
	info := h.v.bar.info
	if w := natural(info); w > info.Size().Width+0.5 {
		t.Fatalf("status line %q needs %v px, its label is %v: cut", info.Text, w, info.Size().Width)
	}
	for _, want := range []string{shortStatus(sel), "+ 7 more points layers", "zoom"} {
		if !strings.Contains(info.Text, want) {
			t.Errorf("status line %q lacks %q", info.Text, want)
		}
	}
}
