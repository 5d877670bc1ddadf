package main

import (
	"context"
	"fmt"
	"os"

	"github.com/voxlab/voxlab/processing/cluster"
)

// A pipeline that splits (its spec's Split) runs one task with `voxlab
// PIPELINE … --task i/N`, writing the task's part into the parts folder
// of its first output (cluster.PartsDir); `voxlab merge PIPELINE …
// --tasks N` opens the parts, each checked against the header its task
// writes, hands them to the pipeline's merge and removes them; `voxlab
// submit slurm PIPELINE` runs both on a cluster. The merge declares
// exactly the pipeline's flags, so the merge job is given the tasks'
// arguments unchanged.

type mergeKey struct{}

// withMerge marks ctx as the merge of tasks tasks: the pipeline's runner
// then merges instead of running.
func withMerge(ctx context.Context, tasks int) context.Context {
	return context.WithValue(ctx, mergeKey{}, tasks)
}

func mergeTasks(ctx context.Context) int {
	n, _ := ctx.Value(mergeKey{}).(int)
	return n
}

// writePart writes task t's part of pipeline under header h into the
// parts folder of out: write fills the payload; a failed task leaves no
// part. It returns the part's path.
func writePart(out, pipeline string, t cluster.Task, h cluster.PartHeader, write func(w *cluster.PartWriter) error) (string, error) {
	path := cluster.PartPath(cluster.PartsDir(out), pipeline, t)
	w, err := cluster.CreatePart(path, h)
	if err != nil {
		return path, err
	}
	defer w.Abort()
	if err := write(w); err != nil {
		return path, err
	}
	return path, w.Commit()
}

// openParts opens, in task order, the parts of a merge of tasks tasks
// of pipeline in dir, each checked against the header its task writes.
// On an error it closes those it opened.
func openParts(dir, pipeline string, tasks int, header func(cluster.Task) (cluster.PartHeader, error)) ([]*cluster.Part, error) {
	if err := checkPartsDir(dir); err != nil {
		return nil, err
	}
	var parts []*cluster.Part
	for i := range tasks {
		t := cluster.Task{Index: i, Count: tasks}
		h, err := header(t)
		if err == nil {
			var p *cluster.Part
			if p, err = cluster.OpenPart(cluster.PartPath(dir, pipeline, t), h); err == nil {
				parts = append(parts, p)
				continue
			}
		}
		closeParts(parts)
		return nil, err
	}
	return parts, nil
}

// closeParts closes parts.
func closeParts(parts []*cluster.Part) {
	for _, p := range parts {
		p.Close()
	}
}

// checkPartsDir fails early, naming the folder, when the parts of a merge
// are nowhere to be found.
func checkPartsDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		hint := "run the tasks first (voxlab PIPELINE … --task i/N), from the same folder, with the same OUT"
		if os.Getenv(cluster.EnvShared) == "" {
			hint += "; a merge of a SLURM submission finds them in its shared folder ($" + cluster.EnvShared + ")"
		}
		return fmt.Errorf("no parts folder %s: %s", dir, hint)
	}
	return nil
}
