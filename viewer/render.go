package viewer

import (
	"image"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
)

// frame is a panel's reused RGBA image and the scratch its rendering
// needs, so drawing a frame allocates nothing once the size is stable.
type frame struct {
	img  *image.RGBA
	px   []uint32 // img.Pix viewed as packed pixels
	w, h int      // device pixels
	// xs and ys map device columns and rows to data indices (-1 outside);
	// row holds one row of colours before blending.
	xs, ys []int32
	row    []uint32
}

// background is napari's dark canvas colour, packed.
const background = 0xff302926

// reset sizes the frame to w x h device pixels, reallocating only when
// the size changes, and clears it to the background colour.
func (f *frame) reset(w, h int) {
	w, h = max(w, 1), max(h, 1)
	if f.img == nil || f.w != w || f.h != h {
		f.img = image.NewRGBA(image.Rect(0, 0, w, h))
		f.px = unsafe.Slice((*uint32)(unsafe.Pointer(&f.img.Pix[0])), w*h)
		f.w, f.h = w, h
		f.xs = make([]int32, w)
		f.ys = make([]int32, h)
		f.row = make([]uint32, w)
	}
	if len(f.px) == 0 {
		return
	}
	f.px[0] = background
	// Doubling copies fill the frame in log(n) calls.
	for n := 1; n < len(f.px); n *= 2 {
		copy(f.px[n:], f.px[:n])
	}
}

// Blending says how a layer combines with the layers below it.
type Blending int

// Blending modes, as in napari.
const (
	// Translucent mixes by opacity: out = a*layer + (1-a)*below.
	Translucent Blending = iota
	// Additive adds: out = min(1, below + a*layer), for channel overlays.
	Additive
)

// String returns the mode's name.
func (b Blending) String() string { return [...]string{"translucent", "additive"}[b] }

// drawPlane draws plane p through l onto f with the panel's xform (logical
// size sw x sh, pxScale device pixels per logical pixel). Each row is
// sampled into f.row with one table lookup per pixel, then blended.
func drawPlane(f *frame, p *plane, l *lut, t xform, sw, sh, pxScale, opacity float64, mode Blending) {
	x0, x1 := sampleIndex(f.xs, t.cx, t.scale, sw, pxScale, p.cols)
	y0, y1 := sampleIndex(f.ys, t.cy, t.scale, sh, pxScale, p.rows)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	xs := f.xs[x0:x1]
	row := f.row[:x1-x0]
	a := uint32(opacity*256 + 0.5)
	tab := l.tab
	for y := y0; y < y1; y++ {
		r := int(f.ys[y]) * p.cols
		switch p.dtype {
		case volume.Uint8:
			src := p.data[r : r+p.cols]
			for i, c := range xs {
				row[i] = tab[src[c]]
			}
		case volume.Uint16:
			src := volume.Uint16s(p.data)[r : r+p.cols]
			for i, c := range xs {
				row[i] = tab[src[c]]
			}
		case volume.Float32:
			sampleFloat(row, xs, volume.Float32s(p.data)[r:r+p.cols], l)
		case volume.Float64:
			sampleFloat(row, xs, volume.Float64s(p.data)[r:r+p.cols], l)
		}
		blendRow(f.px[y*f.w+x0:y*f.w+x1], row, a, mode)
	}
}

// sampleFloat quantises float samples to the table; NaN is transparent
// (unfilled heat-map cells).
func sampleFloat[T float32 | float64](dst []uint32, xs []int32, src []T, l *lut) {
	top := float64(len(l.tab) - 1)
	for i, c := range xs {
		v := float64(src[c])
		if v != v {
			dst[i] = 0
			continue
		}
		q := (v - l.lo) * l.scale
		switch {
		case !(q > 0):
			q = 0
		case q > top-0.5:
			q = top
		}
		dst[i] = l.tab[int(q+0.5)]
	}
}

// blendRow combines src onto dst with the layer alpha a in [0, 256]
// scaled by each source pixel's own alpha (0 or 255 here).
func blendRow(dst, src []uint32, a uint32, mode Blending) {
	if mode == Translucent && a >= 256 {
		for i, s := range src {
			if s>>24 != 0 {
				dst[i] = s
			}
		}
		return
	}
	for i, s := range src {
		if s>>24 == 0 {
			continue
		}
		d := dst[i]
		var out uint32
		for sh := uint32(0); sh < 24; sh += 8 {
			sc, dc := (s>>sh)&0xff, (d>>sh)&0xff
			var c uint32
			if mode == Additive {
				c = min(dc+(sc*a)>>8, 255)
			} else {
				c = (sc*a + dc*(256-a)) >> 8
			}
			out |= c << sh
		}
		dst[i] = out | 0xff000000
	}
}
