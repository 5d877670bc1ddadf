package train

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/volume"
)

// WriteExampleCubes writes n cubes of each type of a synthetic task as
// cellfinder's training cubes under dir (cells/ and non_cells/, one
// float32 TIFF per channel, z y x pages, of height h, width w, depth d):
// two channels of noise about 200, a cell's signal with a bright blob at
// the centre. It returns the training YAML naming both folders.
func WriteExampleCubes(dir string, n, h, w, d int) (string, error) {
	yaml := "data:\n"
	plane := make([]float32, d*h*w)
	for _, typ := range []string{"cell", "no_cell"} {
		sub := filepath.Join(dir, map[string]string{"cell": "cells", "no_cell": "non_cells"}[typ])
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		for k := range n {
			for ch := range 2 {
				for i := range plane {
					z, y, x := i/(h*w), i/w%h, i%w
					v := 200 + 50*synth.Uniform(fmt.Sprintf("%s%d", typ, k), ch, i)
					dz, dy, dx := float64(z-d/2), float64(y-h/2), float64(x-w/2)
					if typ == "cell" && ch == 0 {
						v += 300 * max(0, 1-(dy*dy+dx*dx+4*dz*dz)/25)
					}
					plane[i] = float32(v)
				}
				name := filepath.Join(sub, fmt.Sprintf("pCellz%dy%dx%dCh%d.tif", k, 10*k, 7*k, ch))
				if err := writeTIFF(name, plane, d, h, w); err != nil {
					return "", err
				}
			}
		}
		yaml += fmt.Sprintf("- cube_dir: %s\n  type: %s\n  signal_channel: 0\n  bg_channel: 1\n", sub, typ)
	}
	p := filepath.Join(dir, "training.yaml")
	return p, os.WriteFile(p, []byte(yaml), 0o644)
}

func writeTIFF(name string, v []float32, d, h, w int) error {
	wr, err := volume.CreateTIFF(name, volume.Info{Shape: [3]int{d, h, w}, DType: volume.Float32, VoxelSize: [3]float64{5, 1, 1}})
	if err != nil {
		return err
	}
	for z := range d {
		p := v[z*h*w : (z+1)*h*w]
		if err := wr.WriteSlab(z, unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 4*len(p))); err != nil {
			wr.Abort()
			return err
		}
	}
	return wr.Commit()
}

// example writes 8 cubes of each type (20x20x8) and trains an 18-layer
// network on them for one epoch into dir/trained.
func example(dir string) ([]string, error) {
	y, err := WriteExampleCubes(filepath.Join(dir, "cubes"), 8, 20, 20, 8)
	if err != nil {
		return nil, err
	}
	return []string{y, filepath.Join(dir, "trained"), "--network-depth", "18", "--cube-size", "20,20,8", "--epochs", "1", "--batch-size", "4", "--save-weights"}, nil
}
