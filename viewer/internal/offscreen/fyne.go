package offscreen

import (
	"image"
	"image/color"
	"image/draw"
	_ "unsafe" // go:linkname

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/go-text/typesetting/shaping"
)

// The Fyne functions this driver paints and measures with. Fyne keeps
// them in internal packages (its GL and software painters and its test
// driver share them); a driver outside Fyne can only reach them by name.
// They are linked in any case: the GL driver every voxlab binary carries
// uses them. Using Fyne's own code is what makes an offscreen image the
// one Fyne's software painter draws, pixel for pixel: the same text
// shaping and measuring (widgets lay themselves out by the sizes the
// driver measures), the same rasterised rectangles, circles and icons.
//
// Each declaration must match Fyne's signature exactly; the linker
// checks only the name. TestMatchesFyneSoftwarePainter (package viewer)
// draws the viewer and TestOffscreenMatchesFyne (package panel) the
// processing panel both ways and compares every pixel, so a Fyne upgrade
// that changes one of them fails there (a renamed function fails to
// link). The versions in go.mod are those these were written against
// (fyne.io/fyne/v2 v2.7.1).

// renderer is fyne.io/fyne/v2/internal/cache.Renderer: the renderer Fyne
// made for a widget and lays out, created if there is none.
//
//go:linkname renderer fyne.io/fyne/v2/internal/cache.Renderer
func renderer(wid fyne.Widget) fyne.WidgetRenderer

// resetThemeCaches is fyne.io/fyne/v2/internal/cache.ResetThemeCaches:
// it forgets the rasterised icons and the measured text of another theme.
//
//go:linkname resetThemeCaches fyne.io/fyne/v2/internal/cache.ResetThemeCaches
func resetThemeCaches()

// walkVisibleObjectTree is
// fyne.io/fyne/v2/internal/driver.WalkVisibleObjectTree: it calls before
// for each visible object of the tree under obj, parents first, with its
// absolute position and the clip (the innermost scroller) it is drawn in.
//
//go:linkname walkVisibleObjectTree fyne.io/fyne/v2/internal/driver.WalkVisibleObjectTree
func walkVisibleObjectTree(obj fyne.CanvasObject,
	before func(fyne.CanvasObject, fyne.Position, fyne.Position, fyne.Size) bool,
	after func(fyne.CanvasObject, fyne.Position, fyne.CanvasObject)) bool

// absolutePositionForObject is
// fyne.io/fyne/v2/internal/driver.AbsolutePositionForObject: an
// object's position in whichever of trees holds it.
//
//go:linkname absolutePositionForObject fyne.io/fyne/v2/internal/driver.AbsolutePositionForObject
func absolutePositionForObject(object fyne.CanvasObject, trees []fyne.CanvasObject) fyne.Position

// renderedTextSize is fyne.io/fyne/v2/internal/painter.RenderedTextSize.
//
//go:linkname renderedTextSize fyne.io/fyne/v2/internal/painter.RenderedTextSize
func renderedTextSize(text string, fontSize float32, style fyne.TextStyle, source fyne.Resource) (size fyne.Size, baseline float32)

// clearFontCache is fyne.io/fyne/v2/internal/painter.ClearFontCache.
//
//go:linkname clearFontCache fyne.io/fyne/v2/internal/painter.ClearFontCache
func clearFontCache()

// fontCacheItem has the layout of
// fyne.io/fyne/v2/internal/painter.FontCacheItem.
type fontCacheItem struct {
	Fonts shaping.Fontmap
}

// cachedFontFace is fyne.io/fyne/v2/internal/painter.CachedFontFace: the
// fonts a text of style (or from source) is shaped with.
//
//go:linkname cachedFontFace fyne.io/fyne/v2/internal/painter.CachedFontFace
func cachedFontFace(style fyne.TextStyle, source fyne.Resource, o fyne.CanvasObject) *fontCacheItem

// drawString is fyne.io/fyne/v2/internal/painter.DrawString.
//
//go:linkname drawString fyne.io/fyne/v2/internal/painter.DrawString
func drawString(dst draw.Image, s string, color color.Color, f shaping.Fontmap, fontSize, scale float32, style fyne.TextStyle)

// paintImage is fyne.io/fyne/v2/internal/painter.PaintImage: an image,
// SVG or raster, at width x height device pixels.
//
//go:linkname paintImage fyne.io/fyne/v2/internal/painter.PaintImage
func paintImage(img *canvas.Image, c fyne.Canvas, width, height int) image.Image

// The rasterisers of fyne.io/fyne/v2/internal/painter: each returns the
// object (padded by vectorPad for its stroke) at the canvas's scale.

//go:linkname drawArc fyne.io/fyne/v2/internal/painter.DrawArc
func drawArc(arc *canvas.Arc, vectorPad float32, scale func(float32) float32) *image.RGBA

//go:linkname drawCircle fyne.io/fyne/v2/internal/painter.DrawCircle
func drawCircle(circle *canvas.Circle, vectorPad float32, scale func(float32) float32) *image.RGBA

//go:linkname drawLine fyne.io/fyne/v2/internal/painter.DrawLine
func drawLine(line *canvas.Line, vectorPad float32, scale func(float32) float32) *image.RGBA

//go:linkname drawPolygon fyne.io/fyne/v2/internal/painter.DrawPolygon
func drawPolygon(polygon *canvas.Polygon, vectorPad float32, scale func(float32) float32) *image.RGBA

//go:linkname drawRectangle fyne.io/fyne/v2/internal/painter.DrawRectangle
func drawRectangle(rect *canvas.Rectangle, rWidth, rHeight, vectorPad float32, scale func(float32) float32) *image.RGBA

// Objects returns what widget w draws: the objects of the renderer Fyne
// made for it and lays out (what the painter walks), whichever driver
// runs it.
func Objects(w fyne.Widget) []fyne.CanvasObject { return renderer(w).Objects() }
