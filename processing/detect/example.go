package detect

import (
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// example writes a small light-sheet volume for Spec.Example: a folder
// of 24 TIFF planes of 96 x 96 uint16 background noise with eight
// bright spheres of the default soma's size (16 µm at 5,2,2 µm voxels),
// and names the output cells.csv beside it.
func example(dir string) ([]string, error) {
	info := volume.Info{Shape: [3]int{24, 96, 96}, DType: volume.Uint16, VoxelSize: [3]float64{5, 2, 2}}
	planes := filepath.Join(dir, "planes")
	w, err := volume.CreatePlaneDir(planes, info)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	rng := rand.New(rand.NewPCG(3, 4))
	type ball struct{ z, y, x float64 }
	var balls []ball
	for range 8 {
		balls = append(balls, ball{4 + 16*rng.Float64(), 12 + 72*rng.Float64(), 12 + 72*rng.Float64()})
	}
	data := make([]byte, info.Len()*2)
	i := 0
	for z := range info.Shape[0] {
		for y := range info.Shape[1] {
			for x := range info.Shape[2] {
				v := 100 + rng.IntN(20)
				for _, b := range balls {
					// Distances in µm: the soma is 8 µm in radius.
					dz, dy, dx := (float64(z)-b.z)*5, (float64(y)-b.y)*2, (float64(x)-b.x)*2
					if dz*dz+dy*dy+dx*dx < 64 {
						v = 4000
					}
				}
				binary.NativeEndian.PutUint16(data[2*i:], uint16(v))
				i++
			}
		}
	}
	if err := w.WriteSlab(0, data); err != nil {
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return []string{planes, filepath.Join(dir, "cells.csv")}, nil
}
