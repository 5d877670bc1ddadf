package task

import (
	"fmt"
	"strconv"
	"strings"
)

// Task is one of Count independent tasks a pipeline is split into; Index
// is in [0, Count).
type Task struct {
	Index, Count int
}

// Whole is the task that does everything: a run that is not split.
var Whole = Task{0, 1}

// ParseTask parses the "i/N" of a --task flag.
func Parse(s string) (Task, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Task{}, fmt.Errorf("task %q: want INDEX/COUNT, such as 0/4", s)
	}
	t := Task{i, n}
	return t, t.Check()
}

// Check reports whether the task is well formed.
func (t Task) Check() error {
	if t.Count < 1 || t.Index < 0 || t.Index >= t.Count {
		return fmt.Errorf("task %d/%d: want 0 ≤ index < count", t.Index, t.Count)
	}
	return nil
}

func (t Task) String() string { return fmt.Sprintf("%d/%d", t.Index, t.Count) }

// Range returns the units [lo, hi) of n that task t handles: contiguous,
// in order, covering all n units once, with sizes that differ by at most
// one (floor(i·n/N) to floor((i+1)·n/N)). A task may be empty when there
// are more tasks than units.
func (t Task) Range(n int) (lo, hi int) {
	return int(int64(t.Index) * int64(n) / int64(t.Count)), int(int64(t.Index+1) * int64(n) / int64(t.Count))
}
