package testutil

import (
	"image/color"
	"math"
)

// Flatten composites c over the opaque colour base (c may be
// translucent: the selection and hover colours are).
func Flatten(c, base color.Color) color.NRGBA {
	r, g, b, a := c.RGBA() // premultiplied by a
	br, bgr, bb, _ := base.RGBA()
	mix := func(v, under uint32) uint8 {
		return uint8(math.Round((float64(v) + float64(under)*(1-float64(a)/0xffff)) / 0xffff * 255))
	}
	return color.NRGBA{mix(r, br), mix(g, bgr), mix(b, bb), 0xff}
}

// Luminance is WCAG 2's relative luminance of an opaque colour:
// 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels
// (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
func Luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// Contrast is WCAG's contrast ratio (L1 + 0.05) / (L2 + 0.05) of text in
// fg on bg, bg lying over base (which shows through a translucent bg).
func Contrast(fg, bg, base color.Color) float64 {
	under := Flatten(bg, Flatten(base, color.Black))
	lf, lb := Luminance(Flatten(fg, under)), Luminance(under)
	return (math.Max(lf, lb) + 0.05) / (math.Min(lf, lb) + 0.05)
}
