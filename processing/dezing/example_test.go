package dezing_test

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/volume"
)

// frames is an Output that prints what it receives.
type frames struct{ data []uint16 }

func (f *frames) Frames(dark, flat []float32) error {
	fmt.Printf("dark frame of %d pixels, first %.1f\n", len(dark), dark[0])
	return nil
}

func (f *frames) Slab(z0 int, data []byte) error {
	f.data = append(f.data, volume.Uint16s(data)...)
	return nil
}

// A zinger in a flat stack of projections is replaced by the median of
// its neighbourhood; the darks are dezinged as their own stack before they
// are averaged, so the dark zinger does not reach the mean.
func ExampleRun() {
	const n, rows, cols = 4, 5, 6
	proj := make([]uint16, n*rows*cols)
	for i := range proj {
		proj[i] = 1000
	}
	proj[2*rows*cols+2*cols+3] = 60000 // a hot zinger
	darks := make([]uint16, 3*rows*cols)
	for i := range darks {
		darks[i] = 100
	}
	darks[rows*cols] = 9000 // a zinger in a dark frame
	p, _ := volume.NewMemory(volume.Info{Shape: [3]int{n, rows, cols}, DType: volume.Uint16}, volume.Bytes(proj))
	d, _ := volume.NewMemory(volume.Info{Shape: [3]int{3, rows, cols}, DType: volume.Uint16}, volume.Bytes(darks))

	out := &frames{}
	res, err := dezing.Run(context.Background(), nil, gpu.NewCPU(), dezing.DefaultConfig(), dezing.Input{Projections: p, Darks: d}, out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("zinger now", out.data[2*rows*cols+2*cols+3])
	fmt.Println("blocks of", res.Plan.Block(), "projections")
	// Output:
	// dark frame of 30 pixels, first 100.0
	// zinger now 1000
	// blocks of 3 projections
}
