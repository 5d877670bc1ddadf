package distance

import "fmt"

// Maps is a set of cubic maps read a few at a time, so that a set larger
// than memory can be streamed.
type Maps interface {
	// Len returns the number of maps.
	Len() int
	// Box returns the edge of the cubic maps in voxels.
	Box() int
	// ReadMaps reads maps [i0, i1) into dst, which holds exactly
	// (i1−i0)·Box()³ float32s, each map in C order (z, y, x).
	ReadMaps(i0, i1 int, dst []float32) error
}

// MemMaps is a set of maps held in memory.
type MemMaps struct {
	// Data holds N maps of Edge³ voxels one after the other.
	Data []float32
	N    int
	Edge int
}

// NewMemMaps wraps n maps of box³ voxels.
func NewMemMaps(data []float32, n, box int) (*MemMaps, error) {
	if n < 0 || box <= 0 || len(data) != n*box*box*box {
		return nil, fmt.Errorf("memory maps: %d values for %d maps of %d³", len(data), n, box)
	}
	return &MemMaps{Data: data, N: n, Edge: box}, nil
}

// Len returns the number of maps.
func (m *MemMaps) Len() int { return m.N }

// Box returns the maps' edge.
func (m *MemMaps) Box() int { return m.Edge }

// ReadMaps copies maps [i0, i1) into dst.
func (m *MemMaps) ReadMaps(i0, i1 int, dst []float32) error {
	v := m.Edge * m.Edge * m.Edge
	if i0 < 0 || i1 > m.N || i0 > i1 || len(dst) != (i1-i0)*v {
		return fmt.Errorf("memory maps: read maps [%d,%d) of %d into %d values", i0, i1, m.N, len(dst))
	}
	copy(dst, m.Data[i0*v:i1*v])
	return nil
}
