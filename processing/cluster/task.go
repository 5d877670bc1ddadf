package cluster

import "github.com/voxlab/voxlab/processing/task"

// Task is one of the tasks a run is split into (task.Task: the pipelines
// share the type without importing this package).
type Task = task.Task

// Whole is the task that does everything: a run that is not split.
var Whole = task.Whole

// ParseTask parses the "i/N" of a --task flag.
func ParseTask(s string) (Task, error) { return task.Parse(s) }
