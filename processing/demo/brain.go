package demo

import (
	"fmt"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
)

// BrainVoxel is the demo brain's voxel size, z, y, x in microns.
var BrainVoxel = lightsheet.Voxel

// BrainShape returns the demo brain's shape for a size: small 60 x 256 x
// 256, large 100 x 2048 x 2048.
func BrainShape(size Size) [3]int {
	if size == Large {
		return lightsheet.LargeShape
	}
	return lightsheet.SmallShape
}

// NewBrain lays out the demo brain of a size (see package lightsheet).
func NewBrain(size Size, seed int64) *lightsheet.Brain { return lightsheet.New(BrainShape(size), seed) }

// WriteBrain writes the light-sheet demo into dir: BrainPlanes, a folder of
// 2D uint16 TIFF planes, and BrainCells, the true soma centres as z,y,x
// voxel indices. Both are written under temporary names and renamed when
// complete.
func WriteBrain(dir string, size Size, seed int64) error {
	b := NewBrain(size, seed)
	w, err := volume.CreatePlaneDir(filepath.Join(dir, BrainPlanes), b.Info())
	if err != nil {
		return err
	}
	defer w.Abort()
	step := max(1, int((64<<20)/b.Info().PlaneBytes()))
	buf := make([]byte, int64(step)*b.Info().PlaneBytes())
	for z := 0; z < b.Info().Shape[0]; z += step {
		z1 := min(z+step, b.Info().Shape[0])
		slab := buf[:int64(z1-z)*b.Info().PlaneBytes()]
		if err := b.ReadSlab(z, z1, slab); err != nil {
			return err
		}
		if err := w.WriteSlab(z, slab); err != nil {
			return err
		}
	}
	if err := writeCellsCSV(filepath.Join(dir, BrainCells), b.Cells()); err != nil {
		return err
	}
	return w.Commit()
}

func writeCellsCSV(path string, cells [][3]int) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := fmt.Fprintln(f, "z,y,x"); err != nil {
		return err
	}
	for _, c := range cells {
		if _, err := fmt.Fprintf(f, "%d,%d,%d\n", c[0], c[1], c[2]); err != nil {
			return err
		}
	}
	return f.Commit()
}
