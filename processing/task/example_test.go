package task_test

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/task"
)

func ExampleTask_Range() {
	// 1800 projections over 4 array tasks.
	for i := range 4 {
		lo, hi := task.Task{Index: i, Count: 4}.Range(1800)
		fmt.Printf("task %d: projections %d to %d\n", i, lo, hi-1)
	}
	// Output:
	// task 0: projections 0 to 449
	// task 1: projections 450 to 899
	// task 2: projections 900 to 1349
	// task 3: projections 1350 to 1799
}
