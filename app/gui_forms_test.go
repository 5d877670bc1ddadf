package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/viewer"
)

// fieldText is the text of a panel field's entry ("" for none).
func fieldText(p *panel.Panel, name string) string {
	switch w := p.Field(name).(type) {
	case *widget.Entry:
		return w.Text
	case *widget.SelectEntry:
		return w.Text
	}
	return ""
}

// TestGUIFormsFollowTheChannels: cellfinder's workflow on the registered
// pipelines' forms, on two channels opened ch0 (signal) then ch1
// (background) as a new user would, the voxel size set on ch1 alone:
// Detect suggests ch0 with that voxel size; Classify and Cubes take ch0
// as the signal and ch1 as the background, name their outputs after ch0
// and have the voxel size; candidates found in ch0 are suggested as the
// points.
func TestGUIFormsFollowTheChannels(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crop_planes")
	os.Mkdir(dir, 0o755)
	ch0, ch1 := filepath.Join(dir, "ch0.npy"), filepath.Join(dir, "ch1.npy")
	for _, c := range []string{ch0, ch1} {
		testutil.WriteNPY(t, c, []int{4, 30, 40}, make([]uint16, 4*30*40))
	}
	hl, p := newRegisteredPanel(t)
	for _, c := range []string{ch0, ch1} {
		if _, err := hl.Open(c); err != nil {
			t.Fatal(err)
		}
		hl.Drain()
	}
	hl.LayerFor(ch1).(*viewer.ImageLayer).SetVoxelSize([3]float64{5, 2, 2})
	hl.Drain()
	check := func(cmd string, want map[string]string) {
		t.Helper()
		if err := p.Select(cmd); err != nil {
			t.Fatal(err)
		}
		for name, v := range want {
			if got := fieldText(p, name); got != v {
				t.Errorf("%s: %s is %q, want %q", cmd, name, got, v)
			}
		}
	}
	check("detect", map[string]string{"in": ch0, "voxel-size": "5,2,2", "out": filepath.Join(dir, "ch0-cells.csv")})
	check("classify", map[string]string{"in": ch0, "background": ch1, "voxel-size": "5,2,2",
		"out": filepath.Join(dir, "ch0-classified.xml")})
	cells := filepath.Join(dir, "ch0-cells.csv")
	os.WriteFile(cells, []byte("z,y,x\n1,2,3\n"), 0o644)
	if _, err := hl.Open(cells); err != nil {
		t.Fatal(err)
	}
	hl.Drain()
	check("cubes", map[string]string{"in": ch0, "points": cells, "background": ch1, "voxel-size": "5,2,2",
		"out": filepath.Join(dir, "ch0-cubes")})
}

// TestGUIUsageErrorsAreAboutFields: a pipeline's usage error about a
// parameter reaches the panel as a RequestError for that field.
func TestGUIUsageErrorsAreAboutFields(t *testing.T) {
	var re *panel.RequestError
	if err := plainError(pipeline.Usagef("--dtype: %q is no type", "f9")); !errors.As(err, &re) || re.Field != "dtype" {
		t.Errorf("plainError gave %#v, want a RequestError for dtype", err)
	}
	err := plainError(pipeline.Usagef("give --mask or --mask-radius, not both"))
	var ue pipeline.UsageError
	if errors.As(err, &re) || errors.As(err, &ue) || err.Error() != "give --mask or --mask-radius, not both" {
		t.Errorf("plainError gave %#v, want a plain error", err)
	}
}
