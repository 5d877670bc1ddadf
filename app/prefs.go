package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/processing/outfile"
)

// configDirEnv names the folder voxlab keeps its settings in (the recent
// files, the file chooser's last folder), in place of configDir's
// default: the tests give their windows a temporary one.
const configDirEnv = "VOXLAB_CONFIG_DIR"

// prefsFile is the settings file's name in the configuration folder.
const prefsFile = "preferences.json"

// configDir is $VOXLAB_CONFIG_DIR, or voxlab/ in the user's
// configuration folder (os.UserConfigDir: $XDG_CONFIG_HOME or
// ~/.config on Linux).
func configDir() (string, error) {
	if d := os.Getenv(configDirEnv); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no folder for voxlab's settings (set %s): %w", configDirEnv, err)
	}
	return filepath.Join(d, "voxlab"), nil
}

// filePrefs is a fyne.Preferences kept in one JSON file. Fyne's own
// store rewrites its file in place (truncate, then write), so a second
// voxlab reading it meanwhile gets a partial file ("Preferences load
// error: EOF"); filePrefs writes each change to a temporary file and
// renames it over the old one, so a reader sees the old file or the new
// one, whole. Before a change it reads the file again, so that the
// windows of several voxlab processes keep each other's changes to
// other keys (the last change to a key wins).
type filePrefs struct {
	path string
	warn func(error) // reports a file that cannot be read or written

	mu        sync.Mutex
	values    map[string]any
	listeners []func()
}

// newFilePrefs reads path (a missing file is an empty store; no path, a
// store in memory only).
func newFilePrefs(path string, warn func(error)) *filePrefs {
	p := &filePrefs{path: path, warn: warn, values: map[string]any{}}
	p.mu.Lock()
	p.reload()
	p.mu.Unlock()
	return p
}

// reload replaces the values with the file's; it keeps them when the file
// cannot be read. Call it with mu held.
func (p *filePrefs) reload() {
	vals, err := readPrefs(p.path)
	if err != nil {
		p.warn(err)
		return
	}
	if vals != nil {
		p.values = vals
	}
}

// readPrefs reads a settings file: nil, nil when there is none.
func readPrefs(path string) (map[string]any, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings %s: %w", path, err)
	}
	defer f.Close()
	vals := map[string]any{}
	if err := json.NewDecoder(f).Decode(&vals); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the file is empty")
		}
		return nil, fmt.Errorf("settings %s: not a JSON object of settings: %w", path, err)
	}
	return vals, nil
}

// write writes the values to the file through a temporary file. Call it
// with mu held.
func (p *filePrefs) write() error {
	if p.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return fmt.Errorf("settings %s: %w", p.path, err)
	}
	f, err := outfile.Create(p.path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p.values); err != nil {
		f.Abort()
		return fmt.Errorf("settings %s: %w", p.path, err)
	}
	return f.Commit()
}

// set changes (or, for a nil value, removes) a key, writes the file and
// tells the listeners.
func (p *filePrefs) set(key string, value any) {
	p.mu.Lock()
	p.reload()
	if value == nil {
		delete(p.values, key)
	} else {
		p.values[key] = value
	}
	err := p.write()
	listeners := slices.Clone(p.listeners)
	p.mu.Unlock()
	if err != nil {
		p.warn(err)
	}
	for _, l := range listeners {
		l()
	}
}

// value returns a key's value, nil when it has none.
func (p *filePrefs) value(key string) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.values[key]
}

// A JSON file gives numbers back as float64 and lists as []any: these
// read a value as written by this process or read from the file.

func asBool(v any) (bool, bool) { b, ok := v.(bool); return b, ok }

func asString(v any) (string, bool) { s, ok := v.(string); return s, ok }

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int(x), true
		}
	}
	return 0, false
}

// asList reads a list of T, element by element with elem.
func asList[T any](v any, elem func(any) (T, bool)) ([]T, bool) {
	if l, ok := v.([]T); ok {
		return slices.Clone(l), true
	}
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]T, len(items))
	for i, it := range items {
		if out[i], ok = elem(it); !ok {
			return nil, false
		}
	}
	return out, true
}

// get reads key with conv, or gives fallback.
func get[T any](p *filePrefs, key string, fallback T, conv func(any) (T, bool)) T {
	if x, ok := conv(p.value(key)); ok {
		return x
	}
	return fallback
}

// The accessors of fyne.Preferences: a key that is missing, or holds a
// value of another kind, reads as the fallback (the zero value, or nil
// for a list).

func (p *filePrefs) Bool(key string) bool { return p.BoolWithFallback(key, false) }
func (p *filePrefs) BoolWithFallback(key string, fallback bool) bool {
	return get(p, key, fallback, asBool)
}
func (p *filePrefs) SetBool(key string, value bool) { p.set(key, value) }
func (p *filePrefs) BoolList(key string) []bool     { return p.BoolListWithFallback(key, nil) }
func (p *filePrefs) BoolListWithFallback(key string, fallback []bool) []bool {
	return get(p, key, fallback, func(v any) ([]bool, bool) { return asList(v, asBool) })
}
func (p *filePrefs) SetBoolList(key string, value []bool) { p.set(key, slices.Clone(value)) }

func (p *filePrefs) Float(key string) float64 { return p.FloatWithFallback(key, 0) }
func (p *filePrefs) FloatWithFallback(key string, fallback float64) float64 {
	return get(p, key, fallback, asFloat)
}
func (p *filePrefs) SetFloat(key string, value float64) { p.set(key, value) }
func (p *filePrefs) FloatList(key string) []float64     { return p.FloatListWithFallback(key, nil) }
func (p *filePrefs) FloatListWithFallback(key string, fallback []float64) []float64 {
	return get(p, key, fallback, func(v any) ([]float64, bool) { return asList(v, asFloat) })
}
func (p *filePrefs) SetFloatList(key string, value []float64) { p.set(key, slices.Clone(value)) }

func (p *filePrefs) Int(key string) int { return p.IntWithFallback(key, 0) }
func (p *filePrefs) IntWithFallback(key string, fallback int) int {
	return get(p, key, fallback, asInt)
}
func (p *filePrefs) SetInt(key string, value int) { p.set(key, value) }
func (p *filePrefs) IntList(key string) []int     { return p.IntListWithFallback(key, nil) }
func (p *filePrefs) IntListWithFallback(key string, fallback []int) []int {
	return get(p, key, fallback, func(v any) ([]int, bool) { return asList(v, asInt) })
}
func (p *filePrefs) SetIntList(key string, value []int) { p.set(key, slices.Clone(value)) }

func (p *filePrefs) String(key string) string { return p.StringWithFallback(key, "") }
func (p *filePrefs) StringWithFallback(key, fallback string) string {
	return get(p, key, fallback, asString)
}
func (p *filePrefs) SetString(key string, value string) { p.set(key, value) }
func (p *filePrefs) StringList(key string) []string     { return p.StringListWithFallback(key, nil) }
func (p *filePrefs) StringListWithFallback(key string, fallback []string) []string {
	return get(p, key, fallback, func(v any) ([]string, bool) { return asList(v, asString) })
}
func (p *filePrefs) SetStringList(key string, value []string) { p.set(key, slices.Clone(value)) }

// RemoveValue removes key from the store.
func (p *filePrefs) RemoveValue(key string) { p.set(key, nil) }

// AddChangeListener registers l, called after every change.
func (p *filePrefs) AddChangeListener(l func()) {
	p.mu.Lock()
	p.listeners = append(p.listeners, l)
	p.mu.Unlock()
}

// ChangeListeners returns the listeners registered.
func (p *filePrefs) ChangeListeners() []func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.listeners)
}

// prefsProvider hands an app voxlab's filePrefs in place of Fyne's
// store. Fyne's one hook for an app's own preferences is its cloud
// provider (fyne.CloudProviderPreferences); this one keeps them in the
// configuration folder and syncs nothing.
type prefsProvider struct{ prefs *filePrefs }

func (prefsProvider) ProviderDescription() string { return "voxlab's settings file" }
func (prefsProvider) ProviderIcon() fyne.Resource { return nil }
func (prefsProvider) ProviderName() string        { return "voxlab" }
func (prefsProvider) Cleanup(fyne.App)            {}
func (prefsProvider) Setup(fyne.App) error        { return nil }

func (pp prefsProvider) CloudPreferences(fyne.App) fyne.Preferences { return pp.prefs }

// useFilePrefs makes a's preferences voxlab's settings file, warning on
// stderr about a file it cannot read or write (the app then runs with
// what it has in memory).
func useFilePrefs(a fyne.App, stderr io.Writer) {
	warn := func(err error) { fmt.Fprintf(stderr, "voxlab: %v\n", err) }
	path := ""
	if dir, err := configDir(); err != nil {
		warn(err)
	} else {
		path = filepath.Join(dir, prefsFile)
	}
	a.SetCloudProvider(prefsProvider{newFilePrefs(path, warn)})
}

var _ fyne.Preferences = (*filePrefs)(nil)
var _ fyne.CloudProviderPreferences = prefsProvider{}
