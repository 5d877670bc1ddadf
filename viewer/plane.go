package viewer

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/volume"
)

// Axis names the volume axis a view slices along: Z shows (y, x) planes, Y
// shows (z, x) planes and X shows (z, y) planes.
type Axis int

// The three slicing axes.
const (
	Z Axis = iota
	Y
	X
)

// String returns "z", "y" or "x".
func (a Axis) String() string { return [...]string{"z", "y", "x"}[a] }

// ParseAxis parses "z", "y" or "x".
func ParseAxis(s string) (Axis, error) {
	switch s {
	case "z", "Z":
		return Z, nil
	case "y", "Y":
		return Y, nil
	case "x", "X":
		return X, nil
	}
	return Z, fmt.Errorf("axis %q: use z, y or x", s)
}

// displayAxes returns the volume axes shown as rows and columns when
// slicing along a.
func (a Axis) displayAxes() (row, col int) {
	switch a {
	case Y:
		return 0, 2
	case X:
		return 0, 1
	}
	return 1, 2
}

// plane is one 2D slice of a layer, immutable once built: rows x cols
// values of dtype in native byte order, with statistics computed once.
type plane struct {
	dtype      volume.DType
	rows, cols int
	data       []byte
	stats      planeStats
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
	i := r*p.cols + c
	switch p.dtype {
	case volume.Uint8:
		return float64(p.data[i])
	case volume.Uint16:
		return float64(volume.Uint16s(p.data)[i])
	case volume.Float32:
		return float64(volume.Float32s(p.data)[i])
	case volume.Float64:
		return volume.Float64s(p.data)[i]
	}
	return math.NaN()
}

// readPlane reads slice idx along axis from v. Z slices read exactly one
// plane; Y and X slices stream the volume in slabs of at most slabBytes,
// keeping one row (or column) of each plane, because sources read whole z
// planes only.
func readPlane(v *volume.Volume, axis Axis, idx int, slabBytes int64) (*plane, error) {
	rowAx, colAx := axis.displayAxes()
	p := &plane{dtype: v.DType, rows: v.Shape[rowAx], cols: v.Shape[colAx]}
	if idx < 0 || idx >= v.Shape[axis] {
		return nil, fmt.Errorf("%s slice %d outside [0,%d) of %s", axis, idx, v.Shape[axis], v.Name)
	}
	es := v.DType.Size()
	p.data = make([]byte, p.rows*p.cols*es)
	if axis == Z {
		if err := v.ReadSlab(idx, idx+1, p.data); err != nil {
			return nil, err
		}
		p.stats = computeStats(p)
		return p, nil
	}
	pb := v.PlaneBytes()
	k := max(1, int(slabBytes/pb))
	k = min(k, v.Shape[0])
	slab := make([]byte, int64(k)*pb)
	for z0 := 0; z0 < v.Shape[0]; z0 += k {
		z1 := min(z0+k, v.Shape[0])
		buf := slab[:int64(z1-z0)*pb]
		if err := v.ReadSlab(z0, z1, buf); err != nil {
			return nil, err
		}
		for z := z0; z < z1; z++ {
			extractLine(p.data[z*p.cols*es:(z+1)*p.cols*es], buf[int64(z-z0)*pb:int64(z-z0+1)*pb], axis, idx, v.Shape[1], v.Shape[2], es)
		}
	}
	p.stats = computeStats(p)
	return p, nil
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
// p. Integer planes use an exact histogram; float planes a 4096-bin
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
	case volume.Uint16:
		h := make([]int, 65536)
		src := volume.Uint16s(p.data)
		for _, v := range src {
			h[v]++
		}
		return histStats(h, 0, 1, len(src))
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

func floatStats[T float32 | float64](src []T) planeStats {
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
