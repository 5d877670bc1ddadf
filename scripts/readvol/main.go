// Command readvol reads a volume through voxlab's readers, slab by slab,
// and prints how long it took: the read speed scripts/bench-convert.sh
// sets a conversion's speed beside.
//
//	go run ./scripts/readvol SPEC [PLANES_PER_SLAB]
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
	_ "github.com/voxlab/voxlab/processing/volume/zarr"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: readvol SPEC [PLANES_PER_SLAB]")
		os.Exit(2)
	}
	block := 64
	if len(os.Args) > 2 {
		block, _ = strconv.Atoi(os.Args[2])
	}
	v, err := volume.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer v.Close()
	buf := make([]byte, int64(block)*v.PlaneBytes())
	start := time.Now()
	for z0 := 0; z0 < v.Shape[0]; z0 += block {
		z1 := min(z0+block, v.Shape[0])
		if err := v.ReadSlab(z0, z1, buf[:int64(z1-z0)*v.PlaneBytes()]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	s := time.Since(start).Seconds()
	fmt.Printf("read %s: %v %s, %.2f s, %.0f MB/s\n", os.Args[1], v.Shape, v.DType, s, float64(v.Bytes())/s/1e6)
}
