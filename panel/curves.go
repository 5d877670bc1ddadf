package panel

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/matrix/heatplot"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// metricsLive shows a run's metrics step by step (pipeline.Metrics:
// train's loss and accuracy per epoch) as curves on a tab of their own,
// a panel per quantity with its held-out ("val_") values dashed beside
// it, drawn with gonum/plot at the size the tab shows them; when the run
// has finished it offers the spec's Next ("Classify with this model").
type metricsLive struct {
	v     *viewer.Viewer
	title string
	tab   *container.TabItem
	note  *widget.Label
	plot  *canvas.Raster
	next  *widget.Button
	// style is the theme's, read on the UI goroutine when the tab is
	// made.
	style heatplot.Style

	mu    sync.Mutex
	steps []pipeline.Metrics
	shown bool
}

// newMetricsLive adds the tab of a run's curves, titled title and
// named after the output out (UI goroutine).
func newMetricsLive(v *viewer.Viewer, title, out string) *metricsLive {
	if title == "" {
		title = "Metrics"
	}
	l := &metricsLive{v: v, title: title}
	l.style = heatplot.Style{
		Background: theme.Color(theme.ColorNameBackground),
		Foreground: theme.Color(theme.ColorNameForeground),
		TextPx:     math.Max(heatplot.Paper.TextPx, widgets.MinTextSize),
	}
	l.note = widgets.WrapLabel("Waiting for the first epoch to end…", widget.MediumImportance)
	l.next = widgets.NewButton(v.Window(), "", theme.NavigateNextIcon(), nil)
	l.next.Importance = widget.HighImportance
	l.next.Hide()
	l.plot = canvas.NewRaster(l.draw)
	l.plot.SetMinSize(fyne.NewSize(2*minPlotW+theme.Padding(), plotRowH))
	top := container.NewVBox(l.note, container.NewHBox(l.next))
	l.tab = v.Dock().AddTab(title+": "+filepath.Base(out), container.NewBorder(top, nil, nil, nil, l.plot))
	return l
}

// offerNext makes the button that, once req has finished, chooses the
// pipeline next names with the fields it fills (UI goroutine).
func (l *metricsLive) offerNext(p *Panel, next *pipeline.Next, req Request) {
	if next == nil {
		return
	}
	l.next.SetText(next.Label)
	l.next.OnTapped = func() {
		widgets.Refocus(p.v.Window(), true)
		p.follow(next, req)
	}
}

// Partial stores a pipeline.Metrics and redraws the curves.
func (l *metricsLive) Partial(e job.Event) {
	m, ok := e.Partial.(pipeline.Metrics)
	if !ok {
		return
	}
	l.mu.Lock()
	l.steps = append(l.steps, m)
	first := !l.shown
	l.shown = true
	note := "Epoch " + stepText(m)
	l.mu.Unlock()
	l.v.Async().Do(func() {
		l.note.SetText(note)
		l.plot.Refresh()
		if first {
			l.v.Dock().ShowTab(l.tab)
		}
	})
}

// Done says how the run ended and, when it finished, offers Next (UI
// goroutine).
func (l *metricsLive) Done(err error) {
	l.mu.Lock()
	n := len(l.steps)
	last := ""
	if n > 0 {
		last = ". Epoch " + stepText(l.steps[n-1])
	}
	l.mu.Unlock()
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		l.note.SetText(fmt.Sprintf("Cancelled after %s%s", pipeline.Plural(n, "epoch"), last))
	case err != nil:
		l.note.SetText("Failed: " + err.Error())
	default:
		l.note.SetText(fmt.Sprintf("Finished: %s%s", pipeline.Plural(n, "epoch"), last))
		if l.next.Text != "" {
			l.next.Show()
		}
	}
}

// stepText is a step's values as Keras prints them, sorted by name:
// "3: accuracy 0.812 · loss 0.4321 · val_accuracy …" (epochs from 1).
func stepText(m pipeline.Metrics) string {
	names := make([]string, 0, len(m.Values))
	for name := range m.Values {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %.4g", name, m.Values[name])
	}
	return fmt.Sprintf("%d: %s", m.Step+1, strings.Join(parts, " · "))
}

// curves groups the steps' values into panels, one per quantity (loss
// first, as Keras's plots have it, then by name), each with its
// training line and its held-out ("val_") line dashed; x is the epoch
// from 1, a value a step lacks a gap.
func curves(steps []pipeline.Metrics) []heatplot.Curves {
	var bases []string
	for _, s := range steps {
		for name := range s.Values {
			if b := strings.TrimPrefix(name, "val_"); !slices.Contains(bases, b) {
				bases = append(bases, b)
			}
		}
	}
	// Loss first, as Keras plots it; then the others by name.
	slices.SortFunc(bases, func(a, b string) int {
		if (a == "loss") != (b == "loss") {
			if a == "loss" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]heatplot.Curves, 0, len(bases))
	for _, b := range bases {
		c := heatplot.Curves{Title: b, XLabel: "epoch"}
		if strings.HasSuffix(b, "accuracy") {
			c.YRange, c.LegendBottom = [2]float64{0, 1}, true
		}
		for _, name := range []string{b, "val_" + b} {
			ln := heatplot.Line{Label: "training", Dashed: name != b}
			if ln.Dashed {
				ln.Label = "validation"
			}
			for _, s := range steps {
				y, ok := s.Values[name]
				if !ok {
					y = math.NaN()
				}
				ln.X, ln.Y = append(ln.X, float64(s.Step+1)), append(ln.Y, y)
			}
			if slices.ContainsFunc(ln.Y, func(y float64) bool { return !math.IsNaN(y) }) {
				c.Lines = append(c.Lines, ln)
			}
		}
		out = append(out, c)
	}
	return out
}

// draw is the raster's generator: the curves at w x h device pixels,
// their text scaled with the canvas so that it keeps its logical size;
// the background alone before the first step.
func (l *metricsLive) draw(w, h int) image.Image {
	l.mu.Lock()
	steps := slices.Clone(l.steps)
	l.mu.Unlock()
	st := l.style
	if lw := l.plot.Size().Width; lw > 0 {
		st.TextPx *= float64(w) / float64(lw)
	}
	return l.image(steps, w, h, st)
}

// image draws steps' curves, or the background when there are none or
// they cannot be drawn.
func (l *metricsLive) image(steps []pipeline.Metrics, w, h int, st heatplot.Style) image.Image {
	if len(steps) > 0 {
		if img, err := heatplot.CurvesImage(curves(steps), w, h, st); err == nil {
			return img
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	draw.Draw(img, img.Bounds(), image.NewUniform(st.Background), image.Point{}, draw.Src)
	return img
}

// follow chooses next's pipeline with the fields it fills for the
// finished req, as the user would set them (they stay theirs), and
// scrolls to the first on show (UI goroutine). The other fields follow the
// open layers as that pipeline suggests.
func (p *Panel) follow(next *pipeline.Next, req Request) {
	if err := p.Select(next.Command); err != nil {
		p.v.Dialogs().ShowError(err)
		return
	}
	if next.Values == nil {
		return
	}
	vals := next.Values(req.Args, req.Values)
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := p.Set(name, vals[name]); err != nil {
			p.v.Dialogs().ShowError(err)
			return
		}
	}
	for _, name := range names {
		if fe := p.fields[name]; fe != nil && !fe.f.Advanced {
			p.scrollTo(fe)
			break
		}
	}
}
