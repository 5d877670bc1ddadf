package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/demo"
)

// TestGUIRefusesOutputsOverInputs: the panel neither plans nor runs a
// request whose output would write over an input; it says why beside
// the output field, and the input stays as it was.
func TestGUIRefusesOutputsOverInputs(t *testing.T) {
	h := newGUIHarness(t)
	scan := filepath.Join(h.dir, demo.TomoScan)
	gt := filepath.Join(h.dir, demo.MapsGT)
	scanBytes, gtBytes := fileBytes(t, scan), fileBytes(t, gt)
	for _, tc := range []struct {
		cmd  string
		set  map[string]string
		want string
	}{
		{"dezing", map[string]string{"in": scan, "out": scan}, "output " + scan + " is the input " + scan},
		{"distance", map[string]string{"gt": gt, "sub": filepath.Join(h.dir, demo.MapsSubmitted), "out": filepath.Dir(gt)},
			"the ground truth " + gt + " is inside output folder " + filepath.Dir(gt)},
	} {
		if err := h.p.Select(tc.cmd); err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.set {
			if err := h.p.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		h.until("the plan", func() bool { return !h.p.Planning() })
		if msg := h.p.FieldError("out"); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: beside the output: %q, want %q", tc.cmd, msg, tc.want)
		}
		if h.p.PlanError() == nil {
			t.Errorf("%s: planned", tc.cmd)
		}
		if !h.p.RunButton().Disabled() {
			t.Errorf("%s: Run is enabled", tc.cmd)
		}
		if _, err := h.p.Run(); err == nil {
			t.Errorf("%s: Run accepted the request", tc.cmd)
		}
	}
	if h.p.Jobs().Len() != 0 {
		t.Errorf("%d jobs ran", h.p.Jobs().Len())
	}
	if string(fileBytes(t, scan)) != string(scanBytes) || string(fileBytes(t, gt)) != string(gtBytes) {
		t.Error("an input changed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(gt), "summary.json")); !os.IsNotExist(err) {
		t.Errorf("a distance output appeared: %v", err)
	}
}
