package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/viewer"
)

// writeNPY writes a uint16 array as NPY by hand (testutil.WriteNPY), so
// the test does not depend on the writer under test.
func writeNPY(t *testing.T, path string, shape [3]int, f func(z, y, x int) uint16) {
	t.Helper()
	vals := make([]uint16, 0, shape[0]*shape[1]*shape[2])
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				vals = append(vals, f(z, y, x))
			}
		}
	}
	testutil.WriteNPY(t, path, shape[:], vals)
}

// TestViewScreenshot runs `voxlab view --screenshot` on a volume whose
// slice 7 is black on the left half and white on the right, with one
// cell, and checks the PNG: its size, that it is not blank, and known
// pixels of the slice and of the cell marker.
func TestViewScreenshot(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{10, 100, 100}, func(z, y, x int) uint16 {
		if z == 7 && x >= 50 {
			return 1000
		}
		return 0
	})
	cells := filepath.Join(dir, "cells.csv")
	os.WriteFile(cells, []byte("z,y,x,type\n7,50,25,cell\n"), 0o644)
	out := filepath.Join(dir, "shot.png")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"view", vol, cells, "--slice", "7", "--screenshot", out, "--size", "900x600"}, &env{stdout: &stdout, stderr: &stderr})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	img := testutil.ReadPNG(t, out)
	if b := img.Bounds(); b.Dx() != 900 || b.Dy() != 600 {
		t.Fatalf("screenshot is %v, want 900x600", b)
	}
	// Scan the middle row of the canvas for the slice's two halves: the
	// black half then the white half, and a green marker pixel.
	var black, white, green int
	firstWhite := -1
	for y := 150; y < 450; y++ {
		for x := 0; x < 900; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			switch {
			case r == 0 && g == 0 && b == 0:
				black++
			case r == 0xffff && g == 0xffff && b == 0xffff:
				white++
				if y == 300 && firstWhite < 0 {
					firstWhite = x
				}
			case g>>8 > 200 && r>>8 < 120 && b>>8 < 150:
				green++
			}
		}
	}
	if black < 10000 || white < 10000 {
		t.Errorf("slice 7 not drawn: %d black and %d white pixels", black, white)
	}
	if green == 0 {
		t.Error("the cell marker is not drawn")
	}
	if firstWhite < 400 || firstWhite > 800 {
		t.Errorf("the white half starts at x=%d, want right of the canvas middle", firstWhite)
	}
	// Bad input: a clear error, exit 1, no PNG.
	bad := filepath.Join(dir, "bad.png")
	code = run(context.Background(), []string{"view", filepath.Join(dir, "missing.npy"), "--screenshot", bad}, &env{stdout: &stdout, stderr: &stderr})
	if code != 1 || !strings.Contains(stderr.String(), "missing.npy") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a screenshot was written for a missing input")
	}
	// A truncated file: an error naming it, no PNG.
	data, _ := os.ReadFile(vol)
	short := filepath.Join(dir, "short.npy")
	os.WriteFile(short, data[:len(data)/2], 0o644)
	stderr.Reset()
	code = run(context.Background(), []string{"view", short, "--screenshot", bad}, &env{stdout: &stdout, stderr: &stderr})
	if code != 1 || !strings.Contains(stderr.String(), "short.npy") {
		t.Errorf("truncated file: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a screenshot was written for a truncated input")
	}
	if code := run(context.Background(), []string{"view", vol, "--size", "huge"}, &env{stdout: &stdout, stderr: &stderr}); code != 2 {
		t.Errorf("bad --size: exit %d, want 2", code)
	}
}

// TestViewStackMap views a stack of maps with --map and --slice: the
// screenshot shows plane 2 of map 1, the only plane that is black on the
// left and white on the right (any other would be uniform gray).
func TestViewStackMap(t *testing.T) {
	dir := t.TempDir()
	gt := filepath.Join(dir, "gt.npy")
	const n, box = 3, 16
	vals := make([]float32, 0, n*box*box*box)
	for m := range n {
		for z := range box {
			for range box {
				for x := range box {
					v := float32(0.5)
					if m == 1 && z == 2 {
						v = float32(x / (box / 2)) // 0 left, 1 right
					}
					vals = append(vals, v)
				}
			}
		}
	}
	testutil.WriteNPY(t, gt, []int{n, box, box, box}, vals)
	out := filepath.Join(dir, "shot.png")
	if code, _, stderr := runCmd("view", gt, "--map", "1", "--slice", "2", "--screenshot", out, "--size", "900x600"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	img := testutil.ReadPNG(t, out)
	var black, white int
	for y := 100; y < 500; y++ {
		for x := 0; x < 900; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			switch {
			case r == 0 && g == 0 && b == 0:
				black++
			case r == 0xffff && g == 0xffff && b == 0xffff:
				white++
			}
		}
	}
	if black < 10000 || white < 10000 {
		t.Errorf("map 1 plane 2 not drawn: %d black and %d white pixels", black, white)
	}
}

// TestDemoFirstView: `voxlab gui --demo` opens the scan, the brain with
// its cells and the maps side by side (grid), on a slice every dataset
// has (the middle of the 32-plane maps), with the map slider for the 40
// ground-truth maps, and every image layer shows data there.
func TestDemoFirstView(t *testing.T) {
	dir := writeDemo(t)
	var stderr bytes.Buffer
	e := &env{stdout: &stderr, stderr: &stderr}
	specs := demoSpecs(e, dir)
	if len(specs) != 4 {
		t.Fatalf("demo specs %v (%s)", specs, stderr.String())
	}
	hl := viewer.NewOffscreen(1280, 800)
	defer hl.Close()
	var err error
	hl.Batch(func() { err = openAll(e, hl.Viewer, specs, &viewOpts{demo: dir, slice: -1}, viewer.Z) })
	if err != nil {
		t.Fatal(err)
	}
	if err := hl.Settle(time.Minute); err != nil {
		t.Fatal(err)
	}
	v := hl.Viewer
	if !v.Panels().Grid() || v.Dims().Slice() != 16 || v.Dims().Maps() != 40 || v.Dims().Map() != 0 || len(v.Layers()) != 4 {
		t.Fatalf("first view: grid %v, slice %d, maps %d (map %d), %d layers; want grid, slice 16, map 0 of 40, 4 layers",
			v.Panels().Grid(), v.Dims().Slice(), v.Dims().Maps(), v.Dims().Map(), len(v.Layers()))
	}
	for _, l := range v.Layers() {
		if il, ok := l.(*viewer.ImageLayer); ok {
			e := il.Extent()
			if _, ok := v.ValueAt(l, e[1]/2, e[2]/2); !ok {
				t.Errorf("%s (%v) shows nothing at slice 16", l.Name(), e)
			}
		}
	}
}

// TestViewPositionOutsideData: a --slice past the data along the axis
// shown, or a --map past the maps, is an error that says the range (exit
// 2, no PNG), not a screenshot of a clamped slice.
func TestViewPositionOutsideData(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{10, 20, 30}, func(z, y, x int) uint16 { return uint16(z) })
	out := filepath.Join(dir, "shot.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slice", "10"}, "--slice 10: the data have 10 slices along z (0 to 9)"},
		{[]string{"--axis", "y", "--slice", "20"}, "20 slices along y (0 to 19)"},
		{[]string{"--axis", "x", "--slice", "500"}, "30 slices along x (0 to 29)"},
		{[]string{"--map", "2"}, "--map 2: no stack of maps is open"},
	} {
		args := append([]string{"view", vol, "--screenshot", out}, c.args...)
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: a screenshot was written", c.args)
		}
	}
	// The last slice along x is inside.
	if code, _, stderr := runCmd("view", vol, "--axis", "x", "--slice", "29", "--screenshot", out); code != 0 {
		t.Errorf("--axis x --slice 29: exit %d: %s", code, stderr)
	}
}

// TestBadPointsFileReportedInTheWindow: a points file that cannot be read
// among the files to view is skipped and said in the window (the status
// bar and a dialog), not only on stderr.
func TestBadPointsFileReportedInTheWindow(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{4, 8, 8}, func(z, y, x int) uint16 { return uint16(z) })
	bad := filepath.Join(dir, "cells.csv")
	os.WriteFile(bad, []byte("z,y,x\n1,2,3\n1,two,3\n"), 0o644)
	var stderr bytes.Buffer
	e := &env{stdout: &stderr, stderr: &stderr}
	hl := viewer.NewOffscreen(900, 600)
	defer hl.Close()
	var err error
	hl.Batch(func() { err = openAll(e, hl.Viewer, []string{vol, bad}, &viewOpts{slice: -1}, viewer.Z) })
	if err != nil {
		t.Fatal(err)
	}
	if len(hl.Layers()) != 1 {
		t.Errorf("%d layers, want the volume alone", len(hl.Layers()))
	}
	msg := hl.Dialogs().LastError()
	if !strings.Contains(msg, "cells.csv") || !strings.Contains(msg, "line 3") {
		t.Errorf("the window says %q, want the bad file and line", msg)
	}
	if hl.Window().Canvas().Overlays().Top() == nil {
		t.Error("no dialog over the window")
	}
	if !strings.Contains(stderr.String(), "skipping") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestNoDisplay: without a display, view and gui say so and exit 1
// instead of GLFW's panic; --screenshot still works (offscreen).
func TestNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	scan, _ := dezingScan(t)
	for _, args := range [][]string{{"view", scan}, {"gui", scan}} {
		code, _, stderr := runCmd(args...)
		if code != 1 || !strings.Contains(stderr, "no display") || !strings.Contains(stderr, "--screenshot") {
			t.Errorf("%q without a display: exit %d, %q", args, code, stderr)
		}
	}
	png := filepath.Join(t.TempDir(), "shot.png")
	if code, _, stderr := runCmd("view", scan, "--screenshot", png, "--size", "640x480"); code != 0 {
		t.Errorf("view --screenshot without a display: exit %d, %s", code, stderr)
	}
}

// TestViewSizeTooSmall: a --size below what the window can be laid out
// in (200x150 on the brain, 300x200 on a stack of maps, which crashed
// with SIGSEGV and exit 2) is refused as a usage error naming the
// smallest size that works, with no PNG; that size renders.
func TestViewSizeTooSmall(t *testing.T) {
	dir := writeDemo(t)
	for _, c := range []struct{ cmd, spec, size string }{
		{"view", filepath.Join(dir, demo.BrainPlanes), "200x150"},
		{"view", filepath.Join(dir, demo.MapsGT), "300x200"},
		{"gui", filepath.Join(dir, demo.MapsGT), "300x200"},
	} {
		png := filepath.Join(t.TempDir(), "shot.png")
		code, _, stderr := runCmd(c.cmd, c.spec, "--size", c.size, "--screenshot", png)
		var w, h int
		i := strings.Index(stderr, "use at least --size ")
		if i >= 0 {
			fmt.Sscanf(stderr[i+len("use at least --size "):], "%dx%d", &w, &h)
		}
		if code != 2 || w == 0 || h == 0 {
			t.Fatalf("%s --size %s: exit %d, %q; want a usage error naming a size", c.cmd, c.size, code, stderr)
		}
		if _, err := os.Stat(png); err == nil {
			t.Errorf("%s --size %s left a PNG", c.cmd, c.size)
		}
		size := fmt.Sprintf("%dx%d", w, h)
		if code, _, stderr := runCmd(c.cmd, c.spec, "--size", size, "--screenshot", png); code != 0 {
			t.Fatalf("%s --size %s (the size named): exit %d, %s", c.cmd, size, code, stderr)
		}
		if img := testutil.ReadPNG(t, png); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Errorf("%s --size %s: PNG %v", c.cmd, size, img.Bounds())
		}
	}
}
