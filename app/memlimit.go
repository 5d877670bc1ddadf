package main

import (
	"os"
	"runtime/debug"

	"github.com/voxlab/voxlab/processing/plan"
)

// runtimeHeadroom is what the Go heap holds beside the plan's arrays
// (goroutine stacks, the runtime's metadata, small allocations). The
// binary and the C libraries (~55 MB resident) are outside the Go limit.
// Measured on a dezinging run of 270 frames of 2560 x 1024: resident
// memory is the limit plus about 55 MB, and limits from 820 to 905 MiB
// for an 801 MiB plan ran in the same 3.4-4.3 s.
const runtimeHeadroom = 24 << 20

// limitMemory sets the Go runtime's soft memory limit from a headless
// run's plan, so that the garbage collector returns a freed block's
// memory before the heap grows past the prediction: by default it lets
// the heap reach twice what is live, which for a pipeline that frees one
// set's buffers and allocates the next phase's would double the RSS the
// plan promised. A GOMEMLIMIT the user set wins, and a run inside the
// GUI (several jobs beside the viewer) leaves the limit alone. The
// returned func restores the limit before.
func limitMemory(e *env, pl *plan.Plan) (restore func()) {
	if e == nil || e.inGUI || pl == nil || pl.PeakRAM <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(pl.PeakRAM + pl.PeakRAM/50 + runtimeHeadroom)
	return func() { debug.SetMemoryLimit(prev) }
}
