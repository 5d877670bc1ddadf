package pipeline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// Layer is a layer open in the viewer as a Spec's Suggest sees it: what
// it was opened from and what the viewer knows of it. Suggest gets the
// open layers in the order they were opened, the first opened first.
type Layer struct {
	// Spec is the file spec the layer was opened from.
	Spec string
	// Points: a points layer (CSV, cellfinder XML); else an image.
	Points bool
	// VoxelSize is an image's voxel size z,y,x, the file's or the one
	// the user set on the layer; nil when neither says.
	VoxelSize []float64
	// Shape is an image's z,y,x size (zero when not known).
	Shape [3]int
	// DetectedOn is, for a points layer, the spec of the image its
	// points were found in ("" when unknown).
	DetectedOn string
}

// FirstSpec returns the spec of the first of open whose path has one of
// the extensions ("" when none has).
func FirstSpec(open []Layer, exts ...string) string {
	for _, l := range open {
		p, _ := volume.SplitSpec(l.Spec)
		for _, e := range exts {
			if strings.EqualFold(filepath.Ext(p), e) {
				return l.Spec
			}
		}
	}
	return ""
}

// FirstVolume returns the spec of the first image of open (a volume in
// any format voxlab reads, not a points file), "" when there is none.
func FirstVolume(open []Layer) string {
	if im := Images(open); len(im) > 0 {
		return im[0].Spec
	}
	return ""
}

// FirstFolder returns the spec of the first image of open that is a
// folder (of TIFF planes).
func FirstFolder(open []Layer) string {
	for _, l := range Images(open) {
		p, _ := volume.SplitSpec(l.Spec)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return l.Spec
		}
	}
	return ""
}

// Images returns the image layers of open, in their order.
func Images(open []Layer) []Layer {
	var out []Layer
	for _, l := range open {
		if !l.Points {
			out = append(out, l)
		}
	}
	return out
}

// Find returns the layer of open opened from spec.
func Find(open []Layer, spec string) (Layer, bool) {
	for _, l := range open {
		if l.Spec == spec {
			return l, true
		}
	}
	return Layer{}, false
}

// VoxelText is the voxel size of the layer opened from spec as its
// field's text ("5,2,2"): its own, else that of the first image of the
// same shape that has one (the other channel of the acquisition, where
// the user set it); "" when none says.
func VoxelText(open []Layer, spec string) string {
	l, ok := Find(open, spec)
	if !ok {
		return ""
	}
	vs := l.VoxelSize
	for _, o := range Images(open) {
		if len(vs) == 0 && len(o.VoxelSize) > 0 && l.Shape != ([3]int{}) && o.Shape == l.Shape {
			vs = o.VoxelSize
		}
	}
	if len(vs) == 0 {
		return ""
	}
	return Param{Kind: Floats}.Format(vs)
}

// SignalPair chooses, for a pipeline that reads candidates in a signal
// channel beside a background one (classify, cubes), the open layers to
// suggest: the points opened last (the latest detection), the image they
// were found in as the signal (else the first image opened) and the
// first other image as the background. Any may be "".
func SignalPair(open []Layer) (signal, background, points string) {
	var pts Layer
	for _, l := range open {
		if l.Points {
			pts = l
		}
	}
	images := Images(open)
	if _, ok := Find(images, pts.DetectedOn); ok && pts.DetectedOn != "" {
		signal = pts.DetectedOn
	} else if len(images) > 0 {
		signal = images[0].Spec
	}
	for _, l := range images {
		if l.Spec != signal {
			background = l.Spec
			break
		}
	}
	return signal, background, pts.Spec
}
