package main

import (
	"os"
	"runtime/debug"

	"github.com/voxlab/voxlab/processing/plan"
)

// runtimeHeadroom is what the Go runtime and the program hold beside the
// plan's arrays (code, goroutine stacks, small allocations).
const runtimeHeadroom = 64 << 20

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
	prev := debug.SetMemoryLimit(pl.PeakRAM + pl.PeakRAM/20 + runtimeHeadroom)
	return func() { debug.SetMemoryLimit(prev) }
}
