package viewer

import (
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/volume"
)

// benchScene is a screenshot's usual content: a 16-bit volume in a
// colormap with points over it, the layer list and the selected layer's
// controls.
func benchScene(b *testing.B) func(v *Viewer) error {
	vol := memVolume(b, volume.Uint16, [3]int{8, 512, 512}, func(z, y, x int) float64 {
		return float64((x*700 + y*300 + z*50) % 65536)
	})
	pts := make([]Point, 0, 100)
	for i := range 100 {
		pts = append(pts, Point{Z: float64(i % 8), Y: float64(i * 5), X: float64(i * 3), Type: "cell"})
	}
	return func(v *Viewer) error {
		l, err := v.AddImage("raw", vol, ImageOptions{Colormap: "viridis"})
		if err != nil {
			return err
		}
		v.AddPoints("cells", pts)
		v.Dims().SetSlice(4)
		v.Select(l)
		return nil
	}
}

// BenchmarkRenderOffscreen1280 is `voxlab view --screenshot` in process:
// a new app and window, the scene, the wait for its slice and the
// capture of a 1280 x 800 window.
func BenchmarkRenderOffscreen1280(b *testing.B) {
	setup := benchScene(b)
	for b.Loop() {
		if _, err := RenderOffscreen(1280, 800, time.Minute, setup); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOffscreenCapture1280 is the painting alone: one capture of a
// settled 1280 x 800 window (the turntable's cost per frame, less the 3D
// rendering).
func BenchmarkOffscreenCapture1280(b *testing.B) {
	hl := NewOffscreen(1280, 800)
	defer hl.Close()
	if err := benchScene(b)(hl.Viewer); err != nil {
		b.Fatal(err)
	}
	if err := hl.Settle(time.Minute); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		hl.Capture()
	}
}
