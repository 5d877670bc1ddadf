package main

// Inputs that many tests read, written once per test process and copied
// into each test's own folder: the small demo (some two CPU seconds to
// generate under the race detector, wanted by some twenty tests), its
// tomography scan alone (seed 5, one second under the race detector,
// wanted by some eighteen) and its maps alone (seed 11, some ten), and
// the big dezing scan of the cancellation tests (64 projections of 512²
// of Gaussian noise). Each test still gets a folder of its own, with
// files it may change or remove; only the generation is shared.

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/demo"
)

// fixtureRoot holds the shared inputs; TestMain removes it.
var fixtureRoot struct {
	sync.Mutex
	dir string
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixtureRoot.Lock()
	if fixtureRoot.dir != "" {
		os.RemoveAll(fixtureRoot.dir)
	}
	fixtureRoot.Unlock()
	os.Exit(code)
}

// fixture is an input written once (by write, into an empty folder) and
// copied into a new temporary folder for each test that asks.
type fixture struct {
	name  string
	write func(dir string) error
	once  sync.Once
	dir   string
	err   error
}

// copyTo copies the fixture's folder into a new temporary folder of t
// and returns it.
func (f *fixture) copyTo(t *testing.T) string {
	t.Helper()
	f.once.Do(func() {
		fixtureRoot.Lock()
		if fixtureRoot.dir == "" {
			fixtureRoot.dir, f.err = os.MkdirTemp("", "voxlab-app-fixtures-")
		}
		root := fixtureRoot.dir
		fixtureRoot.Unlock()
		if f.err != nil {
			return
		}
		f.dir = filepath.Join(root, f.name)
		if f.err = os.Mkdir(f.dir, 0o755); f.err == nil {
			f.err = f.write(f.dir)
		}
	})
	if f.err != nil {
		t.Fatalf("writing the %s: %v", f.name, f.err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(f.dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

var smallDemo = &fixture{name: "demo", write: func(dir string) error { return demo.Write(dir, demo.Small, 1) }}

var tomoScan = &fixture{name: "tomo", write: func(dir string) error { return demo.WriteTomo(dir, demo.Small, 5) }}

var mapsDemo = &fixture{name: "maps", write: func(dir string) error { return demo.WriteMaps(dir, demo.Small, 11) }}
