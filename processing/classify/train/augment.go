package train

import (
	"math"
	"math/rand/v2"
)

// Draws is one cube's augmentation as cellfinder's DataAugmentation
// (cellfinder/core/classify/augment.py) decides it: which axes to flip
// and whether to apply the affine, with the values MONAI's RandAffine
// (monai/transforms/spatial/array.py) draws for it. Axes are the cube's
// y, x and z (cellfinder's AXIS_ORDER, voxlab's cube order).
type Draws struct {
	Flip   [3]bool
	Affine bool
	// Rotate is MONAI's rotate_params: radians about y, x and z.
	Rotate [3]float64
	// Translate is MONAI's translate_params: the sampling grid's shift in
	// voxels of the isotropic cube (the content moves the other way).
	Translate [3]float64
	// Scale is MONAI's scale_params: the sampling grid's factors (the
	// content is scaled by their inverses; 1 leaves it).
	Scale [3]float64
}

// Augmentation is cellfinder's augmentation settings (CuboidDatasetBase's
// arguments, cube_generator.py): the likelihood of each flip and of the
// affine, the flippable axes, and per axis the range of each affine
// parameter in cellfinder's terms — rotation in radians, translation as
// a fraction of the cube, scale with 1 unchanged. A range whose two ends
// are equal is a fixed value, as augment.py reads a single float. The
// affine is always asked for, as cellfinder's training passes all three
// ranges.
type Augmentation struct {
	Likelihood float64
	FlipAxes   [3]bool
	Rotate     [3][2]float64
	Translate  [3][2]float64
	Scale      [3][2]float64
}

// DefaultAugmentation returns cellfinder's defaults (CuboidDatasetBase,
// train_yaml.py): likelihood 0.9, every axis flippable, a rotation of
// exactly π/4 and a translation of exactly 0.05 of the cube about and
// along every axis, a scale in (0.6, 1.4).
func DefaultAugmentation() Augmentation {
	a := Augmentation{Likelihood: 0.9, FlipAxes: [3]bool{true, true, true}}
	for i := range 3 {
		a.Rotate[i] = [2]float64{math.Pi / 4, math.Pi / 4}
		a.Translate[i] = [2]float64{0.05, 0.05}
		a.Scale[i] = [2]float64{0.6, 1.4}
	}
	return a
}

// Draw draws one cube's augmentation for cubes of the given shape (h,
// w, d, channels) in augment.py's order: whether to apply the affine
// (random_bool: uniform < likelihood), then each flippable axis's flip
// at the same likelihood, then, for the affine, MONAI's parameters —
// rotations, translations, scales, each uniform in its range as
// _fix_*_range maps cellfinder's ranges to MONAI's (translation −f·N
// voxels of the isotropic size N, scale 1/s − 1, then + 1).
func (a Augmentation) Draw(rng *rand.Rand, input [4]int) Draws {
	var d Draws
	d.Affine = rng.Float64() < a.Likelihood
	for i, ok := range a.FlipAxes {
		d.Flip[i] = ok && rng.Float64() < a.Likelihood
	}
	if !d.Affine {
		return d
	}
	n := float64(max(input[0], input[1], input[2]))
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	for i := range 3 {
		d.Rotate[i] = uniform(a.Rotate[i][0], a.Rotate[i][1])
	}
	for i := range 3 {
		d.Translate[i] = uniform(-a.Translate[i][0]*n, -a.Translate[i][1]*n)
	}
	for i := range 3 {
		d.Scale[i] = uniform(1/a.Scale[i][0]-1, 1/a.Scale[i][1]-1) + 1
	}
	return d
}

// lerpTap is one output index's two source indices and the second's
// weight along one axis of a linear resampling.
type lerpTap struct {
	i0, i1 int
	w1     float64
}

// Augmenter applies Draws to cubes of one shape; its workspace makes
// Apply allocation-free. It is not safe for concurrent use.
type Augmenter struct {
	h, w, d, nc, n int
	iso, aff       []float32
	up, down       [3][]lerpTap // per axis: to the isotropic cube and back
	downFlip       [3][]lerpTap // down, reading the axis flipped
}

// NewAugmenter returns an Augmenter for cubes of input's shape (h, w, d,
// channels; voxlab's cube layout, y x z c).
func NewAugmenter(input [4]int) *Augmenter {
	a := &Augmenter{h: input[0], w: input[1], d: input[2], nc: input[3]}
	a.n = max(a.h, a.w, a.d)
	vol := a.nc * a.n * a.n * a.n
	a.iso, a.aff = make([]float32, vol), make([]float32, vol)
	for i, size := range []int{a.h, a.w, a.d} {
		a.up[i] = resizeTaps(size, a.n)
		a.down[i] = resizeTaps(a.n, size)
		a.downFlip[i] = make([]lerpTap, size)
		for j, t := range a.down[i] {
			a.downFlip[i][j] = lerpTap{a.n - 1 - t.i0, a.n - 1 - t.i1, t.w1}
		}
	}
	return a
}

// resizeTaps returns the taps of torch's linear interpolation from in to
// out samples with align_corners=False (F.interpolate, mode
// "trilinear"): source (j + ½)·in/out − ½, clamped at 0, its neighbour
// clamped to the last sample.
func resizeTaps(in, out int) []lerpTap {
	taps := make([]lerpTap, out)
	scale := float64(float32(in) / float32(out))
	for j := range taps {
		src := max(0, scale*(float64(j)+0.5)-0.5)
		i0 := min(int(src), in-1)
		taps[j] = lerpTap{i0, min(i0+1, in-1), src - float64(i0)}
	}
	return taps
}

// Apply writes src transformed by dr into dst (both one cube of the
// Augmenter's shape; they may not overlap) as augment.py's
// DataAugmentation.__call__ does: with the affine, the cube rescaled to
// the isotropic N³ (trilinear), MONAI's affine resampling (bilinear,
// border padding), the flips, and the rescale back; without it, the
// flips alone.
func (a *Augmenter) Apply(dst, src []float32, dr Draws) {
	if !dr.Affine {
		a.flip(dst, src, dr.Flip)
		return
	}
	n := a.n
	iso := src
	if a.h != n || a.w != n || a.d != n {
		resize(a.iso, src, [3]int{a.h, a.w, a.d}, a.nc, a.up)
		iso = a.iso
	}
	a.affine(a.aff, iso, dr)
	if a.h == n && a.w == n && a.d == n {
		a.flip(dst, a.aff, dr.Flip)
		return
	}
	var taps [3][]lerpTap
	for i := range 3 {
		taps[i] = a.down[i]
		if dr.Flip[i] {
			taps[i] = a.downFlip[i]
		}
	}
	resize(dst, a.aff, [3]int{n, n, n}, a.nc, taps)
}

// flip writes src with the flagged axes reversed into dst (torch.flip).
func (a *Augmenter) flip(dst, src []float32, f [3]bool) {
	h, w, d, nc := a.h, a.w, a.d, a.nc
	for y := range h {
		sy := y
		if f[0] {
			sy = h - 1 - y
		}
		for x := range w {
			sx := x
			if f[1] {
				sx = w - 1 - x
			}
			for z := range d {
				sz := z
				if f[2] {
					sz = d - 1 - z
				}
				o, s := ((y*w+x)*d+z)*nc, ((sy*w+sx)*d+sz)*nc
				copy(dst[o:o+nc], src[s:s+nc])
			}
		}
	}
}

// resize writes into dst (the taps' lengths per axis) the trilinear
// interpolation of src (of shape in, nc channels last) at the taps.
func resize(dst, src []float32, in [3]int, nc int, taps [3][]lerpTap) {
	o := 0
	for _, ty := range taps[0] {
		for _, tx := range taps[1] {
			for _, tz := range taps[2] {
				trilinear(dst[o:o+nc], src, in, ty, tx, tz)
				o += nc
			}
		}
	}
}

// trilinear writes into dst each channel of src (shape in, len(dst)
// channels last) interpolated at the three axes' taps, as nested lerps.
func trilinear(dst, src []float32, in [3]int, ty, tx, tz lerpTap) {
	nc := len(dst)
	at := func(y, x int) int { return (y*in[1] + x) * in[2] * nc }
	p00, p01, p10, p11 := at(ty.i0, tx.i0), at(ty.i0, tx.i1), at(ty.i1, tx.i0), at(ty.i1, tx.i1)
	z0, z1 := tz.i0*nc, tz.i1*nc
	wy, wx, wz := ty.w1, tx.w1, tz.w1
	lerp := func(p int) float64 {
		a := float64(src[p+z0])
		return a + (float64(src[p+z1])-a)*wz
	}
	for c := range nc {
		a0, a1 := lerp(p00+c), lerp(p01+c)
		b0, b1 := lerp(p10+c), lerp(p11+c)
		a, b := a0+(a1-a0)*wx, b0+(b1-b0)*wx
		dst[c] = float32(a + (b-a)*wy)
	}
}

// affineMatrix returns MONAI's AffineGrid matrix (3 x 4) for dr:
// R₀(θ_y)·R₁(θ_x)·R₂(θ_z)·T(t)·S(s) (create_rotate, create_translate,
// create_scale), mapping an output voxel's centred coordinates to the
// source's.
func affineMatrix(dr Draws) [3][4]float64 {
	rot := func(axis int, th float64) [3][3]float64 {
		s, c := math.Sincos(th)
		switch axis {
		case 0:
			return [3][3]float64{{1, 0, 0}, {0, c, -s}, {0, s, c}}
		case 1:
			return [3][3]float64{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}
		}
		return [3][3]float64{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
	}
	mul := func(p, q [3][3]float64) (r [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					r[i][j] += p[i][k] * q[k][j]
				}
			}
		}
		return r
	}
	r := mul(mul(rot(0, dr.Rotate[0]), rot(1, dr.Rotate[1])), rot(2, dr.Rotate[2]))
	var m [3][4]float64
	for i := range 3 {
		for j := range 3 {
			m[i][j] = r[i][j] * dr.Scale[j]
			m[i][3] += r[i][j] * dr.Translate[j]
		}
	}
	return m
}

// affine writes into dst the isotropic cube src resampled through dr's
// affine as MONAI's Resample does with torch's grid_sample (bilinear,
// padding "border": the source coordinate clamped to the cube,
// align_corners=False with MONAI's normalisation, so voxel i's centred
// coordinate is i − (N − 1)/2).
func (a *Augmenter) affine(dst, src []float32, dr Draws) {
	n, nc := a.n, a.nc
	m := affineMatrix(dr)
	half := float64(n-1) / 2
	in := [3]int{n, n, n}
	tap := func(p float64) lerpTap {
		p = min(max(p+half, 0), float64(n-1))
		i0 := int(p)
		return lerpTap{i0, min(i0+1, n-1), p - float64(i0)}
	}
	o := 0
	for y := range n {
		cy := float64(y) - half
		for x := range n {
			cx := float64(x) - half
			for z := range n {
				cz := float64(z) - half
				ty := tap(m[0][0]*cy + m[0][1]*cx + m[0][2]*cz + m[0][3])
				tx := tap(m[1][0]*cy + m[1][1]*cx + m[1][2]*cz + m[1][3])
				tz := tap(m[2][0]*cy + m[2][1]*cx + m[2][2]*cz + m[2][3])
				trilinear(dst[o:o+nc], src, in, ty, tx, tz)
				o += nc
			}
		}
	}
}

// batchAugmenter augments training batches in place, each cube with its
// own draws (cube_generator.py's __getitems__: update_parameters, then
// the augmentor, per cube). A nil one leaves batches as they are.
type batchAugmenter struct {
	cfg   Augmentation
	input [4]int
	a     *Augmenter
	tmp   []float32
}

// newBatchAugmenter returns the augmenter of cfg for cubes of input's
// shape, nil when cfg is nil.
func newBatchAugmenter(cfg *Augmentation, input [4]int) *batchAugmenter {
	if cfg == nil {
		return nil
	}
	a := NewAugmenter(input)
	return &batchAugmenter{cfg: *cfg, input: input, a: a, tmp: make([]float32, input[0]*input[1]*input[2]*input[3])}
}

// apply augments the cubes of x with draws from rng.
func (b *batchAugmenter) apply(x []float32, rng *rand.Rand) {
	if b == nil {
		return
	}
	l := len(b.tmp)
	for o := 0; o+l <= len(x); o += l {
		d := b.cfg.Draw(rng, b.input)
		if d.Affine || d.Flip != [3]bool{} {
			b.a.Apply(b.tmp, x[o:o+l], d)
			copy(x[o:o+l], b.tmp)
		}
	}
}
