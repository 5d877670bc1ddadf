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

// offerBar is the line above the canvas that offers the view change a
// result makes possible — showing it side by side with the data it came
// from — with one click, instead of making it: results never rearrange
// the user's view.
type offerBar struct {
	box     *fyne.Container
	text    *widget.Label
	compare *widget.Button
	// a and b are the layers the offer would show side by side.
	a, b Layer
	// focus shows layers alone side by side (Viewer.Focus); relayout
	// lays the view out again after the bar came or went.
	focus    func(layers ...Layer)
	relayout func()
}

func newOfferBar(win fyne.Window, focus func(...Layer), relayout func()) *offerBar {
	o := &offerBar{text: widget.NewLabel(""), focus: focus, relayout: relayout}
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
func (o *offerBar) about(l Layer) bool { return o.a == l || o.b == l }

func (o *offerBar) hide() {
	o.a, o.b = nil, nil
	o.box.Hide()
}

// OfferCompare offers, above the canvas, to show result beside in (the
// data it came from) in grid mode; nothing changes until the user
// accepts (its Compare side by side button). A later offer replaces
// it; removing either layer withdraws it.
func (v *Viewer) OfferCompare(in, result Layer) {
	if in == nil || result == nil || v.stack.IndexOf(in) < 0 || v.stack.IndexOf(result) < 0 {
		return
	}
	v.offer.a, v.offer.b = in, result
	msg := fmt.Sprintf("%s is ready", result.Name())
	if il, ok := result.(*ImageLayer); ok && il.vol != nil {
		if _, live := il.vol.Source().(*LiveVolume); live {
			// The job still runs: say so, not that it is done.
			msg = fmt.Sprintf("%s: planes appear as the job computes them", result.Name())
		}
	}
	v.offer.text.SetText(msg)
	v.offer.box.Show()
	v.dims.relayout()
}

// Offer returns the layers the compare offer would show side by side
// (nils when there is no offer) and its button.
func (v *Viewer) Offer() (in, result Layer, button *widget.Button) {
	return v.offer.a, v.offer.b, v.offer.compare
}

// accept accepts the compare offer: its two layers alone, side by side
// in grid mode, fitted.
func (o *offerBar) accept() {
	a, b := o.a, o.b
	if a == nil || b == nil {
		return
	}
	o.hide()
	o.focus(a, b)
	o.relayout()
}
