package svd

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/volume"
)

// stackSource reads a stack of maps by slabs of planes, every map's
// planes z0 … z1 at a time, as float64, multiplied by the mask when
// there is one (the challenge's volumes * mask).
type stackSource struct {
	s     *volume.Stack
	src   volume.Source
	plane int // voxels per plane
	mask  []float64
	buf   []byte
}

func newStackSource(s *volume.Stack, mask []float64) (*stackSource, error) {
	src := s.Reader()
	if dt := s.Map.DType; dt != volume.Float32 && dt != volume.Float64 {
		var err error
		if src, err = volume.AsFloat32(src); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return &stackSource{s: s, src: src, plane: s.Map.Shape[1] * s.Map.Shape[2], mask: mask}, nil
}

func (m *stackSource) N() int { return m.s.N }
func (m *stackSource) D() int { return m.s.MapLen() }

// Read reads voxels [v0, v1), which must be whole planes.
func (m *stackSource) Read(v0, v1 int, dst []float64) error {
	if v0%m.plane != 0 || (v1%m.plane != 0 && v1 != m.D()) {
		return fmt.Errorf("%s: voxels %d-%d are not whole planes", m.s.Name, v0, v1)
	}
	z0, z1, nz := v0/m.plane, v1/m.plane, m.s.Map.Shape[0]
	c := v1 - v0
	elem := m.src.Info().DType.Size()
	if need := c * elem; len(m.buf) < need {
		m.buf = make([]byte, need)
	}
	b := m.buf[:c*elem]
	for i := range m.s.N {
		if err := m.src.ReadSlab(i*nz+z0, i*nz+z1, b); err != nil {
			return fmt.Errorf("read map %d, planes %d-%d of %s: %w", i, z0, z1, m.s.Name, err)
		}
		row := dst[i*c : (i+1)*c]
		if elem == 8 {
			copy(row, volume.Float64s(b))
		} else {
			for k, x := range volume.Float32s(b) {
				row[k] = float64(x)
			}
		}
		if m.mask != nil {
			for k := range row {
				row[k] *= m.mask[v0+k]
			}
		}
	}
	return nil
}
