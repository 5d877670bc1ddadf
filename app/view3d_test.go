package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
)

// TestView3DFlagsRefused: wrong 3D and ortho flags are usage errors
// that name the flag, and write nothing.
func TestView3DFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{4, 8, 8}, func(z, y, x int) uint16 { return uint16(x) })
	out := filepath.Join(dir, "out.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--3d", "mipp"}, "--3d"},
		{[]string{"--angles", "30,20"}, "--angles"},
		{[]string{"--3d", "mip", "--angles", "30"}, "--angles"},
		{[]string{"--3d", "mip", "--iso-threshold", "3"}, "--iso-threshold"},
		{[]string{"--ortho", "--point", "1,2"}, "--point"},
		{[]string{"--ortho", "--point", "1,2,99"}, "--point"},
		{[]string{"--ortho", "--3d", "mip"}, "--ortho"},
		{[]string{"--3d", "mip", "--turntable", "4"}, "--turntable"},
		{[]string{"--turntable", "4", "--screenshot", dir + "/frames/"}, "--turntable"},
	} {
		args := append([]string{"view", vol}, c.args...)
		if !slicesContains(c.args, "--screenshot") {
			args = append(args, "--screenshot", out)
		}
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want a usage error naming %s", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q wrote %s", c.args, out)
		}
	}
}

func slicesContains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestViewTurntable writes a turntable of four MIP frames of a volume
// whose only bright voxels are a bar off the turning axis: the frames
// exist, and frames half a turn apart are mirror images (orthographic
// MIP seen from behind), so the bar's mean column in frames 0 and 2,
// and in frames 1 and 3, lies symmetric about the same centre.
func TestViewTurntable(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{16, 16, 16}, func(z, y, x int) uint16 {
		if x == 12 && z == 4 {
			return 1000
		}
		return 10
	})
	frames := filepath.Join(dir, "frames") + "/"
	mustRun(t, "view", vol, "--3d", "mip", "--turntable", "4", "--colormap", "viridis", "--screenshot", frames, "--size", "800x600")
	var mean [4]float64
	for i := range 4 {
		img := testutil.ReadPNG(t, filepath.Join(frames, fmt.Sprintf("frame_%03d.png", i)))
		var sum, n float64
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bb, _ := img.At(x, y).RGBA()
				// viridis's top colour, (253, 231, 37): the bar only.
				if r>>8 > 240 && g>>8 > 215 && bb>>8 < 60 {
					sum += float64(x)
					n++
				}
			}
		}
		if n == 0 {
			t.Fatalf("frame %d: the bar is not drawn", i)
		}
		mean[i] = sum / n
	}
	c02, c13 := (mean[0]+mean[2])/2, (mean[1]+mean[3])/2
	if math.Abs(mean[0]-mean[2]) < 20 || math.Abs(c02-c13) > 2 {
		t.Fatalf("bar columns %v: want frames 0 and 2 apart, mirrored about the centre that 1 and 3 share", mean)
	}
}
