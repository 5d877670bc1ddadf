package viewer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestOfferCompareLeavesTheView: offering to compare a result with its
// input changes nothing; accepting shows the two alone, side by side.
func TestOfferCompareLeavesTheView(t *testing.T) {
	h := newHarness(t)
	scan, _ := h.v.AddImage("scan", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 1 }), ImageOptions{})
	brain, _ := h.v.AddImage("brain", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 2 }), ImageOptions{})
	brain.SetVisible(false)
	res, _ := h.v.AddImage("result", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 3 }), ImageOptions{})
	h.v.Offer().Compare(scan, res)
	h.settle()
	if h.v.Panels().Grid() || !scan.Visible() || brain.Visible() || !res.Visible() || h.v.Selected() != res {
		t.Errorf("the offer changed the view: grid %v, visible %v %v %v, selected %v",
			h.v.Panels().Grid(), scan.Visible(), brain.Visible(), res.Visible(), h.v.Selected().Name())
	}
	a, b, button := h.v.Offer().Layers()
	if a != scan || b != res || h.v.offer.box.Hidden {
		t.Fatalf("offer %v %v, shown %v", a, b, !h.v.offer.box.Hidden)
	}
	test.Tap(button)
	h.settle()
	if !h.v.Panels().Grid() || len(h.v.panels) != 2 || !scan.Visible() || !res.Visible() || brain.Visible() {
		t.Errorf("compare: grid %v, %d panels", h.v.Panels().Grid(), len(h.v.panels))
	}
	if !h.v.offer.box.Hidden {
		t.Error("the offer stayed after it was taken")
	}
	// Removing a layer withdraws an offer about it.
	h.v.Offer().Compare(scan, res)
	h.v.RemoveLayer(res)
	if a, _, _ := h.v.Offer().Layers(); a != nil || !h.v.offer.box.Hidden {
		t.Error("the offer outlived its result")
	}
}

// TestKeysReturnToTheCanvas: after a click on a control (check, slider,
// button) the arrow keys step through slices again; text being typed
// keeps the keys until a button is pressed or Enter ends it.
func TestKeysReturnToTheCanvas(t *testing.T) {
	h := newHarness(t)
	h.w.Canvas().SetOnTypedKey(h.v.typedKey)
	h.v.AddImage("vol", memVolume(t, volume.Uint16, [3]int{20, 8, 8}, func(z, y, x int) float64 { return float64(z) }), ImageOptions{})
	h.v.Dims().SetSlice(5)
	h.settle()
	c := h.w.Canvas()
	press := func(k fyne.KeyName) {
		// What the driver does with a key: the focused widget's, or the
		// canvas's when none has the focus.
		if f := c.Focused(); f != nil {
			f.TypedKey(&fyne.KeyEvent{Name: k})
		} else {
			c.OnTypedKey()(&fyne.KeyEvent{Name: k})
		}
	}
	want := 5
	for _, click := range []struct {
		name string
		tap  func()
	}{
		{"the grid check", func() { test.Tap(h.v.grdCheck); test.Tap(h.v.grdCheck) }},
		{"the gamma slider", func() { test.Tap(h.v.ctl.gamma) }},
		{"the dims slider", func() { test.Tap(h.v.dims.slider); want = h.v.Dims().Slice() }},
		{"the layer list", func() {
			// A tapped row focuses the list, then selects.
			c.Focus(h.v.list)
			h.v.list.UnselectAll()
			h.v.list.Select(0)
		}},
	} {
		click.tap()
		h.settle()
		press(fyne.KeyRight)
		press(fyne.KeyPageDown)
		want = min(want+11, 19)
		if h.v.Dims().Slice() != want {
			t.Errorf("after a click on %s (focus %T): slice %d, want %d", click.name, c.Focused(), h.v.Dims().Slice(), want)
		}
		h.v.Dims().SetSlice(5)
		want = 5
	}
	// Typing in an entry keeps the keys; a button takes them back.
	c.Focus(h.v.ctl.lo)
	h.v.Panels().SetGrid(true) // the program changes a control meanwhile
	if c.Focused() != h.v.ctl.lo {
		t.Fatalf("the entry lost the focus to a change it did not make (%T)", c.Focused())
	}
	h.v.Panels().SetGrid(false)
	// The button's action, as the desktop driver runs it: that driver
	// leaves the focus alone when a button is clicked (test.Tap would
	// unfocus by itself).
	findButton(t, h.v.root, "Reset view").OnTapped()
	if c.Focused() != nil {
		t.Errorf("a button left the focus on %T", c.Focused())
	}
	// Enter in the contrast entries ends the typing.
	c.Focus(h.v.ctl.hi)
	h.v.ctl.hi.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Focused() != nil {
		t.Errorf("Enter left the focus on %T", c.Focused())
	}
}

// TestMenusAndOpenDialog: the menus show their shortcuts (Ctrl+O
// opens); the Open dialog takes a typed path, says when it is wrong, and
// opens a folder of TIFF planes as one layer.
func TestMenusAndOpenDialog(t *testing.T) {
	h := newHarness(t)
	m := h.v.mainMenu()
	file := m.Items[0]
	if file.Label != "File" || file.Items[0].Shortcut != openShortcut || file.Items[1].Label != "Open folder…" || file.Items[1].Shortcut == nil {
		t.Fatalf("File menu %q: %v", file.Label, file.Items)
	}
	if sc := file.Items[0].Shortcut.(interface{ ShortcutName() string }).ShortcutName(); !strings.Contains(sc, "O") {
		t.Errorf("Open's shortcut %s", sc)
	}
	for _, it := range m.Items[1].Items {
		if it.Shortcut == nil {
			t.Errorf("View ▸ %s has no shortcut", it.Label)
		}
	}
	dir := t.TempDir()
	planes := filepath.Join(dir, "planes")
	info := volume.Info{Shape: [3]int{3, 6, 7}, DType: volume.Uint16}
	w, err := volume.CreatePlaneDir(planes, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, make([]byte, info.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	file.Items[0].Action() // as Ctrl+O does
	o := h.v.files.shown
	if o == nil || h.w.Canvas().Focused() != o.path {
		t.Fatal("Open shows no dialog with the path to type focused")
	}
	test.Type(o.path, filepath.Join(dir, "nosuch"))
	test.Tap(o.open)
	if o.msg.Hidden || !strings.Contains(o.msg.Text, "no such file") || h.v.files.shown != o {
		t.Errorf("a wrong path: message %q, dialog open %v", o.msg.Text, h.v.files.shown == o)
	}
	o.path.SetText(planes)
	o.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if h.v.files.shown != nil || h.v.stack.Len() != 1 {
		t.Fatalf("Enter on a folder of planes: dialog open %v, %d layers", h.v.files.shown != nil, h.v.stack.Len())
	}
	if il, ok := h.v.stack.At(0).(*ImageLayer); !ok || il.Extent() != info.Shape {
		t.Errorf("the folder opened as %v", h.v.stack.At(0))
	}
}

// TestNewResultsOnTopAndSeen: a pipeline's points, placed over the
// image they were found in (PlaceAbove, as the panel does), stay on top
// of the layer list and show over an opaque image above that one; the
// list's order is the drawing order; grid mode still draws them in the
// image's panel (and over the other channel of its extent). New points and an opened layer go on top too.
func TestNewResultsOnTopAndSeen(t *testing.T) {
	h := newHarness(t)
	ch0, _ := h.v.AddImage("ch0", memVolume(t, volume.Uint16, [3]int{4, 40, 40}, func(z, y, x int) float64 { return 100 }), ImageOptions{Contrast: [2]float64{0, 1000}})
	ch1, _ := h.v.AddImage("ch1", memVolume(t, volume.Uint16, [3]int{4, 40, 40}, func(z, y, x int) float64 { return 900 }), ImageOptions{Contrast: [2]float64{0, 1000}})
	pts := h.v.AddPoints("cells (running)", []Point{{Z: 2, Y: 20, X: 20}})
	h.v.PlaceAbove(pts, ch0)
	h.v.Dims().SetSlice(2)
	h.settle()
	ls := h.v.Layers()
	if ls[len(ls)-1] != Layer(pts) || h.v.Selected() != Layer(pts) {
		t.Fatalf("layers %v, selected %s: want the new points on top and selected", names(ls), h.v.Selected().Name())
	}
	if _, n := h.greenAround(h.panel(), 20, 20, 4); n == 0 {
		t.Fatal("the points on top do not show over the opaque ch1")
	}
	// The drawing order is the list's: moved under ch1, they are hidden.
	h.v.MoveLayer(pts, -1)
	h.settle()
	if _, n := h.greenAround(h.panel(), 20, 20, 4); n != 0 {
		t.Fatalf("points under the opaque ch1 show %d green pixels", n)
	}
	h.v.MoveLayer(pts, +1)
	h.v.Panels().SetGrid(true)
	h.settle()
	// ch1 has ch0's extent: the points show over both (TestGridPointsOverEachChannel).
	if len(h.v.panels) != 2 || !slices.Equal(h.v.panels[0].group, []Layer{ch0, pts}) || !slices.Equal(h.v.panels[1].group, []Layer{ch1, pts}) {
		t.Fatalf("grid panels %v, %v: want the points in ch0's and over ch1 too", names(h.v.panels[0].group), names(h.v.panels[1].group))
	}
	h.v.Panels().SetGrid(false)
	np := h.v.edit.newLayer()
	if ls := h.v.Layers(); ls[len(ls)-1] != Layer(np) || !np.Visible() {
		t.Fatalf("New points: layers %v", names(ls))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "more.npy")
	testutil.WriteNPY(t, path, []int{4, 40, 40}, make([]uint16, 4*40*40))
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if ls := h.v.Layers(); ls[len(ls)-1] != l || !l.Visible() {
		t.Fatalf("opened: layers %v", names(ls))
	}
}

// names lists the layers' names.
func names(ls []Layer) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name())
	}
	return out
}

// TestOpenFolderDialogTakesATypedPath: File ▸ Open folder shows a
// field to type or paste a folder's path, with the keyboard in it
// (Fyne's folder chooser has none and ignores Enter and Escape):
// Escape cancels; a file is refused beside the path, saying so; Enter
// on a folder of TIFF planes opens it as one layer.
func TestOpenFolderDialogTakesATypedPath(t *testing.T) {
	h := newEditHarness(t, nil)
	folderItem := h.v.mainMenu().Items[0].Items[1]
	folderItem.Action()
	o := h.v.files.shown
	if o == nil || h.w.Canvas().Focused() != o.path || o.m.title != "Open folder" {
		t.Fatalf("Open folder shows no dialog with a path to type focused (%v)", o)
	}
	h.key(fyne.KeyEscape)
	if h.v.files.shown != nil || h.v.Dialogs().Len() != 0 {
		t.Fatal("Escape left the Open folder dialog")
	}
	dir := t.TempDir()
	planes := filepath.Join(dir, "ch0")
	info := volume.Info{Shape: [3]int{3, 6, 7}, DType: volume.Uint16}
	w, err := volume.CreatePlaneDir(planes, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, make([]byte, info.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "c.csv")
	os.WriteFile(csv, []byte("z,y,x\n1,2,3\n"), 0o644)
	folderItem.Action()
	o = h.v.files.shown
	o.path.SetText(csv)
	h.key(fyne.KeyReturn)
	if h.v.files.shown != o || o.msg.Hidden || !strings.Contains(o.msg.Text, "not a folder") {
		t.Fatalf("a file in Open folder: message %q (hidden %v), dialog open %v", o.msg.Text, o.msg.Hidden, h.v.files.shown == o)
	}
	o.path.SetText(planes)
	h.key(fyne.KeyReturn)
	if h.v.files.shown != nil || h.v.Dialogs().Len() != 0 {
		t.Fatal("Enter on a folder left the dialog")
	}
	if il, ok := h.v.Selected().(*ImageLayer); !ok || il.Extent() != info.Shape {
		t.Errorf("the folder opened as %v", h.v.Selected())
	}
}
