package svd

import (
	"math"
	"os"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// example writes a small input for Spec.Example: a folder of two
// submissions (6 and 8 maps of 8³) and a ground truth of 10 maps, each
// map a Gaussian blob whose centre and width move along a path, as NPY
// stacks (n, 8, 8, 8) float32; the run keeps rank 3.
func example(dir string) ([]string, error) {
	subs := filepath.Join(dir, "submissions")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		return nil, err
	}
	for _, set := range []struct {
		path   string
		n      int
		offset float64
	}{{filepath.Join(subs, "sub_a.npy"), 6, 0.1}, {filepath.Join(subs, "sub_b.npy"), 8, -0.2}, {filepath.Join(dir, "gt.npy"), 10, 0}} {
		if err := writeBlobs(set.path, set.n, set.offset, 8); err != nil {
			return nil, err
		}
	}
	return []string{subs, filepath.Join(dir, "svd"), "--gt", filepath.Join(dir, "gt.npy"), "--rank", "3"}, nil
}

// writeBlobs writes n maps of box³ along the path from offset.
func writeBlobs(path string, n int, offset float64, box int) error {
	w, err := volume.CreateStack(path, n, volume.Info{Shape: [3]int{box, box, box}, DType: volume.Float32})
	if err != nil {
		return err
	}
	vals := make([]float32, n*box*box*box)
	for m := range n {
		t := float64(m)/float64(n-1) + offset
		cz, cy, width := 2+4*t, 4+math.Sin(3*t), 1.5+t
		for i := range box * box * box {
			z, y, x := float64(i/(box*box)), float64(i/box%box), float64(i%box)
			d2 := (z-cz)*(z-cz) + (y-cy)*(y-cy) + (x-float64(box)/2)*(x-float64(box)/2)
			vals[m*box*box*box+i] = float32(math.Exp(-d2/(2*width*width))) + 0.1
		}
	}
	if err := w.WriteSlab(0, volume.Bytes(vals)); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}
