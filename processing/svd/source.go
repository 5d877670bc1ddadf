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
	for i := range m.s.N {
		if err := m.readPlanes(i, z0, z1, nz, elem, dst[i*c:(i+1)*c]); err != nil {
			return err
		}
	}
	return nil
}

// readMap reads map i whole into dst (masked).
func (m *stackSource) readMap(i int, dst []float64) error {
	nz := m.s.Map.Shape[0]
	if need := len(dst) * m.src.Info().DType.Size(); len(m.buf) < need {
		m.buf = make([]byte, need)
	}
	return m.readPlanes(i, 0, nz, nz, m.src.Info().DType.Size(), dst)
}

// readPlanes reads planes z0 … z1 of map i into row, as float64, masked.
func (m *stackSource) readPlanes(i, z0, z1, nz, elem int, row []float64) error {
	b := m.buf[:len(row)*elem]
	if err := m.src.ReadSlab(i*nz+z0, i*nz+z1, b); err != nil {
		return fmt.Errorf("read map %d, planes %d-%d of %s: %w", i, z0, z1, m.s.Name, err)
	}
	if elem == 8 {
		copy(row, volume.Float64s(b))
	} else {
		for k, x := range volume.Float32s(b) {
			row[k] = float64(x)
		}
	}
	if m.mask != nil {
		v0 := z0 * m.plane
		for k := range row {
			row[k] *= m.mask[v0+k]
		}
	}
	return nil
}

// matrixSource is maps held in memory, n × d row-major: the maps after
// a preprocessing that wants whole maps (Preprocess).
type matrixSource struct {
	n, d int
	x    []float64
}

func (m *matrixSource) N() int { return m.n }
func (m *matrixSource) D() int { return m.d }
func (m *matrixSource) Read(v0, v1 int, dst []float64) error {
	c := v1 - v0
	for i := range m.n {
		copy(dst[i*c:(i+1)*c], m.x[i*m.d+v0:i*m.d+v1])
	}
	return nil
}

// preprocessed reads every map of s whole, one at a time, applies the
// mask and p, and holds the results: n maps of p.Box(box)³.
func preprocessed(s *volume.Stack, mask []float64, p Preprocess) (*matrixSource, error) {
	box := s.Box()
	if box == 0 {
		return nil, fmt.Errorf("%s: maps of %v voxels; the B-factor and downsampling want cubes", s.Name, s.Map.Shape)
	}
	src, err := newStackSource(s, mask)
	if err != nil {
		return nil, err
	}
	d := s.MapLen()
	ds := p.Box(box)
	out := &matrixSource{n: s.N, d: ds * ds * ds, x: make([]float64, 0, s.N*ds*ds*ds)}
	m := make([]float64, d)
	for i := range s.N {
		if err := src.readMap(i, m); err != nil {
			return nil, err
		}
		pm, err := p.Apply(m, box)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		out.x = append(out.x, pm...)
	}
	return out, nil
}
