package viewer

import (
	"math"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

// lut maps raw values to packed RGBA pixels (R | G<<8 | B<<16 | A<<24, the
// byte order of image.RGBA on little-endian machines). 8- and 16-bit
// integer planes index it with the raw value (signed ones with the value
// minus the type's minimum); float and 32-bit integer planes with
// (v-lo)*scale, clamped.
type lut struct {
	tab       []uint32
	lo, scale float64
}

// floatLUTSize is the number of levels a float plane is quantised to
// before the colormap, finer than the 256 colours of a colormap so that
// gamma does not band.
const floatLUTSize = 4096

// build fills the table for dtype with contrast limits [lo, hi], gamma and
// a colormap: t = clamp((v-lo)/(hi-lo), 0, 1)^gamma, colour =
// cmap[round(255 t)]. hi <= lo makes a step at lo.
func (l *lut) build(dt volume.DType, lo, hi, gamma float64, cmap *resources.ColormapTable) {
	n := floatLUTSize
	off := 0.0 // value of entry 0
	switch dt {
	case volume.Uint8:
		n = 256
	case volume.Int8:
		n, off = 256, -128
	case volume.Uint16:
		n = 65536
	case volume.Int16:
		n, off = 65536, -32768
	}
	if cap(l.tab) < n {
		l.tab = make([]uint32, n)
	}
	l.tab = l.tab[:n]
	var pal [256]uint32
	for i, c := range cmap {
		pal[i] = uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | 0xff000000
	}
	// t of entry i: integer types map the raw value, floats the level.
	t0, dt1 := off-lo, 1.0
	span := hi - lo
	if !lutDirect(dt) {
		t0, dt1 = 0, 1/float64(n-1)
		span = 1
		l.lo = lo
		l.scale = float64(n-1) / math.Max(hi-lo, math.SmallestNonzeroFloat64)
		if hi <= lo {
			l.scale = math.Inf(1)
		}
	}
	for i := range l.tab {
		x := t0 + float64(i)*dt1
		var t float64
		switch {
		case span <= 0:
			if x >= 0 {
				t = 1
			}
		default:
			t = math.Min(math.Max(x/span, 0), 1)
		}
		if gamma != 1 && t > 0 {
			t = math.Pow(t, gamma)
		}
		l.tab[i] = pal[int(t*255+0.5)]
	}
}
