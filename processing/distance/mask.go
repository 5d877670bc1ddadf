package distance

import (
	"fmt"
	"math"
)

// Mask selects the voxels of a box³ map that the metrics compare.
type Mask struct {
	Box int
	// Index lists the inside voxels' flat indices z·box² + y·box + x in
	// ascending order, so that each row of x is a contiguous run of it.
	Index []int32
}

// Len returns the number of voxels inside.
func (m *Mask) Len() int { return len(m.Index) }

func checkBox(box int) error {
	if box < 2 || int64(box)*int64(box)*int64(box) > math.MaxInt32 {
		return fmt.Errorf("box of %d voxels: want 2 to 1290", box)
	}
	return nil
}

// FullMask keeps every voxel.
func FullMask(box int) (*Mask, error) {
	if err := checkBox(box); err != nil {
		return nil, err
	}
	idx := make([]int32, box*box*box)
	for i := range idx {
		idx[i] = int32(i)
	}
	return &Mask{Box: box, Index: idx}, nil
}

// SphereMask keeps the voxels within radius voxels of the box centre,
// voxel (box/2, box/2, box/2) with integer division: the origin of the
// Fourier transform's centred layout, as RELION and the challenge's maps
// place the particle.
func SphereMask(box int, radius float64) (*Mask, error) {
	if err := checkBox(box); err != nil {
		return nil, err
	}
	if !(radius > 0) {
		return nil, fmt.Errorf("mask radius %g: want a positive number of voxels", radius)
	}
	c, r2 := box/2, radius*radius
	var idx []int32
	for z := 0; z < box; z++ {
		for y := 0; y < box; y++ {
			for x := 0; x < box; x++ {
				dz, dy, dx := float64(z-c), float64(y-c), float64(x-c)
				if dz*dz+dy*dy+dx*dx <= r2 {
					idx = append(idx, int32((z*box+y)*box+x))
				}
			}
		}
	}
	if len(idx) < 2 {
		return nil, fmt.Errorf("mask radius %g keeps %d voxels of a %d³ box: want at least 2", radius, len(idx), box)
	}
	return &Mask{Box: box, Index: idx}, nil
}

// MaskFromMap keeps the voxels where values (a box³ map, C order) are
// non-zero, as the challenge reads its mask files.
func MaskFromMap(box int, values []float32) (*Mask, error) {
	if err := checkBox(box); err != nil {
		return nil, err
	}
	if len(values) != box*box*box {
		return nil, fmt.Errorf("mask: %d values for a %d³ box", len(values), box)
	}
	var idx []int32
	for i, v := range values {
		if v != 0 {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) < 2 {
		return nil, fmt.Errorf("mask keeps %d voxels: want at least 2 non-zero voxels", len(idx))
	}
	return &Mask{Box: box, Index: idx}, nil
}

// rowRuns returns, for each x row r = z·box + y, the range
// [runs[r], runs[r+1]) of m.Index inside it.
func (m *Mask) rowRuns() []int {
	rows := m.Box * m.Box
	runs := make([]int, rows+1)
	k := 0
	for r := 0; r < rows; r++ {
		runs[r] = k
		end := int32((r + 1) * m.Box)
		for k < len(m.Index) && m.Index[k] < end {
			k++
		}
	}
	runs[rows] = k
	return runs
}
