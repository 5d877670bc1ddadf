package reconstruct

import (
	"math"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// exampleScan is a small scan of a disc off the axis: nproj projections
// over [0°, 180°) of rows × cols uint16 counts, flats of 1000 over darks
// of 100, the axis at column axis.
type exampleScan struct {
	nproj, rows, cols int
	axis              float64
	// disc: centre (x, y) in pixels from the axis and the slice's middle,
	// radius, attenuation per pixel (varying with the row, so every
	// slice differs).
	x, y, r, mu float64
}

var defaultExample = exampleScan{nproj: 24, rows: 4, cols: 32, axis: 16, x: 4, y: -2, r: 6, mu: 0.05}

// lineIntegral is the disc's attenuation along column u of projection
// angle th at detector row row (FBP's geometry: u = axis + x·cos θ −
// y·sin θ).
func (e exampleScan) lineIntegral(th float64, u, row int) float64 {
	s := float64(u) - e.axis - (e.x*math.Cos(th) - e.y*math.Sin(th))
	if s*s >= e.r*e.r {
		return 0
	}
	return 2 * math.Sqrt(e.r*e.r-s*s) * e.mu * (1 + 0.25*float64(row))
}

// write writes the projections, darks and flats as NPY (formats that
// need no C library) under dir.
func (e exampleScan) write(dir string) (proj, darks, flats string, err error) {
	proj, darks, flats = filepath.Join(dir, "projections.npy"), filepath.Join(dir, "darks.npy"), filepath.Join(dir, "flats.npy")
	plane := e.rows * e.cols
	data := make([]uint16, e.nproj*plane)
	for p := 0; p < e.nproj; p++ {
		th := math.Pi * float64(p) / float64(e.nproj)
		for y := 0; y < e.rows; y++ {
			for u := 0; u < e.cols; u++ {
				data[p*plane+y*e.cols+u] = uint16(math.Round(100 + 1000*math.Exp(-e.lineIntegral(th, u, y))))
			}
		}
	}
	constant := func(n int, v uint16) []uint16 {
		out := make([]uint16, n*plane)
		for i := range out {
			out[i] = v
		}
		return out
	}
	for _, f := range []struct {
		path string
		v    []uint16
	}{{proj, data}, {darks, constant(3, 100)}, {flats, constant(4, 1100)}} {
		if err := writeNPY(f.path, f.v, len(f.v)/plane, e.rows, e.cols); err != nil {
			return "", "", "", err
		}
	}
	return proj, darks, flats, nil
}

func writeNPY(path string, v []uint16, z, y, x int) error {
	w, err := volume.CreateNPY(path, volume.Info{Shape: [3]int{z, y, x}, DType: volume.Uint16})
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.WriteSlab(0, volume.Bytes(v)); err != nil {
		return err
	}
	return w.Commit()
}

// example writes the scan for Spec.Example, and names the slices
// reconstructed.npy beside it.
func example(dir string) ([]string, error) {
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		return nil, err
	}
	return []string{proj, filepath.Join(dir, "reconstructed.npy"), "--darks", darks, "--flats", flats}, nil
}
