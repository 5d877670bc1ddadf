package viewer

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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
	// colourBarW is the width taken by the colour bar and its labels.
	colourBarW = 110
)

// nanGrey marks cells not computed yet.
var nanGrey = color.RGBA{0x80, 0x80, 0x80, 0xff}

// finiteRange returns the smallest and largest finite values, widened to
// a non-empty range (0, 1 when there are none).
func finiteRange(v []float64) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			n++
		}
	}
	switch {
	case n == 0:
		return 0, 1, 0
	case lo == hi:
		return lo - 0.5, hi + 0.5, n
	}
	return lo, hi, n
}

// HeatmapImage draws m as a heat map (row 0 at the top, as a matrix is
// read; cells not computed yet grey) with a colour bar, w x h pixels.
func HeatmapImage(m Matrix, w, h int) (*image.RGBA, error) {
	if m.Rows < 1 || m.Cols < 1 || len(m.Values) != m.Rows*m.Cols {
		return nil, fmt.Errorf("heat map %s: %d values for %d x %d", m.Name, len(m.Values), m.Rows, m.Cols)
	}
	lo, hi, _ := finiteRange(m.Values)
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(lo)
	cm.SetMax(hi)

	p := plot.New()
	p.Title.Text = m.Name
	p.X.Label.Text, p.Y.Label.Text = m.XLabel, m.YLabel
	// Plot y = rows−1−r, labelled r: row 0 at the top.
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		t := indexTicks(float64(m.Rows-1)-max, float64(m.Rows-1)-min)
		for i := range t {
			t[i].Value = float64(m.Rows-1) - t[i].Value
		}
		return t
	})
	p.X.Tick.Marker = plot.TickerFunc(indexTicks)
	p.Add(plotter.NewImage(cellImage(m, cm, w, h), -0.5, -0.5, float64(m.Cols)-0.5, float64(m.Rows)-0.5))

	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = m.Unit
	bar.Title.Text = " "

	c := vgimg.NewWith(vgimg.UseWH(vg.Length(w)*vg.Inch/96, vg.Length(h)*vg.Inch/96), vgimg.UseDPI(96))
	dc := vgdraw.New(c)
	bw := colourBarW * vg.Inch / 96
	p.Draw(vgdraw.Crop(dc, 0, -bw, 0, 0))
	bar.Draw(vgdraw.Crop(dc, dc.Max.X-dc.Min.X-bw, 0, 0, 0))
	return toRGBA(c.Image()), nil
}

// cellImage paints each matrix cell as a block of pixels, about as many
// as it covers on the plot, so scaling the image there keeps cells sharp.
func cellImage(m Matrix, cm interface {
	At(float64) (color.Color, error)
}, w, h int) *image.RGBA {
	kx, ky := max(1, w/m.Cols), max(1, h/m.Rows)
	img := image.NewRGBA(image.Rect(0, 0, m.Cols*kx, m.Rows*ky))
	for r := range m.Rows {
		for c := range m.Cols {
			col := color.Color(nanGrey)
			if x := m.Values[r*m.Cols+c]; !math.IsNaN(x) && !math.IsInf(x, 0) {
				if cc, err := cm.At(x); err == nil {
					col = cc
				}
			}
			draw.Draw(img, image.Rect(c*kx, r*ky, (c+1)*kx, (r+1)*ky), image.NewUniform(col), image.Point{}, draw.Src)
		}
	}
	return img
}

// HistogramImage draws the distribution of m's finite values, w x h
// pixels.
func HistogramImage(m Matrix, w, h int) (*image.RGBA, error) {
	var vals plotter.Values
	for _, x := range m.Values {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
		}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d values", m.Name, len(vals))
	p.X.Label.Text = m.Unit
	p.Y.Label.Text = "count"
	if len(vals) > 0 {
		bins := min(30, max(5, int(math.Sqrt(float64(len(vals))))))
		hist, err := plotter.NewHist(vals, bins)
		if err != nil {
			return nil, fmt.Errorf("histogram %s: %w", m.Name, err)
		}
		hist.FillColor = color.RGBA{0x3c, 0x78, 0xd8, 0xff}
		p.Add(hist)
	}
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(w)*vg.Inch/96, vg.Length(h)*vg.Inch/96), vgimg.UseDPI(96))
	p.Draw(vgdraw.New(c))
	return toRGBA(c.Image()), nil
}

// toRGBA returns img as an *image.RGBA, which Fyne uploads as it is.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	r := image.NewRGBA(img.Bounds())
	draw.Draw(r, r.Bounds(), img, img.Bounds().Min, draw.Src)
	return r
}

// indexTicks labels whole indices only (map numbers), about 8 of them.
func indexTicks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	if hi < lo {
		return nil
	}
	step := math.Max(1, math.Ceil((hi-lo)/8))
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= step {
			step = f * mag
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%d", int(v))})
	}
	return ticks
}

// plotInterval spaces the re-renderings of a matrix that is filling: a
// plot takes tens of milliseconds, chunks may come much faster.
const plotInterval = 250 * time.Millisecond

// Plots is a tab of plots of matrices (a distance run's metrics): per
// matrix a heat map with its colour bar and a histogram, rendered with
// gonum/plot off the UI goroutine and re-rendered as the matrix fills.
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
			heat, err := HeatmapImage(m, heatW, heatH)
			var hist *image.RGBA
			if err == nil {
				hist, err = HistogramImage(m, histW, histH)
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
