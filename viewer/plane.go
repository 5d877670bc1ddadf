package viewer

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/model"
)

// Axis names the volume axis a view slices along: Z shows (y, x) planes, Y
// shows (z, x) planes and X shows (z, y) planes (model.Axis).
type Axis = model.Axis

// The three slicing axes.
const (
	Z = model.Z
	Y = model.Y
	X = model.X
)

// ParseAxis parses "z", "y" or "x".
func ParseAxis(s string) (Axis, error) { return model.ParseAxis(s) }

// plane is one 2D slice of a layer, immutable once built: rows x cols
// values of dtype in native byte order, with statistics computed once.
type plane struct {
	dtype      volume.DType
	rows, cols int
	data       []byte
	stats      planeStats
	// fy, fx: the level-0 rows and columns one row and column of a
	// pyramid level's plane span (0: the plane is level 0).
	fy, fx float64
	// off marks rows that hold no data yet (nil: every row does): the
	// rows of planes a running job has not computed, drawn transparent
	// so that the layers below show through.
	off []bool
	// offCols marks the columns that hold no data (a transposed plane's
	// off rows, transpose), drawn transparent as off rows are.
	offCols []bool
}

// offAt reports whether row r holds no data.
func (p *plane) offAt(r int) bool { return p.off != nil && r >= 0 && r < len(p.off) && p.off[r] }

// statsOn computes p's statistics over the rows that hold data.
func statsOn(p *plane) planeStats {
	if p.off == nil {
		return computeStats(p)
	}
	rb := p.cols * p.dtype.Size()
	on := &plane{dtype: p.dtype, cols: p.cols}
	for r, off := range p.off {
		if !off {
			on.data = append(on.data, p.data[r*rb:(r+1)*rb]...)
			on.rows++
		}
	}
	if on.rows == 0 {
		return planeStats{}
	}
	return computeStats(on)
}

// planeStats summarises a plane's finite values for contrast limits.
type planeStats struct {
	min, max float64
	// lo and hi are the 0.1 and 99.9 percentiles (see percentiles).
	lo, hi float64
	// finite is false when the plane holds no finite value.
	finite bool
}

// Auto-contrast percentiles, as napari users know them.
const (
	autoLow  = 0.001
	autoHigh = 0.999
)

// value returns the element at (r, c) as float64.
func (p *plane) value(r, c int) float64 {
	if p.dtype.Size() == 0 {
		return math.NaN()
	}
	return volume.At(p.data, p.dtype, r*p.cols+c)
}

// planeBudget bounds the bytes of one plane read whole: a larger one is
// read decimated (decimate.go), never allocated whole.
const planeBudget = 256 << 20

// readPlane reads slice idx along axis from v. Z slices read exactly one
// plane; Y and X slices read every plane (see readSide).
func readPlane(v *volume.Volume, axis Axis, idx int, slabBytes int64) (*plane, error) {
	return readPlaneStep(v, axis, idx, slabBytes, nil)
}

// readPlaneStep is readPlane with its progress told to step (nil:
// none), which may abandon it.
func readPlaneStep(v *volume.Volume, axis Axis, idx int, slabBytes int64, step stepFunc) (*plane, error) {
	if axis != Z {
		return readSide(v, axis, idx, 0, v.Shape[0], slabBytes, step)
	}
	if idx < 0 || idx >= v.Shape[Z] {
		return nil, fmt.Errorf("z slice %d outside [0,%d) of %s", idx, v.Shape[Z], v.Name)
	}
	if s := decimation(v.Shape[1], v.Shape[2], v.DType.Size()); s > 1 {
		return readDecimatedZ(v, idx, s, step)
	}
	p := &plane{dtype: v.DType, rows: v.Shape[1], cols: v.Shape[2]}
	p.data = make([]byte, v.PlaneBytes())
	if err := v.ReadSlab(idx, idx+1, p.data); err != nil {
		return nil, err
	}
	p.stats = computeStats(p)
	return p, nil
}

// stepFunc is told after each piece of a slice read how many bytes of
// total were read so far; an error from it abandons the read.
type stepFunc func(done, total int64) error

// boxPieces is about how many pieces a y or x slice is read in through
// ReadBox: enough for a progress bar in 2% steps and to drop a stale
// request early, few enough that each hyperslab read stays large.
const boxPieces = 50

// readSide reads the y (axis Y) or x (axis X) slice idx of planes
// [z0, z1) of v, one row of the result per plane. A source that is a
// volume.BoxReader reads just the slice's voxels, a box of whole planes'
// rows (or columns) at a time: a scan chunked one frame per chunk then
// never reads frames whole. Other sources read whole z planes, so they
// are streamed in slabs of at most slabBytes keeping one line of each.
// step (nil: none) follows the read piece by piece. A slice larger than
// planeBudget is read decimated (readDecimatedSide).
func readSide(v *volume.Volume, axis Axis, idx, z0, z1 int, slabBytes int64, step stepFunc) (*plane, error) {
	_, colAx := axis.DisplayAxes()
	if idx < 0 || idx >= v.Shape[axis] {
		return nil, fmt.Errorf("%s slice %d outside [0,%d) of %s", axis, idx, v.Shape[axis], v.Name)
	}
	if step == nil {
		step = func(int64, int64) error { return nil }
	}
	br, boxes := v.Source().(volume.BoxReader)
	if s := decimation(z1-z0, v.Shape[colAx], v.DType.Size()); s > 1 || !boxes && v.PlaneBytes() > planeBudget {
		return readDecimatedSide(v, br, axis, idx, z0, z1, max(s, 1), step)
	}
	p := &plane{dtype: v.DType, rows: z1 - z0, cols: v.Shape[colAx]}
	p.data = make([]byte, p.rows*p.cols*v.DType.Size())
	var err error
	if boxes {
		err = readSideBox(v, br, p, axis, idx, z0, z1, step)
	} else {
		err = readSideSlabs(v, p, axis, idx, z0, z1, slabBytes, step)
	}
	if err != nil {
		return nil, err
	}
	p.stats = computeStats(p)
	return p, nil
}

// sideBox is the box of planes [z0, z1) that holds their line idx along
// axis (Y: one row of each plane, X: one column).
func sideBox(in volume.Info, axis Axis, idx, z0, z1 int) volume.Box {
	b := volume.Box{Z0: z0, Z1: z1, Y1: in.Shape[1], X1: in.Shape[2]}
	if axis == Y {
		b.Y0, b.Y1 = idx, idx+1
	} else {
		b.X0, b.X1 = idx, idx+1
	}
	return b
}

// readSideBox fills p from boxes of about (z1-z0)/boxPieces planes each.
// The box of planes [a, b) is, in C order, exactly rows a-z0..b-z0 of p.
func readSideBox(v *volume.Volume, br volume.BoxReader, p *plane, axis Axis, idx, z0, z1 int, step stepFunc) error {
	row := int64(p.cols * v.DType.Size())
	total := int64(len(p.data))
	k := max(1, (z1-z0+boxPieces-1)/boxPieces)
	for a := z0; a < z1; a += k {
		b := min(a+k, z1)
		box := sideBox(v.Info, axis, idx, a, b)
		if err := br.ReadBox(box, p.data[int64(a-z0)*row:int64(b-z0)*row]); err != nil {
			return fmt.Errorf("read %s slice %d (planes %d-%d) of %s: %w", axis, idx, a, b, v.Name, err)
		}
		if err := step(int64(b-z0)*row, total); err != nil {
			return err
		}
	}
	return nil
}

// readSideSlabs fills p from slabs of whole planes of at most slabBytes,
// keeping line idx of each plane.
func readSideSlabs(v *volume.Volume, p *plane, axis Axis, idx, z0, z1 int, slabBytes int64, step stepFunc) error {
	es := v.DType.Size()
	pb := v.PlaneBytes()
	k := min(max(1, int(slabBytes/pb)), z1-z0)
	slab := make([]byte, int64(k)*pb)
	total := int64(z1-z0) * pb
	for a := z0; a < z1; a += k {
		b := min(a+k, z1)
		buf := slab[:int64(b-a)*pb]
		if err := v.ReadSlab(a, b, buf); err != nil {
			return err
		}
		for z := a; z < b; z++ {
			r := z - z0
			extractLine(p.data[r*p.cols*es:(r+1)*p.cols*es], buf[int64(z-a)*pb:int64(z-a+1)*pb], axis, idx, v.Shape[1], v.Shape[2], es)
		}
		if err := step(int64(b-z0)*pb, total); err != nil {
			return err
		}
	}
	return nil
}

// extractLine copies row idx (axis Y) or column idx (axis X) of one
// ny x nx plane src into dst.
func extractLine(dst, src []byte, axis Axis, idx, ny, nx, es int) {
	if axis == Y {
		copy(dst, src[idx*nx*es:(idx+1)*nx*es])
		return
	}
	for y := range ny {
		o := (y*nx + idx) * es
		copy(dst[y*es:(y+1)*es], src[o:o+es])
	}
}

// computeStats finds the minimum, maximum and auto-contrast percentiles of
// p. 8- and 16-bit planes use an exact histogram (signed ones offset by
// the type's minimum); 32-bit integer and float planes a 4096-bin
// histogram between min and max, so their percentiles are within one bin
// ((max-min)/4096) of the exact order statistic.
func computeStats(p *plane) planeStats {
	switch p.dtype {
	case volume.Uint8:
		var h [256]int
		for _, v := range p.data {
			h[v]++
		}
		return histStats(h[:], 0, 1, len(p.data))
	case volume.Int8:
		var h [256]int
		for _, v := range volume.Int8s(p.data) {
			h[int(v)+128]++
		}
		return histStats(h[:], -128, 1, len(p.data))
	case volume.Uint16:
		h := make([]int, 65536)
		src := volume.Uint16s(p.data)
		for _, v := range src {
			h[v]++
		}
		return histStats(h, 0, 1, len(src))
	case volume.Int16:
		h := make([]int, 65536)
		src := volume.Int16s(p.data)
		for _, v := range src {
			h[int(v)+32768]++
		}
		return histStats(h, -32768, 1, len(src))
	case volume.Uint32:
		return floatStats(volume.Uint32s(p.data))
	case volume.Int32:
		return floatStats(volume.Int32s(p.data))
	case volume.Float32:
		return floatStats(volume.Float32s(p.data))
	case volume.Float64:
		return floatStats(volume.Float64s(p.data))
	}
	return planeStats{}
}

// histStats reads min, max and percentiles off a histogram whose bin i
// holds values in [base+i*width, base+(i+1)*width).
//
// The percentile q is the order statistic of rank floor(q*(n-1)) (0-based)
// of the n values: the "lower" method of numpy.percentile.
func histStats(h []int, base, width float64, n int) planeStats {
	if n == 0 {
		return planeStats{}
	}
	first, last := 0, len(h)-1
	for h[first] == 0 {
		first++
	}
	for h[last] == 0 {
		last--
	}
	rankLo := int(math.Floor(autoLow * float64(n-1)))
	rankHi := int(math.Floor(autoHigh * float64(n-1)))
	s := planeStats{finite: true, min: base + float64(first)*width, max: base + float64(last)*width}
	s.lo, s.hi = s.min, s.max
	seen := 0
	loSet := false
	for i := first; i <= last; i++ {
		seen += h[i]
		if !loSet && seen > rankLo {
			s.lo = base + float64(i)*width
			loSet = true
		}
		if seen > rankHi {
			s.hi = base + float64(i)*width
			break
		}
	}
	return s
}

const floatBins = 4096

func floatStats[T float32 | float64 | int32 | uint32](src []T) planeStats {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, v := range src {
		f := float64(v)
		if f-f != 0 { // NaN or ±Inf
			continue
		}
		n++
		if f < lo {
			lo = f
		}
		if f > hi {
			hi = f
		}
	}
	if n == 0 {
		return planeStats{}
	}
	if hi == lo {
		return planeStats{finite: true, min: lo, max: hi, lo: lo, hi: hi}
	}
	h := make([]int, floatBins)
	scale := floatBins / (hi - lo)
	for _, v := range src {
		f := float64(v)
		if f-f != 0 {
			continue
		}
		b := int((f - lo) * scale)
		if b >= floatBins {
			b = floatBins - 1
		}
		h[b]++
	}
	s := histStats(h, lo, 1/scale, n)
	// The low percentile takes its bin's lower edge and the high one its
	// upper edge, so the limits never cut into the bins they stand for.
	s.hi = min(s.hi+1/scale, hi)
	s.min, s.max = lo, hi
	return s
}
