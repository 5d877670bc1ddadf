package heatplot

import (
	"fmt"
	"image"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
)

// Curves is a panel of lines over one x axis: a training run's loss per
// epoch, on the training cubes and on the held-out ones.
type Curves struct {
	Title, XLabel, YLabel string
	// YRange fixes the y axis (an accuracy's 0 to 1); zero: the lines'
	// range.
	YRange [2]float64
	// LegendBottom puts the legend at the bottom right, out of the way
	// of lines that rise (accuracy); else it is at the top right.
	LegendBottom bool
	Lines        []Line
}

// Line is one curve of a panel, drawn with a marker at each point (a
// single epoch shows); Dashed draws it dashed.
type Line struct {
	Label  string
	X, Y   []float64
	Dashed bool
}

// CurvesImage draws panels side by side, w x ht pixels at 96 dpi, in
// style st; line i of each panel takes every other of GroupColours from
// the first (blue, magenta, orange: far apart), so that a quantity has
// one colour in every panel. The x axis is labelled in
// whole numbers (epochs).
func CurvesImage(panels []Curves, w, ht int, st Style) (*image.RGBA, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("curves: no panel to draw")
	}
	row := make([]*plot.Plot, len(panels))
	for i, c := range panels {
		p, err := curvesPanel(c, st)
		if err != nil {
			return nil, err
		}
		row[i] = p
	}
	cv := canvas(w, ht, st)
	dc := vgdraw.New(cv)
	pad := vg.Length(st.TextPx) * 72 / 96
	tiles := vgdraw.Tiles{Rows: 1, Cols: len(row), PadX: 2 * pad, PadTop: pad / 2, PadBottom: pad / 2, PadLeft: pad / 2, PadRight: pad}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for k, p := range row {
		p.Draw(canvases[0][k])
	}
	return toRGBA(cv.Image()), nil
}

// curvesPanel is one panel of CurvesImage, its lines' labels the
// legend.
func curvesPanel(c Curves, st Style) (*plot.Plot, error) {
	p := plot.New()
	st.apply(p)
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = c.Title, c.XLabel, c.YLabel
	p.X.Tick.Marker = plot.TickerFunc(intTicks)
	xmax := 1.0
	for i, l := range c.Lines {
		if len(l.X) != len(l.Y) {
			return nil, fmt.Errorf("curves %s, %s: %d x for %d y", c.Title, l.Label, len(l.X), len(l.Y))
		}
		var xys plotter.XYs
		for k := range l.X {
			if finite(l.X[k]) && finite(l.Y[k]) {
				xys = append(xys, plotter.XY{X: l.X[k], Y: l.Y[k]})
				xmax = math.Max(xmax, l.X[k])
			}
		}
		if len(xys) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("curves %s, %s: %w", c.Title, l.Label, err)
		}
		col := GroupColours[2*i%len(GroupColours)]
		ln.LineStyle.Color, ln.LineStyle.Width = col, vg.Points(1.5)
		if l.Dashed {
			ln.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		pts.GlyphStyle = vgdraw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: groupGlyphs[i%len(groupGlyphs)]}
		p.Add(ln, pts)
		p.Legend.Add(l.Label, ln, pts)
	}
	// Whole epochs from the first, with room for the markers.
	p.X.Min, p.X.Max = 0.5, xmax+0.5
	if c.YRange[1] > c.YRange[0] {
		p.Y.Min, p.Y.Max = c.YRange[0], c.YRange[1]
	}
	p.Legend.Top = !c.LegendBottom
	p.Legend.TextStyle.Color = st.Foreground
	p.Legend.TextStyle.Font.Size = vg.Length(st.TextPx) * 72 / 96
	return p, nil
}
