package volume

import "fmt"

// Memory is a Source over a byte slice already in memory, for tests, demo
// data and results computed in memory.
type Memory struct {
	info Info
	data []byte
}

// NewMemory returns a Source over data, which must hold exactly the volume
// described by info.
func NewMemory(info Info, data []byte) (*Memory, error) {
	if err := info.Validate(); err != nil {
		return nil, err
	}
	if int64(len(data)) != info.Bytes() {
		return nil, fmt.Errorf("memory volume: %d bytes given for shape %v of %s (%d bytes)", len(data), info.Shape, info.DType, info.Bytes())
	}
	return &Memory{info: info, data: data}, nil
}

// Info returns the volume's description.
func (m *Memory) Info() Info { return m.info }

// Data returns the backing slice.
func (m *Memory) Data() []byte { return m.data }

// ReadSlab copies planes [z0, z1) into dst.
func (m *Memory) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(m.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := m.info.PlaneBytes()
	copy(dst, m.data[int64(z0)*pb:int64(z1)*pb])
	return nil
}

// Close does nothing.
func (m *Memory) Close() error { return nil }
