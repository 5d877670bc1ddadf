package panel

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// sweepPlane is the value a fake sweep writes over its map of centre c:
// each map tells which centre it was made with.
func sweepPlane(c float64) float32 { return float32(100 + 10*c) }

// sweepLike turns the harness's fake pipeline into a reconstruct-like
// one: a centre and a centre sweep from:to:step, whose run writes a 4 x 5
// plane per centre (filled with sweepPlane) to an NPY, sending each as
// a live block, and whose spec says it sweeps "center".
func sweepLike(t *testing.T) func(*Pipeline) {
	return func(pl *Pipeline) {
		s := *pl.Spec
		s.Params = append(slices.Clip(s.Params),
			pipeline.Param{Name: "center", Label: "Centre", Kind: pipeline.Text},
			pipeline.Param{Name: "center-sweep", Label: "Centre sweep", Kind: pipeline.Text})
		centres := func(v pipeline.Values) []float64 {
			var a, b, step float64
			if _, err := fmt.Sscanf(v.String("center-sweep"), "%g:%g:%g", &a, &b, &step); err != nil || step <= 0 {
				return nil
			}
			var out []float64
			for c := a; c <= b+1e-9; c += step {
				out = append(out, c)
			}
			return out
		}
		s.Live = pipeline.Live{Kind: pipeline.LiveVolume,
			Result: func(args []string) string { return args[1] },
			Sweep: func(_ []string, v pipeline.Values) *pipeline.Sweep {
				cs := centres(v)
				if cs == nil {
					return nil
				}
				sw := &pipeline.Sweep{Param: "center", By: "center-sweep", Label: "centre"}
				for _, c := range cs {
					sw.Values = append(sw.Values, strconv.FormatFloat(c, 'g', 12, 64))
				}
				return sw
			}}
		pl.Spec = &s
		pl.Live = nil
		pl.Run = func(ctx context.Context, r Request, p *job.Progress) error {
			cs := centres(r.Values)
			const rows, cols = 4, 5
			vals := make([]float32, 0, len(cs)*rows*cols)
			p.Stage("centre sweep", int64(len(cs)), "centres")
			for i, c := range cs {
				plane := make([]byte, 4*rows*cols)
				for k := range rows * cols {
					binary.LittleEndian.PutUint32(plane[4*k:], math.Float32bits(sweepPlane(c)))
					vals = append(vals, sweepPlane(c))
				}
				p.Partial(&pipeline.VolumeBlock{Z0: i, Depth: len(cs), Shape: [3]int{1, rows, cols}, DType: volume.Float32, Data: plane})
				p.Add(1)
			}
			testutil.WriteNPY(t, r.Args[1], []int{len(cs), rows, cols}, vals)
			return nil
		}
	}
}

// TestCentreSweepOpensAsAStackAndFillsTheCentre: a sweep run from the
// panel opens, when it ends, as a stack of one map per centre that the
// map slider steps through; the panel names the centre of the map on
// show (following the slider), and "Use this centre" puts it in the
// centre field and empties the sweep, so that Run then reconstructs at
// that centre. Each map is checked to hold the plane the run wrote for
// its centre, so a label off by one map fails.
func TestCentreSweepOpensAsAStackAndFillsTheCentre(t *testing.T) {
	h := newPanelHarnessFor(t, cpuProbe, sweepLike(t))
	out := filepath.Join(h.dir, "sweep.npy")
	h.set("out", out)
	h.set("center-sweep", "10:12:0.5")
	h.ended(h.run())

	var stack *viewer.ImageLayer
	h.until("the sweep's stack", func() bool {
		for _, l := range h.hl.Layers() {
			if il, ok := l.(*viewer.ImageLayer); ok && il.Maps() > 1 {
				stack = il
			}
		}
		return stack != nil
	})
	if stack.Maps() != 5 || h.hl.Maps() != 5 {
		t.Fatalf("the sweep opened with %d maps (slider %d), want 5, one per centre", stack.Maps(), h.hl.Maps())
	}
	if n := len(h.hl.Layers()); n != 1 {
		t.Errorf("%d layers after the sweep, want the stack alone (the live layer removed)", n)
	}
	b := h.p.sweep
	if !b.box.Visible() {
		t.Fatal("the sweep box is hidden after the sweep opened")
	}
	want := []string{"10", "10.5", "11", "11.5", "12"}
	for i, c := range want {
		// Step with the viewer's map control, as ↑/↓ and the slider do.
		h.hl.SetMap(i)
		cv, err := strconv.ParseFloat(c, 64)
		if err != nil {
			t.Fatal(err)
		}
		h.until("map "+c+" to load", func() bool {
			v, ok := h.hl.ValueAt(stack, 1, 1)
			return ok && v == float64(sweepPlane(cv))
		})
		if got := h.p.SweepValue(); got != c {
			t.Errorf("map %d: the panel's value %q, want %q", i, got, c)
		}
		if !strings.HasSuffix(b.onShow.Text, "centre "+c) {
			t.Errorf("map %d: the box says %q, want it to end with centre %s", i, b.onShow.Text, c)
		}
	}
	// Choosing a centre in the list shows its map.
	b.choose.SetSelectedIndex(1)
	if h.hl.Map() != 1 || h.p.SweepValue() != "10.5" {
		t.Errorf("choosing centre 10.5 shows map %d (%q)", h.hl.Map(), h.p.SweepValue())
	}
	h.hl.SetMap(3)
	if b.use.Text != "Use this centre" {
		t.Errorf("the button reads %q", b.use.Text)
	}
	test.Tap(b.use)
	if got := h.p.Field("center").(*widget.Entry).Text; got != "11.5" {
		t.Errorf("centre field %q after Use this centre on map 3, want 11.5", got)
	}
	if !strings.Contains(b.onShow.Text, "11.5 is in Centre") {
		t.Errorf("after Use the box says %q, not where the centre went", b.onShow.Text)
	}
	if got := h.p.Field("center-sweep").(*widget.Entry).Text; got != "" {
		t.Errorf("the sweep field kept %q: the next run would sweep again", got)
	}
	h.planned()
	r, err := h.p.Request()
	if err != nil || r.Values.String("center") != "11.5" {
		t.Errorf("the next request's centre %q (%v)", r.Values.String("center"), err)
	}
	// Closing the stack takes the box away.
	h.hl.RemoveLayer(stack)
	h.until("the box to hide", func() bool { return !b.box.Visible() })
}
