package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme returns voxlab's theme: Fyne's default theme in its dark variant
// whatever the desktop prefers (images read best on a dark surround, and
// the plots are drawn to match it), with the colours of text that fell
// short of WCAG's 4.5:1 contrast against the backgrounds they are drawn
// on replaced. The app's windows and offscreen renderings use it, so
// screenshots look the same on every machine.
func Theme() fyne.Theme { return appTheme{theme.DefaultTheme()} }

// appTheme is the theme Theme returns.
type appTheme struct{ fyne.Theme }

// The colours appTheme replaces. Fyne's dark palette draws low-importance
// labels (help text, output paths, the plan's command line) and disabled
// text in #39393a, 1.6:1 on its #171718 background; its error red is
// 3.9:1 on buttons; white on its primary blue is 4.47:1. Each colour
// here is at least 4.5:1 against the background, input, button, menu,
// header and dialog colours (the viewer's TestThemeContrast computes the
// ratios).
var (
	// mutedText is the low-importance and disabled text: 5.5:1 on
	// buttons, 6.8:1 on the background, still plainly quieter than the
	// #f3f3f3 foreground.
	mutedText = color.NRGBA{0xa0, 0xa0, 0xa0, 0xff}
	// errorText is a lighter red (5.2:1 on buttons).
	errorText = color.NRGBA{0xff, 0x6b, 0x5e, 0xff}
	// primaryFill is darker than Fyne's blue, so that white text on it
	// (the Run button, a progress bar's percentage) reaches 5.8:1; it is
	// a fill, never a text colour: labels are never HighImportance.
	primaryFill = color.NRGBA{0x2a, 0x5f, 0xd0, 0xff}
	// linkText is the hyperlink blue, light enough for text (6:1 on
	// buttons).
	linkText = color.NRGBA{0x6e, 0xa8, 0xff, 0xff}
)

// Color returns the dark palette with the replacements above.
func (t appTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	switch n {
	case theme.ColorNameDisabled:
		return mutedText
	case theme.ColorNameError:
		return errorText
	case theme.ColorNamePrimary:
		return primaryFill
	case theme.ColorNameForegroundOnPrimary:
		return color.White
	case theme.ColorNameHyperlink:
		return linkText
	}
	return t.Theme.Color(n, theme.VariantDark)
}

// MinTextSize is the smallest text voxlab draws, in logical pixels:
// Fyne's caption size (11) is raised to it.
const MinTextSize = 12

// Size raises the caption text (help below fields, memory bars) to
// MinTextSize.
func (t appTheme) Size(n fyne.ThemeSizeName) float32 {
	s := t.Theme.Size(n)
	if n == theme.SizeNameCaptionText {
		return max(s, MinTextSize)
	}
	return s
}
