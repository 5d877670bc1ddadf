package viewer

import (
	"image/color"
	"math"
	"sync"
)

// Point is one detection: its position in voxels (z, y, x; fractional
// positions allowed) and a type name that chooses its colour and shape.
type Point struct {
	Z, Y, X float64
	Type    string
}

// Shape is a marker's outline.
type Shape int

// Marker shapes.
const (
	Ring Shape = iota
	Square
	Diamond
	Cross
	Plus
)

// PointStyle is how points of one type are drawn.
type PointStyle struct {
	Color color.NRGBA
	Shape Shape
}

// defaultStyles are given to types in the order they first appear,
// except those named in knownStyles.
var defaultStyles = []PointStyle{
	{color.NRGBA{0x33, 0xff, 0x66, 0xff}, Ring},
	{color.NRGBA{0xff, 0x40, 0x40, 0xff}, Cross},
	{color.NRGBA{0x40, 0xc0, 0xff, 0xff}, Square},
	{color.NRGBA{0xff, 0xd0, 0x20, 0xff}, Diamond},
	{color.NRGBA{0xff, 0x60, 0xff, 0xff}, Plus},
}

// knownStyles fixes the styles of the types the pipelines emit, so a cell
// is the same green ring in every session.
var knownStyles = map[string]PointStyle{
	"":         defaultStyles[0],
	"cell":     defaultStyles[0],
	"artifact": defaultStyles[1],
	"no_cell":  defaultStyles[1],
	"truth":    defaultStyles[2],
}

// PointsOptions configures a points layer.
type PointsOptions struct {
	// Size is the marker diameter in voxels (default 8).
	Size float64
	// OutOfSlice is n: points within ±n planes of the slice are drawn
	// smaller and fainter (default 3; negative for none).
	OutOfSlice int
	// Styles overrides the style of named types.
	Styles map[string]PointStyle
	// Opacity in [0, 1] (default 1).
	Opacity float64
}

// pointStore holds a layer's points with, per axis, the indices of the
// points of each plane, so drawing a slice touches only the points near
// it (10^6 points stay fast). Safe for concurrent use.
type pointStore struct {
	mu      sync.RWMutex
	pts     []Point
	style   []uint8 // index into styles, per point
	styles  []PointStyle
	byType  map[string]uint8
	types   []string
	planes  [3][][]int32 // planes[axis][round(coord)] = point indices
	extent  [3]int       // max rounded coordinate + 1 per axis
	version uint64       // bumped on every change
}

func newPointStore(overrides map[string]PointStyle) *pointStore {
	s := &pointStore{byType: map[string]uint8{}}
	for name, st := range overrides {
		s.addType(name, st)
	}
	return s
}

func (s *pointStore) addType(name string, st PointStyle) uint8 {
	if i, ok := s.byType[name]; ok {
		return i
	}
	i := uint8(len(s.styles))
	if len(s.styles) == 255 { // more types than styles: share the last
		return i - 1
	}
	s.styles = append(s.styles, st)
	s.types = append(s.types, name)
	s.byType[name] = i
	return i
}

func (s *pointStore) styleOf(name string) uint8 {
	if i, ok := s.byType[name]; ok {
		return i
	}
	st, ok := knownStyles[name]
	if !ok {
		st = defaultStyles[len(s.styles)%len(defaultStyles)]
	}
	return s.addType(name, st)
}

// add appends points and indexes them.
func (s *pointStore) add(pts []Point) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pts {
		i := int32(len(s.pts))
		s.pts = append(s.pts, p)
		s.style = append(s.style, s.styleOf(p.Type))
		for ax, c := range [3]float64{p.Z, p.Y, p.X} {
			k := int(math.Round(c))
			if k < 0 || math.IsNaN(c) {
				continue
			}
			if k >= len(s.planes[ax]) {
				grow := make([][]int32, k+1+k/2)
				copy(grow, s.planes[ax])
				s.planes[ax] = grow
			}
			s.planes[ax][k] = append(s.planes[ax][k], i)
			s.extent[ax] = max(s.extent[ax], k+1)
		}
	}
	s.version++
}

// len returns the number of points.
func (s *pointStore) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.pts)
}

// coords returns (slice, row, col) of p for axis a.
func coords(p *Point, a Axis) (s, r, c float64) {
	switch a {
	case Y:
		return p.Y, p.Z, p.X
	case X:
		return p.X, p.Z, p.Y
	}
	return p.Z, p.Y, p.X
}

// drawPoints draws the points within ±n planes of slice idx and returns
// how many points of the slice itself fall inside the panel.
func drawPoints(f *frame, s *pointStore, a Axis, idx, n int, size, opacity float64, t xform, sw, sh, pxScale float64) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	inView := 0
	planes := s.planes[a]
	for d := -max(n, 0); d <= max(n, 0); d++ {
		k := idx + d
		if k < 0 || k >= len(planes) {
			continue
		}
		// Out-of-slice points shrink and fade linearly with distance.
		fall := 1 - math.Abs(float64(d))/float64(max(n, 0)+1)
		alpha := opacity
		if d != 0 {
			alpha *= 0.6 * fall
		}
		diam := max(size*math.Sqrt(t.scale*t.rowScale())*fall, 3) * pxScale
		for _, i := range planes[k] {
			p := &s.pts[i]
			_, r, c := coords(p, a)
			x, y := t.toScreen(c+0.5, r+0.5, sw, sh)
			if x < 0 || y < 0 || x >= sw || y >= sh {
				continue
			}
			if d == 0 {
				inView++
			}
			st := s.styles[s.style[i]]
			drawMarker(f, x*pxScale, y*pxScale, diam, st, alpha)
		}
	}
	return inView
}

// stencils caches the pixel offsets of each marker shape and size.
var stencils sync.Map // stencilKey -> []offset

type stencilKey struct {
	shape  Shape
	radius int // in half device pixels
}

type offset struct{ dx, dy int16 }

// stencil returns the offsets covered by a marker of diameter diam device
// pixels. Rasterising happens once per shape and size; drawing a marker
// then only walks its offsets.
func stencil(shape Shape, diam float64) []offset {
	key := stencilKey{shape, int(math.Round(diam))}
	if v, ok := stencils.Load(key); ok {
		return v.([]offset)
	}
	r := float64(key.radius) / 2
	w := math.Max(1, math.Round(r/5)) // line width grows with the marker
	ri := int(math.Ceil(r + w))
	var offs []offset
	for dy := -ri; dy <= ri; dy++ {
		for dx := -ri; dx <= ri; dx++ {
			x, y := float64(dx), float64(dy)
			var in bool
			switch shape {
			case Ring:
				d := math.Hypot(x, y)
				in = d <= r && d > r-w
			case Square:
				m := math.Max(math.Abs(x), math.Abs(y))
				in = m <= r*0.85 && m > r*0.85-w
			case Diamond:
				m := math.Abs(x) + math.Abs(y)
				in = m <= r && m > r-w*1.4
			case Cross:
				in = math.Abs(math.Abs(x)-math.Abs(y)) < w && math.Abs(x) <= r*0.75
			case Plus:
				in = (math.Abs(x) < w/2+0.5 || math.Abs(y) < w/2+0.5) && math.Max(math.Abs(x), math.Abs(y)) <= r
			}
			if in {
				offs = append(offs, offset{int16(dx), int16(dy)})
			}
		}
	}
	stencils.Store(key, offs)
	return offs
}

// drawMarker blends a marker centred at device position (cx, cy).
func drawMarker(f *frame, cx, cy, diam float64, st PointStyle, alpha float64) {
	a := uint32(alpha*float64(st.Color.A)/255*256 + 0.5)
	if a == 0 {
		return
	}
	x0, y0 := int(cx), int(cy)
	sr, sg, sb := uint32(st.Color.R), uint32(st.Color.G), uint32(st.Color.B)
	for _, o := range stencil(st.Shape, diam) {
		x, y := x0+int(o.dx), y0+int(o.dy)
		if x < 0 || y < 0 || x >= f.w || y >= f.h {
			continue
		}
		d := f.px[y*f.w+x]
		r := (sr*a + (d&0xff)*(256-a)) >> 8
		g := (sg*a + (d>>8&0xff)*(256-a)) >> 8
		b := (sb*a + (d>>16&0xff)*(256-a)) >> 8
		f.px[y*f.w+x] = r | g<<8 | b<<16 | 0xff000000
	}
}
