package distance

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

func pipelineRequest(args []string, vals pipeline.Values) pipeline.Request {
	return pipeline.Request{Args: args, Values: vals}
}

// cpuDevice is the CPU backend with a 2 GiB host budget.
func cpuDevice(t *testing.T) pipeline.Device {
	be := gpu.NewCPU()
	t.Cleanup(func() { be.Close() })
	b := plan.Budget{Shared: true, Host: 2 << 30, HostSource: "test"}
	return pipeline.Device{Backend: be, Budget: b, BudgetFor: func(gpu.DeviceInfo) (plan.Budget, error) { return b, nil }}
}

func nopProgress() *job.Progress { return job.NewProgress("test", func(job.Event) {}) }

// The heat maps' drawing is package heatplot's (tested there), which
// this package's test binary does not link: a stand-in writes a marker
// file for each PNG a report names.
func init() {
	testutil.StandInPlots()
}
