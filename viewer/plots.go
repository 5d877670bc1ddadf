package viewer

import (
	"image"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/distance/report"
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

// Plot sizes in pixels (96 dpi).
const (
	heatW, heatH = 560, 420
	histW, histH = 420, 420
)

// heatmap is m as the distance report draws it.
func (m Matrix) heatmap() report.Heatmap {
	return report.Heatmap{Title: m.Name, XLabel: m.XLabel, YLabel: m.YLabel, Unit: m.Unit, Rows: m.Rows, Cols: m.Cols, Values: m.Values}
}

// plotInterval spaces the re-renderings of a matrix that is filling: a
// plot takes tens of milliseconds, chunks may come much faster.
const plotInterval = 250 * time.Millisecond

// Plots is a tab of plots of matrices (a distance run's metrics): per
// matrix a heat map with its colour bar and a histogram, drawn as the
// distance report draws them (report.HeatmapImage) off the UI goroutine
// and redrawn as the matrix fills.
type Plots struct {
	v      *Viewer
	tab    *container.TabItem
	grid   *fyne.Container
	scroll *container.Scroll
	items  map[string]*plotItem
	note   *widget.Label

	mu      sync.Mutex
	pending map[string]Matrix
	order   []string
	running bool
	err     error
}

type plotItem struct {
	heat, hist *canvas.Image
}

// NewPlots adds a tab titled title beside the view and returns it.
// Call on the UI goroutine.
func NewPlots(v *Viewer, title string) *Plots {
	p := &Plots{v: v, items: map[string]*plotItem{}, pending: map[string]Matrix{}}
	p.grid = container.NewGridWithColumns(2)
	p.note = wrapLabel("The plots fill in as the job computes the matrices.", widget.MediumImportance)
	p.scroll = container.NewVScroll(p.grid)
	p.tab = v.AddTab(title, container.NewBorder(p.note, nil, nil, nil, p.scroll))
	return p
}

// Tab returns the plots' tab.
func (p *Plots) Tab() *container.TabItem { return p.tab }

// SetNote sets the line above the plots.
func (p *Plots) SetNote(s string) { p.note.SetText(s) }

// Set (re)draws the plots of m; at most one rendering of it every
// plotInterval, the latest values winning. m.Values is copied. Safe from
// any goroutine.
func (p *Plots) Set(m Matrix) {
	m.Values = slices.Clone(m.Values)
	p.mu.Lock()
	if !slices.Contains(p.order, m.Name) {
		p.order = append(p.order, m.Name)
	}
	p.pending[m.Name] = m
	start := !p.running
	p.running = true
	p.mu.Unlock()
	if start {
		p.v.bg.Add(1)
		p.v.bgCount.Add(1)
		go func() {
			defer p.v.bg.Done()
			defer p.v.bgCount.Add(-1)
			p.render()
		}()
	}
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
		var batch []Matrix
		for _, name := range p.order {
			if m, ok := p.pending[name]; ok {
				batch = append(batch, m)
			}
		}
		clear(p.pending)
		if len(batch) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for _, m := range batch {
			heat, err := report.HeatmapImage(m.heatmap(), heatW, heatH)
			var hist *image.RGBA
			if err == nil {
				hist, err = report.HistogramImage(m.heatmap(), histW, histH)
			}
			if err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
				continue
			}
			p.v.post(func() { p.show(m.Name, heat, hist) })
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
		// Small minimum sizes keep both columns in view on a narrow
		// tab; the images grow with it.
		it.heat.SetMinSize(fyne.NewSize(280, 210))
		it.hist.SetMinSize(fyne.NewSize(280, 210))
		p.items[name] = it
		p.grid.Add(it.heat)
		p.grid.Add(it.hist)
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
