package viewer

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/widgets"
)

// The compare offer above the canvas.

// Offer is the line above the canvas that offers the view change a
// result makes possible — showing it side by side with the data it came
// from — with one click, instead of making it: results never rearrange
// the user's view. Use it on the UI goroutine.
type Offer struct {
	box     *fyne.Container
	text    *widget.Label
	compare *widget.Button
	// a and b are the layers the offer would show side by side.
	a, b Layer
	// listed reports whether a layer is in the viewer; focus shows
	// layers alone side by side (Panels.Focus); relayout lays the view
	// out again after the bar came or went.
	listed   func(Layer) bool
	focus    func(layers ...Layer)
	relayout func()
}

func newOffer(win fyne.Window, listed func(Layer) bool, focus func(...Layer), relayout func()) *Offer {
	o := &Offer{text: widget.NewLabel(""), listed: listed, focus: focus, relayout: relayout}
	o.text.Truncation = fyne.TextTruncateEllipsis
	o.compare = widgets.NewButton(win, "Compare side by side", theme.GridIcon(), o.accept)
	o.compare.Importance = widget.HighImportance
	dismiss := widgets.NewButton(win, "", theme.CancelIcon(), func() {
		o.hide()
		o.relayout()
	})
	dismiss.Importance = widget.LowImportance
	o.box = container.NewBorder(nil, widget.NewSeparator(), nil, container.NewHBox(o.compare, dismiss), o.text)
	o.box.Hide()
	return o
}

// about reports whether the offer concerns l.
func (o *Offer) about(l Layer) bool { return o.a == l || o.b == l }

func (o *Offer) hide() {
	o.a, o.b = nil, nil
	o.box.Hide()
}

// Offer returns the compare offer above the canvas.
func (v *Viewer) Offer() *Offer { return v.offer }

// Compare offers, above the canvas, to show result beside in (the data
// it came from) in grid mode; nothing changes until the user accepts
// (its Compare side by side button). A later offer replaces it;
// removing either layer withdraws it.
func (o *Offer) Compare(in, result Layer) {
	if in == nil || result == nil || !o.listed(in) || !o.listed(result) {
		return
	}
	o.a, o.b = in, result
	msg := fmt.Sprintf("%s is ready", result.Name())
	if il, ok := imageLayer(result); ok && il.vol != nil {
		if _, live := il.vol.Source().(*LiveVolume); live {
			// The job still runs: say so, not that it is done.
			msg = fmt.Sprintf("%s: planes appear as the job computes them", result.Name())
		}
	}
	o.text.SetText(msg)
	o.box.Show()
	o.relayout()
}

// Layers returns the layers the offer would show side by side (nils
// when there is no offer) and its button.
func (o *Offer) Layers() (in, result Layer, button *widget.Button) {
	return o.a, o.b, o.compare
}

// accept accepts the compare offer: its two layers alone, side by side
// in grid mode, fitted.
func (o *Offer) accept() {
	a, b := o.a, o.b
	if a == nil || b == nil {
		return
	}
	o.hide()
	o.focus(a, b)
	o.relayout()
}
