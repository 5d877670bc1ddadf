package svd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Preprocess is the challenge's per-map preprocessing before the SVD
// (load_gt_svd, load_submissions_svd, after the mask): the B-factor
// normalisation and the Fourier downsampling. Zero values leave a step
// out.
type Preprocess struct {
	// BFactor in Å² and VoxelSize in Å: the centred spectrum is
	// multiplied by exp(−B·s²/4), s the spatial frequency
	// (_compute_bfactor_scaling, bfactor_normalize_volumes).
	BFactor, VoxelSize float64
	// BoxDS: the centred spectrum is cropped to BoxDS³ about its centre
	// and scaled by BoxDS³/box³ (downsample_volume); a map already of
	// that box is left as it is (downsample_submission).
	BoxDS int
}

// Active reports whether any step is asked for.
func (p Preprocess) Active() bool { return p.BFactor != 0 || p.BoxDS != 0 }

// Box is the box of a preprocessed map of box.
func (p Preprocess) Box(box int) int {
	if p.BoxDS != 0 {
		return p.BoxDS
	}
	return box
}

// Apply preprocesses one map of box³ voxels (C order) and returns it.
func (p Preprocess) Apply(m []float64, box int) ([]float64, error) {
	if p.BoxDS > box {
		return nil, fmt.Errorf("--box-size-ds %d is larger than the maps' box %d", p.BoxDS, box)
	}
	if p.BFactor != 0 {
		if p.VoxelSize <= 0 {
			return nil, fmt.Errorf("the B-factor normalisation needs the voxel size (--voxel-size Å)")
		}
		m = p.bfactor(m, box)
	}
	if p.BoxDS != 0 && p.BoxDS != box {
		m = downsample(m, box, p.BoxDS)
	}
	return m, nil
}

// bfactor is bfactor_normalize_volumes: fftshift(fftn(m)) times
// exp(−B·s²/4) on the shifted frequency grid (fftfreq(box, voxel)),
// then ifftn(fftshift(·)), the real part — fftshift both ways, as the
// challenge's _centered_ifftn has it (the same as ifftshift for even
// boxes).
func (p Preprocess) bfactor(m []float64, box int) []float64 {
	f := toComplex(m)
	fft3(f, box, false)
	shift3(f, box, box/2)
	freq := make([]float64, box) // fftshift(fftfreq(box, d)): index i ↦ (i − box/2)/(box·d)
	for i := range freq {
		freq[i] = float64(i-box/2) / (float64(box) * p.VoxelSize)
	}
	for z := range box {
		for y := range box {
			for x := range box {
				s2 := freq[z]*freq[z] + freq[y]*freq[y] + freq[x]*freq[x]
				f[(z*box+y)*box+x] *= complex(math.Exp(-p.BFactor*s2/4), 0)
			}
		}
	}
	shift3(f, box, box/2)
	fft3(f, box, true)
	return realPart(f)
}

// downsample is downsample_volume: the centred spectrum
// (fftshift(fftn(m))) cropped to ds³ from box/2 − ds/2 on each axis,
// then ifftn(ifftshift(·))·ds³/box³, the real part.
func downsample(m []float64, box, ds int) []float64 {
	f := toComplex(m)
	fft3(f, box, false)
	shift3(f, box, box/2)
	start := box/2 - ds/2
	c := make([]complex128, ds*ds*ds)
	for z := range ds {
		for y := range ds {
			copy(c[(z*ds+y)*ds:(z*ds+y+1)*ds], f[((z+start)*box+y+start)*box+start:])
		}
	}
	shift3(c, ds, ds-ds/2) // ifftshift: a roll by −(ds/2)
	fft3(c, ds, true)
	scale := complex(math.Pow(float64(ds)/float64(box), 3), 0)
	for i := range c {
		c[i] *= scale
	}
	return realPart(c)
}

func toComplex(m []float64) []complex128 {
	out := make([]complex128, len(m))
	for i, x := range m {
		out[i] = complex(x, 0)
	}
	return out
}

func realPart(f []complex128) []float64 {
	out := make([]float64, len(f))
	for i, c := range f {
		out[i] = real(c)
	}
	return out
}

// fft3 is the 3D discrete Fourier transform of the n³ cube f in place,
// axis by axis (numpy's and torch's fftn convention: e^{−2πi·jk/n}
// forward, the inverse divided by n³).
func fft3(f []complex128, n int, inverse bool) {
	t := fourier.NewCmplxFFT(n)
	line, out := make([]complex128, n), make([]complex128, n)
	for _, stride := range []int{1, n, n * n} {
		for base := range n * n {
			// base enumerates the n² lines along this axis.
			i0 := lineStart(base, n, stride)
			for k := range n {
				line[k] = f[i0+k*stride]
			}
			if inverse {
				t.Sequence(out, line)
			} else {
				t.Coefficients(out, line)
			}
			for k := range n {
				f[i0+k*stride] = out[k]
			}
		}
	}
	if inverse {
		s := complex(1/math.Pow(float64(n), 3), 0)
		for i := range f {
			f[i] *= s
		}
	}
}

// lineStart is the first index of line b of the n³ cube along the axis
// of stride (1, n or n²).
func lineStart(b, n, stride int) int {
	switch stride {
	case 1:
		return b * n
	case n:
		return b/n*n*n + b%n
	}
	return b
}

// shift3 rolls the n³ cube by k along every axis (fftshift is k = n/2,
// ifftshift k = n − n/2).
func shift3(f []complex128, n, k int) {
	g := make([]complex128, len(f))
	for z := range n {
		zz := (z + k) % n
		for y := range n {
			yy := (y + k) % n
			for x := range n {
				g[(zz*n+yy)*n+(x+k)%n] = f[(z*n+y)*n+x]
			}
		}
	}
	copy(f, g)
}
