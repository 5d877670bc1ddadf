package volume

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestToFloat32 converts each type's bytes, written independently with
// encoding/binary (little-endian: the machines voxlab runs on).
func TestToFloat32(t *testing.T) {
	want := []float32{0, 1, 255, 7}
	for _, dt := range []DType{Uint8, Uint16, Float32, Float64} {
		src := make([]byte, len(want)*dt.Size())
		for i, v := range want {
			switch dt {
			case Uint8:
				src[i] = byte(v)
			case Uint16:
				binary.LittleEndian.PutUint16(src[2*i:], uint16(v))
			case Float32:
				binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(v))
			case Float64:
				binary.LittleEndian.PutUint64(src[8*i:], math.Float64bits(float64(v)))
			}
		}
		got := make([]float32, len(want))
		ToFloat32(got, src, dt)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: %v, want %v", dt, got, want)
				break
			}
		}
	}
	// float64 rounds to the nearest float32.
	got := make([]float32, 1)
	ToFloat32(got, Bytes([]float64{1 + 1e-12}), Float64)
	if got[0] != 1 {
		t.Errorf("float64 1+1e-12 → %v, want 1", got[0])
	}
}
