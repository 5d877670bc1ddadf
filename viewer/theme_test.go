package viewer

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// flatten composites c over the opaque colour base (c may be
// translucent: the selection and hover colours are).
func flatten(c, base color.Color) color.NRGBA {
	r, g, b, a := c.RGBA() // premultiplied by a
	br, bgr, bb, _ := base.RGBA()
	mix := func(v, under uint32) uint8 {
		return uint8(math.Round((float64(v) + float64(under)*(1-float64(a)/0xffff)) / 0xffff * 255))
	}
	return color.NRGBA{mix(r, br), mix(g, bgr), mix(b, bb), 0xff}
}

// luminance is WCAG 2's relative luminance of an opaque colour:
// 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels
// (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// contrast is WCAG's contrast ratio (L1 + 0.05) / (L2 + 0.05) of text in
// fg on bg, bg lying over base (which shows through a translucent bg).
func contrast(fg, bg, base color.Color) float64 {
	under := flatten(bg, flatten(base, color.Black))
	lf, lb := luminance(flatten(fg, under)), luminance(under)
	return (math.Max(lf, lb) + 0.05) / (math.Min(lf, lb) + 0.05)
}

// TestThemeContrast: every colour voxlab draws text in meets WCAG's
// 4.5:1 against every background it is drawn on, computed from the
// theme's colours: labels of every importance (help, output paths, the
// plan's command line and peak memory are low importance), placeholders
// and disabled text on the window, entries, buttons, menus, headers,
// dialogs and selected list rows; button text on its fill (the Run
// button, a progress bar's percentage on its bar and on the track); the
// panel titles and scale bar over white data; the plots' text.
func TestThemeContrast(t *testing.T) {
	th := Theme()
	col := func(n fyne.ThemeColorName) color.Color { return th.Color(n, theme.VariantLight) }
	bg := col(theme.ColorNameBackground)
	texts := []fyne.ThemeColorName{
		theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNameError, theme.ColorNameWarning, theme.ColorNameSuccess, theme.ColorNameHyperlink,
	}
	surfaces := []fyne.ThemeColorName{
		theme.ColorNameBackground, theme.ColorNameInputBackground, theme.ColorNameButton,
		theme.ColorNameDisabledButton, theme.ColorNameMenuBackground, theme.ColorNameHeaderBackground,
		theme.ColorNameOverlayBackground, theme.ColorNameSelection, theme.ColorNameHover,
	}
	check := func(what string, fg, on color.Color) {
		t.Helper()
		if r := contrast(fg, on, bg); r < 4.5 {
			t.Errorf("%s: contrast %.2f:1, want at least 4.5:1", what, r)
		} else {
			t.Logf("%s: %.2f:1", what, r)
		}
	}
	for _, fg := range texts {
		for _, s := range surfaces {
			check(string(fg)+" on "+string(s), col(fg), col(s))
		}
	}
	for _, c := range [][2]fyne.ThemeColorName{
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary},
		{theme.ColorNameForegroundOnError, theme.ColorNameError},
		{theme.ColorNameForegroundOnWarning, theme.ColorNameWarning},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess},
	} {
		check(string(c[0])+" on "+string(c[1]), col(c[0]), col(c[1]))
	}
	// A progress bar's track is the primary colour at half opacity.
	r, g, b, _ := color.NRGBAModel.Convert(col(theme.ColorNamePrimary)).(color.NRGBA).RGBA()
	track := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x80}
	check("progress text on its track", col(theme.ColorNameForegroundOnPrimary), track)
	// Over white data, through the shade under them.
	if r := contrast(overlayText, overlayShade, color.White); r < 4.5 {
		t.Errorf("panel title over white data: %.2f:1", r)
	}
	if r := contrast(color.White, overlayShade, color.White); r < 4.5 {
		t.Errorf("scale bar label over white data: %.2f:1", r)
	}
	if s := th.Size(theme.SizeNameCaptionText); s < minTextSize {
		t.Errorf("caption text %v px, want at least %d", s, minTextSize)
	}
}
