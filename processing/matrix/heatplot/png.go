package heatplot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"github.com/voxlab/voxlab/processing/matrix"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// ColourBarWidth is the width in pixels that the colour bar and its labels
// take at the right of a heat map image.
const ColourBarWidth = 110

// NaNGrey marks the cells not computed yet (NaN) on a heat map.
var NaNGrey = color.RGBA{0x80, 0x80, 0x80, 0xff}

// Style is how the plots are drawn: the colour behind them, the colour of
// their text, axes and ticks, and the size of their smallest text (tick
// labels; axis labels and titles are larger), in pixels at 96 dpi.
type Style struct {
	Background, Foreground color.Color
	TextPx                 float64
}

// Paper is the style of the PNG files: black on white, tick labels of
// 10 points.
var Paper = Style{Background: color.White, Foreground: color.Black, TextPx: 40.0 / 3}

// Sizes of the axis labels and titles relative to Style.TextPx, as
// gonum/plot's defaults (10, 12 and 12 points) have them.
const (
	labelScale = 1.2
	titleScale = 1.2
)

// apply styles a plot.
func (s Style) apply(p *plot.Plot) {
	pt := func(px float64) vg.Length { return vg.Length(px * 72 / 96) }
	p.BackgroundColor = s.Background
	p.Title.TextStyle.Color = s.Foreground
	p.Title.TextStyle.Font.Size = pt(s.TextPx * titleScale)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.LineStyle.Color = s.Foreground
		a.Label.TextStyle.Color = s.Foreground
		a.Label.TextStyle.Font.Size = pt(s.TextPx * labelScale)
		a.Tick.Label.Color = s.Foreground
		a.Tick.Label.Font.Size = pt(s.TextPx)
		a.Tick.LineStyle.Color = s.Foreground
	}
}

// finiteRange returns the smallest and largest finite values, widened to
// a non-empty range (0, 1 when there are none).
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

// HeatmapImage draws h as a heat map (row 0 at the top, as a matrix is
// read; NaN cells grey) with a colour bar, w x ht pixels at 96 dpi, in
// the Paper style.
func HeatmapImage(h matrix.Heatmap, w, ht int) (*image.RGBA, error) {
	return HeatmapImageStyle(h, w, ht, Paper)
}

// HeatmapImageStyle is HeatmapImage in style s (the viewer draws its
// plots in its theme's colours).
func HeatmapImageStyle(h matrix.Heatmap, w, ht int, s Style) (*image.RGBA, error) {
	if h.Rows < 1 || h.Cols < 1 || len(h.Values) != h.Rows*h.Cols {
		return nil, fmt.Errorf("heat map %s: %d values for %d x %d", h.Title, len(h.Values), h.Rows, h.Cols)
	}
	lo, hi := finiteRange(h.Values)
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(lo)
	cm.SetMax(hi)

	p := plot.New()
	s.apply(p)
	p.Title.Text = h.Title
	p.X.Label.Text, p.Y.Label.Text = h.XLabel, h.YLabel
	// Plot y = rows−1−r, labelled r: row 0 at the top.
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		t := intTicks(float64(h.Rows-1)-max, float64(h.Rows-1)-min)
		for i := range t {
			t[i].Value = float64(h.Rows-1) - t[i].Value
		}
		return t
	})
	p.X.Tick.Marker = plot.TickerFunc(intTicks)
	p.Add(plotter.NewImage(cellImage(h, cm, w, ht), -0.5, -0.5, float64(h.Cols)-0.5, float64(h.Rows)-0.5))

	bar := plot.New()
	s.apply(bar)
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Label.Text = h.Unit
	bar.Title.Text = " "

	c := canvas(w, ht, s)
	dc := vgdraw.New(c)
	bw := ColourBarWidth * vg.Inch / 96
	p.Draw(vgdraw.Crop(dc, 0, -bw, 0, 0))
	bar.Draw(vgdraw.Crop(dc, dc.Max.X-dc.Min.X-bw, 0, 0, 0))
	return toRGBA(c.Image()), nil
}

// cellImage paints each matrix cell as a block of pixels, about as many
// as it covers on the plot, so that scaling the image there keeps cells
// sharp.
func cellImage(h matrix.Heatmap, cm interface {
	At(float64) (color.Color, error)
}, w, ht int) *image.RGBA {
	kx, ky := max(1, w/h.Cols), max(1, ht/h.Rows)
	img := image.NewRGBA(image.Rect(0, 0, h.Cols*kx, h.Rows*ky))
	for r := range h.Rows {
		for c := range h.Cols {
			col := color.Color(NaNGrey)
			if x := h.Values[r*h.Cols+c]; !math.IsNaN(x) && !math.IsInf(x, 0) {
				if cc, err := cm.At(x); err == nil {
					col = cc
				}
			}
			draw.Draw(img, image.Rect(c*kx, r*ky, (c+1)*kx, (r+1)*ky), image.NewUniform(col), image.Point{}, draw.Src)
		}
	}
	return img
}

// HistogramImageStyle draws the distribution of h's finite values, w x
// ht pixels at 96 dpi, in style s; with none yet, an empty plot.
func HistogramImageStyle(h matrix.Heatmap, w, ht int, s Style) (*image.RGBA, error) {
	var vals plotter.Values
	for _, x := range h.Values {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
		}
	}
	p := plot.New()
	s.apply(p)
	p.Title.Text = fmt.Sprintf("%s: %d values", h.Title, len(vals))
	p.X.Label.Text = h.Unit
	p.Y.Label.Text = "count"
	if len(vals) > 0 {
		bins := min(30, max(5, int(math.Sqrt(float64(len(vals))))))
		hist, err := plotter.NewHist(vals, bins)
		if err != nil {
			return nil, fmt.Errorf("histogram %s: %w", h.Title, err)
		}
		hist.FillColor = color.RGBA{0x3c, 0x78, 0xd8, 0xff}
		// The bars' outlines in the background colour keep them apart
		// on either background.
		hist.LineStyle.Color = s.Background
		p.Add(hist)
	}
	c := canvas(w, ht, s)
	p.Draw(vgdraw.New(c))
	return toRGBA(c.Image()), nil
}

// canvas is a w x ht pixel canvas at 96 dpi in the style's background.
func canvas(w, ht int, s Style) *vgimg.Canvas {
	return vgimg.NewWith(vgimg.UseWH(vg.Length(w)*vg.Inch/96, vg.Length(ht)*vg.Inch/96), vgimg.UseDPI(96), vgimg.UseBackgroundColor(s.Background))
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

func init() {
	matrix.RegisterPNG(matrix.HeatmapKind, func(path string, p matrix.Plot) error { return WritePNG(path, p.(matrix.Heatmap)) })
	matrix.RegisterPNG(matrix.ScatterKind, func(path string, p matrix.Plot) error { return WriteScatterPNG(path, p.(matrix.Scatter)) })
}

// WritePNG draws h as a heat map with a colour bar (HeatmapImage), 800 x
// 600 pixels, into path; it is matrix.WritePNG of heat maps in a binary
// that imports this package.
func WritePNG(path string, h matrix.Heatmap) error {
	img, err := HeatmapImage(h, 800, 600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return encodePNG(path, img)
}

// ScatterSize is the size in pixels of a scatter plot's PNG file with
// the given number of groups: 400 x 300 a panel, as the challenge's 5 x
// 3 inches, scatterCols panels a row.
func ScatterSize(groups int) (w, ht int) {
	cols := max(1, min(scatterCols, groups))
	rows := max(1, (groups+cols-1)/cols)
	return 400 * cols, 300*rows + 40
}

// WriteScatterPNG draws s (ScatterImage, in the Paper style, ScatterSize)
// into path; it is matrix.WritePNG of scatter plots in a binary that
// imports this package.
func WriteScatterPNG(path string, s matrix.Scatter) error {
	w, ht := ScatterSize(len(s.Groups))
	img, err := ScatterImage(s, w, ht, Paper)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return encodePNG(path, img)
}

// encodePNG writes img into path.
func encodePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	// Heat maps are large flat areas: the fastest compression makes
	// files about as small, in a fraction of the time.
	err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(f, img)
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
