package viewer

import (
	"encoding/binary"
	"math"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/render3d"
)

// A y or x slice of a volume that is not a box reader costs a pass over
// every plane: while the point of the orthogonal views is dragged, the
// side views cannot keep up at full resolution. Each layer then keeps a
// coarse copy of its volume (the 3D view's, render3d's block means
// within previewBytes), read once on its loader goroutine a slab at a
// time between slice requests, and a side slice not loaded yet is drawn
// from it — at a lower resolution, at once — until the real one comes.
// Before the copy is done, a side view keeps its last plane instead of
// going blank.

// previewBytes is the coarse copy's budget: 8 MiB, as the 3D view's
// coarse grid (a 512³ uint16 volume at 128³).
const previewBytes = coarse3DBytes

// preview is a layer's coarse copy of one map, being built or built.
type preview struct {
	m    int
	grid *render3d.Grid // nil until built
	err  error
	// last is the plane cut from it last, for key.
	last    *plane
	lastKey sliceKey
}

// previewPlane returns slice (axis, idx) of map m cut from the layer's
// coarse copy, starting the copy when there is none; nil while it is
// being built, or when the layer has none to make (small volumes are
// read whole for their y and x slices, pyramids have coarse levels of
// their own; other types than render3d
// reads). UI goroutine.
func (l *ImageLayer) previewPlane(axis Axis, idx, m int) *plane {
	if axis == Z || l.vol == nil || l.ld == nil || l.pyr != nil || l.vol.Bytes() <= wholeBytes || l.vol.PlaneBytes() > planeBudget {
		return nil
	}
	if _, live := l.vol.Source().(*LiveVolume); live {
		return nil
	}
	switch l.vol.DType {
	case volume.Uint8, volume.Uint16, volume.Float32, volume.Float64:
	default:
		return nil
	}
	pv := l.preview
	if pv == nil || pv.m != m {
		pv = &preview{m: m}
		l.preview = pv
		l.buildPreview(pv)
		return nil
	}
	if pv.grid == nil {
		return nil
	}
	k := sliceKey{axis: axis, idx: idx, m: m}
	if pv.last == nil || pv.lastKey != k {
		pv.last, pv.lastKey = cutPreview(pv.grid, axis, idx, l.vol.DType), k
	}
	return pv.last
}

// buildPreview builds pv's grid on the layer's loader goroutine, a slab
// per task, so that slice requests get in between.
func (l *ImageLayer) buildPreview(pv *preview) {
	b, err := render3d.NewBuilder(l.vol, pv.m*l.depth, l.depth, []int64{previewBytes})
	if err != nil {
		pv.err = err
		return
	}
	ld := l.ld
	var step func()
	step = func() {
		done, err := b.Step()
		if err != nil || done {
			g := b.Grids()[0]
			if r := l.shownBy.Load(); r != nil {
				r.post(func() {
					if err != nil {
						pv.err = err
						return
					}
					pv.grid = g
					r.redraw()
				})
			}
			return
		}
		ld.do(step)
	}
	ld.do(step)
}

// cutPreview cuts slice (axis, idx) (level-0 index) out of grid g as a
// plane of type dt whose rows and columns each span g.Factor level-0
// ones (drawn as a pyramid level is).
func cutPreview(g *render3d.Grid, axis Axis, idx int, dt volume.DType) *plane {
	f := g.Factor
	i := min(idx/f, g.Shape[axis]-1)
	ra, ca := axis.DisplayAxes()
	p := &plane{dtype: dt, rows: g.Shape[ra], cols: g.Shape[ca], fy: float64(f), fx: float64(f)}
	p.data = make([]byte, p.rows*p.cols*dt.Size())
	for r := range p.rows {
		for c := range p.cols {
			zyx := [3]int{}
			zyx[axis], zyx[ra], zyx[ca] = i, r, c
			o := (zyx[0]*g.Shape[1]+zyx[1])*g.Shape[2] + zyx[2]
			var x float64
			if g.U16 != nil {
				x = float64(g.U16[o])
			} else {
				x = float64(g.F32[o])
			}
			putValue(p.data, dt, r*p.cols+c, x)
		}
	}
	p.stats = computeStats(p)
	return p
}

// putValue stores x as element i of data, of type dt (the types
// render3d keeps: uint8 and uint16 rounded and clamped, float32,
// float64).
func putValue(data []byte, dt volume.DType, i int, x float64) {
	switch dt {
	case volume.Uint8:
		data[i] = uint8(min(max(math.Round(x), 0), 255))
	case volume.Uint16:
		binary.NativeEndian.PutUint16(data[2*i:], uint16(min(max(math.Round(x), 0), 65535)))
	case volume.Float32:
		binary.NativeEndian.PutUint32(data[4*i:], math.Float32bits(float32(x)))
	case volume.Float64:
		binary.NativeEndian.PutUint64(data[8*i:], math.Float64bits(x))
	}
}
