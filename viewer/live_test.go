package viewer

import (
	"errors"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// liveValue is what the fake pipeline of these tests computes.
func liveValue(z, y, x int) uint16 { return uint16(1 + (z*13+y*5+x)%60000) }

// liveBlock returns planes [z0, z1) of liveValue for shape.
func liveBlock(shape [3]int, z0, z1 int) []byte {
	out := make([]uint16, 0, (z1-z0)*shape[1]*shape[2])
	for z := z0; z < z1; z++ {
		for y := range shape[1] {
			for x := range shape[2] {
				out = append(out, liveValue(z, y, x))
			}
		}
	}
	return volume.Bytes(out)
}

// A run whose output is 50 times the live budget, in blocks twice the
// budget, keeps the layer within its bytes (the live volume's budget
// plus the slice cache) after every block; the slice on screen shows its
// data as soon as its block is done, even though its block is larger
// than the budget; the newest slices show theirs; an old slice no longer
// held says so in the status bar (no error dialog), and with a read-back
// (the job's part file) shows its data.
func TestLiveVolumeStaysWithinBudget(t *testing.T) {
	shape := [3]int{400, 128, 256} // 64 KiB planes, 25 MiB in all
	info := volume.Info{Shape: shape, DType: volume.Uint16}
	const budget = 512 << 10 // 8 planes
	const block = 16         // planes: 1 MiB blocks
	if info.Bytes() < 40*budget {
		t.Fatalf("output %d bytes is not many times the budget", info.Bytes())
	}
	for _, readBack := range []bool{false, true} {
		h := newHarness(t)
		var opts LiveOptions
		opts.Budget = budget
		if readBack {
			opts.ReadBack = func(z0, z1 int, dst []byte) error {
				copy(dst, liveBlock(shape, z0, z1))
				return nil
			}
		}
		lv, err := NewLiveVolume(info, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := lv.Write(0, liveBlock(shape, 0, block)); err != nil {
			t.Fatal(err)
		}
		l, err := h.v.AddImage("out (running)", volume.New("out", lv), ImageOptions{Contrast: [2]float64{0, 60000}})
		if err != nil {
			t.Fatal(err)
		}
		const watched = 100 // inside block [96, 112), not among its newest 8 planes
		h.v.Dims().SetSlice(watched)
		h.settle()
		var peak int64
		for z0 := block; z0 < shape[0]; z0 += block {
			if err := lv.Write(z0, liveBlock(shape, z0, z0+block)); err != nil {
				t.Fatal(err)
			}
			l.Feed().RefreshPlanes(z0, z0+block)
			h.settle()
			held := lv.HeldBytes() + l.ld.cachedBytes.Load()
			peak = max(peak, held)
			if lv.HeldBytes() > budget || held > budget+cacheBytes {
				t.Fatalf("after planes %d-%d the layer holds %d bytes (live %d): budget %d + cache %d", z0, z0+block, held, lv.HeldBytes(), budget, cacheBytes)
			}
			v, ok := h.v.ValueAt(l, 3, 4)
			want := float64(liveValue(watched, 3, 4))
			if z0+block <= watched {
				// Not computed yet: no value (drawn transparent).
				if ok {
					t.Fatalf("after planes %d-%d slice %d, not computed, shows %v", z0, z0+block, watched, v)
				}
				continue
			}
			if !ok || v != want {
				t.Fatalf("after planes %d-%d slice %d shows %v %v, want %v", z0, z0+block, watched, v, ok, want)
			}
		}
		t.Logf("read-back %v: output %d bytes, the layer held at most %d (live volume %d)", readBack, info.Bytes(), peak, lv.HeldBytes())
		// The newest slice is held.
		h.v.Dims().SetSlice(shape[0] - 1)
		h.settle()
		if v, ok := h.v.ValueAt(l, 5, 6); !ok || v != float64(liveValue(shape[0]-1, 5, 6)) {
			t.Errorf("newest slice shows %v %v", v, ok)
		}
		// An old slice was evicted long ago.
		h.v.Dims().SetSlice(10)
		h.settle()
		v, ok := h.v.ValueAt(l, 5, 6)
		switch {
		case readBack && (!ok || v != float64(liveValue(10, 5, 6))):
			t.Errorf("read back slice shows %v %v", v, ok)
		case !readBack && ok:
			t.Errorf("an evicted slice shows %v", v)
		case !readBack && !strings.Contains(h.v.bar.info.Text, "z 10 finished, shown when the job ends"):
			t.Errorf("status %q does not say the slice shows when the job ends", h.v.bar.info.Text)
		}
		if h.v.dlg.lastErr != "" {
			t.Errorf("an error was shown: %s", h.v.dlg.lastErr)
		}
	}
}

// The live volume's own rules: unwritten planes read as zeros, evicted
// ones fail with ErrNotHeld, wanted ones outlast newer planes.
func TestLiveVolumeEviction(t *testing.T) {
	shape := [3]int{10, 2, 3}
	info := volume.Info{Shape: shape, DType: volume.Uint16}
	pb := int(info.PlaneBytes())
	lv, err := NewLiveVolume(info, LiveOptions{Budget: int64(3 * pb)})
	if err != nil {
		t.Fatal(err)
	}
	plane := make([]byte, pb)
	// The viewer asks for plane 1 before it is computed.
	if err := lv.ReadSlab(1, 2, plane); err != nil || volume.Uint16s(plane)[0] != 0 {
		t.Fatalf("unwritten plane: %v %v", volume.Uint16s(plane), err)
	}
	if err := lv.Write(0, liveBlock(shape, 0, 6)); err != nil {
		t.Fatal(err)
	}
	// Held: 1 (wanted), 4 and 5 (newest).
	if got := lv.HeldBytes(); got != int64(3*pb) {
		t.Errorf("holds %d bytes, want %d", got, 3*pb)
	}
	for z, held := range []bool{false, true, false, false, true, true} {
		err := lv.ReadSlab(z, z+1, plane)
		switch {
		case held && (err != nil || volume.Uint16s(plane)[2] != liveValue(z, 0, 2)):
			t.Errorf("plane %d: %v %v", z, volume.Uint16s(plane), err)
		case !held && !errors.Is(err, ErrNotHeld):
			t.Errorf("plane %d: error %v, want ErrNotHeld", z, err)
		}
	}
	slab := make([]byte, 2*pb)
	if err := lv.ReadSlab(8, 10, slab); err != nil || volume.Uint16s(slab)[0] != 0 {
		t.Errorf("planes not computed yet: %v %v", volume.Uint16s(slab), err)
	}
	if lv.Filled() != 6 {
		t.Errorf("filled %d", lv.Filled())
	}
	if err := lv.Write(9, liveBlock(shape, 0, 2)); err == nil {
		t.Error("a block past the end was written")
	}
	if err := lv.Write(0, plane[:5]); err == nil {
		t.Error("a partial plane was written")
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

// TestLiveUnwrittenPlanesShowWhatIsBelow: a running job's result layer
// over the raw scan draws the planes it has not computed yet as
// transparent — the raw scan shows, not black — in z slices and in the
// rows of a side view, and gives no value there; computed planes cover
// the raw as before, and its contrast comes from them alone.
func TestLiveUnwrittenPlanesShowWhatIsBelow(t *testing.T) {
	h := newHarness(t)
	shape := [3]int{10, 16, 24}
	raw := memVolume(t, volume.Uint8, shape, func(z, y, x int) float64 { return 200 })
	if _, err := h.v.AddImage("raw", raw, ImageOptions{Contrast: [2]float64{0, 255}}); err != nil {
		t.Fatal(err)
	}
	lv, err := NewLiveVolume(volume.Info{Shape: shape, DType: volume.Uint16}, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := lv.Write(0, liveBlock(shape, 0, 4)); err != nil {
		t.Fatal(err)
	}
	l, err := h.v.AddImage("out (running)", volume.New("out", lv), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rawColour := func(c [4]uint8) bool { return c[0] == 200 && c[1] == 200 && c[2] == 200 }
	at := func(row, col float64) [4]uint8 {
		c := h.pixelAt(h.panel(), row, col)
		return [4]uint8{c.R, c.G, c.B, c.A}
	}
	h.v.Dims().SetSlice(7) // not computed
	h.settle()
	if c := at(5, 5); !rawColour(c) {
		t.Errorf("uncomputed plane 7 draws %v over the raw scan, want the raw's gray 200", c)
	}
	if _, ok := h.v.ValueAt(l, 5, 5); ok {
		t.Error("an uncomputed plane gives a value")
	}
	h.v.Dims().SetSlice(2) // computed: covers the raw
	h.settle()
	if c := at(5, 5); rawColour(c) {
		t.Errorf("computed plane 2 does not cover the raw scan: %v", c)
	}
	if lo, hi := l.ContrastLimits(); lo < 1 || hi <= lo {
		t.Errorf("contrast %v-%v, want it from the computed values (all ≥ 1)", lo, hi)
	}
	// A y slice: rows z 0-3 computed, z 4-9 show the raw.
	h.v.Dims().SetAxis(Y)
	h.v.Dims().SetSlice(5)
	h.settle()
	if c := at(8, 5); !rawColour(c) {
		t.Errorf("y slice, row z 8 (uncomputed): %v, want the raw's gray", c)
	}
	if c := at(1, 5); rawColour(c) {
		t.Errorf("y slice, row z 1 (computed): %v, want the result", c)
	}
	// The orthogonal views' zy panel shows z across: columns z 4-9
	// show the raw there too.
	h.v.Panels().SetOrtho(true)
	h.v.Dims().SetPoint([3]int{0, 0, 12})
	h.settle()
	zy := h.orthoPanel(X)
	zyAt := func(y, z float64) [4]uint8 {
		c := h.pixelAt(zy, y, z)
		return [4]uint8{c.R, c.G, c.B, c.A}
	}
	if c := zyAt(5, 8); !rawColour(c) {
		t.Errorf("zy panel, column z 8 (uncomputed): %v, want the raw's gray", c)
	}
	if c := zyAt(5, 1); rawColour(c) {
		t.Errorf("zy panel, column z 1 (computed): %v, want the result", c)
	}
	h.v.Panels().SetOrtho(false)
	h.v.Dims().SetAxis(Y)
	// The job writes more: the refreshed planes cover the raw.
	if err := lv.Write(4, liveBlock(shape, 4, 10)); err != nil {
		t.Fatal(err)
	}
	l.Feed().RefreshPlanes(4, 10)
	h.settle()
	if c := at(8, 5); rawColour(c) {
		t.Errorf("y slice after plane 8 was written: %v, still the raw", c)
	}
}
