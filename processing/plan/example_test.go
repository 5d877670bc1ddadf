package plan_test

import (
	"fmt"
	"os"

	"github.com/voxlab/voxlab/processing/plan"
)

// A 3D median over a stack of 512 x 512 float32 slices (1 MiB each): the input block
// holds one halo slice on each side, the output does not, and the kernel
// offsets are fixed.
func ExampleMake() {
	slice := int64(512 * 512 * 4)
	p, err := plan.Make("median", []plan.Phase{{
		Name: "slices", Unit: "slices", Units: 1000, Halo: 1,
		Arrays: []plan.Array{
			{Name: "input", Where: plan.Device, PerUnit: slice, Halo: true},
			{Name: "output", Where: plan.Device, PerUnit: slice},
			{Name: "offsets", Where: plan.Device, Fixed: 27 * 8},
		},
	}}, plan.Budget{Device: 256 << 20, DeviceSource: "--device-memory 256MiB"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p.Format(os.Stdout)
	// Output:
	// median: blocks of 114 slices (9 blocks over 1000 slices, slices phase)
	// device memory: peak 230 MiB of 230 MiB usable (90% of 256 MiB, --device-memory 256MiB)
	// host memory:   peak 0 B of an unlimited budget
	//
	// phase   units        halo  block  blocks  device   pinned  host
	// slices  1000 slices  1     114    9       230 MiB  0 B     0 B
	//
	// at the peak (slices phase, blocks of 114 slices):
	//   device  input      116 MiB
	//   device  output     114 MiB
	//   device  offsets      216 B
}

func ExampleTooSmallError() {
	_, err := plan.Make("median", []plan.Phase{{
		Name: "slices", Unit: "slices", Units: 1000, Halo: 1,
		Arrays: []plan.Array{{Name: "input", Where: plan.Device, PerUnit: 1 << 20, Halo: true}},
	}}, plan.Budget{Device: 2 << 20, DeviceSource: "--device-memory 2MiB"})
	fmt.Println(err)
	// Output:
	// median: not enough device memory for slices: the smallest block needs 3 MiB, 1.8 MiB is usable of 2 MiB available (--device-memory 2MiB); the smallest budget that works is 4 MiB
}
