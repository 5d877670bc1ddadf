package offscreen

import (
	"image"
	"image/draw"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// windowCanvas is an offscreen window's canvas. It lays its content out as a
// window of Fyne's test driver does (padded by the theme's padding unless
// told otherwise; sized to what Resize asks even below the content's
// minimum, which is where a real window would stop), at scale 1, and
// Capture paints it.
type windowCanvas struct {
	mu      sync.Mutex
	size    fyne.Size
	resized bool
	pad     bool
	content fyne.CanvasObject
	overlay overlays
	focused fyne.Focusable

	onTypedRune func(rune)
	onTypedKey  func(*fyne.KeyEvent)
	fyne.ShortcutHandler
}

func newCanvas() *windowCanvas {
	c := &windowCanvas{pad: true, size: fyne.NewSize(100, 100)}
	c.overlay.c = c
	return c
}

// Capture paints the canvas: the theme's background, the content and the
// overlays over it.
func (c *windowCanvas) Capture() image.Image {
	size := c.Size()
	bounds := image.Rect(0, 0, toScreen(c, size.Width), toScreen(c, size.Height))
	img := image.NewNRGBA(bounds)
	draw.Draw(img, bounds, image.NewUniform(theme.Color(theme.ColorNameBackground)), image.Point{}, draw.Src)
	draw.Draw(img, bounds, paint(c), image.Point{}, draw.Over)
	return img
}

func (c *windowCanvas) Content() fyne.CanvasObject {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content
}

// SetContent shows o, sized to the canvas (to o's minimum while the
// canvas was never resized).
func (c *windowCanvas) SetContent(o fyne.CanvasObject) {
	c.mu.Lock()
	c.content = o
	c.focused = nil
	resized, pad, size := c.resized, c.pad, c.size
	c.mu.Unlock()
	if o == nil {
		return
	}
	min := o.MinSize()
	if pad {
		min = min.Add(fyne.NewSquareSize(theme.Padding() * 2))
	}
	if resized {
		c.layout(size.Max(min))
	} else {
		c.layout(min)
	}
}

// Resize sizes the canvas and lays its content and overlays out.
func (c *windowCanvas) Resize(size fyne.Size) {
	c.mu.Lock()
	c.resized = true
	c.mu.Unlock()
	c.layout(size)
}

// layout makes the canvas size big and lays out what it shows, as Fyne's
// test canvas does: a pop-up is refreshed (it sizes itself to the
// canvas), other overlays take the whole canvas, the content the canvas
// less the padding.
func (c *windowCanvas) layout(size fyne.Size) {
	c.mu.Lock()
	c.size = size
	content, pad := c.content, c.pad
	c.mu.Unlock()
	if content == nil {
		return
	}
	for _, o := range c.overlay.List() {
		if p, ok := o.(interface {
			fyne.CanvasObject
			ShowAtPosition(fyne.Position)
		}); ok {
			p.Refresh()
		} else {
			o.Resize(size)
		}
	}
	if pad {
		p := theme.Padding()
		content.Resize(size.Subtract(fyne.NewSquareSize(p * 2)))
		content.Move(fyne.NewSquareOffsetPos(p))
	} else {
		content.Resize(size)
		content.Move(fyne.NewPos(0, 0))
	}
}

func (c *windowCanvas) padded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pad
}

func (c *windowCanvas) setPadded(on bool) {
	c.mu.Lock()
	c.pad = on
	size := c.size
	c.mu.Unlock()
	c.layout(size)
}

// Refresh does nothing: every Capture paints the whole canvas.
func (c *windowCanvas) Refresh(fyne.CanvasObject) {}

// Focus gives obj the keyboard, telling the object that had it.
func (c *windowCanvas) Focus(obj fyne.Focusable) {
	c.mu.Lock()
	old := c.focused
	c.focused = obj
	c.mu.Unlock()
	if old == obj {
		return
	}
	if old != nil {
		old.FocusLost()
	}
	if obj != nil {
		obj.FocusGained()
	}
}

// FocusNext and FocusPrevious do nothing: no one tabs through an
// offscreen window.
func (c *windowCanvas) FocusNext()     {}
func (c *windowCanvas) FocusPrevious() {}
func (c *windowCanvas) Unfocus()       { c.Focus(nil) }

func (c *windowCanvas) Focused() fyne.Focusable {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.focused
}

func (c *windowCanvas) Size() fyne.Size {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

func (c *windowCanvas) Scale() float32              { return 1 }
func (c *windowCanvas) Overlays() fyne.OverlayStack { return &c.overlay }

func (c *windowCanvas) OnTypedRune() func(rune) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.onTypedRune
}

func (c *windowCanvas) SetOnTypedRune(f func(rune)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTypedRune = f
}

func (c *windowCanvas) OnTypedKey() func(*fyne.KeyEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.onTypedKey
}

func (c *windowCanvas) SetOnTypedKey(f func(*fyne.KeyEvent)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTypedKey = f
}

func (c *windowCanvas) PixelCoordinateForPosition(pos fyne.Position) (int, int) {
	return int(pos.X), int(pos.Y)
}

// InteractiveArea is the whole canvas: an offscreen window has no
// system bars or notch.
func (c *windowCanvas) InteractiveArea() (fyne.Position, fyne.Size) {
	return fyne.Position{}, c.Size()
}

// objectTrees are the content and the overlays, bottom first.
func (c *windowCanvas) objectTrees() []fyne.CanvasObject {
	var trees []fyne.CanvasObject
	if o := c.Content(); o != nil {
		trees = append(trees, o)
	}
	return append(trees, c.overlay.List()...)
}

// overlays are a canvas's pop-ups and dialogs, bottom first.
type overlays struct {
	c     *windowCanvas
	mu    sync.Mutex
	stack []fyne.CanvasObject
}

// Add puts o on top.
func (s *overlays) Add(o fyne.CanvasObject) {
	if o == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stack = append(s.stack, o)
}

func (s *overlays) List() []fyne.CanvasObject {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stack)
}

// Remove takes o and the overlays above it off.
func (s *overlays) Remove(o fyne.CanvasObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.stack, o); i >= 0 {
		clear(s.stack[i:])
		s.stack = s.stack[:i]
	}
}

func (s *overlays) Top() fyne.CanvasObject {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.stack) == 0 {
		return nil
	}
	return s.stack[len(s.stack)-1]
}
