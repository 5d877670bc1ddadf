package detect_test

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/plan"
)

// Detect the somata of the small demo brain on the CPU with cellfinder's
// defaults.
func ExampleRun() {
	brain := lightsheet.New(lightsheet.SmallShape, 1)
	cfg := detect.DefaultConfig()
	cfg.BatchSize = 4
	res, err := detect.Run(context.Background(), nil, gpu.NewCPU(), cfg, brain.Volume(), plan.Budget{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d somata, %d candidates, first at z=%d y=%d x=%d (%s)\n", len(brain.Cells()), len(res.Candidates),
		res.Candidates[0].Z, res.Candidates[0].Y, res.Candidates[0].X, res.Candidates[0].Type)
	// Output: 170 somata, 170 candidates, first at z=3 y=92 x=78 (cell)
}

// The fuzzy ball kernel of cellfinder's defaults: 3 x 3 x 3 voxels, each
// weight the number of 7x-resolution voxels of the ball inside it.
func ExampleBallKernel() {
	k := detect.BallKernel(3, 3)
	fmt.Println(k.W[13], k.Total, k.Threshold(0.6))
	// Output: 343 4945 2967
}
