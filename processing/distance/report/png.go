package report

import (
	"fmt"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"image/color"
)

// Heatmap describes a matrix to draw.
type Heatmap struct {
	Title string
	// XLabel names the columns, YLabel the rows, Unit the values (the
	// colour bar's label).
	XLabel, YLabel, Unit string
	Rows, Cols           int
	Values               []float64
}

// grid adapts a row-major matrix to plotter.GridXYZ with each value
// repeated kx times across and ky times down, so that the rasterised heat
// map's image has about the pixels it is drawn on and its bilinear scaling
// keeps cells sharp. Cell (c, r) is centred on x = c, y = rows−1−r: row 0
// at the top, as a matrix is read.
type grid struct {
	rows, cols, kx, ky int
	v                  []float64
}

func (g grid) Dims() (c, r int) { return g.cols * g.kx, g.rows * g.ky }
func (g grid) Z(c, r int) float64 {
	return g.v[(g.rows-1-r/g.ky)*g.cols+c/g.kx]
}
func (g grid) X(c int) float64 { return (float64(c)+0.5)/float64(g.kx) - 0.5 }
func (g grid) Y(r int) float64 { return (float64(r)+0.5)/float64(g.ky) - 0.5 }

// noGlyphs plots a heat map without its glyph boxes: plotter.HeatMap
// gives one per cell for the axes' padding, which for a large (or, here,
// upsampled) matrix costs gigabytes and changes nothing.
type noGlyphs struct{ hm *plotter.HeatMap }

func (n noGlyphs) Plot(c draw.Canvas, p *plot.Plot)            { n.hm.Plot(c, p) }
func (n noGlyphs) DataRange() (xmin, xmax, ymin, ymax float64) { return n.hm.DataRange() }

// finiteRange returns the smallest and largest finite values, widened to
// a non-empty range.
func finiteRange(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// WritePNG draws h as a heat map (row 0 at the top, as a matrix is read)
// with a colour bar, 800 x 600 pixels at 96 dpi, into path.
func WritePNG(path string, h Heatmap) error {
	if h.Rows < 1 || h.Cols < 1 || len(h.Values) != h.Rows*h.Cols {
		return fmt.Errorf("write %s: %d values for a %d x %d heat map", path, len(h.Values), h.Rows, h.Cols)
	}
	const width, height, barWidth = 800, 600, 110
	lo, hi := finiteRange(h.Values)
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(lo)
	cm.SetMax(hi)

	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text, p.Y.Label.Text = h.XLabel, h.YLabel
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		// Label y = rows−1−r with the row r.
		ticks := intTicks(float64(h.Rows-1)-max, float64(h.Rows-1)-min)
		for i := range ticks {
			ticks[i].Value = float64(h.Rows-1) - ticks[i].Value
		}
		return ticks
	})
	p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick { return intTicks(min, max) })
	g := grid{rows: h.Rows, cols: h.Cols, kx: max(1, (width+h.Cols-1)/h.Cols), ky: max(1, (height+h.Rows-1)/h.Rows), v: h.Values}
	hm := plotter.NewHeatMap(g, cm.Palette(256))
	hm.Min, hm.Max = lo, hi
	hm.Rasterized = true
	hm.NaN = color.Gray{Y: 128}
	p.Add(noGlyphs{hm})

	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = h.Unit
	bar.Title.Text = " "

	img := vgimg.NewWith(vgimg.UseWH(width*vg.Inch/96, height*vg.Inch/96), vgimg.UseDPI(96))
	dc := draw.New(img)
	bw := barWidth * vg.Inch / 96
	p.Draw(draw.Crop(dc, 0, -bw, 0, 0))
	bar.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-bw, 0, 0, 0))

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// intTicks labels whole indices only (map numbers), about 8 of them.
func intTicks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	if hi < lo {
		return nil
	}
	step := math.Max(1, math.Ceil((hi-lo)/8))
	// Round the step to 1, 2 or 5 times a power of ten.
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= step {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%d", int(v))})
	}
	return ticks
}
