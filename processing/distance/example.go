package distance

import (
	"math"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// example writes two small sets of maps for Spec.Example — 5 ground-truth
// and 4 submitted maps of 12³, Gaussian blobs at positions that differ
// from map to map, as NPY stacks (n, box, box, box) float32 — and names
// the output folder distances beside them. NPY files have no voxel size,
// which the res metric needs: the run gives --voxel-size 2.
func example(dir string) ([]string, error) {
	const box = 12
	var paths []string
	for _, set := range []struct {
		name  string
		n     int
		shift float64
	}{{"gt.npy", 5, 0}, {"submitted.npy", 4, 0.5}} {
		p := filepath.Join(dir, set.name)
		w, err := volume.CreateStack(p, set.n, volume.Info{Shape: [3]int{box, box, box}, DType: volume.Float32})
		if err != nil {
			return nil, err
		}
		vals := make([]float32, set.n*box*box*box)
		for m := range set.n {
			c := 4 + float64(m) + set.shift
			for i := range box * box * box {
				z, y, x := float64(i/(box*box)), float64(i/box%box), float64(i%box)
				d2 := (z-c)*(z-c) + (y-6)*(y-6) + (x-6)*(x-6)
				vals[m*box*box*box+i] = float32(math.Exp(-d2 / 8))
			}
		}
		if err := w.WriteSlab(0, volume.Bytes(vals)); err != nil {
			w.Abort()
			return nil, err
		}
		if err := w.Commit(); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return []string{paths[0], paths[1], filepath.Join(dir, "distances"), "--voxel-size", "2"}, nil
}
