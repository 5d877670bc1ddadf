package viewer

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

// naivePercentile is the "lower" order statistic numpy.percentile uses
// with method="lower": sorted[floor(q*(n-1))].
func naivePercentile(vals []float64, q float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	return s[int(math.Floor(q*float64(len(s)-1)))]
}

func TestStatsMatchSortedPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range volume.DTypes {
		for _, n := range []int{1, 7, 1000, 12345} {
			vals := make([]float64, n)
			for i := range vals {
				switch dt {
				case volume.Uint8:
					vals[i] = float64(rng.IntN(256))
				case volume.Uint16:
					vals[i] = float64(rng.IntN(4096) + rng.IntN(2)*60000*rng.IntN(2))
				case volume.Int8:
					vals[i] = float64(rng.IntN(256) - 128)
				case volume.Int16:
					vals[i] = float64(rng.IntN(4096) - 2048 + rng.IntN(2)*30000*(1-2*rng.IntN(2)))
				case volume.Int32:
					vals[i] = float64(rng.Int32() - rng.Int32())
				case volume.Uint32:
					vals[i] = float64(rng.Uint32())
				default:
					vals[i] = float64(float32(rng.NormFloat64()*50 + 3))
				}
			}
			vol := memVolume(t, dt, [3]int{1, 1, n}, func(z, y, x int) float64 { return vals[x] })
			p, err := readPlane(vol, Z, 0, slabBytes)
			if err != nil {
				t.Fatal(err)
			}
			s := p.stats
			lo, hi := naivePercentile(vals, autoLow), naivePercentile(vals, autoHigh)
			tol := 0.0
			if !lutDirect(dt) {
				tol = (slices.Max(vals) - slices.Min(vals)) / floatBins * 1.0001
			}
			if s.min != slices.Min(vals) || s.max != slices.Max(vals) {
				t.Errorf("%s n=%d: min/max %v %v, want %v %v", dt, n, s.min, s.max, slices.Min(vals), slices.Max(vals))
			}
			if math.Abs(s.lo-lo) > tol || math.Abs(s.hi-hi) > tol || s.lo > lo || s.hi < hi {
				t.Errorf("%s n=%d: percentiles %v %v, want %v %v (within %v, not inside)", dt, n, s.lo, s.hi, lo, hi, tol)
			}
		}
	}
	// NaN and infinities are ignored; all-NaN has no finite stats.
	nan := memVolume(t, volume.Float32, [3]int{1, 1, 4}, func(z, y, x int) float64 { return []float64{math.NaN(), 1, math.Inf(1), 3}[x] })
	p, _ := readPlane(nan, Z, 0, slabBytes)
	if !p.stats.finite || p.stats.min != 1 || p.stats.max != 3 {
		t.Errorf("stats with NaN/Inf: %+v", p.stats)
	}
	allNaN := memVolume(t, volume.Float64, [3]int{1, 2, 2}, func(z, y, x int) float64 { return math.NaN() })
	if p, _ := readPlane(allNaN, Z, 0, slabBytes); p.stats.finite {
		t.Errorf("all-NaN plane has finite stats %+v", p.stats)
	}
}

// TestLUTMatchesFormula checks every table against the definition
// colour = cmap[round(255 * clamp((v-lo)/(hi-lo), 0, 1)^gamma)].
func TestLUTMatchesFormula(t *testing.T) {
	cm, _ := resources.Colormap(resources.Magma)
	for _, c := range []struct {
		dt            volume.DType
		lo, hi, gamma float64
	}{
		{volume.Uint8, 10, 200, 1},
		{volume.Uint16, 100, 30000, 0.5},
		{volume.Uint16, 500, 500, 1}, // step
		{volume.Float32, -2, 3, 2},
		{volume.Int8, -100, 50, 1},
		{volume.Int16, -20000, 12000, 0.7},
		{volume.Int32, -5e8, 1e9, 1},
		{volume.Uint32, 1e6, 3e9, 1},
	} {
		var l lut
		l.build(c.dt, c.lo, c.hi, c.gamma, cm)
		for _, v := range []float64{c.lo - 5, c.lo, (c.lo + c.hi) / 2, c.lo + (c.hi-c.lo)*0.3, c.hi, c.hi + 7} {
			if c.dt.IsInteger() && (v < c.dt.MinValue() || v > c.dt.MaxValue() || v != math.Trunc(v)) {
				continue
			}
			var tt float64
			if c.hi > c.lo {
				tt = math.Pow(math.Min(math.Max((v-c.lo)/(c.hi-c.lo), 0), 1), c.gamma)
			} else if v >= c.lo {
				tt = 1
			}
			want := cm[int(tt*255+0.5)]
			var got uint32
			if lutDirect(c.dt) {
				got = l.tab[int(v-c.dt.MinValue())]
			} else {
				row := make([]uint32, 1)
				sampleFloat(row, []int32{0}, []float64{v}, &l)
				got = row[0]
			}
			rgb := [3]uint8{uint8(got), uint8(got >> 8), uint8(got >> 16)}
			// Floats are quantised to 4096 levels first: allow one
			// colormap step.
			d := 0
			for i := range 3 {
				d = max(d, int(math.Abs(float64(rgb[i])-float64(want[i]))))
			}
			if (lutDirect(c.dt) && d != 0) || d > 3 {
				t.Errorf("%s [%v,%v] γ%v: v=%v → %v, want %v", c.dt, c.lo, c.hi, c.gamma, v, rgb, want)
			}
		}
	}
}

func TestOrthogonalSlicesMatchIndexing(t *testing.T) {
	shape := [3]int{7, 5, 6}
	f := func(z, y, x int) float64 { return float64(z*100 + y*10 + x) }
	vol := memVolume(t, volume.Uint16, shape, f)
	for _, slab := range []int64{1, 2 * 5 * 6 * 3, 1 << 20} { // one plane, three planes, all
		for _, c := range []struct {
			axis Axis
			idx  int
		}{{Y, 0}, {Y, 4}, {X, 0}, {X, 5}, {Z, 6}} {
			p, err := readPlane(vol, c.axis, c.idx, slab)
			if err != nil {
				t.Fatal(err)
			}
			for r := range p.rows {
				for col := range p.cols {
					var want float64
					switch c.axis {
					case Z:
						want = f(c.idx, r, col)
					case Y:
						want = f(r, c.idx, col)
					case X:
						want = f(r, col, c.idx)
					}
					if got := p.value(r, col); got != want {
						t.Fatalf("slab %d axis %s idx %d (%d,%d) = %v, want %v", slab, c.axis, c.idx, r, col, got, want)
					}
				}
			}
		}
	}
	if _, err := readPlane(vol, Y, 5, slabBytes); err == nil {
		t.Error("slice past the end accepted")
	}
}

// slowSource records which planes were read; with a gate, each read
// announces itself on started and waits until the gate is closed.
type slowSource struct {
	volume.Source
	gate    chan struct{}
	started chan int
	mu      sync.Mutex
	read    []int
	fail    int // plane that fails (-1: none)
}

func (s *slowSource) ReadSlab(z0, z1 int, dst []byte) error {
	if s.gate != nil {
		select {
		case s.started <- z0:
		default:
		}
		<-s.gate
	}
	s.mu.Lock()
	s.read = append(s.read, z0)
	s.mu.Unlock()
	if z0 <= s.fail && s.fail < z1 {
		return errors.New("disk on fire")
	}
	return s.Source.ReadSlab(z0, z1, dst)
}

func (s *slowSource) reads() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.read)
}

func TestLoaderDropsStaleRequests(t *testing.T) {
	base := memVolume(t, volume.Uint8, [3]int{100, 8, 8}, func(z, y, x int) float64 { return float64(z) })
	src := &slowSource{Source: base.Source(), gate: make(chan struct{}), started: make(chan int, 1), fail: -1}
	ready := make(chan sliceKey, 100)
	ld := newLoader(volume.New("slow", src), 100, func(k sliceKey, err error) { ready <- k }, nil)
	defer ld.close()
	// Slice 0 starts loading and stays stuck (slow storage) while the
	// slider sweeps on to 60.
	ld.get(sliceKey{axis: Z, idx: 0})
	if z := <-src.started; z != 0 {
		t.Fatalf("first read was plane %d", z)
	}
	for i := 1; i <= 60; i++ {
		ld.get(sliceKey{axis: Z, idx: i})
	}
	close(src.gate)
	for k := range ready {
		if k.idx == 60 {
			break
		}
	}
	for !ld.idle() {
		time.Sleep(time.Millisecond)
	}
	// Read: 0 (already started), 60, and 60's prefetched neighbours.
	reads := src.reads()
	if len(reads) < 2 || reads[0] != 0 || reads[1] != 60 {
		t.Errorf("reads %v: want 0 then straight to 60", reads)
	}
	for _, z := range reads[min(2, len(reads)):] {
		if z < 58 || z > 62 {
			t.Errorf("read plane %d: stale requests were not dropped (reads %v)", z, reads)
		}
	}
	if p := ld.get(sliceKey{axis: Z, idx: 60}); p == nil || p.value(0, 0) != 60 {
		t.Errorf("slice 60 not cached with its data")
	}
}

func TestLoaderIsLazyAndPrefetches(t *testing.T) {
	base := memVolume(t, volume.Uint8, [3]int{1000, 4, 4}, func(z, y, x int) float64 { return float64(z % 256) })
	src := &slowSource{Source: base.Source(), fail: 500}
	errs := make(chan error, 10)
	ld := newLoader(volume.New("lazy", src), 1000, func(k sliceKey, err error) { errs <- err }, nil)
	defer ld.close()
	ld.get(sliceKey{axis: Z, idx: 10})
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	for !ld.idle() {
		time.Sleep(time.Millisecond)
	}
	got := src.reads()
	slices.Sort(got)
	// The slice and its two neighbours each side, nothing else.
	if want := []int{8, 9, 10, 11, 12}; !slices.Equal(got, want) {
		t.Errorf("read planes %v, want %v", got, want)
	}
	if ld.get(sliceKey{axis: Z, idx: 11}) == nil {
		t.Error("prefetched neighbour not cached")
	}
	// A failing read is reported, remembered and not retried.
	ld.get(sliceKey{axis: Z, idx: 500})
	if err := <-errs; err == nil {
		t.Error("read error not reported")
	}
	for !ld.idle() {
		time.Sleep(time.Millisecond)
	}
	n := len(src.reads())
	if ld.get(sliceKey{axis: Z, idx: 500}) != nil || ld.err(sliceKey{axis: Z, idx: 500}) == nil {
		t.Error("failed slice not remembered")
	}
	for !ld.idle() {
		time.Sleep(time.Millisecond)
	}
	if len(src.reads()) != n {
		t.Error("a failed slice was read again")
	}
	ld.invalidate(500, 501)
	if ld.err(sliceKey{axis: Z, idx: 500}) != nil {
		t.Error("invalidate did not forget the failure")
	}
}

func TestReadPointsCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	pts, err := ReadPointsCSV(write("a.csv", "x,y,z,type\n1,2,3,cell\n4.5,5,6,artifact\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{Z: 3, Y: 2, X: 1, Type: "cell"}, {Z: 6, Y: 5, X: 4.5, Type: "artifact"}}
	if !slices.Equal(pts, want) {
		t.Errorf("with header: %v", pts)
	}
	pts, err = ReadPointsCSV(write("b.csv", "# cells\n3,2,1\n"))
	if err != nil || !slices.Equal(pts, []Point{{Z: 3, Y: 2, X: 1}}) {
		t.Errorf("without header: %v %v", pts, err)
	}
	if _, err := ReadPointsCSV(write("c.csv", "z,y,x\n1,2,oops\n")); err == nil {
		t.Error("bad number accepted")
	}
	if _, err := ReadPointsCSV(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestOpenFilesAndRecent(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	csv := filepath.Join(dir, "cells.csv")
	os.WriteFile(csv, []byte("z,y,x\n1,2,3\n"), 0o644)
	l, err := h.v.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	if pl, ok := l.(*PointsLayer); !ok || pl.Len() != 1 || pl.Name() != "cells.csv" {
		t.Errorf("opened %T %v", l, l.Name())
	}
	if _, err := h.v.Open(filepath.Join(dir, "nope.npy")); err == nil {
		t.Error("missing file opened")
	}
	if f := volume.FormatFor("x.npy"); f != nil && f.Create != nil {
		spec := filepath.Join(dir, "v.npy")
		w, err := volume.Create(spec, volume.Info{Shape: [3]int{2, 3, 4}, DType: volume.Uint16})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]uint16, 24)
		for i := range buf {
			buf[i] = uint16(i)
		}
		if err := w.WriteSlab(0, volume.Bytes(buf)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		l, err := h.v.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		h.v.Dims().SetSlice(1)
		h.settle()
		if v, ok := h.v.ValueAt(l, 2, 3); !ok || v != 23 {
			t.Errorf("npy value at z1 (2,3) = %v %v, want 23", v, ok)
		}
		if r := h.v.files.recent(); len(r) != 2 || r[0] != spec {
			t.Errorf("recent %v", r)
		}
	} else {
		t.Log("no NPY writer registered: the NPY part of this test did not run")
	}
	if r := h.v.files.recent(); len(r) == 0 || r[len(r)-1] != csv {
		t.Errorf("recent %v, want %s last", r, csv)
	}
}

// writeNPY4 writes a float32 (n, z, y, x) NPY file by hand
// (testutil.WriteNPY).
func writeNPY4(t *testing.T, path string, shape [4]int, f func(i, z, y, x int) float32) {
	t.Helper()
	var vals []float32
	for i := range shape[0] {
		for z := range shape[1] {
			for y := range shape[2] {
				for x := range shape[3] {
					vals = append(vals, f(i, z, y, x))
				}
			}
		}
	}
	testutil.WriteNPY(t, path, shape[:], vals)
}

// A 4D stack of maps (cryo-EM ground truth) opens with a map slider:
// the slice slider spans one map, the map slider picks the map, every
// axis slices within the map, and only the planes of the shown map are
// read.
func TestOpenStackOfMaps(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "gt.npy")
	f := func(i, z, y, x int) float32 { return float32(1000*i + 100*z + 10*y + x) }
	writeNPY4(t, path, [4]int{3, 4, 5, 6}, f)
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	il := l.(*ImageLayer)
	if il.Extent() != [3]int{4, 5, 6} || il.Maps() != 3 || l.Name() != "gt.npy 3 maps" {
		t.Fatalf("stack opened as %d maps of %v named %q", il.Maps(), il.Extent(), l.Name())
	}
	h.settle()
	if h.v.dims.mapSlider.Hidden || h.v.dims.mapSlider.Max != 2 || h.v.dims.slider.Max != 3 {
		t.Errorf("dims: map row hidden %v, map slider to %v, slice slider to %v; want maps 0-2, slices 0-3",
			h.v.dims.mapSlider.Hidden, h.v.dims.mapSlider.Max, h.v.dims.slider.Max)
	}
	h.v.dims.mapSlider.SetValue(2) // as a drag does
	h.v.Dims().SetSlice(3)
	h.settle()
	if h.v.Dims().Map() != 2 {
		t.Fatalf("map slider at 2, viewer at map %d", h.v.Dims().Map())
	}
	if v, ok := h.v.ValueAt(l, 4, 5); !ok || v != float64(f(2, 3, 4, 5)) {
		t.Errorf("map 2 plane 3 (4,5) = %v %v, want %v", v, ok, f(2, 3, 4, 5))
	}
	if !strings.Contains(h.v.dims.mapLabel.Text, "map 2/2") || !strings.Contains(h.v.dims.label.Text, "z 3/3") {
		t.Errorf("dims labels %q and %q", h.v.dims.mapLabel.Text, h.v.dims.label.Text)
	}
	// Arrow keys: up and down step through maps, left and right slices.
	h.v.typedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	h.v.typedKey(&fyne.KeyEvent{Name: fyne.KeyLeft})
	h.settle()
	if h.v.Dims().Map() != 1 || h.v.Dims().Slice() != 2 {
		t.Errorf("down and left arrows: map %d slice %d, want 1 and 2", h.v.Dims().Map(), h.v.Dims().Slice())
	}
	// y and x slices lie within the map: rows are its z.
	for _, c := range []struct {
		axis           Axis
		idx, row, col  int
		wz, wy, wx, wm int
	}{
		{Y, 4, 3, 5, 3, 4, 5, 1},
		{X, 5, 2, 1, 2, 1, 5, 1},
	} {
		h.v.Dims().SetAxis(c.axis)
		h.v.Dims().SetSlice(c.idx)
		h.settle()
		if v, ok := h.v.ValueAt(l, c.row, c.col); !ok || v != float64(f(c.wm, c.wz, c.wy, c.wx)) {
			t.Errorf("axis %s slice %d of map 1 (%d,%d) = %v %v, want %v", c.axis, c.idx, c.row, c.col, v, ok, f(c.wm, c.wz, c.wy, c.wx))
		}
		if n := int(h.v.dims.slider.Max) + 1; n != [3]int{4, 5, 6}[c.axis] {
			t.Errorf("axis %s: slider covers %d slices", c.axis, n)
		}
	}
	h.v.RemoveLayer(l) // closes the file
	if !h.v.dims.mapSlider.Hidden {
		t.Error("the map slider stayed after the stack was removed")
	}
}

// A stack reads only what is shown: the z slice of one map and its
// neighbours, the same slice of the next maps when the map slider
// moves, and for a y slice (of a stack too large to be read whole) only
// that map's planes.
func TestStackReadsOnlyTheShownMap(t *testing.T) {
	h := newHarness(t)
	const n, box = 50, 8
	base := memVolume(t, volume.Uint8, [3]int{n * box, box, box}, func(z, y, x int) float64 { return float64(z) })
	src := &slowSource{Source: base.Source(), fail: -1}
	st, err := volume.NewStack("maps", n, src)
	if err != nil {
		t.Fatal(err)
	}
	var l *ImageLayer
	h.v.Batch(func() { // one draw: only the slice asked for is read
		if l, err = h.v.AddStack("maps", st, ImageOptions{}); err != nil {
			t.Fatal(err)
		}
		h.v.Dims().SetMap(30)
		h.v.Dims().SetSlice(5)
	})
	h.settle()
	if v, ok := h.v.ValueAt(l, 1, 1); !ok || v != 30*box+5 {
		t.Fatalf("map 30 slice 5 = %v %v, want %d", v, ok, 30*box+5)
	}
	for _, z := range src.reads() {
		if z < 30*box+5-prefetchN || z > 30*box+5+prefetchN {
			t.Errorf("read plane %d: not of map 30 near slice 5 (reads %v)", z, src.reads())
		}
	}
	// Moving the map slider prefetches the neighbouring maps' slice.
	h.v.Dims().SetMap(31)
	h.settle()
	for !l.ld.idle() {
		time.Sleep(time.Millisecond)
	}
	if l.ld.get(sliceKey{axis: Z, idx: 5, m: 32}) == nil {
		t.Errorf("the next map's slice was not prefetched (reads %v)", src.reads())
	}
	// A y slice of a stack too large to read whole (200 MiB here, made
	// on the fly) reads only its map's planes.
	big := &slowSource{Source: &synthSource{volume.Info{Shape: [3]int{200 * 64, 64, 128}, DType: volume.Uint16}}, fail: -1}
	bst, err := volume.NewStack("big", 200, big)
	if err != nil {
		t.Fatal(err)
	}
	var bl *ImageLayer
	h.v.Batch(func() {
		if bl, err = h.v.AddStack("big", bst, ImageOptions{}); err != nil {
			t.Fatal(err)
		}
		h.v.Dims().SetMap(120)
		h.v.Dims().SetAxis(Y)
		h.v.Dims().SetSlice(10)
	})
	h.settle()
	if v, ok := h.v.ValueAt(bl, 3, 7); !ok || v != float64((10*128+7+(120*64+3)*31)&0xfff) {
		t.Errorf("y slice 10 of map 120 (3,7) = %v %v", v, ok)
	}
	if r := big.reads(); len(r) == 0 || slices.ContainsFunc(r, func(z int) bool { return z < 120*64 || z >= 121*64 }) {
		t.Errorf("a y slice of map 120 read slabs from planes %v, want only map 120's [%d, %d)", r, 120*64, 121*64)
	}
	h.v.RemoveLayer(bl)
	h.v.Dims().SetAxis(Z)
	// The map slider spans the visible stacks only; a plain volume shows
	// the same slice whatever the map.
	plain, _ := h.v.AddImage("plain", memVolume(t, volume.Uint8, [3]int{box, box, box}, func(z, y, x int) float64 { return 7 }), ImageOptions{})
	h.settle()
	if v, ok := h.v.ValueAt(plain, 0, 0); !ok || v != 7 || h.v.Dims().Maps() != n {
		t.Errorf("plain volume beside the stack: value %v %v, maps %d", v, ok, h.v.Dims().Maps())
	}
}

// The cache keeps to its byte budget whatever the slice sizes.
func TestLoaderCacheBudget(t *testing.T) {
	// Planes of 4 MiB (uint16 1024 x 2048), 100 of them: more than the budget.
	info := volume.Info{Shape: [3]int{100, 1024, 2048}, DType: volume.Uint16}
	ld := newLoader(volume.New("synthetic", &synthSource{info}), info.Shape[0], nil, nil)
	defer ld.close()
	for z := range 100 {
		for ld.get(sliceKey{axis: Z, idx: z}) == nil {
			time.Sleep(time.Millisecond)
		}
		if b := ld.cachedBytes.Load(); b > cacheBytes {
			t.Fatalf("cache holds %d bytes, budget %d", b, cacheBytes)
		}
	}
	for !ld.idle() {
		time.Sleep(time.Millisecond)
	}
	if n := ld.cache.Len(); n != cacheBytes/(4<<20) {
		t.Errorf("cache holds %d slices of 4 MiB, want %d", n, cacheBytes/(4<<20))
	}
	var sum int64
	for _, k := range ld.cache.Keys() {
		p, _ := ld.cache.Peek(k)
		sum += int64(len(p.data))
	}
	if sum != ld.cachedBytes.Load() {
		t.Errorf("byte count %d, cache holds %d", ld.cachedBytes.Load(), sum)
	}
}
