package panel

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/widgets"
)

// MemBar shows a predicted memory peak against what is available: the
// fill is the peak, a tick marks the share a plan may use (the planner's
// safety margin), and the caption gives the numbers. The fill turns
// orange past the tick and red past the whole.
type MemBar struct {
	widget.BaseWidget
	label               string
	used, avail, usable int64
	text                string
}

// NewMemBar returns an empty bar captioned label ("Device").
func NewMemBar(label string) *MemBar {
	b := &MemBar{label: label}
	b.ExtendBaseWidget(b)
	return b
}

// Set shows used bytes of avail, of which usable may be planned; avail 0
// means no limit. note follows the numbers ("free memory of cpu").
func (b *MemBar) Set(used, avail, usable int64, note string) {
	b.used, b.avail, b.usable = used, avail, usable
	switch {
	case avail <= 0:
		b.text = fmt.Sprintf("%s: %s (no limit)", b.label, plan.FormatBytes(used))
	default:
		b.text = fmt.Sprintf("%s: %s of %s", b.label, plan.FormatBytes(used), plan.FormatBytes(avail))
	}
	if note != "" {
		b.text += " — " + note
	}
	b.Refresh()
}

// Text returns the caption.
func (b *MemBar) Text() string { return b.text }

// Fraction returns used/avail (0 without a limit).
func (b *MemBar) Fraction() float64 {
	if b.avail <= 0 {
		return 0
	}
	return float64(b.used) / float64(b.avail)
}

// CreateRenderer builds the bar's renderer.
func (b *MemBar) CreateRenderer() fyne.WidgetRenderer {
	r := &memBarRenderer{
		b:    b,
		bg:   canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)),
		fill: canvas.NewRectangle(theme.Color(theme.ColorNamePrimary)),
		tick: canvas.NewRectangle(theme.Color(theme.ColorNameForeground)),
		// The caption wraps: in a narrow dock the numbers and the note
		// take two lines rather than running past the edge.
		text: widgets.WrapLabel("", widget.MediumImportance),
	}
	r.bg.CornerRadius = 3
	r.fill.CornerRadius = 3
	return r
}

type memBarRenderer struct {
	b              *MemBar
	bg, fill, tick *canvas.Rectangle
	text           *widget.Label
	size           fyne.Size
}

const memBarHeight = 8

// MinSize is the caption's (wrapped to the bar's width) above the bar.
func (r *memBarRenderer) MinSize() fyne.Size {
	ts := r.text.MinSize()
	return fyne.NewSize(max(ts.Width, 120), ts.Height+memBarHeight+2)
}

func (r *memBarRenderer) Layout(size fyne.Size) {
	r.size = size
	r.Refresh()
}

func (r *memBarRenderer) Refresh() {
	b := r.b
	if r.text.Text != b.text {
		r.text.SetText(b.text)
	}
	// A wrapped label's height follows its width: size it to the
	// width first, then to the height it needs there.
	r.text.Resize(fyne.NewSize(r.size.Width, r.text.MinSize().Height))
	r.text.Resize(fyne.NewSize(r.size.Width, r.text.MinSize().Height))
	r.text.Move(fyne.NewPos(0, 0))
	// Inset like a label's text, so bars line up with the captions.
	x0 := theme.InnerPadding()
	w := max(r.size.Width-2*x0, 0)
	top := r.text.Size().Height - theme.InnerPadding()/2
	r.bg.Move(fyne.NewPos(x0, top))
	r.bg.Resize(fyne.NewSize(w, memBarHeight))
	r.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.bg.Refresh()
	frac := b.Fraction()
	r.fill.Move(fyne.NewPos(x0, top))
	r.fill.Resize(fyne.NewSize(w*float32(min(frac, 1)), memBarHeight))
	r.fill.FillColor = barColour(b.used, b.avail, b.usable)
	r.fill.Hidden = b.avail <= 0 || b.used <= 0
	r.fill.Refresh()
	r.tick.Hidden = b.avail <= 0 || b.usable <= 0
	if !r.tick.Hidden {
		x := w * float32(float64(b.usable)/float64(b.avail))
		r.tick.Move(fyne.NewPos(x0+x-1, top-2))
		r.tick.Resize(fyne.NewSize(2, memBarHeight+4))
	}
	r.tick.FillColor = theme.Color(theme.ColorNameForeground)
	r.tick.Refresh()
}

// barColour is green within the usable share, orange past it, red past
// everything available.
func barColour(used, avail, usable int64) color.Color {
	switch {
	case avail > 0 && used > avail:
		return theme.Color(theme.ColorNameError)
	case usable > 0 && used > usable:
		return theme.Color(theme.ColorNameWarning)
	}
	return theme.Color(theme.ColorNameSuccess)
}

func (r *memBarRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.bg, r.fill, r.tick, r.text}
}

func (r *memBarRenderer) Destroy() {}

// planView is the plan preview: the block sizes the planner chose, the
// predicted peaks against the budget as bars, the planner's warnings and
// the equivalent command line.
type planView struct {
	box                  *fyne.Container
	blocks               *widget.Label
	device, pinned, host *MemBar
	warn, err            *widget.Label
	cmd                  *widget.Label
	last                 *plan.Plan
}

func newPlanView() *planView {
	pv := &planView{
		blocks: widgets.WrapLabel("", widget.MediumImportance),
		device: NewMemBar("device"),
		pinned: NewMemBar("pinned host"),
		host:   NewMemBar("host"),
		warn:   widgets.WrapLabel("", widget.WarningImportance),
		err:    widgets.WrapLabel("", widget.DangerImportance),
		cmd:    widgets.CodeLabel("", widget.LowImportance),
	}
	pv.box = container.NewVBox(pv.blocks, pv.device, pv.pinned, pv.host, pv.warn, pv.err, pv.cmd)
	pv.clear("Choose the inputs to see the plan.")
	return pv
}

func (pv *planView) clear(msg string) {
	pv.last = nil
	widgets.SetLabel(pv.blocks, msg)
	pv.device.Hide()
	pv.pinned.Hide()
	pv.host.Hide()
	widgets.SetLabel(pv.warn, "")
	widgets.SetLabel(pv.err, "")
}

// show displays a plan.
func (pv *planView) show(p *plan.Plan) {
	pv.last = p
	widgets.SetLabel(pv.blocks, planBlocks(p))
	b := p.Budget
	usable := func(n int64) int64 {
		m := b.Margin
		if m <= 0 || m > 1 {
			m = plan.DefaultMargin
		}
		return int64(m * float64(n))
	}
	pv.device.Set(p.PeakDevice, b.Device, usable(b.Device), b.DeviceSource)
	pv.pinned.Set(p.PeakPinned, b.PinnedCap, b.PinnedCap, "pinned cap")
	// With a shared budget (the CPU backend) the device buffers are host
	// RAM: the host bar shows all of it, as the planner counted it.
	pv.host.Set(p.PeakRAM, b.Host, usable(b.Host), b.HostSource)
	pv.device.Show()
	pv.host.Show()
	pv.pinned.Hidden = p.PeakPinned == 0
	pv.pinned.Refresh()
	widgets.SetLabel(pv.warn, strings.Join(p.Warnings, "\n"))
	widgets.SetLabel(pv.err, "")
}

// fail shows why there is no plan.
func (pv *planView) fail(err error) {
	pv.clear("")
	widgets.SetLabel(pv.err, err.Error())
}

// planBlocks describes each phase's blocks: "projections: 90 slices in 1
// block of 90 (halo 1)".
func planBlocks(p *plan.Plan) string {
	var lines []string
	for i, ph := range p.Phases {
		s := fmt.Sprintf("%s: %d %s in %d %s of %d", ph.Name, ph.Units, ph.Unit, ph.Blocks, plural(ph.Blocks, "block", "blocks"), ph.Block)
		if ph.Halo > 0 {
			s += fmt.Sprintf(" (+%d halo each side)", ph.Halo)
		}
		if i == p.Main && len(p.Phases) > 1 {
			s += " ◂ block size"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
