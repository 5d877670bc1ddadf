package render3d

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// readNPY reads a golden NPY file whole as float64.
func readNPY(t *testing.T, name string) (*volume.Volume, []float64) {
	t.Helper()
	v, err := volume.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, v.Len())
	for i := range out {
		switch v.DType {
		case volume.Uint16:
			out[i] = float64(volume.Uint16s(b)[i])
		case volume.Float32:
			out[i] = float64(volume.Float32s(b)[i])
		case volume.Float64:
			out[i] = volume.Float64s(b)[i]
		default:
			t.Fatalf("%s: dtype %s", name, v.DType)
		}
	}
	return v, out
}

// gridOf builds the full-resolution grid of a golden volume.
func gridOf(t *testing.T, name string) *Grid {
	t.Helper()
	v, err := volume.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	gs, err := Build(context.Background(), v, []int64{1 << 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gs[0].Factor != 1 {
		t.Fatalf("factor %d", gs[0].Factor)
	}
	return gs[0]
}

// memVolume wraps float32 data as a volume.
func memVolume(t testing.TB, shape [3]int, data []float32) *volume.Volume {
	b := make([]byte, 4*len(data))
	copy(volume.Float32s(b), data)
	m, err := volume.NewMemory(volume.Info{Shape: shape, DType: volume.Float32}, b)
	if err != nil {
		t.Fatal(err)
	}
	return volume.New("mem", m)
}

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}
