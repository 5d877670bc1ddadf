package panel

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

var update = flag.Bool("update", false, "rewrite the examples' golden images under testdata")

// ExampleNewPanel is the package documentation's usage block, drawn: the
// processing panel docked beside a viewer, its form filled in and its
// plan on show, rendered offscreen as `voxlab gui --screenshot` does
// (with the tests' fake pipeline standing in for the application's).
// TestExamplesGolden compares its picture with
// testdata/example_panel.png.
func ExampleNewPanel() {
	v := viewer.NewOffscreen(1280, 800)
	defer v.Close()
	pipelines := []*Pipeline{(&fakePipeline{}).pipeline()}
	p := NewPanel(v.Viewer, PanelOptions{Probe: cpuProbe}, pipelines...) // docks "Process"
	defer p.Close()

	// Contrast limits are given: automatic ones come from the first plane
	// a loader delivers, which may be read before the slice is chosen.
	if _, err := v.AddImage("scan", exampleRamp(), viewer.ImageOptions{Contrast: [2]float64{0, 4000}}); err != nil {
		fmt.Println(err)
		return
	}
	in := "input.txt"
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	for name, value := range map[string]string{"in": in, "out": "out.txt", "count": "100", "batch-size": "20"} {
		if err := p.Set(name, value); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := v.Until(time.Minute, func() bool { return !p.Planning() && v.Idle() }); err != nil {
		fmt.Println(err)
		return
	}
	p.ShowPlan() // as the Run button would, before p.Run()
	if err := v.Settle(time.Minute); err != nil {
		fmt.Println(err)
		return
	}
	if err := testutil.SavePNG("example_panel.png", v.Capture()); err != nil {
		fmt.Println(err)
	}
}

// exampleRamp is a 4 x 30 x 40 uint16 volume of a diagonal ramp.
func exampleRamp() *volume.Volume {
	info := volume.Info{Shape: [3]int{4, 30, 40}, DType: volume.Uint16}
	data := make([]byte, info.Bytes())
	vals := volume.Uint16s(data)
	for i := range vals {
		vals[i] = uint16(i * 37 % 4000)
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
	testutil.CheckExample(t, *update, "example_panel.png", ExampleNewPanel)
}
