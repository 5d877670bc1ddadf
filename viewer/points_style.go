package viewer

import (
	"fmt"
	"image/color"
	"math"
	"sync"

	"github.com/voxlab/voxlab/processing/points"
)

// Shape is a marker's symbol.
type Shape int

// Marker shapes. Ring, Square, Diamond, Cross and Plus are outlines that
// leave the cell under them visible; Disc is filled.
const (
	Ring Shape = iota
	Square
	Diamond
	Cross
	Plus
	Disc
)

// shapeNames are the symbols' names in the layer controls.
var shapeNames = []string{"ring", "square", "diamond", "cross", "plus", "disc"}

// String returns the shape's name.
func (s Shape) String() string {
	if s >= 0 && int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("shape %d", int(s))
}

// PointsStyle is how a points layer draws: one face colour for the layer
// (each new layer gets its own), an edge drawn around every symbol so
// markers stay visible on bright data, and a symbol per class, so cells,
// non-cells and unknowns differ at a glance.
type PointsStyle struct {
	Face, Edge color.NRGBA
	// Symbols is indexed by points.Class (unknown, cell, non-cell).
	Symbols [points.NumClasses]Shape
}

// layerFaces are the face colours given to points layers in the order
// they are added: green first (the detections of a run), then colours
// that stay apart from it and from each other on gray and on the
// colormaps.
var layerFaces = []color.NRGBA{
	{0x33, 0xff, 0x66, 0xff}, // green
	{0xff, 0x4d, 0xd2, 0xff}, // magenta
	{0x40, 0xc8, 0xff, 0xff}, // sky blue
	{0xff, 0xc8, 0x20, 0xff}, // amber
	{0xff, 0x60, 0x40, 0xff}, // vermilion
	{0xb0, 0x90, 0xff, 0xff}, // lavender
}

// defaultSymbols: a ring for a cell (its centre shows the cell), a cross
// for a non-cell (struck out), a diamond for a candidate not yet decided.
var defaultSymbols = [points.NumClasses]Shape{points.Unknown: Diamond, points.Cell: Ring, points.NonCell: Cross}

// defaultStyle returns the style of the n-th points layer (from 0).
func defaultStyle(n int) PointsStyle {
	return PointsStyle{
		Face:    layerFaces[n%len(layerFaces)],
		Edge:    color.NRGBA{0, 0, 0, 0xb0},
		Symbols: defaultSymbols,
	}
}

// selectColor frames selected points.
const selectColor = 0xffffffff

// drawBox frames a selected point centred at device (cx, cy): a square
// outline of half-side half and line width lw device pixels, drawn in
// selectColor with a dark line outside it so it shows on white data.
func drawBox(f *frame, cx, cy, half, lw float64) {
	x0, y0 := int(cx-half), int(cy-half)
	x1, y1 := int(cx+half), int(cy+half)
	w := int(lw)
	put := func(x, y int, c uint32) {
		if x >= 0 && y >= 0 && x < f.w && y < f.h {
			f.px[y*f.w+x] = c
		}
	}
	for d := 0; d <= w; d++ {
		c := uint32(selectColor)
		if d == w {
			c = 0xff000000
		}
		for x := x0 - d; x <= x1+d; x++ {
			put(x, y0-d, c)
			put(x, y1+d, c)
		}
		for y := y0 - d; y <= y1+d; y++ {
			put(x0-d, y, c)
			put(x1+d, y, c)
		}
	}
}

// stencils caches the pixel offsets of each marker shape and size.
var stencils sync.Map // stencilKey -> *stencilSet

type stencilKey struct {
	shape  Shape
	radius int // in half device pixels
}

type offset struct{ dx, dy int16 }

// stencilSet is a marker's stroke and the one-pixel edge around it,
// within reach pixels of its centre.
type stencilSet struct {
	stroke, edge []offset
	reach        int
}

// stencil returns the offsets covered by a marker of diameter diam device
// pixels and by its edge. Rasterising happens once per shape and size;
// drawing a marker then only walks its offsets.
func stencil(shape Shape, diam float64) *stencilSet {
	key := stencilKey{shape, int(math.Round(diam))}
	if v, ok := stencils.Load(key); ok {
		return v.(*stencilSet)
	}
	r := float64(key.radius) / 2
	w := math.Max(1, math.Round(r/5)) // line width grows with the marker
	ri := int(math.Ceil(r+w)) + 1
	side := 2*ri + 1
	in := make([]bool, side*side)
	for dy := -ri; dy <= ri; dy++ {
		for dx := -ri; dx <= ri; dx++ {
			x, y := float64(dx), float64(dy)
			var on bool
			switch shape {
			case Ring:
				d := math.Hypot(x, y)
				on = d <= r && d > r-w
			case Square:
				m := math.Max(math.Abs(x), math.Abs(y))
				on = m <= r*0.85 && m > r*0.85-w
			case Diamond:
				m := math.Abs(x) + math.Abs(y)
				on = m <= r && m > r-w*1.4
			case Cross:
				on = math.Abs(math.Abs(x)-math.Abs(y)) < w && math.Abs(x) <= r*0.75
			case Plus:
				on = (math.Abs(x) < w/2+0.5 || math.Abs(y) < w/2+0.5) && math.Max(math.Abs(x), math.Abs(y)) <= r
			case Disc:
				on = math.Hypot(x, y) <= r
			}
			in[(dy+ri)*side+dx+ri] = on
		}
	}
	set := &stencilSet{reach: ri}
	for dy := -ri; dy <= ri; dy++ {
		for dx := -ri; dx <= ri; dx++ {
			o := offset{int16(dx), int16(dy)}
			if in[(dy+ri)*side+dx+ri] {
				set.stroke = append(set.stroke, o)
				continue
			}
			// An edge pixel touches the stroke (8-neighbourhood).
		near:
			for ey := max(dy-1, -ri); ey <= min(dy+1, ri); ey++ {
				for ex := max(dx-1, -ri); ex <= min(dx+1, ri); ex++ {
					if in[(ey+ri)*side+ex+ri] {
						set.edge = append(set.edge, o)
						break near
					}
				}
			}
		}
	}
	stencils.Store(key, set)
	return set
}

// drawMarker blends a marker centred at device position (cx, cy): its
// edge in edge, then its stroke in face, both scaled by alpha.
func drawMarker(f *frame, cx, cy, diam float64, shape Shape, face, edge color.NRGBA, alpha float64) {
	drawStencil(f, cx, cy, stencil(shape, diam), face, edge, alpha)
}

// drawStencil blends the marker st centred at device position (cx, cy).
func drawStencil(f *frame, cx, cy float64, st *stencilSet, face, edge color.NRGBA, alpha float64) {
	x0, y0 := int(cx), int(cy)
	// Markers wholly inside the frame (nearly all) skip the per-pixel
	// bounds test.
	inside := x0-st.reach >= 0 && y0-st.reach >= 0 && x0+st.reach < f.w && y0+st.reach < f.h
	if edge.A > 0 {
		blendOffsets(f, x0, y0, st.edge, edge, alpha, inside)
	}
	blendOffsets(f, x0, y0, st.stroke, face, alpha, inside)
}

func blendOffsets(f *frame, x0, y0 int, offs []offset, c color.NRGBA, alpha float64, inside bool) {
	a := uint32(alpha*float64(c.A)/255*256 + 0.5)
	if a == 0 {
		return
	}
	sr, sg, sb := uint32(c.R), uint32(c.G), uint32(c.B)
	base := y0*f.w + x0
	for _, o := range offs {
		var i int
		if inside {
			i = base + int(o.dy)*f.w + int(o.dx)
		} else {
			x, y := x0+int(o.dx), y0+int(o.dy)
			if x < 0 || y < 0 || x >= f.w || y >= f.h {
				continue
			}
			i = y*f.w + x
		}
		d := f.px[i]
		r := (sr*a + (d&0xff)*(256-a)) >> 8
		g := (sg*a + (d>>8&0xff)*(256-a)) >> 8
		b := (sb*a + (d>>16&0xff)*(256-a)) >> 8
		f.px[i] = r | g<<8 | b<<16 | 0xff000000
	}
}

// PointsOptions configures a points layer.
type PointsOptions struct {
	// Size is the marker diameter in voxels (default 8).
	Size float64
	// OutOfSlice is n: points within ±n planes of the slice are drawn
	// smaller and fainter (default 3; negative for none).
	OutOfSlice int
	// Opacity in [0, 1] (default 1).
	Opacity float64
	// Style sets the colours and symbols; nil gives the layer the next
	// face colour of the palette (each new points layer its own).
	Style *PointsStyle
}
