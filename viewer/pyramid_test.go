package viewer

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// countSource counts the planes read from a level.
type countSource struct {
	volume.Source
	n *atomic.Int64
}

func (c countSource) ReadSlab(z0, z1 int, dst []byte) error {
	c.n.Add(int64(z1 - z0))
	return c.Source.ReadSlab(z0, z1, dst)
}

// pyrSource is a synthetic pyramid: level i halves y and x i times,
// with values that say which level they came from (level*10000 plus
// the level-0 coordinates' sum).
type pyrSource struct {
	countSource
	levels []*volume.Volume
	reads  []*atomic.Int64
}

func (p *pyrSource) Levels() int { return len(p.levels) }
func (p *pyrSource) LevelInfo(i int) (volume.Info, [3]float64) {
	f := float64(int(1) << i)
	return p.levels[i].Info, [3]float64{1, f, f}
}
func (p *pyrSource) OpenLevel(i int) (*volume.Volume, error) {
	return volume.New(fmt.Sprintf("level %d", i), countSource{p.levels[i].Source(), p.reads[i]}), nil
}

func newPyrVolume(t *testing.T, shape [3]int, n int) (*volume.Volume, []*atomic.Int64) {
	p := &pyrSource{}
	for i := range n {
		f := 1 << i
		s := [3]int{shape[0], (shape[1] + f - 1) / f, (shape[2] + f - 1) / f}
		p.levels = append(p.levels, memVolume(t, volume.Uint16, s, func(z, y, x int) float64 {
			return float64(i*10000 + (y*f+x*f)%1000)
		}))
		p.reads = append(p.reads, new(atomic.Int64))
	}
	p.countSource = countSource{p.levels[0].Source(), p.reads[0]}
	return volume.New("pyramid", p), p.reads
}

// TestPyramidLevels: a zoomed-out z slice of a pyramid is read from the
// coarsest level that still fills the screen, level 0's planes are never
// read until the user zooms in far enough to need them, and the value
// under the pointer comes from the level shown.
func TestPyramidLevels(t *testing.T) {
	h := newHarness(t)
	vol, reads := newPyrVolume(t, [3]int{10, 2048, 2048}, 4)
	vol.VoxelSize = [3]float64{5, 1, 1}
	l, err := h.v.AddImage("pyr", vol, ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	p := h.panel()
	devPerVoxel := p.xf().Scale * p.pixelScale()
	if devPerVoxel >= 0.5 {
		t.Fatalf("the fit shows %.2f device pixels per voxel; the test wants a zoomed-out view", devPerVoxel)
	}
	check := func(when string) int {
		t.Helper()
		s := p.xf().Scale * p.pixelScale()
		want := 0
		for i := 1; i < 4; i++ {
			if float64(int(1)<<i)*s <= 1 {
				want = i
			}
		}
		if l.level != want {
			t.Errorf("%s (%.3f device pixels per voxel): level %d, want %d", when, s, l.level, want)
		}
		if want > 0 && reads[0].Load() != 0 {
			t.Errorf("%s: %d planes of level 0 read", when, reads[0].Load())
		}
		if reads[want].Load() == 0 {
			t.Errorf("%s: nothing read from level %d", when, want)
		}
		// The value at level-0 (row, col) is the level's voxel over it.
		row, col := 1000, 1500
		f := 1 << want
		if got, ok := h.v.ValueAt(l, row, col); !ok || got != float64(want*10000+(row/f*f+col/f*f)%1000) {
			t.Errorf("%s: value at (%d, %d) = %v %v, want level %d's", when, row, col, got, ok, want)
		}
		return want
	}
	first := check("at the fit")
	h.v.Panels().setNav(nav{Zoom: 0.25})
	h.settle()
	if check("zoomed out") <= first {
		t.Errorf("zooming out did not pick a coarser level than %d", first)
	}
	// Moving the slider to a plane not prefetched reads it from the same level.
	before := reads[l.level].Load()
	h.v.Dims().SetSlice(9)
	h.settle()
	if reads[l.level].Load() == before || reads[0].Load() != 0 {
		t.Errorf("slice 9: level %d reads %d -> %d, level 0 %d", l.level, before, reads[l.level].Load(), reads[0].Load())
	}
	// A y slice at the fit comes from a level too, although its rows (z
	// planes 5 voxels apart, none of them dropped by any level) are more
	// than a device pixel tall: level 0 is never read.
	h.v.Panels().setNav(nav{})
	h.v.Dims().SetAxis(Y)
	h.settle()
	t0 := p.xf()
	col, row := t0.Scale*p.pixelScale(), t0.RowScale()*p.pixelScale()
	want := 0
	for i := 1; i < 4; i++ {
		if float64(int(1)<<i)*col <= 1 {
			want = i
		}
	}
	if row <= 1 || want == 0 {
		t.Fatalf("y slice: %.2f x %.2f device pixels per voxel; the test wants rows over 1 and columns under 0.5", row, col)
	}
	if l.level != want || reads[0].Load() != 0 || reads[want].Load() == 0 {
		t.Errorf("y slice at the fit: level %d, want %d; level 0 read %d planes", l.level, want, reads[0].Load())
	}
	h.v.Dims().SetAxis(Z)
	h.settle()
	// Zoomed in past 1:1, level 0 it is.
	h.v.Panels().setNav(nav{Zoom: 8})
	h.settle()
	check("zoomed in")
}
