package panel

import (
	"image"
	"math"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/matrix"
	"github.com/voxlab/voxlab/processing/matrix/heatplot"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// Matrix is a row-major matrix to plot: a distance matrix, with NaN in
// the cells not computed yet.
type Matrix struct {
	// Name titles the plots ("l2").
	Name string
	// Unit labels the values: the colour bar and the histogram's axis.
	Unit string
	// XLabel names the columns, YLabel the rows.
	XLabel, YLabel string
	Rows, Cols     int
	Values         []float64
}

// Plot sizes in logical pixels (96 dpi): the first rendering, before the
// tab has been laid out, and the height of a row of plots. Once laid out,
// each plot is drawn at the size it is shown at, so that its text keeps
// the size the style gives it (at least widgets.MinTextSize) instead of
// being scaled down with the image.
const (
	heatW, heatH = 560, 420
	histW, histH = 420, 420
	plotRowH     = 340
	// heatShare is the heat map's share of a row's width (it holds the
	// colour bar too); the histogram has the rest.
	heatShare = 0.57
	// minPlotW keeps a plot readable on a narrow tab (the row scrolls).
	minPlotW = 240
)

// heatmap is m as the distance report draws it.
func (m Matrix) heatmap() matrix.Heatmap {
	return matrix.Heatmap{Title: m.Name, XLabel: m.XLabel, YLabel: m.YLabel, Unit: m.Unit, Rows: m.Rows, Cols: m.Cols, Values: m.Values}
}

// plotInterval spaces the re-renderings of a matrix that is filling: a
// plot takes tens of milliseconds, chunks may come much faster.
const plotInterval = 250 * time.Millisecond

// Plots is a tab of plots of matrices (a distance run's metrics): per
// matrix a row holding its heat map with colour bar and, beside it, its
// histogram, drawn as the distance report draws them
// (heatplot.HeatmapImageStyle) in the app theme's colours, off the UI
// goroutine, redrawn as the matrix fills and when the tab's size changes.
type Plots struct {
	v      *viewer.Viewer
	tab    *container.TabItem
	rows   *fyne.Container
	scroll *container.Scroll
	items  map[string]*plotItem
	note   *widget.Label
	// style is the theme's, read on the UI goroutine when the tab is
	// made: background, foreground, text size.
	style heatplot.Style

	mu sync.Mutex
	// latest holds each matrix's last values, pending those not drawn
	// since, sizes the pixel sizes the rows' layout asks for (heat map,
	// histogram; none before the first layout).
	latest, pending map[string]Matrix
	sizes           map[string]plotSize
	order           []string
	running         bool
	err             error
}

// plotSize is the size in device pixels of a matrix's heat map and
// histogram, and the device pixels per logical pixel (text is scaled by
// it, keeping its logical size on a high-density screen).
type plotSize struct {
	heat, hist image.Point
	scale      float64
}

// plotItem is one matrix's row on the tab.
type plotItem struct {
	heat, hist *canvas.Image
	row        *fyne.Container
}

// NewPlots adds a tab titled title beside the view and returns it.
// Call on the UI goroutine.
func NewPlots(v *viewer.Viewer, title string) *Plots {
	p := &Plots{v: v, items: map[string]*plotItem{},
		latest: map[string]Matrix{}, pending: map[string]Matrix{}, sizes: map[string]plotSize{}}
	p.style = heatplot.Style{
		Background: theme.Color(theme.ColorNameBackground),
		Foreground: theme.Color(theme.ColorNameForeground),
		TextPx:     math.Max(heatplot.Paper.TextPx, widgets.MinTextSize),
	}
	p.rows = container.NewVBox()
	p.note = widgets.WrapLabel("The plots fill in as the job computes the matrices.", widget.MediumImportance)
	p.scroll = widgets.PanelScroll(p.rows)
	p.tab = v.Dock().AddTab(title, container.NewBorder(p.note, nil, nil, nil, p.scroll))
	return p
}

// Tab returns the plots' tab.
func (p *Plots) Tab() *container.TabItem { return p.tab }

// SetNote sets the line above the plots.
func (p *Plots) SetNote(s string) { p.note.SetText(s) }

// Style returns the style the plots are drawn in.
func (p *Plots) Style() heatplot.Style { return p.style }

// Set (re)draws the plots of m; at most one rendering of it every
// plotInterval, the latest values winning. m.Values is copied. Safe from
// any goroutine.
func (p *Plots) Set(m Matrix) {
	m.Values = slices.Clone(m.Values)
	p.mu.Lock()
	if !slices.Contains(p.order, m.Name) {
		p.order = append(p.order, m.Name)
	}
	p.latest[m.Name] = m
	p.pending[m.Name] = m
	start := p.startLocked()
	p.mu.Unlock()
	p.startRender(start)
}

// startLocked marks the renderer running (with p.mu held) and reports
// whether it must be started.
func (p *Plots) startLocked() bool {
	start := !p.running
	p.running = true
	return start
}

// startRender starts the rendering goroutine when start is set.
func (p *Plots) startRender(start bool) {
	if !start {
		return
	}
	p.v.Async().Go(p.render)
}

// resized records the pixel sizes a row's layout gives a matrix's plots
// and redraws them at that size when it differs from the images on show
// (UI goroutine).
func (p *Plots) resized(name string, heat, hist image.Point, scale float64) {
	// A plot narrower than this has no room for its axes.
	const least = 64
	for _, pt := range []*image.Point{&heat, &hist} {
		pt.X, pt.Y = max(pt.X, least), max(pt.Y, least)
	}
	it := p.items[name]
	p.mu.Lock()
	p.sizes[name] = plotSize{heat, hist, scale}
	start := false
	if it != nil && (it.heat.Image.Bounds().Size() != heat || it.hist.Image.Bounds().Size() != hist) {
		if _, queued := p.pending[name]; !queued {
			p.pending[name] = p.latest[name]
		}
		start = p.startLocked()
	}
	p.mu.Unlock()
	p.startRender(start)
}

// Idle reports whether every matrix given to Set has been rendered
// (its images may still wait in the UI queue).
func (p *Plots) Idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.running
}

// Err returns the last rendering error.
func (p *Plots) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// render draws pending matrices until there are none, pausing between
// rounds so a filling matrix is not redrawn for every chunk.
func (p *Plots) render() {
	for {
		p.mu.Lock()
		type job struct {
			m    Matrix
			size plotSize
		}
		var batch []job
		for _, name := range p.order {
			if m, ok := p.pending[name]; ok {
				size, ok := p.sizes[name]
				if !ok {
					size = plotSize{image.Pt(heatW, heatH), image.Pt(histW, histH), 1}
				}
				batch = append(batch, job{m, size})
			}
		}
		clear(p.pending)
		if len(batch) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for _, j := range batch {
			st := p.style
			st.TextPx *= j.size.scale
			heat, err := heatplot.HeatmapImageStyle(j.m.heatmap(), j.size.heat.X, j.size.heat.Y, st)
			var hist *image.RGBA
			if err == nil {
				hist, err = heatplot.HistogramImageStyle(j.m.heatmap(), j.size.hist.X, j.size.hist.Y, st)
			}
			if err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				continue
			}
			name := j.m.Name
			p.v.Async().Do(func() { p.show(name, heat, hist) })
		}
		time.Sleep(plotInterval)
	}
}

// show puts rendered images on the tab (UI goroutine).
func (p *Plots) show(name string, heat, hist *image.RGBA) {
	it, ok := p.items[name]
	if !ok {
		it = &plotItem{heat: canvas.NewImageFromImage(heat), hist: canvas.NewImageFromImage(hist)}
		for _, ci := range []*canvas.Image{it.heat, it.hist} {
			ci.FillMode = canvas.ImageFillContain
			ci.ScaleMode = canvas.ImageScaleSmooth
		}
		it.row = container.New(&plotRow{p: p, name: name}, it.heat, it.hist)
		p.items[name] = it
		p.rows.Add(it.row)
		p.scroll.Refresh()
		return
	}
	it.heat.Image, it.hist.Image = heat, hist
	it.heat.Refresh()
	it.hist.Refresh()
}

// Images returns the images on show for a matrix (nil when none yet).
// Call on the UI goroutine.
func (p *Plots) Images(name string) (heat, hist image.Image) {
	it, ok := p.items[name]
	if !ok {
		return nil, nil
	}
	return it.heat.Image, it.hist.Image
}

// plotRow lays out one matrix's heat map and histogram side by side,
// the heat map taking heatShare of the width, and asks for plots of the
// sizes it gives them.
type plotRow struct {
	p    *Plots
	name string
}

// Layout places the heat map left of the histogram and tells the plots
// the sizes in device pixels.
func (r *plotRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) != 2 || size.Width <= 0 || size.Height <= 0 {
		return
	}
	pad := theme.Padding()
	hw := float32(math.Round(float64((size.Width - pad) * heatShare)))
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(hw, size.Height))
	objs[1].Move(fyne.NewPos(hw+pad, 0))
	objs[1].Resize(fyne.NewSize(size.Width-hw-pad, size.Height))
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(objs[0]); c != nil && c.Scale() > 0 {
		scale = c.Scale()
	}
	px := func(s fyne.Size) image.Point {
		return image.Pt(int(math.Round(float64(s.Width*scale))), int(math.Round(float64(s.Height*scale))))
	}
	r.p.resized(r.name, px(objs[0].Size()), px(objs[1].Size()), float64(scale))
}

// MinSize is a row of plotRowH with room for two readable plots.
func (r *plotRow) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(2*minPlotW+theme.Padding(), plotRowH)
}
