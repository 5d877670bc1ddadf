package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestPrefsRoundTripThroughTheFile: every kind of value a window sets
// reads back the same from a new store on the file (JSON gives numbers
// back as float64 and lists as []any), and a removed key is gone.
func TestPrefsRoundTripThroughTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", prefsFile) // the folder is made
	p := newFilePrefs(path, failOnWarn(t))
	p.SetBool("b", true)
	p.SetBoolList("bl", []bool{false, true})
	p.SetFloat("f", 2.5)
	p.SetFloatList("fl", []float64{1.5, -3})
	p.SetInt("i", -7)
	p.SetIntList("il", []int{4, 5, 6})
	p.SetString("s", "crop_planes/ch0")
	p.SetStringList("sl", []string{"/a b/c.tif", "d.h5:/data"})
	p.SetString("gone", "x")
	p.RemoveValue("gone")

	q := newFilePrefs(path, failOnWarn(t))
	if !q.Bool("b") || !slices.Equal(q.BoolList("bl"), []bool{false, true}) {
		t.Errorf("bools: %v %v", q.Bool("b"), q.BoolList("bl"))
	}
	if q.Float("f") != 2.5 || !slices.Equal(q.FloatList("fl"), []float64{1.5, -3}) {
		t.Errorf("floats: %v %v", q.Float("f"), q.FloatList("fl"))
	}
	if q.Int("i") != -7 || !slices.Equal(q.IntList("il"), []int{4, 5, 6}) {
		t.Errorf("ints: %v %v", q.Int("i"), q.IntList("il"))
	}
	if q.String("s") != "crop_planes/ch0" || !slices.Equal(q.StringList("sl"), []string{"/a b/c.tif", "d.h5:/data"}) {
		t.Errorf("strings: %q %q", q.String("s"), q.StringList("sl"))
	}
	if q.StringWithFallback("gone", "fallback") != "fallback" {
		t.Errorf("a removed key reads %q", q.String("gone"))
	}
	if q.IntWithFallback("f", 9) != 9 || q.StringListWithFallback("il", nil) != nil {
		t.Error("a value of another kind is read as this kind instead of the fallback")
	}
}

// TestPrefsTwoProcessesKeepEachOthersKeys: two stores on one file (two
// voxlab windows) each keep what the other set, and tell their
// listeners of their own changes.
func TestPrefsTwoProcessesKeepEachOthersKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	a, b := newFilePrefs(path, failOnWarn(t)), newFilePrefs(path, failOnWarn(t))
	heard := 0
	a.AddChangeListener(func() { heard++ })
	a.SetStringList("viewer.recent", []string{"/data/a.tif"})
	b.SetString("fyne:fileDialogLastFolder", "/data")
	a.SetInt("n", 3)
	c := newFilePrefs(path, failOnWarn(t))
	if got := c.StringList("viewer.recent"); !slices.Equal(got, []string{"/data/a.tif"}) {
		t.Errorf("recent %q", got)
	}
	if c.String("fyne:fileDialogLastFolder") != "/data" || c.Int("n") != 3 {
		t.Errorf("lost a key: %q %d", c.String("fyne:fileDialogLastFolder"), c.Int("n"))
	}
	if heard != 2 || len(a.ChangeListeners()) != 1 {
		t.Errorf("the listener heard %d changes, want 2", heard)
	}
}

// TestPrefsNeverSeenHalfWritten: a reader (another voxlab starting up)
// reading the file while a window writes it over and over always gets
// a whole file, one of the lists written: never a partial one, the
// "Preferences load error: EOF" of Fyne's own store, which truncates
// and rewrites its file in place.
func TestPrefsNeverSeenHalfWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	w := newFilePrefs(path, failOnWarn(t))
	list := func(i int) []string {
		l := make([]string, 10)
		for j := range l {
			l[j] = fmt.Sprintf("/data/%s/scan-%d-%d.h5", strings.Repeat("long folder ", 40), i, j)
		}
		return l
	}
	w.SetStringList("viewer.recent", list(0))
	const writes = 100
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 1; i <= writes; i++ {
			w.SetStringList("viewer.recent", list(i))
		}
	}()
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		vals, err := readPrefs(path)
		if err != nil {
			t.Fatalf("read %d while writing: %v", reads, err)
		}
		got, ok := asList(vals["viewer.recent"], asString)
		var i int
		if !ok || len(got) != 10 || sscanIndex(got[0], &i) != nil || !slices.Equal(got, list(i)) {
			t.Fatalf("read %d while writing: not one of the lists written: %.200q", reads, got)
		}
	}
	wg.Wait()
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	t.Logf("%d reads during %d writes", reads, writes)
}

// sscanIndex reads the write's number from a path of list.
func sscanIndex(path string, i *int) error {
	var j int
	_, err := fmt.Sscanf(path[strings.LastIndex(path, "scan-"):], "scan-%d-%d.h5", i, &j)
	return err
}

// TestPrefsBadFile: a settings file that is not JSON is reported naming
// the file and the problem; the store starts empty and the next change
// writes a good file.
func TestPrefsBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), prefsFile)
	os.WriteFile(path, []byte(`{"viewer.recent": ["/a", `), 0o644)
	var warned []error
	p := newFilePrefs(path, func(err error) { warned = append(warned, err) })
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), path) || !strings.Contains(warned[0].Error(), "not a JSON object") {
		t.Fatalf("warnings %v: want one naming %s and the problem", warned, path)
	}
	if p.StringList("viewer.recent") != nil {
		t.Error("a value read from the broken file")
	}
	p.SetStringList("viewer.recent", []string{"/b"})
	if got := newFilePrefs(path, failOnWarn(t)).StringList("viewer.recent"); !slices.Equal(got, []string{"/b"}) {
		t.Errorf("after a change the file holds %q", got)
	}
}

// TestConfigDir: VOXLAB_CONFIG_DIR names the folder; without it the
// settings are in voxlab/ of the user's configuration folder.
func TestConfigDir(t *testing.T) {
	t.Setenv(configDirEnv, "/somewhere/voxlab-test")
	if d, err := configDir(); err != nil || d != "/somewhere/voxlab-test" {
		t.Errorf("with %s: %q, %v", configDirEnv, d, err)
	}
	t.Setenv(configDirEnv, "")
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if d, err := configDir(); err != nil || d != "/xdg/voxlab" {
		t.Errorf("without %s: %q, %v", configDirEnv, d, err)
	}
}

// freshHome makes HOME a new empty folder for the test, as
// `HOME=$(mktemp -d) make test` has it, with nothing else naming where
// the settings go: what the test's voxlab children write there is what
// they would write into the user's.
func freshHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv(configDirEnv, "")
	return home
}

// checkSettingsAlone fails the test when anything was written under
// home, when a file there names spec (the window wrote the user's recent
// files), when the window's own
// settings (childEnv) do not list spec as opened (then the check of
// home proved nothing), or when c printed a settings error.
func checkSettingsAlone(t *testing.T, home string, c *child, spec string) {
	t.Helper()
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != home {
			t.Errorf("voxlab wrote %s under HOME", p)
		}
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(spec)) {
				t.Errorf("%s under HOME names the test's file", p)
			}
		}
		return nil
	})
	own := filepath.Join(c.config, "voxlab", prefsFile)
	vals, err := readPrefs(own)
	if err != nil || vals == nil {
		t.Fatalf("the window's own settings %s: %v (none written: the check of HOME proved nothing)", own, err)
	}
	if got, _ := asList(vals["viewer.recent"], asString); !slices.Equal(got, []string{spec}) {
		t.Errorf("recent files %q, want the file opened", got)
	}
	if out := c.out.String(); strings.Contains(out, "Preferences") || strings.Contains(out, "voxlab: settings") {
		t.Errorf("voxlab printed a settings error:\n%s", out)
	}
}

// failOnWarn is a store's warn that fails the test.
func failOnWarn(t *testing.T) func(error) {
	return func(err error) { t.Errorf("warned: %v", err) }
}
