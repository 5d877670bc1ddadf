package viewer

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/widgets"
)

// TestThemeContrast: every colour voxlab draws text in meets WCAG's
// 4.5:1 against every background it is drawn on, computed from the
// theme's colours: labels of every importance (help, output paths, the
// plan's command line and peak memory are low importance), placeholders
// and disabled text on the window, entries, buttons, menus, headers,
// dialogs and selected list rows; button text on its fill (the Run
// button, a progress bar's percentage on its bar and on the track); the
// panel titles and scale bar over white data; the plots' text.
func TestThemeContrast(t *testing.T) {
	th := widgets.Theme()
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
		if r := testutil.Contrast(fg, on, bg); r < 4.5 {
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
	if r := testutil.Contrast(overlayText, overlayShade, color.White); r < 4.5 {
		t.Errorf("panel title over white data: %.2f:1", r)
	}
	if r := testutil.Contrast(color.White, overlayShade, color.White); r < 4.5 {
		t.Errorf("scale bar label over white data: %.2f:1", r)
	}
	if s := th.Size(theme.SizeNameCaptionText); s < widgets.MinTextSize {
		t.Errorf("caption text %v px, want at least %d", s, widgets.MinTextSize)
	}
}
