package viewer

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/volume"
)

// sideValue is the voxel value of the synthetic scans of these tests.
func sideValue(z, y, x int) uint16 { return uint16((z*7 + y*3 + x) & 0xffff) }

// fakeScan generates a uint16 scan (sideValue) and counts what is read
// of it: the calls and bytes of ReadSlab and of ReadBox. As a boxScan it
// is a volume.BoxReader; gate, when set, makes every ReadBox wait for a
// token (or for gate to close); tick, when set, is called after each
// ReadBox (a slow disk advancing a test clock).
type fakeScan struct {
	info volume.Info

	mu                  sync.Mutex
	slabCalls, boxCalls int
	slabBytes, boxBytes int64
	boxes               []volume.Box
	gate                chan struct{}
	tick                func()
}

func (s *fakeScan) Info() volume.Info { return s.info }
func (s *fakeScan) Close() error      { return nil }

func (s *fakeScan) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	s.mu.Lock()
	s.slabCalls++
	s.slabBytes += int64(len(dst))
	s.mu.Unlock()
	s.fill(volume.Box{Z0: z0, Z1: z1, Y1: s.info.Shape[1], X1: s.info.Shape[2]}, dst)
	return nil
}

func (s *fakeScan) fill(b volume.Box, dst []byte) {
	u := volume.Uint16s(dst)
	i := 0
	for z := b.Z0; z < b.Z1; z++ {
		for y := b.Y0; y < b.Y1; y++ {
			for x := b.X0; x < b.X1; x++ {
				u[i] = sideValue(z, y, x)
				i++
			}
		}
	}
}

func (s *fakeScan) counts() (slabCalls, boxCalls int, slabBytes, boxBytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slabCalls, s.boxCalls, s.slabBytes, s.boxBytes
}

// boxScan is a fakeScan that reads boxes.
type boxScan struct{ *fakeScan }

func (s boxScan) ReadBox(b volume.Box, dst []byte) error {
	if err := volume.CheckBox(s.info, b, len(dst)); err != nil {
		return err
	}
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	s.boxCalls++
	s.boxBytes += int64(len(dst))
	s.boxes = append(s.boxes, b)
	tick := s.tick
	s.mu.Unlock()
	s.fill(b, dst)
	if tick != nil {
		tick()
	}
	return nil
}

// A scan larger than wholeBytes, so side views are not read whole once:
// 1800 frames of 64 x 300 uint16 (69 MB).
var bigScan = volume.Info{Shape: [3]int{1800, 64, 300}, DType: volume.Uint16}

// checkSide checks plane p against sideValue for slice idx along axis.
func checkSide(t *testing.T, p *plane, axis Axis, idx int) {
	t.Helper()
	for r := range p.rows {
		for c := range p.cols {
			want := sideValue(r, idx, c)
			if axis == X {
				want = sideValue(r, c, idx)
			}
			if got := p.value(r, c); got != float64(want) {
				t.Fatalf("%s slice %d at (%d,%d) = %v, want %d", axis, idx, r, c, got, want)
			}
		}
	}
}

// Side views of a source that reads boxes read just the slice's voxels;
// of one that does not, whole planes in slabs. Both give the same data
// and report their progress up to the whole.
func TestSideViewReadsBoxWhenItCan(t *testing.T) {
	for _, box := range []bool{true, false} {
		for _, c := range []struct {
			axis Axis
			idx  int
		}{{Y, 40}, {X, 250}} {
			fs := &fakeScan{info: bigScan}
			var src volume.Source = fs
			if box {
				src = boxScan{fs}
			}
			ready := make(chan error, 1)
			k := sliceKey{axis: c.axis, idx: c.idx}
			var mu sync.Mutex
			var steps []int64 // bytes read at each progress report
			var total int64
			var ld *loader
			ld = newLoader(volume.New("scan", src), bigScan.Shape[0], func(k sliceKey, err error) { ready <- err }, func() {
				d, n, _ := ld.loadProgress(k)
				mu.Lock()
				steps, total = append(steps, d), n
				mu.Unlock()
			})
			ld.get(k)
			if err := <-ready; err != nil {
				t.Fatal(err)
			}
			p := ld.get(k)
			if p == nil {
				t.Fatal("slice not cached")
			}
			checkSide(t, p, c.axis, c.idx)
			slabCalls, boxCalls, slabB, boxB := fs.counts()
			line := int64(p.cols) * 2 // one row (or column) of one plane
			if box {
				if slabCalls != 0 || boxB != int64(bigScan.Shape[0])*line {
					t.Errorf("box path, %s: %d slab reads, %d bytes in boxes; want none and %d (the slice)", c.axis, slabCalls, boxB, int64(bigScan.Shape[0])*line)
				}
				if boxCalls < boxPieces/2 || boxCalls > boxPieces {
					t.Errorf("box path read in %d pieces, want about %d", boxCalls, boxPieces)
				}
			} else if boxCalls != 0 || slabB != bigScan.Bytes() {
				t.Errorf("slab path, %s: %d box reads, %d slab bytes; want none and the volume's %d", c.axis, boxCalls, slabB, bigScan.Bytes())
			}
			mu.Lock()
			if len(steps) < 2 || steps[len(steps)-1] != total || !slices.IsSorted(steps) {
				t.Errorf("progress %v of %d: want it to grow to the whole", steps, total)
			}
			mu.Unlock()
			ld.close()
		}
	}
}

// A side view read in pieces is abandoned as soon as the slider moved
// on: the stale slice reads one piece, the new one is read whole, and
// only the new one is reported ready.
func TestSideViewDropsStaleRequest(t *testing.T) {
	fs := &fakeScan{info: bigScan, gate: make(chan struct{})}
	ready := make(chan sliceKey, 10)
	ld := newLoader(volume.New("scan", boxScan{fs}), bigScan.Shape[0], func(k sliceKey, err error) {
		if err != nil {
			t.Error(err)
		}
		ready <- k
	}, nil)
	defer ld.close()
	old, cur := sliceKey{axis: Y, idx: 10}, sliceKey{axis: Y, idx: 20}
	ld.get(old)
	fs.gate <- struct{}{} // the first piece of the old slice
	ld.get(cur)
	close(fs.gate)
	if k := <-ready; k != cur {
		t.Fatalf("ready %v first, want %v", k, cur)
	}
	checkSide(t, ld.get(cur), Y, 20)
	if ld.cache.Contains(old) {
		t.Error("the abandoned slice was cached")
	}
	fs.mu.Lock()
	oldPieces := 0
	for _, b := range fs.boxes {
		if b.Y0 == old.idx {
			oldPieces++
		}
	}
	fs.mu.Unlock()
	if oldPieces > 2 {
		t.Errorf("the stale slice read %d pieces after the slider moved on", oldPieces)
	}
	select {
	case k := <-ready:
		t.Errorf("the abandoned slice %v was reported ready", k)
	default:
	}
}

// fakeClock is a test clock: it moves when told to, and by step at each
// reading (a settle loop polling it then sees time pass).
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The status bar says how far a slow side view got, and waiting for it
// (as --screenshot does) lasts as long as it makes progress: here each
// piece takes 60% of the stall limit, 30 times the limit in all.
func TestSlowSideViewShowsProgressAndIsWaitedFor(t *testing.T) {
	h := newHarness(t)
	clock := &fakeClock{t: time.Unix(0, 0)}
	h.v.now = clock.now
	const stall = time.Second
	fs := &fakeScan{info: volume.Info{Shape: [3]int{1800, 600, 40}, DType: volume.Uint16}, gate: make(chan struct{})}
	fs.tick = func() { clock.advance(stall * 6 / 10) }
	l, err := h.v.AddImage("scan", volume.New("scan.nxs", boxScan{fs}), ImageOptions{Contrast: [2]float64{0, 20000}})
	if err != nil {
		t.Fatal(err)
	}
	// One batch, as `voxlab view` does: y 0 is never asked for.
	h.v.Batch(func() {
		h.v.Dims().SetAxis(Y)
		h.v.Dims().SetSlice(500)
	})
	k := sliceKey{axis: Y, idx: 500}
	// Let 20 of the 50 pieces through: 40%.
	for range 20 {
		fs.gate <- struct{}{}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if done, total, ok := l.ld.loadProgress(k); ok && done*100/total >= 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the read did not get to 40%")
		}
		time.Sleep(time.Millisecond)
	}
	h.q.drain()
	h.v.redraw()
	if got := h.v.bar.info.Text; !strings.Contains(got, "loading y 500: 40%") {
		t.Errorf("status %q, want it to say loading y 500: 40%%", got)
	}
	close(fs.gate)
	if err := h.v.settle(h.q, stall); err != nil {
		t.Fatalf("a slow read that keeps moving: %v", err)
	}
	checkSide(t, l.ld.get(k), Y, 500)
	if v, ok := h.v.ValueAt(l, 7, 3); !ok || v != float64(sideValue(7, 500, 3)) {
		t.Errorf("value on screen %v %v, want %d", v, ok, sideValue(7, 500, 3))
	}
	if strings.Contains(h.v.bar.info.Text, "loading") {
		t.Errorf("status still says %q", h.v.bar.info.Text)
	}
}

// A read that stops moving fails the wait with an error naming the
// slice, the file and how far it got.
func TestStalledSideViewFails(t *testing.T) {
	h := newHarness(t)
	clock := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	h.v.now = clock.now
	fs := &fakeScan{info: volume.Info{Shape: [3]int{1800, 600, 40}, DType: volume.Uint16}, gate: make(chan struct{})}
	// The loader goroutine is stuck in ReadBox until the test ends.
	t.Cleanup(func() { close(fs.gate) })
	if _, err := h.v.AddImage("scan", volume.New("/data/scan.nxs", boxScan{fs}), ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	// One batch, as `voxlab view` does: y 0 is never asked for.
	h.v.Batch(func() {
		h.v.Dims().SetAxis(Y)
		h.v.Dims().SetSlice(500)
	})
	for range 5 {
		fs.gate <- struct{}{}
	}
	err := h.v.settle(h.q, time.Second)
	if err == nil {
		t.Fatal("a stalled read was waited for")
	}
	for _, want := range []string{"stalled", "1s", "y slice 500 of /data/scan.nxs", "% read"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
