package panel

import (
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/train"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/matrix/heatplot"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
)

// trainHarness is a panel offering the real specs of cubes, train and
// classify (their forms, Follow, Live and Next) with stand-in plans and
// runs: cubes writes a training.yaml into its output folder; train sends
// the epochs of trainHarness.epochs as its partial results, waits on
// gate before it ends and fails with fail when set. ch0 and ch1 are
// open, in that order, beside cells.xml and training.yaml.
type trainHarness struct {
	*pairHarness
	epochs []pipeline.Metrics
	gate   chan struct{}
	fail   error
	// cubesGate, when set, holds the cubes run until it is closed.
	cubesGate chan struct{}
}

func newTrainHarness(t *testing.T) *trainHarness {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1280, 800))
	h := &trainHarness{gate: make(chan struct{})}
	planned := func(ctx context.Context, r Request) (*plan.Plan, error) {
		return plan.Make(r.Command, []plan.Phase{{Name: "cubes", Units: 1, Unit: "cubes"}}, plan.Budget{Host: 1 << 30, HostSource: "test"})
	}
	cubes := &Pipeline{Spec: classify.CubesSpec, Plan: planned, Run: func(ctx context.Context, r Request, p *job.Progress) error {
		if g := h.cubesGate; g != nil {
			select {
			case <-g:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := os.MkdirAll(r.Args[2], 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(r.Args[2], "training.yaml"), []byte("data: []\n"), 0o644)
	}}
	trainer := &Pipeline{Spec: train.Spec, Plan: planned, Run: func(ctx context.Context, r Request, p *job.Progress) error {
		for _, m := range h.epochs {
			p.Partial(m)
		}
		select {
		case <-h.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
		return h.fail
	}}
	classifier := &Pipeline{Spec: classify.Spec, Plan: planned, Run: func(context.Context, Request, *job.Progress) error { return nil }}
	p := NewPanel(hl.Viewer, PanelOptions{Probe: cpuProbe, PlanDelay: time.Millisecond}, classifier, cubes, trainer)
	t.Cleanup(func() {
		close(h.gate)
		p.Close()
		hl.Close()
	})
	dir := t.TempDir()
	h.pairHarness = &pairHarness{t: t, hl: hl, p: p, dir: dir, ch0: filepath.Join(dir, "ch0.npy"), ch1: filepath.Join(dir, "ch1.npy")}
	for _, c := range []string{h.ch0, h.ch1} {
		testutil.WriteNPY(t, c, []int{4, 30, 40}, make([]uint16, 4*30*40))
		h.open(c)
	}
	// The inputs the forms check exist (their contents are the stand-in
	// runs' business).
	for _, f := range []string{"cells.xml", "training.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// set sets a field of the form on show as the user would.
func (h *trainHarness) set(name, value string) {
	h.t.Helper()
	if err := h.p.Set(name, value); err != nil {
		h.t.Fatal(err)
	}
}

// runEnded runs the form on show and waits for the job to end.
func (h *trainHarness) runEnded() JobStatus {
	h.t.Helper()
	h.planned()
	id, err := h.p.Run()
	if err != nil {
		h.t.Fatal(err)
	}
	var st JobStatus
	if err := h.hl.Until(time.Minute, func() bool {
		st, _ = h.p.Jobs().Status(id)
		return st.State.Ended()
	}); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// exportCubes runs cubes on ch0 into dir/name with cube size cs.
func (h *trainHarness) exportCubes(name, cs string) string {
	h.t.Helper()
	if err := h.p.Select("cubes"); err != nil {
		h.t.Fatal(err)
	}
	out := filepath.Join(h.dir, name)
	h.set("points", filepath.Join(h.dir, "cells.xml"))
	h.set("out", out)
	h.set("voxel-size", "5,2,2")
	h.set("cube-size", cs)
	if st := h.runEnded(); st.State != job.StateFinished {
		h.t.Fatalf("cubes ended %v: %v", st.State, st.Err)
	}
	return out
}

// TestTrainFormFollowsTheCubes: once a cubes run has written its
// training cubes, the Train form suggests their training.yaml, an output
// folder beside them and their cube size; a value the user typed
// survives switching forms and a later export, which the fields the user
// left follow.
func TestTrainFormFollowsTheCubes(t *testing.T) {
	h := newTrainHarness(t)
	first := h.exportCubes("cubes", "20,20,8")
	if err := h.p.Select("train"); err != nil {
		t.Fatal(err)
	}
	h.want("after the first export", map[string]string{"in": filepath.Join(first, "training.yaml"), "out": first + "-trained", "cube-size": "20,20,8"})
	mine := filepath.Join(h.dir, "my-model")
	h.set("out", mine)
	second := h.exportCubes("cubes-2", "30,30,10")
	if err := h.p.Select("train"); err != nil {
		t.Fatal(err)
	}
	h.want("after the second export", map[string]string{"in": filepath.Join(second, "training.yaml"), "out": mine, "cube-size": "30,30,10"})
	// A cubes run finishing while the Train form is on show fills it too.
	h.set("out", "")
	if err := h.p.Select("cubes"); err != nil {
		t.Fatal(err)
	}
	h.set("out", filepath.Join(h.dir, "cubes-3"))
	h.planned()
	h.cubesGate = make(chan struct{})
	id, err := h.p.Run()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.p.Select("train"); err != nil {
		t.Fatal(err)
	}
	close(h.cubesGate)
	h.until("the third export to end", func() bool { st, _ := h.p.Jobs().Status(id); return st.State.Ended() })
	h.want("after the third export", map[string]string{"in": filepath.Join(h.dir, "cubes-3", "training.yaml")})
}

// until waits for cond, draining the UI queue.
func (h *trainHarness) until(what string, cond func() bool) {
	h.t.Helper()
	if err := h.hl.Until(time.Minute, cond); err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
}

// metricsTab returns the live curves of the job listed last.
func (h *trainHarness) metricsLive() *metricsLive {
	h.t.Helper()
	st := h.p.Jobs().Statuses()
	ml, ok := h.p.Jobs().rows[st[len(st)-1].ID].live.(*metricsLive)
	if !ok {
		h.t.Fatal("the train job has no live curves")
	}
	return ml
}

// colourPixels counts the pixels of img within 24 of c in each channel.
func colourPixels(img image.Image, c [3]uint8) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(uint8(r>>8), c[0]) <= 24 && absDiff(uint8(g>>8), c[1]) <= 24 && absDiff(uint8(bl>>8), c[2]) <= 24 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestTrainPlotsEpochsThenOffersClassify: a train run's epochs show as
// they end on a tab brought forward, loss and accuracy each with its
// training and (dashed, another colour) validation curve; once it has
// finished, "Classify with this model" chooses Classify with the model
// the run wrote and its cube size, the signal and background following
// the open layers as Classify suggests them. A failed run offers no
// button.
func TestTrainPlotsEpochsThenOffersClassify(t *testing.T) {
	h := newTrainHarness(t)
	for e, v := range [][4]float64{{0.69, 0.55, 0.66, 0.6}, {0.52, 0.71, 0.58, 0.68}, {0.41, 0.8, 0.5, 0.74}} {
		h.epochs = append(h.epochs, pipeline.Metrics{Step: e, Values: map[string]float64{"loss": v[0], "accuracy": v[1], "val_loss": v[2], "val_accuracy": v[3]}})
	}
	if err := h.p.Select("train"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(h.dir, "trained")
	h.set("in", filepath.Join(h.dir, "training.yaml"))
	h.set("out", out)
	h.set("cube-size", "20,20,8")
	h.planned()
	id, err := h.p.Run()
	if err != nil {
		t.Fatal(err)
	}
	ml := h.metricsLive()
	h.until("the third epoch on the tab", func() bool { return ml.note.Text != "" && ml.note.Text[:min(7, len(ml.note.Text))] == "Epoch 3" })
	if want := "Epoch 3: accuracy 0.8 · loss 0.41 · val_accuracy 0.74 · val_loss 0.5"; ml.note.Text != want {
		t.Errorf("note %q, want %q", ml.note.Text, want)
	}
	if viewAppTabs(t, h.hl.Viewer).Selected() != ml.tab {
		t.Error("the curves' tab is not on show")
	}
	if !ml.next.Hidden {
		t.Error("Classify with this model is offered before the run ended")
	}
	img := ml.image(h.epochs, 800, 340, heatplot.Paper)
	c := curves(h.epochs)
	if len(c) != 2 || c[0].Title != "loss" || c[1].Title != "accuracy" || len(c[0].Lines) != 2 || !c[0].Lines[1].Dashed {
		t.Fatalf("panels %+v, want loss then accuracy, training and dashed validation", c)
	}
	train, val := heatplot.GroupColours[0], heatplot.GroupColours[2]
	for _, side := range []image.Rectangle{image.Rect(0, 0, 400, 340), image.Rect(400, 0, 800, 340)} {
		sub := img.(*image.RGBA).SubImage(side)
		if a, b := colourPixels(sub, [3]uint8{train.R, train.G, train.B}), colourPixels(sub, [3]uint8{val.R, val.G, val.B}); a < 100 || b < 60 {
			t.Errorf("panel %v: %d training and %d validation pixels", side, a, b)
		}
	}
	h.gate <- struct{}{}
	h.until("the run to end", func() bool { st, _ := h.p.Jobs().Status(id); return st.State.Ended() })
	if want := "Finished: 3 epochs. Epoch 3: accuracy 0.8 · loss 0.41 · val_accuracy 0.74 · val_loss 0.5"; ml.note.Text != want {
		t.Errorf("note %q, want %q", ml.note.Text, want)
	}
	if ml.next.Hidden || ml.next.Text != "Classify with this model" {
		t.Fatalf("after the run: button %q hidden %v", ml.next.Text, ml.next.Hidden)
	}
	test.Tap(ml.next)
	h.hl.Drain()
	if h.p.Pipeline().Spec.Name != "classify" {
		t.Fatalf("the button chose %s", h.p.Pipeline().Spec.Name)
	}
	h.want("classify", map[string]string{"model": filepath.Join(out, "model.keras"), "cube-size": "20,20,8", "in": h.ch0, "background": h.ch1})

	h.fail = errors.New("cube x.tif is 10x10x10")
	if err := h.p.Select("train"); err != nil {
		t.Fatal(err)
	}
	h.set("out", filepath.Join(h.dir, "trained-again"))
	h.planned()
	if _, err := h.p.Run(); err != nil {
		t.Fatal(err)
	}
	failed := h.metricsLive()
	h.gate <- struct{}{}
	h.until("the failed run's note", func() bool { return failed.note.Text == "Failed: "+h.fail.Error() })
	if !failed.next.Hidden {
		t.Error("a failed run offers Classify with this model")
	}
}
