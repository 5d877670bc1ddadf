package viewer

import (
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

// TestImageControlsFollowSettings: each image control shows its setting
// after the setting changed by the API (its own event, no sync of the
// whole panel); a gamma beyond the slider's range moves the slider to
// its end without writing the clamped value back; and the controls of
// a layer no longer selected are disconnected from it.
func TestImageControlsFollowSettings(t *testing.T) {
	h := newHarness(t)
	vol := func() *volume.Volume {
		return memVolume(t, volume.Uint16, [3]int{2, 20, 20}, func(z, y, x int) float64 { return float64(10 * x) })
	}
	a, err := h.v.AddImage("a", vol(), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	c := h.v.ctl
	a.SetGamma(2.5)
	if c.gamma.Value != 2.5 || c.gammaLbl.Text != "2.50" {
		t.Errorf("gamma 2.5: slider %v, label %q", c.gamma.Value, c.gammaLbl.Text)
	}
	a.SetGamma(9) // beyond the slider's 0.2..5
	if c.gamma.Value != 5 || a.Gamma() != 9 || c.gammaLbl.Text != "9.00" {
		t.Errorf("gamma 9: slider %v, layer %v, label %q", c.gamma.Value, a.Gamma(), c.gammaLbl.Text)
	}
	if err := a.SetColormap(resources.Viridis); err != nil || c.cmap.Selected != resources.Viridis {
		t.Errorf("colormap: %v, select shows %q", err, c.cmap.Selected)
	}
	a.SetOpacity(0.25)
	if c.opacity.Value != 0.25 {
		t.Errorf("opacity: slider %v", c.opacity.Value)
	}
	a.SetContrastLimits(30, 120)
	if c.lo.Text != "30" || c.hi.Text != "120" || c.contrast.Low != 30 || c.contrast.High != 120 {
		t.Errorf("limits: entries %q %q, slider %v %v", c.lo.Text, c.hi.Text, c.contrast.Low, c.contrast.High)
	}
	a.SetContinuousAutoContrast(true)
	if !c.auto.Checked {
		t.Error("continuous auto-contrast: check not ticked")
	}
	a.SetVoxelSize([3]float64{5, 2, 2})
	if c.voxel.Text != "5, 2, 2" || a.Volume().VoxelSize != [3]float64{5, 2, 2} {
		t.Errorf("voxel size: entry %q, volume %v", c.voxel.Text, a.Volume().VoxelSize)
	}

	// Another layer selected: a's changes no longer reach the panel,
	// nor a's old controls (disconnected).
	old := c
	b, err := h.v.AddImage("b", vol(), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	c = h.v.ctl
	if c.layer != b || c.gamma.Value != 1 {
		t.Fatalf("controls of %v, gamma slider %v", c.layer, c.gamma.Value)
	}
	a.SetGamma(3)
	a.SetOpacity(0.5)
	if c.gamma.Value != 1 || c.opacity.Value != 1 || b.Gamma() != 1 {
		t.Errorf("a's gamma and opacity reached b's controls: slider %v, opacity %v, b's gamma %v", c.gamma.Value, c.opacity.Value, b.Gamma())
	}
	if old.gammaLbl.Text != "9.00" || old.opacity.Value != 0.25 {
		t.Errorf("a's dropped controls still follow it: gamma %q, opacity %v", old.gammaLbl.Text, old.opacity.Value)
	}

	// A points layer's opacity slider follows its opacity too.
	pl := h.v.AddPoints("pts", nil)
	h.settle()
	pl.SetOpacity(0.4)
	if h.v.ctl.opacity.Value != 0.4 {
		t.Errorf("points opacity 0.4: slider %v", h.v.ctl.opacity.Value)
	}
}
