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
		{"int8_le.npy", Int8}, {"int16_be.npy", Int16}, {"uint8_le.tif", Uint8}, {"uint16_le.tif", Uint16},
		{"uint32_be.npy", Uint32}, // its values stay below 2^24
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
				return want(z, y, x)
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

// TestAsFloat32Exact32 reads 32-bit integers through the float32 view:
// up to ±2^24 they are exact, one beyond is refused naming the value
// (the golden int32 file's values reach ±2.1e9).
func TestAsFloat32Exact32(t *testing.T) {
	for _, tc := range []struct {
		file, value string
	}{{"int32_le.npy", "int32 value"}} {
		v, err := Open("testdata/types/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		src, err := AsFloat32(v.Source())
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, src.Info().Bytes())
		if err := src.ReadSlab(0, src.Info().Shape[0], dst); err == nil || !strings.Contains(err.Error(), tc.value) || !strings.Contains(err.Error(), "2^24") {
			t.Errorf("%s: %v, want the value beyond 2^24 refused", tc.file, err)
		}
		v.Close()
	}
	info := Info{Shape: [3]int{1, 1, 4}, DType: Int32}
	vals := []int32{1 << 24, -(1 << 24), 7, -(1 << 24) + 1}
	data := make([]byte, 16)
	copy(Int32s(data), vals)
	m, err := NewMemory(info, data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := AsFloat32(m)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 16)
	if err := src.ReadSlab(0, 1, dst); err != nil {
		t.Fatal(err)
	}
	for i, f := range Float32s(dst) {
		if int32(f) != vals[i] {
			t.Errorf("value %d read as %v", vals[i], f)
		}
	}
	copy(Int32s(data), []int32{0, 0, 1<<24 + 1, 0})
	if err := src.ReadSlab(0, 1, dst); err == nil || !strings.Contains(err.Error(), "16777217") {
		t.Errorf("2^24+1: %v, want it refused", err)
	}
}
