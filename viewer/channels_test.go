package viewer

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestTIFFChannelChooser opens an OME-TIFF of 3 channels interactively:
// the chooser lists the channels and opens the one picked (gen_types.py's
// channel c holds (7z + 3y + 5x + 11c) % 60000).
func TestTIFFChannelChooser(t *testing.T) {
	h := newHarness(t)
	path := "../processing/volume/testdata/types/zcyx.ome.tif"
	if got := datasets(path); len(got) != 3 || got[2] != "/channel/2" {
		t.Fatalf("channels %v", got)
	}
	if got := datasets("../processing/volume/testdata/types/uint16_le.tif"); got != nil {
		t.Fatalf("one-channel TIFF lists %v", got)
	}
	h.v.files.interactive(path)
	top := h.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no channel chooser shown")
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
	if radio == nil || open == nil || len(radio.Options) != 3 {
		t.Fatalf("chooser lacks its choices or button: %v %v", radio, open)
	}
	radio.SetSelected("/channel/2")
	test.Tap(open)
	ls := h.v.Layers()
	if len(ls) != 1 || ls[0].Name() != "zcyx.ome.tif channel 2" {
		t.Fatalf("opened %v", ls)
	}
	h.v.Dims().SetSlice(0)
	h.settle()
	if v, ok := h.v.ValueAt(ls[0], 2, 3); !ok || v != 3*2+5*3+22 {
		t.Errorf("value (0,2,3) = %v %v, want %d from channel 2", v, ok, 3*2+5*3+22)
	}
}
