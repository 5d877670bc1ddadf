package convert

import (
	"math"

	"github.com/voxlab/voxlab/processing/volume"
)

// Downsampling: each level halves the one before along every axis longer
// than one voxel (a size n becomes ceil(n/2)). "mean" averages the 2x2x2
// block of voxels (fewer at an odd edge: the mean of those present, as
// skimage.transform.downscale_local_mean would without its zero
// padding), summed in float64 and rounded half to even for integer types
// (numpy's rounding); "nearest" keeps the block's first voxel (every
// other plane, row and column, as ome-zarr-py's nearest scaler).

// factors returns the downsampling factors from a level of shape s.
func factors(s [3]int) [3]int {
	var f [3]int
	for d := range 3 {
		f[d] = 1
		if s[d] > 1 {
			f[d] = 2
		}
	}
	return f
}

// levelInfos returns the infos of n levels from info, and each level's
// scale in level-0 voxels.
func levelInfos(info volume.Info, n int) ([]volume.Info, [][3]float64) {
	infos := []volume.Info{info}
	scales := [][3]float64{{1, 1, 1}}
	for len(infos) < n {
		prev := infos[len(infos)-1]
		f := factors(prev.Shape)
		next, sc := prev, scales[len(scales)-1]
		for d := range 3 {
			next.Shape[d] = (prev.Shape[d] + f[d] - 1) / f[d]
			sc[d] *= float64(f[d])
			if next.VoxelSize[d] > 0 {
				next.VoxelSize[d] *= float64(f[d])
			}
		}
		infos, scales = append(infos, next), append(scales, sc)
	}
	return infos, scales
}

// reducer makes the planes of one level from those of the level below,
// fed one plane at a time in z order, and emits each of its planes when
// the last input plane of its block has been fed.
type reducer struct {
	in, out volume.Info
	f       [3]int
	mean    bool
	acc     []float64 // the sums of the plane being made (mean)
	planes  int       // input planes summed into acc
	plane   []byte    // the plane made, in out.DType
	emit    func(z int, plane []byte) error
}

func newReducer(in, out volume.Info, mean bool, emit func(int, []byte) error) *reducer {
	r := &reducer{in: in, out: out, f: factors(in.Shape), mean: mean, emit: emit,
		plane: make([]byte, out.PlaneBytes())}
	if mean {
		r.acc = make([]float64, out.PlaneLen())
	}
	return r
}

// bytes is the memory a reducer holds.
func reducerBytes(out volume.Info, mean bool) int64 {
	n := out.PlaneBytes()
	if mean {
		n += int64(out.PlaneLen()) * 8
	}
	return n
}

// feed takes input plane z (of in.DType).
func (r *reducer) feed(z int, src []byte) error {
	last := z%r.f[0] == r.f[0]-1 || z == r.in.Shape[0]-1
	if !r.mean {
		if z%r.f[0] == 0 {
			subsample(r.plane, src, r.in, r.out, r.f)
		}
		if last {
			return r.emit(z/r.f[0], r.plane)
		}
		return nil
	}
	accumulate(r.acc, asSlice(src, r.in.DType), r.in, r.out, r.f)
	r.planes++
	if !last {
		return nil
	}
	finishMean(r.plane, r.acc, r.planes, r.in, r.out, r.f)
	clear(r.acc)
	r.planes = 0
	return r.emit(z/r.f[0], r.plane)
}

// subsample copies every f-th row and column of src into dst.
func subsample(dst, src []byte, in, out volume.Info, f [3]int) {
	es := in.DType.Size()
	for y := range out.Shape[1] {
		srow := src[y*f[1]*in.Shape[2]*es:]
		drow := dst[y*out.Shape[2]*es:]
		if f[2] == 1 {
			copy(drow[:out.Shape[2]*es], srow)
			continue
		}
		for x := range out.Shape[2] {
			copy(drow[x*es:(x+1)*es], srow[x*f[2]*es:(x*f[2]+1)*es])
		}
	}
}

func accumulate(acc []float64, src any, in, out volume.Info, f [3]int) {
	switch s := src.(type) {
	case []uint8:
		sum(acc, s, in, out, f)
	case []int8:
		sum(acc, s, in, out, f)
	case []uint16:
		sum(acc, s, in, out, f)
	case []int16:
		sum(acc, s, in, out, f)
	case []uint32:
		sum(acc, s, in, out, f)
	case []int32:
		sum(acc, s, in, out, f)
	case []float32:
		sum(acc, s, in, out, f)
	case []float64:
		sum(acc, s, in, out, f)
	}
}

// sum adds each voxel of a plane to its output voxel's sum.
func sum[S number](acc []float64, src []S, in, out volume.Info, f [3]int) {
	nx := in.Shape[2]
	for y := range in.Shape[1] {
		row := src[y*nx : (y+1)*nx]
		a := acc[(y/f[1])*out.Shape[2]:]
		if f[2] == 1 {
			for x, v := range row {
				a[x] += float64(v)
			}
			continue
		}
		for x, v := range row {
			a[x>>1] += float64(v)
		}
	}
}

// finishMean divides each sum by the number of voxels in its block and
// stores it, rounded for integer types.
func finishMean(dst []byte, acc []float64, planes int, in, out volume.Info, f [3]int) {
	for y := range out.Shape[1] {
		cy := min(f[1], in.Shape[1]-y*f[1])
		for x := range out.Shape[2] {
			cx := min(f[2], in.Shape[2]-x*f[2])
			i := y*out.Shape[2] + x
			acc[i] /= float64(planes * cy * cx)
		}
	}
	if out.DType.IsInteger() {
		for i, v := range acc {
			acc[i] = math.RoundToEven(v)
		}
	}
	// Every mean lies within the input type's range: the cast cannot fail.
	castInto(dst, out.DType, volume.Bytes(acc), volume.Float64)
}
