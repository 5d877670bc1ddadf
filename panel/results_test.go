package panel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestOutputsAreNamedAfterTheInput: an output the user has not edited is
// named beside the input, after it, and follows it when the input
// changes; a taken name is numbered once (never "-2-2" after two runs);
// an edited name stays the user's; with no input the output is empty, and
// a relative input gives an absolute output, never a bare name in the
// folder voxlab was started in.
func TestOutputsAreNamedAfterTheInput(t *testing.T) {
	h := newPanelHarnessFor(t, cpuProbe, func(pl *Pipeline) { pl.Spec.Args[1].Default = "result.txt" })
	// A fresh form: nothing typed yet.
	h.freshForm()
	out := h.p.Field("out").(*widget.Entry)
	if out.Text != "" || !strings.Contains(out.PlaceHolder, "result.txt") {
		t.Errorf("without an input the output is %q (placeholder %q), want empty", out.Text, out.PlaceHolder)
	}
	h.set("in", h.in)
	if want := filepath.Join(h.dir, "input-result.txt"); out.Text != want {
		t.Errorf("output %q, want %q beside the input", out.Text, want)
	}
	other := filepath.Join(h.dir, "other.dat")
	os.WriteFile(other, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "other-result.txt"), []byte("taken"), 0o644)
	h.set("in", other)
	if want := filepath.Join(h.dir, "other-result-2.txt"); out.Text != want {
		t.Errorf("after changing the input: output %q, want %q (the name is taken)", out.Text, want)
	}
	// Each run leaves a fresh name, numbered from the same base.
	for _, want := range []string{"other-result-3.txt", "other-result-4.txt"} {
		h.ended(h.run())
		if out.Text != filepath.Join(h.dir, want) {
			t.Errorf("after a run: output %q, want %s", out.Text, want)
		}
	}
	// The user's own name is kept when the input changes, and numbered
	// after a run.
	mine := filepath.Join(h.dir, "mine.txt")
	h.set("out", mine)
	h.set("in", h.in)
	if out.Text != mine {
		t.Errorf("an edited output became %q when the input changed", out.Text)
	}
	h.ended(h.run())
	if want := filepath.Join(h.dir, "mine-2.txt"); out.Text != want {
		t.Errorf("after a run: output %q, want %q", out.Text, want)
	}
	h.set("in", other)
	if want := filepath.Join(h.dir, "mine-2.txt"); out.Text != want {
		t.Errorf("the numbered user's name became %q when the input changed", out.Text)
	}

	// A relative input, from the folder voxlab was started in.
	t.Chdir(h.dir)
	h.freshForm()
	out = h.p.Field("out").(*widget.Entry)
	h.set("in", "input.txt")
	if want := filepath.Join(h.dir, "input-result.txt"); out.Text != want {
		t.Errorf("relative input: output %q, want %q", out.Text, want)
	}
	if got := OutputBeside("brain/planes/", "cells.csv"); got != filepath.Join(h.dir, "brain", "planes-cells.csv") {
		t.Errorf("a folder input: %q", got)
	}
	if got := OutputBeside("/d/scan.h5:/entry/data", "dezinged.h5"); got != "/d/scan-dezinged.h5" {
		t.Errorf("an HDF5 dataset: %q", got)
	}
}

// TestWheelScrollsThePanelOverAnEntry: the wheel scrolls the processing
// panel with the pointer over an entry (whose own scroller would take
// it), and the scroll bar covers none of the form.
func TestWheelScrollsThePanelOverAnEntry(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.hl.Window().Resize(fyne.NewSize(1280, 800))
	h.hl.Drain()
	entry := h.p.Field("count").(*widget.Entry)
	d := fyne.CurrentApp().Driver()
	pos := d.AbsolutePositionForObject(entry).Add(fyne.NewPos(10, entry.Size().Height/2))
	if h.p.scroll.Content.MinSize().Height <= h.p.scroll.Size().Height {
		t.Fatalf("the form (%v) fits its scroller (%v): nothing to scroll", h.p.scroll.Content.MinSize(), h.p.scroll.Size())
	}
	test.Scroll(h.hl.Window().Canvas(), pos, 0, -120)
	if h.p.scroll.Offset.Y <= 0 {
		t.Errorf("the wheel over an entry did not scroll the panel (offset %v)", h.p.scroll.Offset)
	}
	formRight := d.AbsolutePositionForObject(h.p.form).X + h.p.form.Size().Width
	scrollRight := d.AbsolutePositionForObject(h.p.scroll).X + h.p.scroll.Size().Width
	if bar := theme.Size(theme.SizeNameScrollBar); scrollRight-formRight < bar {
		t.Errorf("the form ends %v px left of the scroll bar's edge, want at least its width %v", scrollRight-formRight, bar)
	}
}
