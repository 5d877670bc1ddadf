package heatplot

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/voxlab/voxlab/processing/matrix"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
)

// GroupColours are the groups' colours, in turn: the challenge's
// svd_plots COLORS (IBM's colour-blind-safe palette).
var GroupColours = []color.RGBA{
	{0x64, 0x8f, 0xff, 0xff}, {0x78, 0x5e, 0xf0, 0xff}, {0xdc, 0x26, 0x7f, 0xff},
	{0xfe, 0x61, 0x00, 0xff}, {0xff, 0xb0, 0x00, 0xff},
}

// ContextGrey draws every group's points behind a panel's own (the
// challenge draws a density of them there).
var ContextGrey = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}

// groupGlyphs are the groups' markers after their colours have come
// round once (the challenge's o, v, ^, <, > in turn).
var groupGlyphs = []vgdraw.GlyphDrawer{vgdraw.CircleGlyph{}, vgdraw.TriangleGlyph{}, vgdraw.PyramidGlyph{}, vgdraw.BoxGlyph{}}

// scatterCols is the number of panels a row, as the challenge's.
const scatterCols = 3

// ScatterImage draws s as panels, a group each (scatterCols a row),
// w x ht pixels at 96 dpi, in style s.
func ScatterImage(s matrix.Scatter, w, ht int, st Style) (*image.RGBA, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	cols := min(scatterCols, len(s.Groups))
	rows := (len(s.Groups) + cols - 1) / cols
	var all plotter.XYs
	for _, g := range s.Groups {
		for i := range g.X {
			all = append(all, plotter.XY{X: g.X[i], Y: g.Y[i]})
		}
	}
	xmin, xmax, ymin, ymax := paddedRange(all)
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i, g := range s.Groups {
		p, err := groupPanel(s, i, g, all, st)
		if err != nil {
			return nil, err
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
		grid[i/cols][i%cols] = p
	}
	c := canvas(w, ht, st)
	dc := vgdraw.New(c)
	title := plot.New()
	st.apply(title)
	ts := title.Title.TextStyle
	ts.XAlign, ts.YAlign = text.XCenter, text.YTop
	pad := vg.Length(st.TextPx*titleScale) * 72 / 96
	dc.FillText(ts, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - pad/2}, s.Title)
	body := vgdraw.Crop(dc, 0, 0, 0, -2*pad)
	tiles := vgdraw.Tiles{Rows: rows, Cols: cols, PadX: pad, PadY: pad / 2, PadTop: pad / 2, PadBottom: pad / 2, PadLeft: pad / 2, PadRight: pad}
	canvases := plot.Align(grid, tiles, body)
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][k])
			}
		}
	}
	return toRGBA(c.Image()), nil
}

// groupPanel is group i's panel: every point in grey, then its own in
// its colour and marker, its label as the legend.
func groupPanel(s matrix.Scatter, i int, g matrix.Group, all plotter.XYs, st Style) (*plot.Plot, error) {
	p := plot.New()
	st.apply(p)
	p.X.Label.Text, p.Y.Label.Text = s.XLabel, s.YLabel
	ctx, err := plotter.NewScatter(all)
	if err != nil {
		return nil, fmt.Errorf("scatter plot %s: %w", s.Title, err)
	}
	ctx.GlyphStyle = vgdraw.GlyphStyle{Color: ContextGrey, Radius: vg.Points(1.5), Shape: vgdraw.CircleGlyph{}}
	own := make(plotter.XYs, len(g.X))
	for k := range g.X {
		own[k] = plotter.XY{X: g.X[k], Y: g.Y[k]}
	}
	pts, err := plotter.NewScatter(own)
	if err != nil {
		return nil, fmt.Errorf("scatter plot %s, %s: %w", s.Title, g.Label, err)
	}
	pts.GlyphStyle = vgdraw.GlyphStyle{Color: GroupColours[i%len(GroupColours)], Radius: vg.Points(3),
		Shape: groupGlyphs[i/len(GroupColours)%len(groupGlyphs)]}
	p.Add(ctx, pts)
	p.Legend.Add(g.Label, pts)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Color = st.Foreground
	p.Legend.TextStyle.Font.Size = vg.Length(st.TextPx) * 72 / 96
	return p, nil
}

// paddedRange is the points' range widened by a twentieth each side
// (and to a non-empty one), so that no marker sits on an axis, with
// room at the top for the legend.
func paddedRange(xys plotter.XYs) (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range xys {
		if finite(p.X) && finite(p.Y) {
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	widen := func(lo, hi, top float64) (float64, float64) {
		if lo > hi {
			return 0, 1
		}
		if d := hi - lo; d > 0 {
			return lo - d/20, hi + d*top
		}
		return lo - 0.5, hi + 0.5
	}
	xmin, xmax = widen(xmin, xmax, 1.0/20)
	ymin, ymax = widen(ymin, ymax, 0.25)
	return xmin, xmax, ymin, ymax
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
