package viewer

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// An HDF5 file with two volumes asks which to open; confirming opens the
// chosen one.
func TestHDF5DatasetChooser(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "two.h5")
	f, err := h5.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"/raw", "/processed/out"} {
		w, err := f.CreateDataset(name, volume.Uint16, []int{2, 3, 4})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]uint16, 24)
		for j := range buf {
			buf[j] = uint16(100*i + j)
		}
		if err := w.WriteSlab(0, volume.Bytes(buf)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := datasets(path); len(got) != 2 {
		t.Fatalf("datasets %v, want both", got)
	}
	h.v.files.interactive(path)
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dataset chooser shown")
	}
	var radio *widget.RadioGroup
	var open *widget.Button
	for _, o := range test.LaidOutObjects(top) {
		switch o := o.(type) {
		case *widget.RadioGroup:
			radio = o
		case *widget.Button:
			if o.Text == "Open" {
				open = o
			}
		case *keyButton:
			if o.Text == "Open" {
				open = &o.Button
			}
		}
	}
	if radio == nil || open == nil || len(radio.Options) != 2 {
		t.Fatalf("chooser lacks its choices or button: %v %v", radio, open)
	}
	radio.SetSelected("/processed/out")
	test.Tap(open)
	ls := h.v.Layers()
	if len(ls) != 1 || ls[0].Name() != "two.h5:out" {
		t.Fatalf("opened %v", ls)
	}
	h.v.Dims().SetSlice(0)
	h.settle()
	if v, ok := h.v.ValueAt(ls[0], 2, 3); !ok || v != 100+11 {
		t.Errorf("value (0,2,3) = %v %v, want 111 from /processed/out", v, ok)
	}
}

// A NeXus scan opens on its projections: frames with image_key 0 only.
func TestNeXusOpensProjections(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "scan.nxs")
	data := memVolume(t, volume.Uint16, [3]int{5, 4, 6}, func(z, y, x int) float64 { return float64(10 * z) })
	if err := h5.WriteNeXus(path, data.Source(), []int{2, 1, 0, 0, 0}, []float64{0, 0, 0, 60, 120}); err != nil {
		t.Fatal(err)
	}
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	il := l.(*ImageLayer)
	if il.Volume().Shape[0] != 3 || l.Name() != "scan.nxs projections" {
		t.Fatalf("opened %v named %q", il.Volume().Shape, l.Name())
	}
	h.v.Dims().SetSlice(0)
	h.settle()
	if v, ok := h.v.ValueAt(l, 1, 1); !ok || v != 20 {
		t.Errorf("projection 0 = %v %v, want frame 2's value 20", v, ok)
	}
	h.v.RemoveLayer(l)
}
