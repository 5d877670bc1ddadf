package offscreen

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// driver is the offscreen fyne.Driver. Its windows are never shown; the
// most recent one is the canvas of every object (CanvasForObject), as in
// Fyne's test driver: an offscreen rendering has one window.
type driver struct {
	mu      sync.Mutex
	windows []*window
}

func (d *driver) CreateWindow(title string) fyne.Window {
	w := &window{title: title, driver: d}
	w.canvas = newCanvas()
	d.mu.Lock()
	d.windows = append(d.windows, w)
	d.mu.Unlock()
	return w
}

func (d *driver) AllWindows() []fyne.Window {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]fyne.Window, len(d.windows))
	for i, w := range d.windows {
		out[i] = w
	}
	return out
}

// RenderedTextSize measures text as Fyne's painters draw it.
func (d *driver) RenderedTextSize(text string, size float32, style fyne.TextStyle, source fyne.Resource) (fyne.Size, float32) {
	return renderedTextSize(text, size, style, source)
}

func (d *driver) CanvasForObject(fyne.CanvasObject) fyne.Canvas {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.windows) == 0 {
		return nil
	}
	return d.windows[len(d.windows)-1].canvas
}

func (d *driver) AbsolutePositionForObject(o fyne.CanvasObject) fyne.Position {
	c, ok := d.CanvasForObject(o).(*windowCanvas)
	if !ok {
		return fyne.Position{}
	}
	return absolutePositionForObject(o, c.objectTrees())
}

func (d *driver) Device() fyne.Device { return device{} }
func (d *driver) Run()                {}
func (d *driver) Quit()               {}

// StartAnimation ends the animation at once: nothing is shown while it
// would run.
func (d *driver) StartAnimation(a *fyne.Animation) { a.Tick(1) }
func (d *driver) StopAnimation(*fyne.Animation)    {}

func (d *driver) DoubleTapDelay() time.Duration { return 300 * time.Millisecond }
func (d *driver) SetDisableScreenBlanking(bool) {}

// DoFromGoroutine runs fn at once: there is no event loop to hand it to,
// and whoever drives the windows calls fyne.Do from the goroutine that
// drives them.
func (d *driver) DoFromGoroutine(fn func(), _ bool) { fn() }

func (d *driver) remove(w *window) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.windows = slices.DeleteFunc(d.windows, func(x *window) bool { return x == w })
}

// device is a desktop with a keyboard, at scale 1.
type device struct{}

func (device) Orientation() fyne.DeviceOrientation      { return fyne.OrientationHorizontalLeft }
func (device) IsMobile() bool                           { return false }
func (device) IsBrowser() bool                          { return runtime.GOOS == "js" }
func (device) HasKeyboard() bool                        { return true }
func (device) SystemScaleForWindow(fyne.Window) float32 { return 1 }
func (device) Locale() fyne.Locale                      { return "en" }

// window is an offscreen window: its canvas, and what a window keeps.
// Like the canvas's content, it is used from the goroutine that drives
// the app.
type window struct {
	driver *driver
	canvas *windowCanvas

	title      string
	fullScreen bool
	fixedSize  bool
	icon       fyne.Resource
	menu       *fyne.MainMenu
	onClosed   func()
}

func (w *window) Title() string                  { return w.title }
func (w *window) SetTitle(t string)              { w.title = t }
func (w *window) FullScreen() bool               { return w.fullScreen }
func (w *window) SetFullScreen(on bool)          { w.fullScreen = on }
func (w *window) FixedSize() bool                { return w.fixedSize }
func (w *window) SetFixedSize(on bool)           { w.fixedSize = on }
func (w *window) Icon() fyne.Resource            { return w.icon }
func (w *window) SetIcon(r fyne.Resource)        { w.icon = r }
func (w *window) MainMenu() *fyne.MainMenu       { return w.menu }
func (w *window) SetOnClosed(f func())           { w.onClosed = f }
func (w *window) Padded() bool                   { return w.canvas.padded() }
func (w *window) SetPadded(padded bool)          { w.canvas.setPadded(padded) }
func (w *window) Clipboard() fyne.Clipboard      { return fyne.CurrentApp().Clipboard() }
func (w *window) Content() fyne.CanvasObject     { return w.canvas.Content() }
func (w *window) SetContent(o fyne.CanvasObject) { w.canvas.SetContent(o) }
func (w *window) Canvas() fyne.Canvas            { return w.canvas }

// SetMainMenu keeps the menu; like Fyne's test windows, the window does
// not draw it.
func (w *window) SetMainMenu(m *fyne.MainMenu) { w.menu = m }

// Resize sizes the canvas (to size, even when the content's minimum is
// larger, as Fyne's test windows do).
func (w *window) Resize(size fyne.Size) { w.canvas.Resize(size) }

// Nothing is shown, so nothing moves, takes the focus or is dropped on.
func (w *window) RequestFocus()                                {}
func (w *window) CenterOnScreen()                              {}
func (w *window) SetMaster()                                   {}
func (w *window) Show()                                        {}
func (w *window) Hide()                                        {}
func (w *window) ShowAndRun()                                  {}
func (w *window) SetCloseIntercept(func())                     {}
func (w *window) SetOnDropped(func(fyne.Position, []fyne.URI)) {}

// Close closes the window: its OnClosed runs and the driver forgets it.
func (w *window) Close() {
	if w.onClosed != nil {
		w.onClosed()
	}
	w.driver.remove(w)
}
