package classify

import (
	"math"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// The CPU kernels of the network: plain functions over float32 slices in
// the channels-last layout Keras uses, a batch of cubes being
// [cube][height][width][depth][channel]. A convolution runs as im2col +
// matrix product (Chellapilla et al. 2006, "High performance
// convolutional neural networks for document processing"): each output
// position is a row of the im2col matrix holding its input patch in the
// kernel's (kh, kw, kd, channel) order — Keras's kernel layout — so that
// the product with the (kernel volume x channels) x features weight
// matrix is the convolution. Rows are taken in blocks (a block's patches
// fit a worker's scratch), over the whole batch at once, so that the
// small late layers still make products of useful size.

// im2colRows fills dst (rows x c.K()) with the input patches of the
// output rows [r0, r0+rows) of convolution c over the batch in. Output
// row r is cube r / P, position r % P (P output positions, in height,
// width, depth order). Positions of the patch in the zero padding (or
// past the input) are zeros.
func im2colRows(dst, in []float32, c *resnet.Conv, r0, rows int) {
	h, w, d, ch := c.In[0], c.In[1], c.In[2], c.In[3]
	ow, od := c.Out[1], c.Out[2]
	p := resnet.Positions(c.Out)
	kh, kw, kd := c.Kernel[0], c.Kernel[1], c.Kernel[2]
	k := c.K()
	cube := h * w * d * ch
	kdc := kd * ch
	for i := range rows {
		r := r0 + i
		b, q := r/p, r%p
		z := q % od
		q /= od
		x, y := q%ow, q/ow
		row := dst[i*k : (i+1)*k]
		src := in[b*cube : (b+1)*cube]
		id0 := z*c.Stride[2] - c.Pad[2]
		kd0, kd1 := max(0, -id0), min(kd, d-id0)
		o := 0
		for a := range kh {
			iy := y*c.Stride[0] - c.Pad[0] + a
			for e := range kw {
				ix := x*c.Stride[1] - c.Pad[1] + e
				seg := row[o : o+kdc]
				o += kdc
				if iy < 0 || iy >= h || ix < 0 || ix >= w || kd0 >= kd1 {
					clear(seg)
					continue
				}
				clear(seg[:kd0*ch])
				at := ((iy*w+ix)*d + id0 + kd0) * ch
				copy(seg[kd0*ch:kd1*ch], src[at:at+(kd1-kd0)*ch])
				clear(seg[kd1*ch:])
			}
		}
	}
}

// epilogue finishes rows [r0, r0+rows) of a convolution's product in
// place: the folded batch normalisation of the row's output plane (depth
// index r % outD), then the residual (res, the same rows; nil: none),
// then ReLU, in Keras's order: relu(conv·s + t + res). Each product is
// rounded on its own (the conversion stops the compiler from fusing a
// multiply-add), as the CUDA epilogue computes it.
func epilogue(c []float32, r0, rows, cout, outD int, scale, shift, res []float32, relu bool) {
	for i := range rows {
		z := (r0 + i) % outD
		s, t := scale[z], shift[z]
		row := c[i*cout : (i+1)*cout]
		var rr []float32
		if res != nil {
			rr = res[i*cout : (i+1)*cout]
		}
		for j, v := range row {
			v = float32(v*s) + t
			if rr != nil {
				v += rr[j]
			}
			if relu && v < 0 {
				v = 0
			}
			row[j] = v
		}
	}
}

// maxPool sets dst (one cube of out) to the max pool of src (one cube of
// in) with kernel k and stride s, without padding.
func maxPool(dst, src []float32, in, out [4]int, k, s [3]int) {
	w, d, ch := in[1], in[2], in[3]
	for y := range out[0] {
		for x := range out[1] {
			for z := range out[2] {
				o := ((y*out[1]+x)*out[2] + z) * ch
				cell := dst[o : o+ch]
				for c := range cell {
					cell[c] = float32(math.Inf(-1))
				}
				for a := range k[0] {
					for e := range k[1] {
						for f := range k[2] {
							at := (((y*s[0]+a)*w+x*s[1]+e)*d + z*s[2] + f) * ch
							for c, v := range src[at : at+ch] {
								if v > cell[c] {
									cell[c] = v
								}
							}
						}
					}
				}
			}
		}
	}
}

// head sets probs (2 values) from one cube's last activation x
// (positions x features): the global average pool, the dense layer and
// the softmax.
func head(probs, x, feat []float32, positions int, dense, bias []float32) {
	nf := len(feat)
	clear(feat)
	for p := range positions {
		for c, v := range x[p*nf : (p+1)*nf] {
			feat[c] += v
		}
	}
	inv := 1 / float32(positions)
	for c := range feat {
		feat[c] *= inv
	}
	var logit [resnet.Classes]float32
	for k := range logit {
		s := bias[k]
		for c, v := range feat {
			s += float32(v * dense[c*resnet.Classes+k])
		}
		logit[k] = s
	}
	softmax(probs, logit[:])
}

// softmax sets p to the softmax of logits (computed in float64 after
// subtracting the largest logit).
func softmax(p, logits []float32) {
	m := logits[0]
	for _, v := range logits {
		m = max(m, v)
	}
	sum := 0.0
	for _, v := range logits {
		sum += math.Exp(float64(v - m))
	}
	for i, v := range logits {
		p[i] = float32(math.Exp(float64(v-m)) / sum)
	}
}
