package main

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/viewer/render3d"
)

// view3DOpts are view's flags for the orthogonal and 3D views.
type view3DOpts struct {
	mode      string // --3d: "" for the slice view
	angles    string
	iso       float64
	isoSet    bool
	ortho     bool
	point     string
	turntable int
}

// parseFloats parses n comma-separated numbers.
func parseFloats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%q: want %d numbers separated by commas", s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a number", s, p)
		}
		out[i] = x
	}
	return out, nil
}

// check refuses bad 3D and ortho flags before a window opens.
func (o *view3DOpts) check(screenshot string) error {
	if o.mode != "" {
		if _, err := render3d.ParseMode(o.mode); err != nil {
			return usagef("--3d: %v", err)
		}
	}
	if o.angles != "" {
		if o.mode == "" {
			return usagef("--angles turns the 3D view: add --3d MODE")
		}
		if _, err := parseFloats(o.angles, 2); err != nil {
			return usagef("--angles: %v (azimuth,elevation in degrees)", err)
		}
	}
	if o.isoSet && o.mode != "iso" {
		return usagef("--iso-threshold is the iso-surface's value: add --3d iso")
	}
	if o.point != "" {
		if _, err := parseFloats(o.point, 3); err != nil {
			return usagef("--point: %v (z,y,x in voxels)", err)
		}
	}
	if o.ortho && o.mode != "" {
		return usagef("--ortho and --3d are two views: choose one")
	}
	if o.turntable != 0 {
		switch {
		case o.turntable < 0 || o.turntable > 3600:
			return usagef("--turntable %d: want 1 to 3600 frames", o.turntable)
		case o.mode == "":
			return usagef("--turntable turns the 3D view: add --3d MODE")
		case screenshot == "" || strings.HasSuffix(strings.ToLower(screenshot), ".png"):
			return usagef("--turntable writes frames into a folder: give --screenshot DIR/")
		}
	}
	return nil
}

// apply sets the view the flags ask for, once the files are open.
func (o *view3DOpts) apply(v *viewer.Viewer) error {
	if o.point != "" {
		p, _ := parseFloats(o.point, 3)
		e := v.Dims().Extent()
		var zyx [3]int
		for a := range 3 {
			zyx[a] = int(p[a])
			if p[a] < 0 || zyx[a] >= e[a] {
				return usagef("--point %s: %s = %g is outside the data (0 to %d)", o.point, "zyx"[a:a+1], p[a], e[a]-1)
			}
		}
		v.Dims().SetPoint(zyx)
	}
	if o.ortho {
		v.Panels().SetOrtho(true)
	}
	if o.mode == "" {
		return nil
	}
	m, _ := render3d.ParseMode(o.mode)
	v.Scene().SetMode(m)
	if o.angles != "" {
		a, _ := parseFloats(o.angles, 2)
		v.Scene().SetCameraAngles(a[0], a[1])
	}
	if o.isoSet {
		v.Scene().SetIsoThreshold(o.iso)
	}
	v.Scene().SetOn(true)
	return nil
}

// writeTurntable writes o.turntable frames of an even turn of the 3D view
// about the vertical (frame i at azimuth start + 360 i / n) into dir as
// frame_000.png, ...
func (o *view3DOpts) writeTurntable(e *env, dir string, w, h int, setup func(*viewer.Viewer) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("turntable: %w", err)
	}
	az, el := 0.0, 0.0
	if o.angles != "" {
		a, _ := parseFloats(o.angles, 2)
		az, el = a[0], a[1]
	}
	n := o.turntable
	digits := max(3, len(strconv.Itoa(n-1)))
	err := viewer.RenderOffscreenFrames(w, h, screenshotStall, setup, n,
		func(v *viewer.Viewer, i int) { v.Scene().SetCameraAngles(az+360*float64(i)/float64(n), el) },
		func(i int, img image.Image) error {
			return writeScreenshot(e, filepath.Join(dir, fmt.Sprintf("frame_%0*d.png", digits, i)), img)
		})
	if err != nil {
		return fmt.Errorf("turntable %s: %w", dir, err)
	}
	return nil
}
