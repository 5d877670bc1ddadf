package volume

import (
	"strings"
	"testing"
)

// TestAsFloat32 reads every integer type of gen_types.py through the
// float32 view, whole and plane by plane, against the values recomputed.
func TestAsFloat32(t *testing.T) {
	for _, tc := range []struct {
		file string
		dt   DType
	}{
		{"int8_le.npy", Int8}, {"int16_be.npy", Int16}, {"int32_le.npy", Int32},
		{"uint32_be.npy", Uint32}, {"uint8_le.tif", Uint8}, {"uint16_le.tif", Uint16},
	} {
		t.Run(tc.file, func(t *testing.T) {
			v, err := Open("testdata/types/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			src, err := AsFloat32(v.Source())
			if err != nil {
				t.Fatal(err)
			}
			want := typeValue(tc.dt, 0)
			checkVolume(t, New("view", src), Float32, goldShape, func(z, y, x int) float64 {
				return float64(float32(want(z, y, x))) // int32 beyond 2^24 rounds
			})
		})
	}
	v, err := Open("testdata/types/float64_le.tif")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := AsFloat32(v.Source()); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("float64: %v", err)
	}
}
