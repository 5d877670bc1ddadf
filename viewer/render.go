package viewer

import (
	"image"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/model"
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
	f.resize(w, h)
	f.fill(0, 0, f.w, f.h)
}

// fill paints the rectangle [x0,x1) x [y0,y1) with the background.
func (f *frame) fill(x0, y0, x1, y1 int) {
	if x0 >= x1 || y0 >= y1 {
		return
	}
	row := f.px[y0*f.w+x0 : y0*f.w+x1]
	row[0] = background
	// Doubling copies fill a row in log(n) calls.
	for n := 1; n < len(row); n *= 2 {
		copy(row[n:], row[:n])
	}
	for y := y0 + 1; y < y1; y++ {
		copy(f.px[y*f.w+x0:y*f.w+x1], row)
	}
}

// resize sizes the frame without clearing it.
func (f *frame) resize(w, h int) {
	w, h = max(w, 1), max(h, 1)
	if f.img == nil || f.w != w || f.h != h {
		f.img = image.NewRGBA(image.Rect(0, 0, w, h))
		f.px = unsafe.Slice((*uint32)(unsafe.Pointer(&f.img.Pix[0])), w*h)
		f.w, f.h = w, h
		f.xs = make([]int32, w)
		f.ys = make([]int32, h)
		f.row = make([]uint32, w)
	}
}

// fillAround paints the background outside the rectangle a base layer
// covered.
func (f *frame) fillAround(x0, y0, x1, y1 int) {
	if x0 >= x1 || y0 >= y1 {
		f.fill(0, 0, f.w, f.h)
		return
	}
	f.fill(0, 0, f.w, y0)
	f.fill(0, y1, f.w, f.h)
	f.fill(0, y0, x0, y1)
	f.fill(x1, y0, f.w, y1)
}

// Blending says how a layer combines with the layers below it.
type Blending = model.Blending

// Blending modes, as in napari (model.Translucent, model.Additive).
const (
	Translucent = model.Translucent
	Additive    = model.Additive
)

// drawPlane draws plane p through l onto f with the panel's xform (logical
// size sw x sh, pxScale device pixels per logical pixel). Each row is
// sampled with one table lookup per pixel, then blended; a base layer
// (opaque, translucent, integer data) is written straight into the frame.
// It returns the device rectangle it covered.
func drawPlane(f *frame, p *plane, l *lut, t xform, sw, sh, pxScale, opacity float64, mode Blending) (x0, y0, x1, y1 int) {
	t = p.levelXform(t)
	x0, x1 = sampleIndex(f.xs, t.CX, t.Scale, sw, pxScale, p.cols)
	y0, y1 = sampleIndex(f.ys, t.CY, t.RowScale(), sh, pxScale, p.rows)
	if x0 >= x1 || y0 >= y1 {
		return 0, 0, 0, 0
	}
	xs := f.xs[x0:x1]
	// At 1:1 the columns are consecutive and rows can be read as runs.
	run := int(xs[len(xs)-1]-xs[0]) == len(xs)-1
	a := uint32(opacity*256 + 0.5)
	direct := mode == Translucent && a >= 256 && lutDirect(p.dtype) && p.offCols == nil
	for y := y0; y < y1; y++ {
		if p.off != nil && p.off[f.ys[y]] {
			continue // no data yet: what is below shows
		}
		r := int(f.ys[y]) * p.cols
		row := f.row[:x1-x0]
		if direct {
			row = f.px[y*f.w+x0 : y*f.w+x1]
		}
		switch p.dtype {
		case volume.Uint8:
			sampleTable(row, xs, p.data[r:r+p.cols], l.tab[:256], run)
		case volume.Int8:
			sampleSigned(row, xs, volume.Int8s(p.data)[r:r+p.cols], l.tab[:256], 128)
		case volume.Uint16:
			sampleTable(row, xs, volume.Uint16s(p.data)[r:r+p.cols], l.tab[:65536], run)
		case volume.Int16:
			sampleSigned(row, xs, volume.Int16s(p.data)[r:r+p.cols], l.tab[:65536], 32768)
		case volume.Uint32:
			sampleFloat(row, xs, volume.Uint32s(p.data)[r:r+p.cols], l)
		case volume.Int32:
			sampleFloat(row, xs, volume.Int32s(p.data)[r:r+p.cols], l)
		case volume.Float32:
			sampleFloat(row, xs, volume.Float32s(p.data)[r:r+p.cols], l)
		case volume.Float64:
			sampleFloat(row, xs, volume.Float64s(p.data)[r:r+p.cols], l)
		}
		if p.offCols != nil {
			for i, c := range xs {
				if p.offCols[c] {
					row[i] = 0 // transparent: blendRow leaves what is below
				}
			}
		}
		if !direct {
			blendRow(f.px[y*f.w+x0:y*f.w+x1], row, a, mode)
		}
	}
	return x0, y0, x1, y1
}

// sampleTable looks samples of src up in tab, which has an entry for
// every value of T: at 1:1 (run) the consecutive columns from xs[0],
// else the columns xs.
func sampleTable[T uint8 | uint16](dst []uint32, xs []int32, src []T, tab []uint32, run bool) {
	if run {
		for i, v := range src[xs[0] : int(xs[0])+len(dst)] {
			dst[i] = tab[v]
		}
		return
	}
	for i, c := range xs {
		dst[i] = tab[src[c]]
	}
}

// sampleSigned looks signed samples of src up in tab, whose entry v+off
// is value v's colour.
func sampleSigned[T int8 | int16](dst []uint32, xs []int32, src []T, tab []uint32, off int) {
	for i, c := range xs {
		dst[i] = tab[int(src[c])+off]
	}
}

// sampleFloat quantises float (and 32-bit integer) samples to the table;
// NaN is transparent (unfilled heat-map cells).
func sampleFloat[T float32 | float64 | int32 | uint32](dst []uint32, xs []int32, src []T, l *lut) {
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

// lutDirect reports whether a plane of type d is drawn by indexing a
// lookup table with its values: 8- and 16-bit integers (signed ones
// offset by the type's minimum).
func lutDirect(d volume.DType) bool { return d.IsInteger() && d.Size() <= 2 }
