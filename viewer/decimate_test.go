package viewer

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/zarr" // .zarr stores
)

// heapPeak samples the bytes of live heap objects every millisecond
// until stop is called, which returns the highest seen: an allocation
// of a whole 8 GiB plane shows, or dies with "out of memory".
func heapPeak() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-ended
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// hugeNPY writes the header of a 1 x 65536 x 65536 uint16 NPY (8 GiB)
// over a sparse file, with row 1600 holding its column numbers: no
// disk space is used but for that row.
func hugeNPY(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mosaic.npy")
	testutil.WriteNPY(t, path, []int{1, 65536, 65536}, []uint16{})
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	hdr := st.Size()
	if err := f.Truncate(hdr + 2*65536*65536); err != nil {
		t.Skipf("no sparse file of 8 GiB here: %v", err)
	}
	row := make([]byte, 2*65536)
	for x := range 65536 {
		binary.LittleEndian.PutUint16(row[2*x:], uint16(x))
	}
	if _, err := f.WriteAt(row, hdr+2*1600*65536); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHugePlaneIsReadDecimated: a 65536² plane (8 GiB, which the viewer
// allocated whole and died on) opens: it is read every 16th row and
// column into a 4096² plane, drawn and read back at its own
// coordinates, with the live heap far below the plane's size; its side
// views read just their line.
func TestHugePlaneIsReadDecimated(t *testing.T) {
	path := hugeNPY(t)
	h := newHarness(t)
	runtime.GC()
	stop := heapPeak()
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	il := l.(*ImageLayer)
	h.settle()
	peak := stop()
	p := il.current()
	if p == nil || p.rows != 4096 || p.cols != 4096 || p.fy != 16 || p.fx != 16 {
		t.Fatalf("plane %v", p)
	}
	t.Logf("live heap peak while reading a 65536² plane: %d MiB", peak>>20)
	if peak > 512<<20 {
		t.Errorf("live heap peaked at %d MiB reading an 8 GiB plane decimated to 32 MiB", peak>>20)
	}
	// Row 1600 is kept (100 x 16): the value at level-0 column 112 is 112.
	if v, ok := h.v.ValueAt(il, 1600, 112); !ok || v != 112 {
		t.Errorf("value at (1600, 112): %v %v, want 112", v, ok)
	}
	if !strings.Contains(describe(il), "65536 x 65536") {
		t.Errorf("controls say %q", describe(il))
	}
	// The y slice through row 1600: one line, exact.
	h.v.Dims().SetAxis(Y)
	h.v.Dims().SetSlice(1600)
	h.settle()
	if v, ok := h.v.ValueAt(il, 0, 40000); !ok || v != 40000 {
		t.Errorf("y slice 1600 at x 40000: %v %v", v, ok)
	}
}

// wholeOnly is a huge volume that can only be read by whole planes, and
// must never be.
type wholeOnly struct{ info volume.Info }

func (s wholeOnly) Info() volume.Info { return s.info }
func (s wholeOnly) Close() error      { return nil }
func (s wholeOnly) ReadSlab(z0, z1 int, dst []byte) error {
	panic("a plane of 8 GiB was read whole")
}

// TestHugePlaneWithoutBoxesIsRefused: a format that cannot read part of
// a plane is refused for a plane larger than the viewer reads at once,
// saying so, never read whole; the viewer goes on.
func TestHugePlaneWithoutBoxesIsRefused(t *testing.T) {
	h := newHarness(t)
	info := volume.Info{Shape: [3]int{2, 65536, 65536}, DType: volume.Uint16}
	if _, err := h.v.AddImage("big", volume.New("big.tif", wholeOnly{info}), ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	h.v.redraw()
	err := h.v.settle(h.q, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "big.tif") || !strings.Contains(err.Error(), "cannot read part of a plane") {
		t.Fatalf("settle: %v", err)
	}
	if !strings.Contains(h.v.Dialogs().LastError(), "8 GiB") {
		t.Errorf("error shown: %q", h.v.Dialogs().LastError())
	}
}

// TestBogusPyramidLevelIsReadDecimated: a Zarr array of 2^24 x 2^16
// uint16 (a 2 TiB plane) with no chunk stored (all fill value) opens
// decimated, reading every 4096th row, with a bounded heap.
func TestBogusPyramidLevelIsReadDecimated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bogus.zarr")
	os.MkdirAll(dir, 0o755)
	meta := `{"zarr_format": 2, "shape": [1, 16777216, 65536], "chunks": [1, 4096, 4096], "dtype": "<u2",
	"compressor": null, "fill_value": 7, "order": "C", "filters": null}`
	os.WriteFile(filepath.Join(dir, ".zarray"), []byte(meta), 0o644)
	h := newHarness(t)
	runtime.GC()
	stop := heapPeak()
	l, err := h.v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	peak := stop()
	il := l.(*ImageLayer)
	p := il.current()
	if p == nil || p.rows != 4096 || p.cols != 16 || p.fy != 4096 {
		t.Fatalf("plane %v", p)
	}
	if v, ok := h.v.ValueAt(il, 5000000, 40000); !ok || v != 7 {
		t.Errorf("value %v %v, want the fill value 7", v, ok)
	}
	t.Logf("live heap peak while reading a 2 TiB plane: %d MiB", peak>>20)
	if peak > 512<<20 {
		t.Errorf("live heap peaked at %d MiB", peak>>20)
	}
}
