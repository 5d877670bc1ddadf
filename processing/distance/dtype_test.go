package distance

import (
	"context"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// typedMaps returns m's maps as a stack of type dt (the values must fit).
func typedMaps(t *testing.T, m *MemMaps, dt volume.DType) *StackMaps {
	t.Helper()
	info := volume.Info{Shape: [3]int{m.N * m.Edge, m.Edge, m.Edge}, DType: dt}
	raw := make([]byte, info.Bytes())
	for i, x := range m.Data {
		switch dt {
		case volume.Int8:
			volume.Int8s(raw)[i] = int8(x)
		case volume.Int16:
			volume.Int16s(raw)[i] = int16(x)
		case volume.Int32:
			volume.Int32s(raw)[i] = int32(x)
		case volume.Uint32:
			volume.Uint32s(raw)[i] = uint32(x)
		}
	}
	mem, err := volume.NewMemory(info, raw)
	if err != nil {
		t.Fatal(err)
	}
	s, err := volume.NewStack(dt.String()+" maps", m.N, mem)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := FromStack(s)
	if err != nil {
		t.Fatal(err)
	}
	return sm
}

// TestSignedMapsAgree runs ground truth given as int8, int16, int32 and
// uint32 maps, in memory and in low memory: the matrices are identical
// to those of the same values given as float32.
func TestSignedMapsAgree(t *testing.T) {
	gt, sub := noiseMemMaps(t, 12, 8, 5), noiseMemMaps(t, 3, 8, 6)
	for _, dt := range []volume.DType{volume.Int8, volume.Int16, volume.Int32, volume.Uint32} {
		shifted := *gt
		shifted.Data = append([]float32(nil), gt.Data...)
		if dt.IsSigned() {
			for i := range shifted.Data {
				shifted.Data[i] -= 500
				if dt == volume.Int8 {
					shifted.Data[i] = float32(int(shifted.Data[i]) / 8) // within int8
				}
			}
		}
		for _, low := range []bool{false, true} {
			cfg := Config{Metrics: AllMetrics(), VoxelSize: 1, LowMemory: low, Chunk: 5}
			want, err := Run(context.Background(), nil, gpu.NewCPU(), cfg, &shifted, sub)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(context.Background(), nil, gpu.NewCPU(), cfg, typedMaps(t, &shifted, dt), sub)
			if err != nil {
				t.Fatalf("%s: %v", dt, err)
			}
			for k := range want.Matrices {
				for i, w := range want.Matrices[k] {
					if g := got.Matrices[k][i]; g != w && !(g != g && w != w) {
						t.Fatalf("%s low memory %v: %s[%d] = %v, want %v", dt, low, want.Metrics[k], i, g, w)
					}
				}
			}
		}
	}
}
