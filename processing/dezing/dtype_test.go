package dezing

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// retype returns the values of a uint16 scan, shifted by off and divided
// by div, as a volume of type dt and, the reference, as float32.
func retype(t *testing.T, src volume.Source, dt volume.DType, off, div int) (typed, ref volume.Source) {
	t.Helper()
	if src == nil {
		return nil, nil
	}
	in := src.(*volume.Memory)
	u := volume.Uint16s(in.Data())
	info := in.Info()
	info.DType = dt
	data := make([]byte, info.Bytes())
	fl := make([]float32, len(u))
	for i, v := range u {
		x := (int(v) + off) / div
		fl[i] = float32(x)
		switch dt {
		case volume.Int8:
			volume.Int8s(data)[i] = int8(x)
		case volume.Uint8:
			data[i] = uint8(x)
		case volume.Int16:
			volume.Int16s(data)[i] = int16(x)
		case volume.Int32:
			volume.Int32s(data)[i] = int32(x)
		case volume.Uint32:
			volume.Uint32s(data)[i] = uint32(x)
		}
	}
	m, err := volume.NewMemory(info, data)
	if err != nil {
		t.Fatal(err)
	}
	info.DType = volume.Float32
	r, err := volume.NewMemory(info, volume.Bytes(fl))
	if err != nil {
		t.Fatal(err)
	}
	return m, r
}

// TestOtherIntegerTypes dezings scans of int8, uint8, int16, int32 and
// uint32 (with darks and flats, with and without the flat-field): the
// output is float32 and bit-identical to dezinging the same values given
// as float32.
func TestOtherIntegerTypes(t *testing.T) {
	for _, tc := range []struct {
		dt       volume.DType
		off, div int
	}{
		{volume.Int8, -32768, 257}, {volume.Uint8, 0, 257}, {volume.Int16, -32768, 1},
		{volume.Int32, -40000, 1}, {volume.Uint32, 7, 1},
	} {
		for _, ff := range []bool{false, true} {
			scan := testScan(3, volume.Uint16, 9, 3, 4, 10, 13)
			var typed, ref Input
			typed.Projections, ref.Projections = retype(t, scan.Projections, tc.dt, tc.off, tc.div)
			typed.Darks, ref.Darks = retype(t, scan.Darks, tc.dt, tc.off, tc.div)
			typed.Flats, ref.Flats = retype(t, scan.Flats, tc.dt, tc.off, tc.div)
			cfg := DefaultConfig()
			cfg.FlatField, cfg.Block = ff, 2
			cfg.Dif = 500 / float64(tc.div)
			if got := OutInfo(typed.Shapes(), cfg).DType; got != volume.Float32 {
				t.Fatalf("%s: output type %s", tc.dt, got)
			}
			out, _ := runAll(t, gpu.NewCPU(), cfg, typed)
			want, _ := runAll(t, gpu.NewCPU(), cfg, ref)
			if !bytes.Equal(out.data, want.data) {
				t.Errorf("%s flat-field %v: differs from the float32 run", tc.dt, ff)
			}
			if _, ok := sameFloats(out.dark, want.dark); !ok {
				t.Errorf("%s flat-field %v: dark frame differs", tc.dt, ff)
			}
		}
	}
}

func TestFloat64Refused(t *testing.T) {
	info := volume.Info{Shape: [3]int{3, 4, 5}, DType: volume.Float64}
	m, err := volume.NewMemory(info, make([]byte, info.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Projections: m}
	if _, err := Plan(gpu.NewCPU(), in.Shapes(), DefaultConfig()); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("plan: %v", err)
	}
	_, err = Run(context.Background(), nil, gpu.NewCPU(), DefaultConfig(), in, newMemOutput(info))
	if err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("run: %v", err)
	}
}
