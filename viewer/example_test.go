package viewer_test

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

var update = flag.Bool("update", false, "rewrite the examples' golden images under testdata")

// Example is the package documentation's usage block, drawn: an image
// layer with its cells over it, a stack of maps beside it on the map
// slider, in grid mode, rendered offscreen as `voxlab view --screenshot` does.
// TestExamplesGolden compares its picture with testdata/example.png, so
// the documented calls cannot drift from what they draw.
func Example() {
	// Contrast limits are given: automatic ones come from the first plane
	// a loader delivers, which may be read before SetSlice takes effect.
	img, err := viewer.RenderOffscreen(640, 400, 30*time.Second, func(v *viewer.Viewer) error {
		if _, err := v.AddImage("raw", blobs(16, 48, 64), viewer.ImageOptions{Colormap: "inferno", Contrast: [2]float64{0, 255}}); err != nil {
			return err
		}
		v.AddPoints("cells", []viewer.Point{{Z: 8, Y: 24, X: 32, Type: "cell"}, {Z: 8, Y: 10, X: 12, Type: "artifact"}})
		maps, err := volume.NewStack("maps", 3, blobs(3*16, 24, 24).Source())
		if err != nil {
			return err
		}
		if _, err := v.AddStack("maps", maps, viewer.ImageOptions{Contrast: [2]float64{0, 255}}); err != nil { // a map slider
			return err
		}
		v.Panels().SetGrid(true) // one panel per image, the points over the raw one
		v.Dims().SetSlice(8)
		v.Dims().SetMap(1)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := testutil.SavePNG("example.png", img); err != nil {
		fmt.Println(err)
	}
}

// blobs is a uint8 volume of the given shape holding one bright
// Gaussian blob in its centre over a faint ramp along x.
func blobs(nz, ny, nx int) *volume.Volume {
	info := volume.Info{Shape: [3]int{nz, ny, nx}, DType: volume.Uint8}
	data := make([]byte, info.Bytes())
	i := 0
	for z := range nz {
		for y := range ny {
			for x := range nx {
				dz, dy, dx := float64(z-nz/2), float64(y-ny/2), float64(x-nx/2)
				r2 := (dz*dz + dy*dy + dx*dx) / float64(ny*ny/16)
				data[i] = uint8(40*x/nx) + uint8(200/(1+r2*r2))
				i++
			}
		}
	}
	m, err := volume.NewMemory(info, data)
	if err != nil {
		panic(err)
	}
	return volume.New("mem", m)
}

// TestExamplesGolden runs the examples and compares each picture they
// save with its golden image under testdata; -update rewrites them.
func TestExamplesGolden(t *testing.T) {
	testutil.CheckExample(t, *update, "example.png", Example)
}
