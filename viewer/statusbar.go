package viewer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// statusBar is the line (or two) under the view: the readout of the
// pointer's voxel and the values under it at the left (status; a hint
// of what the mouse does when it is off the data, or the last error),
// and the layers' point counts, the slices still loading and the zoom
// at the right (info). The viewer tells it when to update; it reads the
// viewer's state and lays itself out on one or two lines.
type statusBar struct {
	widget.BaseWidget
	status, info *widget.Label
	box          *fyne.Container
}

// newStatusBar returns an empty bar; relayout lays the window out again
// when the bar changes height.
func newStatusBar(relayout func()) *statusBar {
	s := &statusBar{status: widget.NewLabel(""), info: widget.NewLabel("")}
	s.status.Truncation = fyne.TextTruncateEllipsis
	s.info.Truncation = fyne.TextTruncateEllipsis
	s.box = container.New(&statusLayout{relayout: relayout}, s.status, s.info)
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer draws the two labels.
func (s *statusBar) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(s.box) }

// setText sets one of the bar's labels (setText below).
func (s *statusBar) setText(l *widget.Label, text string) { setText(l, text, s.box) }

// update writes the pointer position in the data of the panel it is
// over (the map too over a stack; row and column over a heat map),
// the values under it and the view's zoom and point counts.
func (s *statusBar) update(v *Viewer) {
	var b strings.Builder
	if zyx, row, col, ok := v.ptr.voxel(&v.at); ok {
		inPanel := func(l Layer) bool {
			return l.Visible() && (v.ptr.panel.group == nil || slices.Contains(v.ptr.panel.group, l))
		}
		if hm := heatmapUnder(v.stack.All(), v.ptr.panel, row, col); hm != nil && v.ptr.panel.group != nil {
			fmt.Fprintf(&b, "row %d  col %d", row, col)
			if st := stackOf(v.stack.All(), hm); st != nil {
				fmt.Fprintf(&b, " (click: map %d)", row)
			}
		} else {
			if slices.ContainsFunc(v.stack.All(), func(l Layer) bool {
				il, ok := imageLayer(l)
				return ok && il.maps > 1 && inPanel(l)
			}) {
				fmt.Fprintf(&b, "map %d  ", v.at.Map())
			}
			fmt.Fprintf(&b, "z %d  y %d  x %d", zyx[0], zyx[1], zyx[2])
		}
		for _, l := range v.stack.All() {
			if !inPanel(l) {
				continue
			}
			if val, ok := v.ptr.panel.valueAt(l, row, col); ok {
				fmt.Fprintf(&b, "  │  %s: %s", l.Name(), formatValue(val))
			}
		}
	}
	if b.Len() == 0 && v.dlg.lastErr == "" {
		b.WriteString(hint(v))
	}
	if b.Len() > 0 || v.dlg.lastErr == "" {
		s.setText(s.status, b.String())
	}
	// The points layers' counts, whole and cut short, and with only
	// the selected layer's whole (fitLine picks what fits).
	var long, short, mixed []string
	var top, sel string // the top and the selected points layer's short counts
	for _, l := range v.stack.All() {
		if pl, ok := pointsLayer(l); ok && l.Visible() {
			long = append(long, pl.statusText(imageExtent(v.stack.All())))
			short = append(short, shortStatus(pl))
			mixed = append(mixed, short[len(short)-1])
			top = short[len(short)-1]
			if l == v.stack.Selected() {
				mixed[len(mixed)-1] = long[len(long)-1]
				sel = top
			}
		}
	}
	one := cmp.Or(sel, top)
	// Too many layers for even their short counts: one of them and how
	// many more.
	few := []string{one}
	if len(short) > 1 {
		few = append(few, fmt.Sprintf("+ %d more points layers", len(short)-1))
	}
	if pl, ok := pointsLayer(v.stack.Selected()); ok {
		if v.ctl.layer == v.stack.Selected() {
			v.ctl.pts.sync(pl, imageExtent(v.stack.All())) // its in-view count is the one just drawn
		}
		if pt := pointText(pl); pt != "" && pl.Visible() {
			with := func(c []string) []string { return append([]string{pt}, c...) }
			long, short, mixed, few = with(long), with(short), with(mixed), with(few)
		}
	}
	var info []string
	// The zoom of the panel under the pointer (panels of a grid differ);
	// in 3D the camera's, relative to the view that fits the volume.
	if v.v3.on() {
		info = append(info, fmt.Sprintf("3D zoom %.0f%%", v.v3.cam.Zoom*100))
	} else {
		p := v.ptr.panel
		for _, q := range v.panels {
			if p == nil && q.ortho != nil && *q.ortho == Z {
				p = q // the xy panel's, not the zy strip's
			}
		}
		if p == nil {
			p = v.panels[0]
		}
		info = append(info, fmt.Sprintf("zoom %.0f%%", p.xf().Scale*100))
	}
	info = append(loadingText(v), info...)
	s.setText(s.info, fitLine(s.Size().Width, info, long, mixed, short, few))
}

// fitLine is the status bar's counts line for a bar w wide (0: not
// laid out yet): the first of the points counts choices (whole, cut
// short but the selected layer's, all cut short, one and how many more)
// that fits, each
// followed by the loading and zoom parts (rest); the last choice when
// none does. Three points layers' whole counts do not fit 1280 px, and
// truncating the line dropped the last layers' and the zoom.
func fitLine(w float32, rest []string, choices ...[]string) string {
	var line string
	for _, c := range choices {
		line = strings.Join(append(append([]string(nil), c...), rest...), "   ")
		if w <= 0 || textWidth(line) <= w {
			break
		}
	}
	return line
}

// textWidth is the width a status label needs to show t whole.
func textWidth(t string) float32 {
	return fyne.MeasureText(t, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
}

// loadingText says, for the status bar, which slices on screen are
// still loading (how far, for a y or x slice read in pieces: "loading y
// 500: 40%") and which slices of a running job's output are not held.
// Layers are named when more than one image layer is visible.
func loadingText(v *Viewer) []string {
	var shown []*ImageLayer
	for _, l := range v.stack.All() {
		if il := imageOf(l); il != nil && l.Visible() && il.fixed == nil {
			shown = append(shown, il)
		}
	}
	var out []string
	loading := false
	for _, il := range shown {
		k, ok := il.keyFor(v.at.Axis(), v.at.Slice(), v.at.Map())
		if !ok || il.ld.cache.Contains(k) {
			continue
		}
		name := ""
		if len(shown) > 1 {
			name = il.name + ": "
		}
		err := il.ld.err(k)
		switch done, total, ok := il.ld.loadProgress(k); {
		case errors.Is(err, ErrNotHeld):
			out = append(out, fmt.Sprintf("%s%s %d finished, shown when the job ends", name, k.axis, k.idx))
		case err != nil:
		case ok:
			out = append(out, fmt.Sprintf("%sloading %s %d: %d%%", name, k.axis, k.idx, done*100/total))
		default:
			loading = true
		}
	}
	if loading && len(out) == 0 {
		out = append(out, "loading…")
	}
	return out
}

// hint is the readout with the pointer off the data: what the mouse
// and keys do in the view on show.
func hint(v *Viewer) string {
	if v.stack.Len() == 0 {
		return "Open a file (File ▸ Open, or drop it here)"
	}
	switch {
	case v.v3.on():
		return "drag to turn · scroll to zoom · double-click to reset"
	case v.ortho.on:
		return "click or drag to move the point · scroll to zoom · double-click to reset"
	}
	if pl, ok := pointsLayer(v.stack.Selected()); ok && pl.Visible() && v.edit.mode != PanZoom {
		return editHints[v.edit.mode]
	}
	if v.Dims().Maps() > 1 {
		return "drag to pan · scroll to zoom · ←/→ slice · ↑/↓ map · double-click to reset"
	}
	return "drag to pan · scroll to zoom · ←/→ change slice · double-click to reset"
}

// setText sets a label's text and lays its container out again when the
// label's width, or its text's (a truncating label's), changed (Fyne
// does not propagate size changes upwards).
func setText(l *widget.Label, s string, parent *fyne.Container) {
	if l.Text == s {
		return
	}
	old, oldW := l.MinSize(), natural(l)
	l.SetText(s)
	if parent != nil && (l.MinSize() != old || natural(l) != oldW) {
		parent.Refresh()
	}
}

// statusLayout lays the status bar out: the pointer readout (objs[0])
// at the left and the layers' counts (objs[1]) at the right on one line
// when both fit, else on two lines, the readout above, so that neither
// is cut short at 1280 px with a few layers on show. A line is truncated
// only when its text is wider than the window. Below twoLinesBelow
// (1280 px screens) the bar always takes two lines: a bar that grew as
// the text did would shrink the canvas under the user (the curation
// walk's point would leave the centre). On wider windows it goes back
// to one line once both fit with some room (80 px), so that a readout
// that grows and shrinks by a digit as the pointer moves does not make
// it jump.
// twoLinesBelow is the window width under which the status bar always
// takes two lines.
const twoLinesBelow = 1440

type statusLayout struct {
	two bool
	// relayout lays out the window again when the bar's height changed.
	relayout func()
}

// natural returns the width a label's text needs untruncated.
func natural(o fyne.CanvasObject) float32 {
	l, ok := o.(*widget.Label)
	if !ok {
		return o.MinSize().Width
	}
	if l.Text == "" {
		return 0
	}
	return fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
}

// Layout places the labels on one line or two.
func (s *statusLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) != 2 {
		return
	}
	ws, wi := natural(objs[0]), natural(objs[1])
	pad := theme.Padding()
	two := s.two
	switch need := ws + wi + pad; {
	case size.Width < twoLinesBelow || need > size.Width:
		two = true
	case need < size.Width-80:
		two = false
	}
	if two != s.two {
		s.two = two
		if s.relayout != nil {
			defer s.relayout()
		}
	}
	h := max(objs[0].MinSize().Height, objs[1].MinSize().Height)
	if two {
		objs[0].Move(fyne.NewPos(0, 0))
		objs[0].Resize(fyne.NewSize(size.Width, h))
		objs[1].Move(fyne.NewPos(0, h))
		objs[1].Resize(fyne.NewSize(size.Width, h))
		return
	}
	wi = min(wi, size.Width)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(max(size.Width-wi-pad, 0), h))
	objs[1].Move(fyne.NewPos(size.Width-wi, 0))
	objs[1].Resize(fyne.NewSize(wi, h))
}

// MinSize is one line, or two when the last layout needed them.
func (s *statusLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	if s.two {
		h *= 2
	}
	return fyne.NewSize(100, h)
}
