package train

import (
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// transpose sets t to the cols x rows transpose of a (rows x cols), in
// 32 x 32 tiles (each tile's rows and columns stay in cache), bands of
// output rows shared among workers.
func transpose(t, a []float32, rows, cols, workers int) []float32 {
	const tile = 32
	t = t[:rows*cols]
	bands := (cols + tile - 1) / tile
	parallelFor(bands, workers, func(b0, b1 int) {
		for c0 := b0 * tile; c0 < min(b1*tile, cols); c0 += tile {
			c1 := min(c0+tile, cols)
			for r0 := 0; r0 < rows; r0 += tile {
				r1 := min(r0+tile, rows)
				for c := c0; c < c1; c++ {
					dst := t[c*rows : (c+1)*rows]
					for r := r0; r < r1; r++ {
						dst[r] = a[r*cols+c]
					}
				}
			}
		}
	})
	return t
}

// backward takes the gradient dy of the unit's output, sets the
// gradients of its kernel, γ and β, and returns the gradient of its
// input (nil when needInput is false).
func (u *unit) backward(dy []float32, n, workers int, needInput bool) []float32 {
	c := u.conv
	rows := n * resnet.Positions(c.Out)
	cout, d := c.Out[3], c.Out[2]
	// Batch normalisation with batch statistics (Ioffe & Szegedy 2015):
	// dz = γ/σ · (dy − mean(dy) − x̂·mean(dy·x̂)) over the z plane's
	// values.
	sdy, sdx := make([]float64, d), make([]float64, d)
	for r := range rows {
		z := r % d
		mu, inv := u.bMean[z], u.bInvStd[z]
		zr := u.z[r*cout : (r+1)*cout]
		for j, g := range dy[r*cout : (r+1)*cout] {
			sdy[z] += float64(g)
			sdx[z] += float64(g) * float64((zr[j]-mu)*inv)
		}
	}
	u.gGamma, u.gBeta = make([]float32, d), make([]float32, d)
	count := float64(rows / d * cout)
	for z := range d {
		u.gGamma[z], u.gBeta[z] = float32(sdx[z]), float32(sdy[z])
		sdy[z] /= count
		sdx[z] /= count
	}
	dz := classify.Reuse(&u.s.dz, rows*cout)
	for r := range rows {
		z := r % d
		mu, inv := u.bMean[z], u.bInvStd[z]
		k := u.gamma[z] * inv
		my, mx := float32(sdy[z]), float32(sdx[z])
		zr := u.z[r*cout : (r+1)*cout]
		o := dz[r*cout : (r+1)*cout]
		for j, g := range dy[r*cout : (r+1)*cout] {
			o[j] = k * (g - my - (zr[j]-mu)*inv*mx)
		}
	}
	// The kernel's gradient: patchesᵀ · dz.
	kk := c.K()
	colT := transpose(classify.Reuse(&u.s.colT, rows*kk), u.patches(u.in, n), rows, kk, workers)
	classify.Reuse(&u.gW, kk*cout)
	u.matMul(1, kk, cout, rows, colT, rows, dz, u.gW, workers)
	if !needInput {
		return nil
	}
	// The patches' gradient dz · Wᵀ, scattered back onto the input.
	dcol := classify.Reuse(&u.dcol, rows*kk)
	u.matMul(2, rows, kk, cout, dz, cout, transpose(classify.Reuse(&u.s.wT, kk*cout), c.W, kk, cout, workers), dcol, workers)
	if c.Pointwise() && c.Stride == [3]int{1, 1, 1} {
		return dcol
	}
	dx := classify.Reuse(&u.dx, n*resnet.Positions(c.In)*c.In[3])
	clear(dx)
	col2im(dx, dcol, c, rows)
	return dx
}

// col2im adds each row of the patches' gradient dcol (rows x K, rows of
// classify.Im2col's layout) onto the input positions the patch was read
// from, dropping those in the zero padding.
func col2im(dx, dcol []float32, c *resnet.Conv, rows int) {
	h, w, d, ch := c.In[0], c.In[1], c.In[2], c.In[3]
	ow, od := c.Out[1], c.Out[2]
	p := resnet.Positions(c.Out)
	k := c.K()
	cube := h * w * d * ch
	for r := range rows {
		b, q := r/p, r%p
		z := q % od
		q /= od
		x, y := q%ow, q/ow
		row := dcol[r*k : (r+1)*k]
		dst := dx[b*cube : (b+1)*cube]
		o := 0
		for a := range c.Kernel[0] {
			iy := y*c.Stride[0] - c.Pad[0] + a
			for e := range c.Kernel[1] {
				ix := x*c.Stride[1] - c.Pad[1] + e
				for f := range c.Kernel[2] {
					iz := z*c.Stride[2] - c.Pad[2] + f
					seg := row[o : o+ch]
					o += ch
					if iy < 0 || iy >= h || ix < 0 || ix >= w || iz < 0 || iz >= d {
						continue
					}
					at := ((iy*w+ix)*d + iz) * ch
					for i, v := range seg {
						dst[at+i] += v
					}
				}
			}
		}
	}
}

// reluBack zeroes dy where the ReLU's output was not positive (ReLU's
// derivative at 0 is 0, as in TensorFlow and torch).
func reluBack(dy, out []float32) {
	for i, v := range out {
		if v <= 0 {
			dy[i] = 0
		}
	}
}
