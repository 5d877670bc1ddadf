package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

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

// FirstSpec returns the first of specs whose path has one of the
// extensions ("" when none has): for Spec.Suggest.
func FirstSpec(specs []string, exts ...string) string {
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		for _, e := range exts {
			if strings.EqualFold(filepath.Ext(p), e) {
				return s
			}
		}
	}
	return ""
}

// FirstVolume returns the first spec that is not a points file (CSV,
// cellfinder XML): a volume in any format voxlab reads.
func FirstVolume(specs []string) string {
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		if e := strings.ToLower(filepath.Ext(p)); e != ".csv" && e != ".xml" {
			return s
		}
	}
	return ""
}

// FirstFolder returns the first spec that names a folder.
func FirstFolder(specs []string) string {
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return s
		}
	}
	return ""
}
