package viewer

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/viewer/model"
)

// gridLayout lays the panels out in equal cells, with the number of
// columns that shows the data largest: the one under which the panels'
// fitted data cover the most area. napari's grid takes ⌈√n⌉ columns
// whatever the shapes, which puts two wide scans side by side in a tall
// canvas at half the size they could have one above the other. Ties go
// to more columns (side by side).
type gridLayout struct{ v *Viewer }

// Layout places the panels in rows of the chosen number of columns.
func (g gridLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	n := len(objs)
	if n == 0 {
		return
	}
	cols := g.columns(objs, size)
	cw, ch := cellSize(n, cols, size)
	pad := theme.Padding()
	for i, o := range objs {
		r, c := i/cols, i%cols
		o.Move(fyne.NewPos(float32(c)*(cw+pad), float32(r)*(ch+pad)))
		o.Resize(fyne.NewSize(cw, ch))
	}
}

// MinSize is that of a grid of ⌈√n⌉ columns of the panels' minimum.
func (g gridLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	n := len(objs)
	if n == 0 {
		return fyne.Size{}
	}
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	m := objs[0].MinSize()
	pad := theme.Padding()
	return fyne.NewSize(float32(cols)*m.Width+float32(cols-1)*pad, float32(rows)*m.Height+float32(rows-1)*pad)
}

// columns returns the number of columns that maximises the area of the
// panels' fitted data in size.
func (g gridLayout) columns(objs []fyne.CanvasObject, size fyne.Size) int {
	n := len(objs)
	best, bestArea := 1, -1.0
	ra, ca := g.v.at.Axis().DisplayAxes()
	for cols := 1; cols <= n; cols++ {
		rows := (n + cols - 1) / cols
		if (cols-1)*rows >= n {
			continue // a column would be empty
		}
		cw, ch := cellSize(n, cols, size)
		area := 0.0
		for _, o := range objs {
			var group []Layer
			if p, ok := o.(*sliceView); ok {
				group = p.group
			}
			e := extentOf(g.v.stack.All(), group)
			a := aspectAlong(g.v.stack.All(), group, g.v.at.Axis())
			f := model.Fit(e[ra], e[ca], a, float64(cw), float64(ch))
			area += float64(e[ra]) * f.RowScale() * float64(e[ca]) * f.Scale
		}
		if area >= bestArea*(1-1e-9) {
			best, bestArea = cols, area
		}
	}
	return best
}

// cellSize returns the size of one of n cells in cols columns.
func cellSize(n, cols int, size fyne.Size) (w, h float32) {
	rows := (n + cols - 1) / cols
	pad := theme.Padding()
	return (size.Width - pad*float32(cols-1)) / float32(cols), (size.Height - pad*float32(rows-1)) / float32(rows)
}
