package offscreen

import (
	"image"
	"image/color"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/testutil"
)

// everything builds a window's content holding each kind of object the
// painter draws (text in every style, rectangles with and without
// corners and strokes, circles, lines, polygons, arcs, gradients,
// rasters, raster and SVG images) and the widgets that draw them.
func everything() fyne.CanvasObject {
	rgba := image.NewRGBA(image.Rect(0, 0, 8, 6))
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 7)
	}
	img := canvas.NewImageFromImage(rgba)
	img.FillMode = canvas.ImageFillContain
	img.ScaleMode = canvas.ImageScalePixels
	img.SetMinSize(fyne.NewSize(64, 48))
	smooth := canvas.NewImageFromImage(rgba)
	smooth.ScaleMode = canvas.ImageScaleSmooth
	smooth.CornerRadius = 6
	smooth.SetMinSize(fyne.NewSize(50, 40))
	icon := canvas.NewImageFromResource(theme.FolderOpenIcon())
	icon.SetMinSize(fyne.NewSize(24, 24))
	rounded := canvas.NewRectangle(color.NRGBA{0x2a, 0x5f, 0xd0, 0xff})
	rounded.CornerRadius = 5
	rounded.StrokeColor, rounded.StrokeWidth = color.White, 2
	rounded.SetMinSize(fyne.NewSize(40, 20))
	circle := canvas.NewCircle(color.NRGBA{0, 0xc0, 0x40, 0xff})
	circle.StrokeColor, circle.StrokeWidth = color.White, 1.5
	circle.Resize(fyne.NewSize(20, 20))
	line := canvas.NewLine(color.NRGBA{0xff, 0x6b, 0x5e, 0xff})
	line.StrokeWidth = 2
	poly := canvas.NewPolygon(5, color.NRGBA{0xa0, 0xa0, 0xa0, 0xff})
	arc := canvas.NewArc(0, 270, 0.5, color.NRGBA{0x6e, 0xa8, 0xff, 0xff})
	grad := canvas.NewHorizontalGradient(color.Black, color.White)
	radial := canvas.NewRadialGradient(color.White, color.Transparent)
	raster := canvas.NewRasterWithPixels(func(x, y, w, h int) color.Color {
		return color.NRGBA{uint8(x * 255 / max(w, 1)), uint8(y * 255 / max(h, 1)), 0x80, 0xff}
	})
	shapes := container.NewGridWithColumns(4, img, smooth, icon, rounded,
		container.NewStack(circle), line, poly, arc, grad, radial, raster,
		canvas.NewText("italic bold", color.White))
	shapes.Objects[len(shapes.Objects)-1].(*canvas.Text).TextStyle = fyne.TextStyle{Italic: true, Bold: true}
	entry := widget.NewEntry()
	entry.SetText("typed text")
	sel := widget.NewSelect([]string{"gray", "viridis"}, nil)
	sel.SetSelected("viridis")
	slider := widget.NewSlider(0, 10)
	slider.SetValue(4)
	bar := widget.NewProgressBar()
	bar.SetValue(0.4)
	check := widget.NewCheck("pin_memory", nil)
	check.SetChecked(true)
	radio := widget.NewRadioGroup([]string{"z", "y", "x"}, nil)
	radio.Horizontal = true
	radio.SetSelected("y")
	run := widget.NewButtonWithIcon("Run", theme.MediaPlayIcon(), nil)
	run.Importance = widget.HighImportance
	label := widget.NewLabel("a long label that wraps inside the narrow column beside the others")
	label.Wrapping = fyne.TextWrapWord
	list := widget.NewList(func() int { return 30 }, func() fyne.CanvasObject { return widget.NewLabel("row") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText("row " + string(rune('a'+i%26)))
		})
	list.Select(2)
	form := container.NewVScroll(container.NewVBox(widget.NewLabelWithStyle("Heading", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		entry, sel, slider, bar, check, radio, run, widget.NewSeparator(), label,
		widget.NewAccordion(widget.NewAccordionItem("More", widget.NewLabel("inside")))))
	tabs := container.NewAppTabs(container.NewTabItem("View", shapes), container.NewTabItem("Plots", widget.NewLabel("plots")))
	split := container.NewHSplit(form, container.NewBorder(nil, nil, nil, list, tabs))
	split.Offset = 0.3
	return split
}

// TestMatchesFyneTestDriver: a window of this driver captures, pixel for
// pixel, what a window of Fyne's test driver of the same size captures
// of the same objects, a dialog over them included.
func TestMatchesFyneTestDriver(t *testing.T) {
	capture := func(a fyne.App) image.Image {
		w := a.NewWindow("test")
		w.SetContent(everything())
		w.Resize(fyne.NewSize(900, 600))
		dialog.ShowInformation("Done", "dezing scan.nxs finished in 1.2s", w)
		return w.Canvas().Capture()
	}
	th := theme.DefaultTheme()
	got := capture(NewApp(th))
	want := test.NewTempApp(t)
	want.Settings().SetTheme(th)
	testutil.SamePixels(t, "offscreen_objects.png", got, capture(want))
}

// TestWindowBasics: windows are sized as asked, draw the theme's
// background where there is nothing, keep an overlay stack, take and give
// the focus, and the app keeps preferences in memory.
func TestWindowBasics(t *testing.T) {
	a := NewApp(theme.DefaultTheme())
	if fyne.CurrentApp() != a {
		t.Fatal("NewApp did not make the app current")
	}
	w := a.NewWindow("x")
	w.SetContent(widget.NewLabel("hi"))
	w.Resize(fyne.NewSize(320, 200))
	img := w.Canvas().Capture()
	if img.Bounds() != image.Rect(0, 0, 320, 200) {
		t.Fatalf("capture %v, want 320x200", img.Bounds())
	}
	r, g, b, _ := img.At(319, 199).RGBA()
	br, bg, bb, _ := theme.Color(theme.ColorNameBackground).RGBA()
	if r != br || g != bg || b != bb {
		t.Errorf("corner %v, want the theme's background", img.At(319, 199))
	}
	if a.Driver().CanvasForObject(nil) != w.Canvas() || len(a.Driver().AllWindows()) != 1 {
		t.Error("the window is not the driver's canvas")
	}

	ov := w.Canvas().Overlays()
	one, two := widget.NewLabel("1"), widget.NewLabel("2")
	ov.Add(one)
	ov.Add(two)
	if ov.Top() != two || len(ov.List()) != 2 {
		t.Errorf("overlays %v", ov.List())
	}
	ov.Remove(one) // and everything above it
	if ov.Top() != nil {
		t.Errorf("after removing the bottom overlay: top %v", ov.Top())
	}

	e := widget.NewEntry()
	w.SetContent(e)
	w.Canvas().Focus(e)
	if w.Canvas().Focused() != e {
		t.Error("the entry did not take the focus")
	}
	w.Canvas().Unfocus()
	if w.Canvas().Focused() != nil {
		t.Error("Unfocus left the focus")
	}

	p := a.Preferences()
	p.SetStringList("recent", []string{"a", "b"})
	p.SetInt("n", 3)
	if !slices.Equal(p.StringList("recent"), []string{"a", "b"}) || p.Int("n") != 3 || p.StringWithFallback("none", "z") != "z" {
		t.Errorf("preferences: %v, %d", p.StringList("recent"), p.Int("n"))
	}
	p.RemoveValue("n")
	if p.IntWithFallback("n", 7) != 7 {
		t.Error("a removed value stayed")
	}
	w.Close()
	if len(a.Driver().AllWindows()) != 0 {
		t.Error("a closed window stayed")
	}
}
