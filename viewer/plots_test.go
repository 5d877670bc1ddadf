package viewer

import (
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/processing/volume"
)

func TestPlotsTabFillsIn(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := NewHeadless(w)
	w.Resize(fyne.NewSize(1200, 800))
	defer hl.Close()
	p := NewPlots(hl.Viewer, "Plots")
	vals := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	m := Matrix{Name: "l2", Rows: 2, Cols: 2, Values: vals}
	p.Set(m)
	vals[0], vals[1] = 1, 2 // Set copied the values
	m.Values = []float64{1, 2, 3, 4}
	p.Set(m)
	if err := hl.Until(10*time.Second, func() bool { return p.Idle() && hl.Drain() == 0 }); err != nil {
		t.Fatal(err)
	}
	heat, hist := p.Images("l2")
	if heat == nil || hist == nil {
		t.Fatal("no plots on the tab")
	}
	if heat.Bounds().Dx() != heatW || hist.Bounds().Dx() != histW || p.Err() != nil {
		t.Errorf("plots %v %v, err %v", heat.Bounds(), hist.Bounds(), p.Err())
	}
	if len(hl.tabs.Items) != 2 || hl.tabs.Items[1] != p.Tab() {
		t.Error("the plots tab is not beside the view")
	}
}

func TestLiveVolume(t *testing.T) {
	lv, err := NewLiveVolume(volume.Info{Shape: [3]int{4, 2, 3}, DType: volume.Uint16}, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	block := volume.Bytes([]uint16{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if err := lv.Write(2, block); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 4*6*2)
	if err := lv.ReadSlab(0, 4, dst); err != nil {
		t.Fatal(err)
	}
	got := volume.Uint16s(dst)
	for i, v := range got {
		want := uint16(0)
		if i >= 12 {
			want = uint16(i - 11)
		}
		if v != want {
			t.Fatalf("voxel %d = %d, want %d (unwritten planes read as zeros)", i, v, want)
		}
	}
	if lv.Filled() != 2 {
		t.Errorf("filled %d planes, want 2", lv.Filled())
	}
	if err := lv.Write(3, block); err == nil {
		t.Error("a block past the end was written")
	}
	if err := lv.Write(0, block[:5]); err == nil {
		t.Error("a partial plane was written")
	}
}
