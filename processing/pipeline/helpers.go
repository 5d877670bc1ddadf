package pipeline

import (
	"fmt"
	"path/filepath"
	"runtime/debug"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// AbsSpec makes a volume spec's path absolute (keeping a :/dataset), so
// that a task and a merge run from different folders agree on the input
// in their part headers.
func AbsSpec(spec string) string {
	path, ds := volume.SplitSpec(spec)
	abs, err := filepath.Abs(path)
	if err != nil {
		return spec
	}
	if ds != "" {
		return abs + ":" + ds
	}
	return abs
}

// EmptyTaskPlan is the plan of a task with nothing to do (more tasks
// than work): no phases, and a warning saying why.
func EmptyTaskPlan(t task.Task, b plan.Budget, why string) *plan.Plan {
	return &plan.Plan{Budget: b,
		Warnings: []string{fmt.Sprintf("task %s has nothing to do: %s; it writes an empty part", t, why)}}
}

// Plural is "1 tile" or "2 tiles".
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// BuildVersion is voxlab's module version and VCS revision as the Go
// toolchain recorded them in the binary, for the attributes of outputs.
func BuildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
