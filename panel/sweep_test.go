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

	"fyne.io/fyne/v2"
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
	if stack.Maps() != 5 || h.hl.Dims().Maps() != 5 {
		t.Fatalf("the sweep opened with %d maps (slider %d), want 5, one per centre", stack.Maps(), h.hl.Dims().Maps())
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
		h.hl.Dims().SetMap(i)
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
		if got := mapSliderLabel(h); got != "centre "+c {
			t.Errorf("map %d: the map slider reads %q, want centre %s", i, got, c)
		}
	}
	// Choosing a centre in the list shows its map.
	b.choose.SetSelectedIndex(1)
	if h.hl.Dims().Map() != 1 || h.p.SweepValue() != "10.5" {
		t.Errorf("choosing centre 10.5 shows map %d (%q)", h.hl.Dims().Map(), h.p.SweepValue())
	}
	h.hl.Dims().SetMap(3)
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

// mapSliderLabel is the text of the viewer's map slider label, as on
// screen: the visible label beside the map slider ("map i/N" or the
// sweep's "centre c"), found by walking the window's widgets.
func mapSliderLabel(h *panelHarness) string {
	var texts []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *widget.Label:
			if strings.HasPrefix(x.Text, "map ") || strings.HasPrefix(x.Text, "centre ") {
				texts = append(texts, x.Text)
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(h.hl.Content())
	if len(texts) != 1 {
		h.t.Errorf("map slider labels %q, want one", texts)
		return ""
	}
	return texts[0]
}

// TestCentreSweepLabelsAreWhatTheRunRecorded: where the sweep's output
// records its centres (an HDF5 output's attribute), the maps are
// labelled by those — what the run wrote — not by the request: the fake
// run here records centres a quarter column off the ones asked, and
// the slider, the box and Use this centre follow the recorded ones.
func TestCentreSweepLabelsAreWhatTheRunRecorded(t *testing.T) {
	h := newPanelHarnessFor(t, cpuProbe, func(pl *Pipeline) {
		sweepLike(t)(pl)
		s := *pl.Spec
		inner := s.Live.Sweep
		s.Live.Sweep = func(args []string, v pipeline.Values) *pipeline.Sweep {
			sw := inner(args, v)
			if sw != nil {
				sw.Recorded = func(out string) ([]string, bool, error) {
					c, ok, err := volume.NumberAttr(out, "centres")
					var vals []string
					for _, x := range c {
						vals = append(vals, strconv.FormatFloat(x, 'g', 12, 64))
					}
					return vals, ok, err
				}
			}
			return sw
		}
		pl.Spec = &s
		pl.Run = func(ctx context.Context, r Request, p *job.Progress) error {
			const n, rows, cols = 3, 4, 5
			info := volume.Info{Shape: [3]int{n, rows, cols}, DType: volume.Float32}
			e, _, err := volume.ExporterFor(r.Args[1])
			if err != nil {
				return err
			}
			w, err := e.Create(r.Args[1], "", info, volume.ExportOptions{Attrs: map[string]any{"centres": []float64{10.25, 10.75, 11.25}}})
			if err != nil {
				return err
			}
			if err := w.WriteLevel(0, 0, make([]byte, info.Bytes())); err != nil {
				w.Abort()
				return err
			}
			return w.Commit()
		}
	})
	h.set("out", filepath.Join(h.dir, "sweep.h5"))
	h.set("center-sweep", "10:11:0.5")
	h.ended(h.run())
	b := h.p.sweep
	h.until("the sweep's box", func() bool { return b.box.Visible() && h.hl.Dims().Maps() == 3 })
	for i, c := range []string{"10.25", "10.75", "11.25"} {
		h.hl.Dims().SetMap(i)
		h.until("map "+c, func() bool { return h.hl.Dims().Map() == i })
		if got := h.p.SweepValue(); got != c {
			t.Errorf("map %d: the panel's value %q, want the recorded %s", i, got, c)
		}
		if got := mapSliderLabel(h); got != "centre "+c {
			t.Errorf("map %d: the map slider reads %q, want centre %s", i, got, c)
		}
	}
	test.Tap(b.use)
	if got := h.p.Field("center").(*widget.Entry).Text; got != "11.25" {
		t.Errorf("centre field %q after Use this centre on map 2, want the recorded 11.25", got)
	}
}
