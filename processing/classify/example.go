package classify

import (
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/classify/internal/kerasw"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// exampleCalibration is the batch normalisations the golden generator
// calibrated for an 18-layer network on 20x20x8 cubes
// (testdata/gen_golden.py), so that the example's probabilities spread
// over (0, 1).
//
//go:embed testdata/calib_d18_20x20x8.json
var exampleCalibration []byte

// ExampleCubeSize and ExampleDepth are the example network's.
var (
	ExampleCubeSize = [3]int{20, 20, 8}
	ExampleDepth    = 18
)

// example writes a small classification for Spec.Example: two channels
// of a synthetic crop (synth.Crop: 16 planes of 96 x 96, uint16, at the
// network's 5,1,1 µm) as folders of TIFF planes, twelve candidates (six
// on somata, five off them, one too near the edge for a whole cube: an
// unknown) as cellfinder XML, and an 18-layer network on 20x20x8 cubes in
// tf.keras 2's HDF5 layout (written through volume.CreateTree: the binary
// links the HDF5 writer, this package does not). The output is
// classified.csv beside them.
func example(dir string) ([]string, error) {
	sig, bg, cands, model, err := WriteExample(dir)
	if err != nil {
		return nil, err
	}
	return []string{sig, cands, filepath.Join(dir, "classified.csv"),
		"--background", bg, "--model", model, "--voxel-size", "5,1,1",
		"--cube-size", "20,20,8"}, nil
}

// WriteExample writes the example's inputs under dir and returns their
// paths: the signal and background folders, the candidates' XML and the
// model.
func WriteExample(dir string) (signal, background, candidates, model string, err error) {
	shape := [3]int{16, 96, 96}
	somata := [][3]int{{6, 24, 24}, {8, 30, 64}, {7, 60, 40}, {9, 70, 72}, {8, 48, 20}, {7, 20, 50}}
	pts := make([]points.Point, 0, 12)
	for _, s := range somata {
		pts = append(pts, points.Point{Z: float64(s[0]), Y: float64(s[1]), X: float64(s[2])})
	}
	for _, p := range [][3]int{{8, 48, 48}, {6, 80, 30}, {9, 14, 80}, {7, 36, 86}, {8, 84, 56}, {1, 2, 3}} {
		pts = append(pts, points.Point{Z: float64(p[0]), Y: float64(p[1]), X: float64(p[2])})
	}
	s, b := synth.Crop(shape, somata, 7)
	info := volume.Info{Shape: shape, DType: volume.Uint16, VoxelSize: [3]float64{5, 1, 1}}
	signal, background = filepath.Join(dir, "signal"), filepath.Join(dir, "background")
	for _, c := range []struct {
		path string
		data []uint16
	}{{signal, s}, {background, b}} {
		if err = writePlanes(c.path, info, c.data); err != nil {
			return
		}
	}
	candidates = filepath.Join(dir, "candidates.xml")
	if err = points.Save(candidates, pts); err != nil {
		return
	}
	var cal synth.Calibration
	if err = json.Unmarshal(exampleCalibration, &cal); err != nil {
		return
	}
	arch := resnet.Arch{Depth: ExampleDepth, Input: [4]int{ExampleCubeSize[0], ExampleCubeSize[1], ExampleCubeSize[2], 2}}
	model = filepath.Join(dir, "resnet18.h5")
	err = kerasw.Save(model, keras.Legacy, arch, synth.Weights(arch, &cal))
	return
}

func writePlanes(path string, info volume.Info, data []uint16) error {
	w, err := volume.CreatePlaneDir(path, info)
	if err != nil {
		return err
	}
	defer w.Abort()
	raw := make([]byte, 2*len(data))
	for i, v := range data {
		binary.NativeEndian.PutUint16(raw[2*i:], v)
	}
	if err := w.WriteSlab(0, raw); err != nil {
		return err
	}
	return w.Commit()
}
