package viewer

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/render3d"
)

// green3D counts green-dominant pixels of the 3D frame within r pixels
// of (x, y).
func green3D(h *harness, x, y, r float64) int {
	img := h.v.v3.shown
	n := 0
	for j := int(y - r); j <= int(y+r); j++ {
		for i := int(x - r); i <= int(x+r); i++ {
			c := img.RGBAAt(i, j)
			if int(c.G) > int(c.R)+40 && int(c.G) > int(c.B)+40 {
				n++
			}
		}
	}
	return n
}

// TestView3DIsoAndPoints renders a sphere's iso-surface in the 3D view
// after its grids were built (coarse at factor 2, fine at full
// resolution): the final frame shows the surface lit, at the centre;
// a point inside the sphere is hidden behind it and a point in front
// of the empty corner shows.
func TestView3DIsoAndPoints(t *testing.T) {
	h := newHarness(t)
	const n, r = 40, 12.0
	c := float64(n-1) / 2
	vol := memVolume(t, volume.Float32, [3]int{n, n, n}, func(z, y, x int) float64 {
		return r - math.Sqrt((float64(z)-c)*(float64(z)-c)+(float64(y)-c)*(float64(y)-c)+(float64(x)-c)*(float64(x)-c))
	})
	if _, err := h.v.AddImage("sphere", vol, ImageOptions{Contrast: [2]float64{-10, 12}}); err != nil {
		t.Fatal(err)
	}
	inside := Point{Z: c, Y: c, X: c}
	corner := Point{Z: 3, Y: 3, X: 3}
	h.v.AddPoints("cells", []Point{inside, corner})
	h.v.Scene().SetMode(render3d.Iso)
	h.v.Scene().SetIsoThreshold(0)
	h.v.v3.coarse = int64(n*n*n*4) / 8 // factor 2
	h.v.Scene().SetCameraAngles(25, 15)
	h.v.Scene().SetOn(true)
	h.settle()

	w := h.v.v3
	var lg *layerGrids
	for _, g := range w.grids {
		lg = g
	}
	if lg == nil || lg.coarse.Factor != 2 || lg.fine.Factor != 1 {
		t.Fatalf("grids %+v: want factors 2 and 1", lg)
	}
	if w.finalGen != w.gen || w.shown == nil {
		t.Fatalf("final frame %d of %d on show", w.finalGen, w.gen)
	}
	v := w.view
	if w.shown.Bounds().Dx() != v.W {
		t.Fatalf("frame %v, view %dx%d", w.shown.Bounds(), v.W, v.H)
	}
	// The surface faces the viewer at the centre: fully lit grey.
	ctr := w.shown.RGBAAt(v.W/2, v.H/2)
	if ctr.R < 200 || ctr.R != ctr.G || ctr.G != ctr.B {
		t.Fatalf("centre pixel %v, want a lit grey surface", ctr)
	}
	ext := frame3D(h.v.stack.All(), h.v.Dims().Extent())
	at := func(p Point) (float64, float64) {
		x, y, _ := v.Project(worldOf(p.Z, p.Y, p.X, [3]float64{1, 1, 1}, ext))
		return x, y
	}
	if x, y := at(inside); green3D(h, x, y, 40) != 0 {
		t.Fatalf("the point inside the sphere shows at (%.0f, %.0f)", x, y)
	}
	// Markers are rings: count within their radius.
	if x, y := at(corner); green3D(h, x, y, 40) == 0 {
		t.Fatalf("the point at the corner does not show at (%.0f, %.0f)", x, y)
	}

	// MIP blends the points over the volume: both show.
	h.v.Scene().SetMode(render3d.MIP)
	h.settle()
	if x, y := at(inside); green3D(h, x, y, 40) == 0 {
		t.Fatalf("MIP: the point inside the sphere does not show")
	}
	// Back to the slices: the panels are on show again.
	h.v.Scene().SetOn(false)
	if h.v.v3.onShow() {
		t.Fatal("still 3D")
	}
}

// TestView3DDrag turns the camera by a drag and resets it with a double
// tap.
func TestView3DDrag(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint8, [3]int{8, 8, 8}, func(z, y, x int) float64 { return float64(x * 30) })
	if _, err := h.v.AddImage("v", vol, ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	h.v.Scene().SetOn(true)
	h.settle()
	w := h.v.v3
	sz := w.Size()
	w.Dragged(dragEvent(sz.Width/2+40, sz.Height/2, 40, 0))
	if h.v.v3.camera().Rot == render3d.Identity {
		t.Fatal("a drag did not turn the camera")
	}
	h.settle()
	if w.view.Cam.Rot != h.v.v3.camera().Rot {
		t.Fatal("the frame on show is not of the turned camera")
	}
	w.DoubleTapped(nil)
	if h.v.v3.camera().Rot != render3d.Identity {
		t.Fatal("a double tap did not reset the camera")
	}
}

func dragEvent(x, y, dx, dy float32) *fyne.DragEvent {
	return &fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, y)}, Dragged: fyne.Delta{DX: dx, DY: dy}}
}

// TestView3DBlendsLayers: two layers in 3D blend as in 2D: an additive
// red layer over a grey one adds its red where its MIP is bright, and
// removing it drops its grids.
func TestView3DBlendsLayers(t *testing.T) {
	h := newHarness(t)
	grey := memVolume(t, volume.Uint8, [3]int{8, 16, 16}, func(z, y, x int) float64 { return 100 })
	red := memVolume(t, volume.Uint8, [3]int{8, 16, 16}, func(z, y, x int) float64 {
		if x >= 8 {
			return 255
		}
		return 0
	})
	if _, err := h.v.AddImage("grey", grey, ImageOptions{Contrast: [2]float64{0, 255}}); err != nil {
		t.Fatal(err)
	}
	rl, err := h.v.AddImage("red", red, ImageOptions{Contrast: [2]float64{0, 255}, Colormap: "red", Blending: Additive})
	if err != nil {
		t.Fatal(err)
	}
	h.v.Scene().SetOn(true)
	h.settle()
	v := h.v.v3.view
	img := h.v.v3.shown
	// Down z, x to the right: the left half is grey only, the right
	// half grey plus full red.
	at := func(x float64) [3]uint8 {
		sx, sy, _ := v.Project(render3d.WorldOf(4, 8, x, [3]int{8, 16, 16}, [3]float64{1, 1, 1}))
		c := img.RGBAAt(int(sx), int(sy))
		return [3]uint8{c.R, c.G, c.B}
	}
	if l, r := at(3), at(12); l != [3]uint8{100, 100, 100} || r != [3]uint8{255, 100, 100} {
		t.Fatalf("left %v, right %v: want grey 100 and grey plus red", l, r)
	}
	h.v.RemoveLayer(rl)
	h.settle()
	if len(h.v.v3.grids) != 1 {
		t.Fatalf("%d layers' grids after removing one", len(h.v.v3.grids))
	}
}

// failingSource fails reads of more than one plane: the slices on
// screen read, the 3D view's slabs do not.
type failingSource struct{ volume.Source }

func (f failingSource) ReadSlab(z0, z1 int, dst []byte) error {
	if z1-z0 > 1 {
		return errors.New("disk on fire")
	}
	return f.Source.ReadSlab(z0, z1, dst)
}

// TestView3DReadError: a volume that cannot be read whole fails the 3D
// view with an error naming the layer (offscreen rendering returns it).
func TestView3DReadError(t *testing.T) {
	h := newHarness(t)
	good := memVolume(t, volume.Uint8, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 7 })
	bad := volume.New("bad.npy", failingSource{good.Source()})
	if _, err := h.v.AddImage("bad", bad, ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	h.v.Scene().SetOn(true)
	err := h.v.settle(h.q, 2*time.Minute)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "3D view of bad") {
		t.Fatalf("settle: %v, want the read error naming the layer", err)
	}
}

// TestView3DCoregistersVoxelSizes puts two image layers of different
// voxel sizes and a points layer over the second into one 3D view: each
// layer keeps its own voxel size with voxel (0, 0, 0) at the frame's
// corner, and the points are placed at the voxel size of the image below
// them, so a point at a bright voxel of that image projects onto it
// (looking down z, MIP) and not where the first image's voxel size would
// put it.
func TestView3DCoregistersVoxelSizes(t *testing.T) {
	h := newHarness(t)
	big := memVolume(t, volume.Float32, [3]int{10, 40, 40}, func(z, y, x int) float64 { return 0 })
	big.VoxelSize = [3]float64{1, 1, 1}
	bright := Point{Z: 5, Y: 3, X: 14}
	small := memVolume(t, volume.Float32, [3]int{10, 16, 16}, func(z, y, x int) float64 {
		if z == int(bright.Z) && y == int(bright.Y) && x == int(bright.X) {
			return 1
		}
		return 0
	})
	small.VoxelSize = [3]float64{1, 2, 2}
	if _, err := h.v.AddImage("big", big, ImageOptions{Contrast: [2]float64{0, 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.v.AddImage("small", small, ImageOptions{Contrast: [2]float64{0, 1}, Blending: Additive}); err != nil {
		t.Fatal(err)
	}
	h.v.Scene().SetMode(render3d.MIP)
	h.v.Scene().SetCameraAngles(0, 0)
	h.v.Scene().SetOn(true)
	h.settle()
	img, v := h.v.v3.shown, h.v.v3.view
	var sx, sy, n float64
	for j := range v.H {
		for i := range v.W {
			if c := img.RGBAAt(i, j); c.R > 128 && c.G > 128 && c.B > 128 {
				sx, sy, n = sx+float64(i), sy+float64(j), n+1
			}
		}
	}
	if n == 0 {
		t.Fatal("the bright voxel does not show")
	}
	sx, sy = sx/n, sy/n

	pts := h.v.AddPoints("cells", []Point{bright})
	if sp := pointsSpacing(h.v.stack.All(), pts); sp != small.VoxelSize {
		t.Fatalf("points at voxel size %v, want the image below's %v", sp, small.VoxelSize)
	}
	ext := frame3D(h.v.stack.All(), h.v.Dims().Extent())
	if want := (render3d.Vec{40, 40, 10}); ext != want {
		t.Fatalf("frame %v, want %v", ext, want)
	}
	x, y, _ := v.Project(worldOf(bright.Z, bright.Y, bright.X, small.VoxelSize, ext))
	px := v.Pixel
	if math.Hypot(x-sx, y-sy) > 1/px+1 {
		t.Errorf("the point projects to (%.1f, %.1f), the bright voxel shows at (%.1f, %.1f)", x, y, sx, sy)
	}
	xw, yw, _ := v.Project(worldOf(bright.Z, bright.Y, bright.X, big.VoxelSize, ext))
	if math.Hypot(xw-sx, yw-sy) < 3/px {
		t.Fatalf("the test cannot tell the voxel sizes apart: (%.1f, %.1f) vs (%.1f, %.1f)", xw, yw, sx, sy)
	}
	h.settle()
	// The marker is an outline of the points' size at the image's voxel
	// size (2 in y and x): look within its radius.
	if got := green3D(h, x, y, pts.size*2/px/2+3); got == 0 {
		t.Errorf("no marker drawn at the point's projection (%.0f, %.0f)", x, y)
	}
}
