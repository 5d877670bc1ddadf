package distance

import (
	"fmt"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
)

// StackMaps reads a volume.Stack (NPY, MRC stack, folder of MRC files) as
// Maps. Files of float32 are read straight into the caller's buffer;
// other types are read into a conversion buffer the size of the largest
// read so far (ConvertBytes per map, which the planner counts) and
// widened to float32.
type StackMaps struct {
	s   *volume.Stack
	mu  sync.Mutex
	buf []byte
}

// FromStack checks that s holds cubic maps and wraps it.
func FromStack(s *volume.Stack) (*StackMaps, error) {
	if s.Box() == 0 {
		return nil, fmt.Errorf("%s: maps of shape %v are not cubes (box x box x box)", s.Name, s.Map.Shape)
	}
	if err := checkBox(s.Box()); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	// Every type converts to float32 (ReadMapsScratch, its buffer in the
	// plan): exactly for 8- and 16-bit integers and float32, to nearest
	// for 32-bit integers beyond 2^24 and float64.
	if s.Map.DType.Size() == 0 {
		return nil, fmt.Errorf("%s: maps of type %s are not supported", s.Name, s.Map.DType)
	}
	return &StackMaps{s: s}, nil
}

// Len returns the number of maps.
func (m *StackMaps) Len() int { return m.s.N }

// Box returns the maps' edge.
func (m *StackMaps) Box() int { return m.s.Box() }

// VoxelSize returns the voxel size along x from the file's header (Å for
// MRC files), 0 when the file has none.
func (m *StackMaps) VoxelSize() float64 { return m.s.Map.VoxelSize[2] }

// Name returns the file or folder the maps come from.
func (m *StackMaps) Name() string { return m.s.Name }

// ConvertBytes is the conversion buffer needed per map (0 for float32).
func (m *StackMaps) ConvertBytes() int64 {
	if m.s.Map.DType == volume.Float32 {
		return 0
	}
	return m.s.MapBytes()
}

// ReadMaps reads maps [i0, i1) as float32, with one read of the file
// (a folder of MRC files: one per file).
func (m *StackMaps) ReadMaps(i0, i1 int, dst []float32) error {
	if m.s.Map.DType == volume.Float32 {
		return m.s.ReadMaps(i0, i1, volume.Bytes(dst))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := int64(i1-i0) * m.s.MapBytes()
	if n < 0 {
		return fmt.Errorf("read maps %d-%d of %s: bad range", i0, i1, m.s.Name)
	}
	if int64(len(m.buf)) < n {
		m.buf = make([]byte, n)
	}
	return m.ReadMapsScratch(i0, i1, dst, m.buf[:n])
}

// ReadMapsScratch is ReadMaps with the caller's conversion scratch of at
// least (i1−i0)·ConvertBytes() bytes (unused for float32 files), so that
// a pipeline owns, and counts, the memory its reads hold.
func (m *StackMaps) ReadMapsScratch(i0, i1 int, dst []float32, scratch []byte) error {
	if m.s.Map.DType == volume.Float32 {
		return m.s.ReadMaps(i0, i1, volume.Bytes(dst))
	}
	n := int64(i1-i0) * m.s.MapBytes()
	if n < 0 || int64(len(scratch)) < n {
		return fmt.Errorf("read maps %d-%d of %s: bad range or a conversion buffer of %d bytes", i0, i1, m.s.Name, len(scratch))
	}
	raw := scratch[:n]
	if err := m.s.ReadMaps(i0, i1, raw); err != nil {
		return err
	}
	if len(dst) != int(n)/m.s.Map.DType.Size() {
		return fmt.Errorf("read maps %d-%d of %s: %d values for %d voxels", i0, i1, m.s.Name, len(dst), int(n)/m.s.Map.DType.Size())
	}
	volume.ToFloat32(dst, raw, m.s.Map.DType)
	return nil
}

// Reader returns the source the maps are read from (volume.ReadersOf).
func (m *StackMaps) Reader() volume.Source { return m.s.Reader() }

// Close closes the stack.
func (m *StackMaps) Close() error { return m.s.Close() }
