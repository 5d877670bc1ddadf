package main

import (
	"bytes"
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/viewer"
)

// TestViewCellfinderXML: `voxlab view IMG cells.xml --walk N` opens
// cellfinder's own XML over the image as a points layer with its 56
// cells, and the walk stands on its N-th point in plane, row, column
// order, selected, on that point's plane.
func TestViewCellfinderXML(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{20, 500, 640}, func(z, y, x int) uint16 { return uint16(x) })
	xml := pointsData + "cellfinder_cell_classification.xml"
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: &out}
	hl := viewer.NewOffscreen(900, 600)
	defer hl.Close()
	var err error
	hl.Batch(func() { err = openAll(e, hl.Viewer, []string{vol, xml}, &viewOpts{slice: -1, walk: 3}, viewer.Z) })
	if err != nil {
		t.Fatal(err)
	}
	layers := hl.Layers()
	pl, ok := layers[len(layers)-1].(*viewer.PointsLayer)
	if !ok || pl.Len() != 56 || pl.Counts()[1] != 56 {
		t.Fatalf("layers %v: not the 56 cells", layers)
	}
	// Independent order: sort by (z, y, x) and take the third.
	pts := pl.Points()
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := pts[a], pts[b]
		switch {
		case pa.Z != pb.Z:
			return int(pa.Z - pb.Z)
		case pa.Y != pb.Y:
			return int(pa.Y - pb.Y)
		}
		return int(pa.X - pb.X)
	})
	if got := pl.Selected(); !slices.Equal(got, []int{idx[2]}) || hl.Dims().Slice() != int(pts[idx[2]].Z) {
		t.Errorf("walk 3: selected %v on slice %d, want [%d] on %v", got, hl.Dims().Slice(), idx[2], pts[idx[2]].Z)
	}
	if done, total := pl.Reviewed(); done != 3 || total != 56 {
		t.Errorf("reviewed %d of %d", done, total)
	}

	// A screenshot of the same, through the command.
	png := filepath.Join(dir, "shot.png")
	if code, _, stderr := runCmd("view", vol, xml, "--walk", "3", "--screenshot", png, "--size", "640x480"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The PNG shows the walk's point selected: its box (a white outline
	// ringed in black, which neither the ramp nor the markers draw) is
	// there, and not in the same plane's screenshot without the walk.
	if !hasSelectionBox(testutil.ReadPNG(t, png)) {
		t.Error("the --walk screenshot shows no selected point")
	}
	plain := filepath.Join(dir, "plain.png")
	if code, _, stderr := runCmd("view", vol, xml, "--slice", fmt.Sprint(int(pts[idx[2]].Z)), "--screenshot", plain, "--size", "640x480"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if hasSelectionBox(testutil.ReadPNG(t, plain)) {
		t.Error("the screenshot without --walk shows a selected point: the check cannot tell")
	}
}

// hasSelectionBox reports whether img holds the top edge of a selected
// point's box: a run of at least 6 pure white pixels right below a run of
// pure black ones (the box's outer ring). Images change little from one
// row to the next, and text and markers are drawn translucent.
func hasSelectionBox(img image.Image) bool {
	b := img.Bounds()
	is := func(x, y int, v uint32) bool {
		r, g, bl, a := img.At(x, y).RGBA()
		return r>>8 == v && g>>8 == v && bl>>8 == v && a>>8 == 0xff
	}
	for y := b.Min.Y + 1; y < b.Max.Y; y++ {
		run := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			if is(x, y, 0xff) && is(x, y-1, 0) {
				if run++; run >= 6 {
					return true
				}
			} else {
				run = 0
			}
		}
	}
	return false
}
