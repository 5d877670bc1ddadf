package viewer

import (
	"math"

	"github.com/voxlab/voxlab/processing/volume"
)

// pyramid is the coarser levels of an image layer's volume (an OME-Zarr
// multiscale image): a slice zoomed out is read from the coarsest
// level whose voxels still cover no more than one device pixel each, so
// a 2048 x 2048 plane shown 400 pixels wide reads a 512 x 512 level
// instead of 16 times the data. Slice keys carry the level; the loader
// opens a level when it first reads from it.
type pyramid struct {
	p volume.Pyramid
	// factors are, per level, the level-0 voxels one voxel spans along
	// z, y, x; infos the levels' infos.
	factors [][3]float64
	infos   []volume.Info
}

func newPyramid(v *volume.Volume) *pyramid {
	p, ok := volume.AsPyramid(v.Source())
	if !ok {
		return nil
	}
	py := &pyramid{p: p}
	for i := range p.Levels() {
		in, f := p.LevelInfo(i)
		if in.DType != v.DType || f[0] <= 0 || f[1] <= 0 || f[2] <= 0 {
			break
		}
		py.factors, py.infos = append(py.factors, f), append(py.infos, in)
	}
	if len(py.factors) < 2 {
		return nil
	}
	return py
}

// pick returns the coarsest level whose voxels span at most one device
// pixel at devCol, devRow device pixels per level-0 column and row of a
// slice along axis, along each displayed axis the level shrinks.
func (py *pyramid) pick(axis Axis, devCol, devRow float64) int {
	const slack = 1 + 1e-9
	ra, ca := axis.DisplayAxes()
	best := 0
	// An axis a level does not shrink (z, usually) costs nothing there.
	fits := func(f, dev float64) bool { return f <= 1 || f*dev <= slack }
	for i, f := range py.factors {
		if fits(f[ca], devCol) && fits(f[ra], devRow) {
			best = i
		}
	}
	return best
}

// attachPyramid finds the layer's levels, for a plain volume (a stack's
// maps have none).
func (l *ImageLayer) attachPyramid() {
	if l.maps > 1 {
		return
	}
	l.pyr = newPyramid(l.vol)
	l.ld.pyr = l.pyr
}

// levelOn returns the level a slice along axis is read from: the one
// the last paint chose.
func (l *ImageLayer) levelOn(axis Axis) int {
	if l.pyr == nil {
		return 0
	}
	return l.level
}

// pickLevels chooses the level of every pyramid layer in shown for a
// panel drawn through t at ps device pixels per logical pixel, for the
// view's slicing axis.
func pickLevels(shown []Layer, axis Axis, t xform, ps float64) {
	for _, l := range shown {
		if il, ok := imageLayer(l); ok && il.pyr != nil {
			il.level = il.pyr.pick(axis, t.Scale*ps, t.RowScale()*ps)
		}
	}
}

// readLevel reads slice k from its level, opening the level first; the
// plane records the level's factors along its rows and columns. A y or x
// slice reads the level's planes in pieces, as readSide does for level
// 0 (a zoomed-out side view of a 600-plane stack then reads a level of
// a sixteenth of the bytes). Loader goroutine only.
func (ld *loader) readLevel(k sliceKey) (*plane, error) {
	py := ld.pyr
	if ld.levels == nil {
		ld.levels = make([]*volume.Volume, len(py.factors))
	}
	vol := ld.levels[k.level]
	if vol == nil {
		var err error
		if vol, err = py.p.OpenLevel(k.level); err != nil {
			return nil, err
		}
		ld.levels[k.level] = vol
	}
	f := py.factors[k.level]
	idx := min(int(float64(k.idx)/f[k.axis]), vol.Shape[k.axis]-1)
	var p *plane
	var err error
	if k.axis == Z {
		if p, err = readPlaneStep(vol, Z, idx, ld.slabBytes, ld.step(k)); err == nil {
			ld.bytesRead.Add(int64(len(p.data)))
		}
	} else {
		p, err = readSide(vol, k.axis, idx, 0, vol.Shape[0], ld.slabBytes, ld.step(k))
	}
	if err != nil {
		return nil, err
	}
	ra, ca := k.axis.DisplayAxes()
	p.fy, p.fx = f[ra], f[ca]
	return p, nil
}

// closeLevels closes the levels the loader opened. Loader goroutine only.
func (ld *loader) closeLevels() {
	for _, v := range ld.levels {
		if v != nil {
			v.Close()
		}
	}
}

// levelXform returns t, which maps a panel to level-0 data, for the
// plane's own level.
func (p *plane) levelXform(t xform) xform {
	if p.fx <= 0 || p.fy <= 0 || p.fx == 1 && p.fy == 1 {
		return t
	}
	a := t.Aspect
	if a <= 0 {
		a = 1
	}
	return xform{CX: t.CX / p.fx, CY: t.CY / p.fy, Scale: t.Scale * p.fx, Aspect: a * p.fy / p.fx}
}

// at maps level-0 (row, col) to the plane's own.
func (p *plane) at(row, col int) (int, int) {
	if p.fx <= 0 || p.fy <= 0 {
		return row, col
	}
	return int(math.Floor(float64(row) / p.fy)), int(math.Floor(float64(col) / p.fx))
}
