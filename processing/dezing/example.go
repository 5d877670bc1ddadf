package dezing

import (
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// example writes a small scan for Spec.Example: 24 projections of 32 x
// 40 uint16 counts about 1000 with a zinger every 97 voxels, as NPY (a
// plain volume: its format needs no C library), and names the output
// dezinged.h5 beside it.
func example(dir string) ([]string, error) {
	info := volume.Info{Shape: [3]int{24, 32, 40}, DType: volume.Uint16}
	in := filepath.Join(dir, "projections.npy")
	w, err := volume.CreateNPY(in, info)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, info.Len()*2)
	for i := range info.Len() {
		v := 1000 + rng.IntN(50)
		if i%97 == 0 {
			v = 60000
		}
		binary.NativeEndian.PutUint16(data[2*i:], uint16(v))
	}
	if err := w.WriteSlab(0, data); err != nil {
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return []string{in, filepath.Join(dir, "dezinged.h5")}, nil
}
