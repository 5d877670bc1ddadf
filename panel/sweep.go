package panel

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// A sweep (pipeline.Live.Sweep: reconstruct's --center-sweep) writes a
// map per value of a parameter. When it ends its output opens as a stack
// the map slider steps through; the panel's sweep box names the value of
// the map on show, lists the values (choosing one shows its map) and
// fills the parameter with the one on show ("Use this centre"), so that
// the next run uses it.

// sweepLive is a volume's live view whose output opens as a stack of
// maps, one per value of the sweep.
type sweepLive struct {
	*volumeLive
	p       *Panel
	command string
	sw      *pipeline.Sweep
}

// newSweepLive returns the live view of req when the spec says it is a
// sweep, else nil.
func newSweepLive(p *Panel, spec *pipeline.Spec, req Request) Live {
	if spec.Live.Sweep == nil || spec.Live.Kind != pipeline.LiveVolume {
		return nil
	}
	sw := spec.Live.Sweep(req.Args, req.Values)
	if sw == nil || len(sw.Values) == 0 {
		return nil
	}
	vl, ok := NewLive(p.v, spec, req.Args).(*volumeLive)
	if !ok {
		return nil
	}
	return &sweepLive{volumeLive: vl, p: p, command: spec.Name, sw: sw}
}

// Done removes the live layer and opens the output as a stack of maps on
// its first slice, offering to compare it with the input (UI goroutine).
func (l *sweepLive) Done(err error) {
	if il := l.layer.Load(); il != nil {
		l.v.RemoveLayer(il)
	}
	if err != nil || l.result == "" {
		return
	}
	sw, err := recordedSweep(l.sw, l.result)
	if err == nil {
		var il *viewer.ImageLayer
		if il, err = openSweep(l.v, l.result, sw); err == nil {
			// Each map is one plane: the slice the input was on (the
			// middle projection) would show none of it.
			l.v.Dims().SetSlice(0)
			l.v.Offer().Compare(l.in, il)
			l.p.showSweep(l.command, sw, filepath.Base(l.result), il)
			return
		}
	}
	l.v.Dialogs().ShowError(fmt.Errorf("open the %s sweep %s: %w", l.sw.Label, l.result, err))
}

// recordedSweep is sw with the values its output records (Recorded),
// where it records them: the maps are labelled by what the run wrote.
func recordedSweep(sw *pipeline.Sweep, result string) (*pipeline.Sweep, error) {
	if sw.Recorded == nil {
		return sw, nil
	}
	vals, ok, err := sw.Recorded(result)
	if err != nil || !ok {
		return sw, err
	}
	c := *sw
	c.Values = vals
	return &c, nil
}

// openSweep opens a sweep's output as a stack of one-plane maps, one per
// value; an output whose planes do not match the values is refused
// rather than labelled wrongly.
func openSweep(v *viewer.Viewer, spec string, sw *pipeline.Sweep) (*viewer.ImageLayer, error) {
	vol, err := volume.Open(spec)
	if err != nil {
		return nil, err
	}
	if n := vol.Shape[0]; n != len(sw.Values) {
		vol.Close()
		return nil, fmt.Errorf("%d planes for %d values of the sweep", n, len(sw.Values))
	}
	st, err := volume.NewStack(vol.Name, len(sw.Values), vol.Source())
	if err != nil {
		vol.Close()
		return nil, err
	}
	name := fmt.Sprintf("%s (%s %s to %s)", filepath.Base(spec), sw.Label, sw.Values[0], sw.Values[len(sw.Values)-1])
	il, err := v.AddStack(name, st, viewer.ImageOptions{})
	if err != nil {
		st.Close()
		return nil, err
	}
	return il, nil
}

// sweepBox is the panel's part for the last sweep opened: hidden until
// one is.
type sweepBox struct {
	box     *fyne.Container
	title   *widget.Label
	onShow  *widget.Label
	choose  *widget.Select
	use     *widget.Button
	command string
	sw      *pipeline.Sweep
	layer   *viewer.ImageLayer
	// setting is set while the box moves its own list.
	setting bool
}

func newSweepBox(p *Panel) *sweepBox {
	b := &sweepBox{}
	b.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.onShow = widgets.WrapLabel("", widget.MediumImportance)
	b.choose = widget.NewSelect(nil, func(string) {
		if !b.setting && b.choose.SelectedIndex() >= 0 {
			p.v.Dims().SetMap(b.choose.SelectedIndex())
			p.sweepMapChanged(p.v.Dims().Map())
		}
	})
	b.use = widgets.NewButton(p.v.Window(), "Use this value", theme.ConfirmIcon(), p.useSweepValue)
	b.box = container.NewVBox(widget.NewSeparator(), b.title, b.onShow, b.choose, b.use)
	b.box.Hide()
	viewer.OnMapChanged(p.v, p.sweepMapChanged)
	return b
}

// showSweep shows the box for a sweep opened as layer il, its first map
// on show.
func (p *Panel) showSweep(command string, sw *pipeline.Sweep, name string, il *viewer.ImageLayer) {
	b := p.sweep
	b.command, b.sw, b.layer = command, sw, il
	b.title.SetText(fmt.Sprintf("%s sweep: %s", capitalize(sw.Label), name))
	opts := make([]string, len(sw.Values))
	for i, x := range sw.Values {
		opts[i] = fmt.Sprintf("map %d: %s %s", i, sw.Label, x)
	}
	b.setting = true
	b.choose.SetOptions(opts)
	b.setting = false
	b.use.SetText("Use this " + sw.Label)
	viewer.SetMapLabels(p.v, b.mapLabel)
	p.v.Dims().SetMap(0)
	p.sweepMapChanged(p.v.Dims().Map())
	b.box.Show()
	p.relayout()
}

// mapLabel is the map slider's label for map i of the sweep: its value
// ("centre 251.5").
func (b *sweepBox) mapLabel(i int) string {
	if b.sw == nil || i < 0 || i >= len(b.sw.Values) {
		return ""
	}
	return b.sw.Label + " " + b.sw.Values[i]
}

// sweepMapChanged follows the map slider: the box names the value of the
// map on show.
func (p *Panel) sweepMapChanged(i int) {
	b := p.sweep
	if b == nil || b.sw == nil || i < 0 || i >= len(b.sw.Values) {
		return
	}
	b.onShow.SetText(fmt.Sprintf("On show: map %d of %d, %s %s", i, len(b.sw.Values), b.sw.Label, b.sw.Values[i]))
	if b.choose.SelectedIndex() != i {
		b.setting = true
		b.choose.SetSelectedIndex(i)
		b.setting = false
	}
}

// SweepValue returns the value of the sweep's map on show ("" without a
// sweep).
func (p *Panel) SweepValue() string {
	b := p.sweep
	if b.sw == nil {
		return ""
	}
	i := p.v.Dims().Map()
	if i < 0 || i >= len(b.sw.Values) {
		return ""
	}
	return b.sw.Values[i]
}

// useSweepValue fills the swept parameter of the sweep's pipeline with
// the value on show, as the user would type it, showing that
// pipeline's form, and empties the parameter that asked for the sweep.
func (p *Panel) useSweepValue() {
	b := p.sweep
	val := p.SweepValue()
	if val == "" {
		return
	}
	if err := p.Select(b.command); err != nil {
		p.v.Dialogs().ShowError(err)
		return
	}
	if err := p.Set(b.sw.Param, val); err != nil {
		p.v.Dialogs().ShowError(err)
		return
	}
	if b.sw.By != "" {
		if err := p.Set(b.sw.By, ""); err != nil {
			p.v.Dialogs().ShowError(err)
		}
	}
	fe := p.fields[b.sw.Param]
	b.onShow.SetText(fmt.Sprintf("%s %s is in %s: Run uses it", capitalize(b.sw.Label), val, fe.f.Title()))
	p.scrollTo(fe)
}

// scrollTo scrolls the form to a parameter's field, so that the user
// sees the value the panel put there.
func (p *Panel) scrollTo(fe *fieldEditor) {
	if fe.f.Advanced || fe.box == nil {
		return
	}
	p.relayout()
	y := p.params.Position().Y + fe.box.Position().Y - theme.Padding()
	p.offset = fyne.NewPos(0, max(y, 0))
	p.scroll.ScrollToOffset(p.offset)
}

// sweepLayersChanged hides the box once its stack is closed.
func (p *Panel) sweepLayersChanged() {
	b := p.sweep
	if b == nil || b.layer == nil {
		return
	}
	for _, l := range p.v.Layers() {
		if l == viewer.Layer(b.layer) {
			return
		}
	}
	b.layer, b.sw = nil, nil
	viewer.SetMapLabels(p.v, nil)
	b.box.Hide()
	p.relayout()
}

// capitalize upper-cases an ASCII first letter ("centre" → "Centre").
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
