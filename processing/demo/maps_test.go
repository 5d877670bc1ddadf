package demo

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/distance"
	"github.com/voxlab/voxlab/processing/volume"
)

func TestWriteMaps(t *testing.T) {
	dir := t.TempDir()
	if err := WriteMaps(dir, Small, 5); err != nil {
		t.Fatal(err)
	}
	l := MapsLayoutFor(Small)
	gt, err := volume.OpenStack(filepath.Join(dir, MapsGT))
	if err != nil {
		t.Fatal(err)
	}
	defer gt.Close()
	sub, err := volume.OpenStack(filepath.Join(dir, MapsSubmitted))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if gt.N != l.GT || sub.N != l.Submitted || gt.Box() != l.Box || sub.Box() != l.Box || gt.Map.DType != volume.Float32 {
		t.Fatalf("stacks %d and %d maps of %v %s", gt.N, sub.N, gt.Map.Shape, gt.Map.DType)
	}
	mask, err := volume.Open(filepath.Join(dir, MapsMask))
	if err != nil {
		t.Fatal(err)
	}
	defer mask.Close()
	if vs := mask.VoxelSize; math.Abs(vs[0]-MapsVoxelSize) > 1e-6 || vs[1] != vs[0] || vs[2] != vs[0] { // MRC stores float32
		t.Errorf("mask voxel size %v, want %g Å", mask.VoxelSize, MapsVoxelSize)
	}
	raw, err := mask.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(volume.Float32s(raw), MaskSphere(l.Box, l.MaskRadius)) {
		t.Error("mask file differs from MaskSphere")
	}
	// The files hold exactly the maps NewMaps makes from the seed.
	g, s := NewMaps(l, 5)
	buf := make([]byte, gt.N*int(gt.MapBytes()))
	if err := gt.ReadMaps(0, gt.N, buf); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(volume.Float32s(buf), g.Data) {
		t.Error("gt.npy differs from NewMaps")
	}
	g2, s2 := NewMaps(l, 5)
	if !slices.Equal(g.Data, g2.Data) || !slices.Equal(s.Data, s2.Data) {
		t.Error("NewMaps is not deterministic")
	}
	if g3, _ := NewMaps(l, 6); slices.Equal(g.Data, g3.Data) {
		t.Error("another seed gives the same maps")
	}
}

// TestMapsAreCryoEMLike: the nearest ground-truth map of each submitted map
// (by l2 after masking and normalisation) lies at about its conformational
// coordinate, so the demo exercises what the metrics are for.
func TestMapsAreCryoEMLike(t *testing.T) {
	l := MapsLayoutFor(Small)
	g, s := NewMaps(l, 3)
	gm, _ := distance.NewMemMaps(g.Data, l.GT, l.Box)
	sm, _ := distance.NewMemMaps(s.Data, l.Submitted, l.Box)
	mask, err := distance.MaskFromMap(l.Box, MaskSphere(l.Box, l.MaskRadius))
	if err != nil {
		t.Fatal(err)
	}
	res, err := distance.Run(context.Background(), nil, gpu.NewCPU(),
		distance.Config{Metrics: []distance.Metric{distance.L2}, Mask: mask, AutoChunk: true}, gm, sm)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < l.Submitted; j++ {
		best := 0
		for i := 0; i < l.GT; i++ {
			if res.Matrices[0][i*l.Submitted+j] < res.Matrices[0][best*l.Submitted+j] {
				best = i
			}
		}
		if d := math.Abs(g.T[best] - s.T[j]); d > 0.1 {
			t.Errorf("submitted map %d (t=%.2f): nearest ground truth %d at t=%.2f", j, s.T[j], best, g.T[best])
		}
	}
}
