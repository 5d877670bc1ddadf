package offscreen

// This file is Fyne's software painter (fyne.io/fyne/v2/internal/painter/
// software, painter.go and draw.go of v2.7.1, with VectorPad of
// internal/painter/vector.go), which Fyne keeps internal and links only
// into its test driver; the rasterisers and the text drawing it calls are
// Fyne's own (fyne.go). Copyright (C) 2018 Fyne.io developers, under the
// BSD 3-Clause License in LICENSE.fyne beside this file. Changed from
// Fyne's: the names, the body its vector objects repeat written once
// (paintVector), and the helpers of internal packages written out
// (toScreen, cornerRadius, maximumRadius).

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"golang.org/x/image/draw"
)

// paint draws the canvas c into a new image of its size in device
// pixels: its content, then its overlays (Fyne's software painter).
func paint(c fyne.Canvas) image.Image {
	bounds := image.Rect(0, 0, toScreen(c, c.Size().Width), toScreen(c, c.Size().Height))
	base := image.NewNRGBA(bounds)

	each := func(obj fyne.CanvasObject, pos, clipPos fyne.Position, clipSize fyne.Size) bool {
		w := fyne.Min(clipPos.X+clipSize.Width, c.Size().Width)
		h := fyne.Min(clipPos.Y+clipSize.Height, c.Size().Height)
		clip := image.Rect(
			toScreen(c, clipPos.X),
			toScreen(c, clipPos.Y),
			toScreen(c, w),
			toScreen(c, h),
		)
		switch o := obj.(type) {
		case *canvas.Image:
			paintImageObject(c, o, pos, base, clip)
		case *canvas.Text:
			paintText(c, o, pos, base, clip)
		case gradient:
			paintGradient(c, o, pos, base, clip)
		case *canvas.Circle:
			paintCircle(c, o, pos, base, clip)
		case *canvas.Line:
			paintLine(c, o, pos, base, clip)
		case *canvas.Polygon:
			paintPolygon(c, o, pos, base, clip)
		case *canvas.Raster:
			paintRaster(c, o, pos, base, clip)
		case *canvas.Rectangle:
			paintRectangle(c, o, pos, base, clip)
		case *canvas.Arc:
			paintArc(c, o, pos, base, clip)
		}

		return false
	}

	walkVisibleObjectTree(c.Content(), each, nil)
	for _, o := range c.Overlays().List() {
		walkVisibleObjectTree(o, each, nil)
	}

	return base
}

// gradient is a linear or radial gradient.
type gradient interface {
	Generate(int, int) image.Image
	Size() fyne.Size
}

func paintArc(c fyne.Canvas, arc *canvas.Arc, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	paintVector(c, arc, arc.Size(), pos, base, clip, func(pad float32, scale func(float32) float32) *image.RGBA {
		return drawArc(arc, pad, scale)
	})
}

func paintCircle(c fyne.Canvas, circle *canvas.Circle, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	paintVector(c, circle, circle.Size(), pos, base, clip, func(pad float32, scale func(float32) float32) *image.RGBA {
		return drawCircle(circle, pad, scale)
	})
}

func paintGradient(c fyne.Canvas, g gradient, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	bounds := g.Size()
	width := toScreen(c, bounds.Width)
	height := toScreen(c, bounds.Height)
	tex := g.Generate(width, height)
	drawTex(toScreen(c, pos.X), toScreen(c, pos.Y), width, height, base, tex, clip, 1.0)
}

func paintImageObject(c fyne.Canvas, img *canvas.Image, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	bounds := img.Size()
	if bounds.IsZero() {
		return
	}
	width := toScreen(c, bounds.Width)
	height := toScreen(c, bounds.Height)
	scaledX, scaledY := toScreen(c, pos.X), toScreen(c, pos.Y)

	origImg := img.Image
	if img.FillMode != canvas.ImageFillCover {
		origImg = paintImage(img, c, width, height)
	}

	if img.FillMode == canvas.ImageFillContain {
		imgAspect := img.Aspect()
		objAspect := float32(width) / float32(height)

		if objAspect > imgAspect {
			newWidth := int(float32(height) * imgAspect)
			scaledX += (width - newWidth) / 2
			width = newWidth
		} else if objAspect < imgAspect {
			newHeight := int(float32(width) / imgAspect)
			scaledY += (height - newHeight) / 2
			height = newHeight
		}
	} else if img.FillMode == canvas.ImageFillCover {
		inner := origImg.Bounds()
		imgAspect := img.Aspect()
		objAspect := float32(width) / float32(height)

		if objAspect > imgAspect {
			newHeight := float32(width) / imgAspect
			heightPad := (newHeight - float32(height)) / 2
			pixPad := int((heightPad / newHeight) * float32(inner.Dy()))

			inner = image.Rect(inner.Min.X, inner.Min.Y+pixPad, inner.Max.X, inner.Max.Y-pixPad)
		} else if objAspect < imgAspect {
			newWidth := float32(height) * imgAspect
			widthPad := (newWidth - float32(width)) / 2
			pixPad := int((widthPad / newWidth) * float32(inner.Dx()))

			inner = image.Rect(inner.Min.X+pixPad, inner.Min.Y, inner.Max.X-pixPad, inner.Max.Y)
		}

		subImg := image.NewRGBA(inner.Bounds())
		draw.Copy(subImg, inner.Min, origImg, inner, draw.Over, nil)
		origImg = subImg
	}

	cornerRadius := fyne.Min(maximumRadius(bounds), img.CornerRadius)
	drawPixels(scaledX, scaledY, width, height, img.ScaleMode, base, origImg, clip, img.Alpha(), cornerRadius*c.Scale())
}

func drawPixels(x, y, width, height int, mode canvas.ImageScale, base *image.NRGBA, origImg image.Image, clip image.Rectangle, alpha float64, radius float32) {
	if origImg.Bounds().Dx() == width && origImg.Bounds().Dy() == height && radius < 0.5 {
		// do not scale or duplicate image since not needed, draw directly
		drawTex(x, y, width, height, base, origImg, clip, alpha)
		return
	}

	scaledBounds := image.Rect(0, 0, width, height)
	scaledImg := image.NewNRGBA(scaledBounds)
	switch mode {
	case canvas.ImageScalePixels:
		draw.NearestNeighbor.Scale(scaledImg, scaledBounds, origImg, origImg.Bounds(), draw.Over, nil)
	case canvas.ImageScaleFastest:
		draw.ApproxBiLinear.Scale(scaledImg, scaledBounds, origImg, origImg.Bounds(), draw.Over, nil)
	default:
		if mode != canvas.ImageScaleSmooth {
			fyne.LogError(fmt.Sprintf("Invalid canvas.ImageScale value (%d), using canvas.ImageScaleSmooth as default value", mode), nil)
		}
		draw.CatmullRom.Scale(scaledImg, scaledBounds, origImg, origImg.Bounds(), draw.Over, nil)
	}

	if radius > 0.5 {
		applyRoundedCorners(scaledImg, width, height, radius)
	}

	drawTex(x, y, width, height, base, scaledImg, clip, alpha)
}

func paintLine(c fyne.Canvas, line *canvas.Line, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	paintVector(c, line, line.Size(), pos, base, clip, func(pad float32, scale func(float32) float32) *image.RGBA {
		return drawLine(line, pad, scale)
	})
}

func drawTex(x, y, width, height int, base *image.NRGBA, tex image.Image, clip image.Rectangle, alpha float64) {
	outBounds := image.Rect(x, y, x+width, y+height)
	clippedBounds := clip.Intersect(outBounds)
	srcPt := image.Point{X: clippedBounds.Min.X - outBounds.Min.X, Y: clippedBounds.Min.Y - outBounds.Min.Y}
	if alpha == 1.0 {
		draw.Draw(base, clippedBounds, tex, srcPt, draw.Over)
	} else {
		mask := &image.Uniform{C: color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: uint8(float64(0xff) * alpha)}}
		draw.DrawMask(base, clippedBounds, tex, srcPt, mask, srcPt, draw.Over)
	}
}

func paintText(c fyne.Canvas, text *canvas.Text, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	bounds := text.MinSize()
	width := toScreen(c, bounds.Width+vectorPad(text))
	height := toScreen(c, bounds.Height)
	txtImg := image.NewRGBA(image.Rect(0, 0, width, height))

	color := text.Color
	if color == nil {
		color = theme.Color(theme.ColorNameForeground)
	}

	face := cachedFontFace(text.TextStyle, text.FontSource, text)
	drawString(txtImg, text.Text, color, face.Fonts, text.TextSize, c.Scale(), text.TextStyle)

	size := text.Size()
	offsetX := float32(0)
	offsetY := float32(0)
	switch text.Alignment {
	case fyne.TextAlignTrailing:
		offsetX = size.Width - bounds.Width
	case fyne.TextAlignCenter:
		offsetX = (size.Width - bounds.Width) / 2
	}
	if size.Height > bounds.Height {
		offsetY = (size.Height - bounds.Height) / 2
	}
	scaledX := toScreen(c, pos.X+offsetX)
	scaledY := toScreen(c, pos.Y+offsetY)
	imgBounds := image.Rect(scaledX, scaledY, scaledX+width, scaledY+height)
	clippedBounds := clip.Intersect(imgBounds)
	srcPt := image.Point{X: clippedBounds.Min.X - imgBounds.Min.X, Y: clippedBounds.Min.Y - imgBounds.Min.Y}
	draw.Draw(base, clippedBounds, txtImg, srcPt, draw.Over)
}

func paintRaster(c fyne.Canvas, rast *canvas.Raster, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	bounds := rast.Size()
	if bounds.IsZero() {
		return
	}
	width := toScreen(c, bounds.Width)
	height := toScreen(c, bounds.Height)
	scaledX, scaledY := toScreen(c, pos.X), toScreen(c, pos.Y)

	pix := rast.Generator(width, height)
	if pix.Bounds().Bounds().Dx() != width || pix.Bounds().Dy() != height {
		drawPixels(scaledX, scaledY, width, height, rast.ScaleMode, base, pix, clip, 1.0, 0.0)
	} else {
		drawTex(scaledX, scaledY, width, height, base, pix, clip, 1.0)
	}
}

func drawOblongStroke(c fyne.Canvas, obj fyne.CanvasObject, width, height float32, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	paintVector(c, obj, fyne.NewSize(width, height), pos, base, clip, func(pad float32, scale func(float32) float32) *image.RGBA {
		return drawRectangle(obj.(*canvas.Rectangle), width, height, pad, scale)
	})
}

func paintPolygon(c fyne.Canvas, polygon *canvas.Polygon, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	paintVector(c, polygon, polygon.Size(), pos, base, clip, func(pad float32, scale func(float32) float32) *image.RGBA {
		return drawPolygon(polygon, pad, scale)
	})
}

// paintVector draws what raster rasterises of obj, size large at pos and
// padded by vectorPad for its stroke: the body Fyne's software painter
// repeats for arcs, circles, lines, polygons and stroked or rounded
// rectangles.
func paintVector(c fyne.Canvas, obj fyne.CanvasObject, size fyne.Size, pos fyne.Position, base *image.NRGBA, clip image.Rectangle,
	raster func(pad float32, scale func(float32) float32) *image.RGBA) {
	pad := vectorPad(obj)
	scaledWidth := toScreen(c, size.Width+pad*2)
	scaledHeight := toScreen(c, size.Height+pad*2)
	scaledX, scaledY := toScreen(c, pos.X-pad), toScreen(c, pos.Y-pad)
	bounds := clip.Intersect(image.Rect(scaledX, scaledY, scaledX+scaledWidth, scaledY+scaledHeight))

	raw := raster(pad, func(in float32) float32 {
		return float32(math.Round(float64(in) * float64(c.Scale())))
	})

	// the clip intersect above cannot be negative, so we may need to compensate
	offX, offY := 0, 0
	if scaledX < 0 {
		offX = -scaledX
	}
	if scaledY < 0 {
		offY = -scaledY
	}
	draw.Draw(base, bounds, raw, image.Point{offX, offY}, draw.Over)
}

func paintRectangle(c fyne.Canvas, rect *canvas.Rectangle, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	topRightRadius := cornerRadius(rect.TopRightCornerRadius, rect.CornerRadius)
	topLeftRadius := cornerRadius(rect.TopLeftCornerRadius, rect.CornerRadius)
	bottomRightRadius := cornerRadius(rect.BottomRightCornerRadius, rect.CornerRadius)
	bottomLeftRadius := cornerRadius(rect.BottomLeftCornerRadius, rect.CornerRadius)
	drawOblong(c, rect, rect.FillColor, rect.StrokeColor, rect.StrokeWidth, topRightRadius, topLeftRadius, bottomRightRadius, bottomLeftRadius, rect.Aspect, pos, base, clip)
}

func drawOblong(c fyne.Canvas, obj fyne.CanvasObject, fill, stroke color.Color, strokeWidth, topRightRadius, topLeftRadius, bottomRightRadius, bottomLeftRadius, aspect float32, pos fyne.Position, base *image.NRGBA, clip image.Rectangle) {
	width, height := obj.Size().Components()
	if aspect != 0 {
		frameAspect := width / height

		xPad, yPad := float32(0), float32(0)
		if frameAspect > aspect {
			newWidth := height * aspect
			xPad = (width - newWidth) / 2
			width = newWidth
		} else if frameAspect < aspect {
			newHeight := width / aspect
			yPad = (height - newHeight) / 2
			height = newHeight
		}

		pos = pos.AddXY(xPad, yPad)
	}

	if (stroke != nil && strokeWidth > 0) || topRightRadius != 0 || topLeftRadius != 0 || bottomRightRadius != 0 || bottomLeftRadius != 0 { // use a rasterizer if there is a stroke or radius
		drawOblongStroke(c, obj, width, height, pos, base, clip)
		return
	}

	scaledWidth := toScreen(c, width)
	scaledHeight := toScreen(c, height)
	scaledX, scaledY := toScreen(c, pos.X), toScreen(c, pos.Y)
	bounds := clip.Intersect(image.Rect(scaledX, scaledY, scaledX+scaledWidth, scaledY+scaledHeight))
	draw.Draw(base, bounds, image.NewUniform(fill), image.Point{}, draw.Over)
}

// applyRoundedCorners rounds the corners of the image in-place
func applyRoundedCorners(img *image.NRGBA, w, h int, radius float32) {
	rInt := int(math.Ceil(float64(radius)))

	aaWidth := float32(0.5)
	outerR2 := (radius + aaWidth) * (radius + aaWidth)
	innerR2 := (radius - aaWidth) * (radius - aaWidth)

	applyCorner := func(startX, endX, startY, endY int, cx, cy float32) {
		for y := startY; y < endY; y++ {
			for x := startX; x < endX; x++ {
				dx := float32(x) - cx
				dy := float32(y) - cy
				dist2 := dx*dx + dy*dy

				i := img.PixOffset(x, y)
				alpha := img.Pix[i+3]

				switch {
				case dist2 >= outerR2:
					img.Pix[i+3] = 0 // Fully transparent
				case dist2 > innerR2:
					// Linear falloff based on squared distance
					t := (outerR2 - dist2) / (outerR2 - innerR2) // t ranges from 0 to 1
					newAlpha := uint8(float32(alpha) * t)
					img.Pix[i+3] = newAlpha
				}
			}
		}
	}

	// Top-left
	r := minInt(rInt, minInt(w, h))
	applyCorner(0, r, 0, r, radius, radius)

	// Top-right
	applyCorner(w-r, w, 0, r, float32(w)-radius, radius)

	// Bottom-left
	applyCorner(0, r, h-r, h, radius, float32(h)-radius)

	// Bottom-right
	applyCorner(w-r, w, h-r, h, float32(w)-radius, float32(h)-radius)
}

func minInt(x, y int) int {
	if x < y {
		return x
	}
	return y
}

// vectorPad returns the number of additional points that should be added around a texture.
// This is to accommodate overflow caused by stroke and line endings etc.
// THe result is in fyne.Size type coordinates and should be scaled for output.
func vectorPad(obj fyne.CanvasObject) float32 {
	switch co := obj.(type) {
	case *canvas.Circle:
		if co.StrokeWidth > 0 && co.StrokeColor != nil {
			return co.StrokeWidth + 2
		}
		return 1 // anti-alias on circle fill
	case *canvas.Line:
		if co.StrokeWidth > 0 {
			return co.StrokeWidth + 2
		}
	case *canvas.Polygon:
		if co.StrokeWidth > 0 && co.StrokeColor != nil {
			return co.StrokeWidth + 2
		}
	case *canvas.Rectangle:
		if co.StrokeWidth > 0 && co.StrokeColor != nil {
			return co.StrokeWidth + 2
		}
	case *canvas.Text:
		if co.TextStyle.Italic {
			return co.TextSize / 5 // make sure that even a 20% lean does not overflow
		}
	case *canvas.Arc:
		if co.StrokeWidth > 0 && co.StrokeColor != nil {
			return co.StrokeWidth + 2
		}
	}

	return 0
}

// toScreen converts a Fyne coordinate of c to device pixels
// (internal/scale.ToScreenCoordinate).
func toScreen(c fyne.Canvas, v float32) int {
	return int(math.Ceil(float64(v * c.Scale())))
}

// cornerRadius is a corner's radius: its own, else the rectangle's
// (internal/painter.GetCornerRadius).
func cornerRadius(perCornerRadius, baseCornerRadius float32) float32 {
	if perCornerRadius == 0.0 {
		return baseCornerRadius
	}
	return perCornerRadius
}

// maximumRadius is the largest corner radius that fits size
// (internal/painter.GetMaximumRadius).
func maximumRadius(size fyne.Size) float32 {
	return fyne.Min(size.Height, size.Width) / 2
}
