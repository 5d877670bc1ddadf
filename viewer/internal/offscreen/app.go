package offscreen

import (
	"errors"
	"net/url"
	"os"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
)

// NewApp starts an offscreen app whose windows are drawn in theme th and
// makes it the current Fyne app (fyne.SetCurrentApp): widgets made from
// now on measure their text with it, and its windows' Capture returns
// what they show. It replaces the current app: call it in a process that
// runs no other Fyne app, before the widgets are made.
//
// Callbacks that widgets hand to fyne.Do run at once, on the caller's
// goroutine: drive the windows from one goroutine.
func NewApp(th fyne.Theme) fyne.App {
	a := &app{prefs: &preferences{values: map[string]any{}}}
	a.settings = &settings{theme: th}
	a.driver = &driver{}
	// Icons and text measured in another app's theme would be reused.
	clearFontCache()
	resetThemeCaches()
	fyne.SetCurrentApp(a)
	return a
}

// app is the offscreen fyne.App: no event loop, no notifications, no
// cloud, preferences in memory (a screenshot leaves the user's recent
// files as they were).
type app struct {
	driver   *driver
	settings *settings
	prefs    *preferences
	clip     clipboard
}

func (a *app) NewWindow(title string) fyne.Window  { return a.driver.CreateWindow(title) }
func (a *app) OpenURL(*url.URL) error              { return errors.New("offscreen: no browser to open a URL in") }
func (a *app) Icon() fyne.Resource                 { return nil }
func (a *app) SetIcon(fyne.Resource)               {}
func (a *app) Run()                                {}
func (a *app) Quit()                               {}
func (a *app) Driver() fyne.Driver                 { return a.driver }
func (a *app) UniqueID() string                    { return "voxlab-offscreen" }
func (a *app) SendNotification(*fyne.Notification) {}
func (a *app) Settings() fyne.Settings             { return a.settings }
func (a *app) Preferences() fyne.Preferences       { return a.prefs }
func (a *app) Storage() fyne.Storage               { return noStorage{} }
func (a *app) Lifecycle() fyne.Lifecycle           { return lifecycle{} }
func (a *app) Metadata() fyne.AppMetadata          { return fyne.AppMetadata{} }
func (a *app) CloudProvider() fyne.CloudProvider   { return nil }
func (a *app) SetCloudProvider(fyne.CloudProvider) {}
func (a *app) Clipboard() fyne.Clipboard           { return &a.clip }
func (a *app) SetOnEnteredForeground(func())       {}
func (a *app) SetOnExitedForeground(func())        {}
func (a *app) SetOnStarted(func())                 {}
func (a *app) SetOnStopped(func())                 {}

// settings are the app's: its theme at scale 1.
type settings struct {
	mu        sync.Mutex
	theme     fyne.Theme
	listeners []func(fyne.Settings)
	chans     []chan fyne.Settings
}

func (s *settings) Theme() fyne.Theme {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.theme
}

// SetTheme changes the theme of the widgets made or refreshed afterwards.
func (s *settings) SetTheme(th fyne.Theme) {
	s.mu.Lock()
	s.theme = th
	listeners, chans := slices.Clone(s.listeners), slices.Clone(s.chans)
	s.mu.Unlock()
	clearFontCache()
	resetThemeCaches()
	for _, c := range chans {
		c <- s
	}
	for _, l := range listeners {
		l(s)
	}
}

func (s *settings) ThemeVariant() fyne.ThemeVariant { return theme.VariantDark }
func (s *settings) Scale() float32                  { return 1 }
func (s *settings) PrimaryColor() string            { return theme.ColorBlue }
func (s *settings) BuildType() fyne.BuildType       { return fyne.BuildStandard }

// ShowAnimations is true, as for Fyne's test app: animations start, and
// the driver ends them at once (StartAnimation).
func (s *settings) ShowAnimations() bool { return true }

func (s *settings) AddChangeListener(c chan fyne.Settings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chans = append(s.chans, c)
}

func (s *settings) AddListener(f func(fyne.Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, f)
}

// preferences hold the app's preferences in memory.
type preferences struct {
	mu        sync.Mutex
	values    map[string]any
	listeners []func()
}

// value returns key's value if it has type T, else fallback.
func value[T any](p *preferences, key string, fallback T) T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.values[key].(T); ok {
		return v
	}
	return fallback
}

// list returns a copy of key's list if it holds []T, else fallback.
func list[T any](p *preferences, key string, fallback []T) []T {
	return slices.Clone(value(p, key, fallback))
}

// set stores key's value and tells the listeners.
func set(p *preferences, key string, v any) {
	p.mu.Lock()
	if v == nil {
		delete(p.values, key)
	} else {
		p.values[key] = v
	}
	listeners := slices.Clone(p.listeners)
	p.mu.Unlock()
	for _, l := range listeners {
		l()
	}
}

func (p *preferences) Bool(key string) bool                     { return value(p, key, false) }
func (p *preferences) BoolWithFallback(key string, f bool) bool { return value(p, key, f) }
func (p *preferences) SetBool(key string, v bool)               { set(p, key, v) }
func (p *preferences) BoolList(key string) []bool               { return list[bool](p, key, nil) }
func (p *preferences) BoolListWithFallback(k string, f []bool) []bool {
	return list(p, k, f)
}
func (p *preferences) SetBoolList(key string, v []bool)                { set(p, key, slices.Clone(v)) }
func (p *preferences) Float(key string) float64                        { return value(p, key, 0.0) }
func (p *preferences) FloatWithFallback(key string, f float64) float64 { return value(p, key, f) }
func (p *preferences) SetFloat(key string, v float64)                  { set(p, key, v) }
func (p *preferences) FloatList(key string) []float64                  { return list[float64](p, key, nil) }
func (p *preferences) FloatListWithFallback(k string, f []float64) []float64 {
	return list(p, k, f)
}
func (p *preferences) SetFloatList(key string, v []float64)  { set(p, key, slices.Clone(v)) }
func (p *preferences) Int(key string) int                    { return value(p, key, 0) }
func (p *preferences) IntWithFallback(key string, f int) int { return value(p, key, f) }
func (p *preferences) SetInt(key string, v int)              { set(p, key, v) }
func (p *preferences) IntList(key string) []int              { return list[int](p, key, nil) }
func (p *preferences) IntListWithFallback(k string, f []int) []int {
	return list(p, k, f)
}
func (p *preferences) SetIntList(key string, v []int)          { set(p, key, slices.Clone(v)) }
func (p *preferences) String(key string) string                { return value(p, key, "") }
func (p *preferences) StringWithFallback(key, f string) string { return value(p, key, f) }
func (p *preferences) SetString(key string, v string)          { set(p, key, v) }
func (p *preferences) StringList(key string) []string          { return list[string](p, key, nil) }
func (p *preferences) StringListWithFallback(k string, f []string) []string {
	return list(p, k, f)
}
func (p *preferences) SetStringList(key string, v []string) { set(p, key, slices.Clone(v)) }
func (p *preferences) RemoveValue(key string)               { set(p, key, nil) }

func (p *preferences) AddChangeListener(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, f)
}

func (p *preferences) ChangeListeners() []func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.listeners)
}

// noStorage is the app's storage: none (the root is the temporary
// folder, and nothing is kept there).
type noStorage struct{}

var errNoStorage = errors.New("offscreen: the app has no storage")

func (noStorage) RootURI() fyne.URI                          { return storage.NewFileURI(os.TempDir()) }
func (noStorage) Create(string) (fyne.URIWriteCloser, error) { return nil, errNoStorage }
func (noStorage) Open(string) (fyne.URIReadCloser, error)    { return nil, errNoStorage }
func (noStorage) Save(string) (fyne.URIWriteCloser, error)   { return nil, errNoStorage }
func (noStorage) Remove(string) error                        { return errNoStorage }
func (noStorage) List() []string                             { return nil }

// lifecycle ignores the app's lifecycle hooks: it never runs.
type lifecycle struct{}

func (lifecycle) SetOnEnteredForeground(func()) {}
func (lifecycle) SetOnExitedForeground(func())  {}
func (lifecycle) SetOnStarted(func())           {}
func (lifecycle) SetOnStopped(func())           {}

// clipboard is the app's clipboard, in memory.
type clipboard struct {
	mu      sync.Mutex
	content string
}

func (c *clipboard) Content() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.content
}

func (c *clipboard) SetContent(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.content = s
}
