package classify

import (
	"encoding/hex"
	"math"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestConverterGolden: every type classification reads converts to
// float32 (cubes) and float64 (the normalisation's statistics) bit for
// bit as cellfinder's get_data_converter (reimplemented in
// testdata/gen_converter_golden.py), at each type's extremes, around 0
// and at values that do not fit float32.
func TestConverterGolden(t *testing.T) {
	var g []struct {
		DType  string   `json:"dtype"`
		Raw    string   `json:"raw_hex"`
		Bits32 []uint32 `json:"float32_bits"`
		Bits64 []uint64 `json:"float64_bits"`
	}
	readJSON(t, "converter_golden.json", &g)
	if len(g) != 8 {
		t.Fatalf("%d types in the golden file", len(g))
	}
	for _, c := range g {
		dt, err := volume.ParseDType(c.DType)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := hex.DecodeString(c.Raw)
		if err != nil {
			t.Fatal(err)
		}
		c32, err := converter(dt)
		if err != nil {
			t.Fatal(err)
		}
		c64, err := converter64(dt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Bits32 {
			if got := c32(raw, i); math.Float32bits(got) != c.Bits32[i] {
				t.Errorf("%s value %d: float32 %v, cellfinder's %v", c.DType, i, got, math.Float32frombits(c.Bits32[i]))
			}
			if got := c64(raw, i); math.Float64bits(got) != c.Bits64[i] {
				t.Errorf("%s value %d: float64 %v, cellfinder's %v", c.DType, i, got, math.Float64frombits(c.Bits64[i]))
			}
		}
	}
}
