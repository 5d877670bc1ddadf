package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/volume"
)

// A pipeline that splits into cluster tasks declares --task and returns
// splitRunner's runner from its setup, and registers its merge with
// mergeVia: then `voxlab PIPELINE … --task i/N` runs one task, `voxlab
// merge PIPELINE … --tasks N` joins them, and `voxlab submit slurm
// PIPELINE` accepts it. The merge declares exactly the pipeline's flags
// (it is the pipeline's own setup), so the merge job can be given the
// tasks' arguments unchanged.

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

// taskFunc runs one task of a split pipeline; mergeTaskFunc joins the
// tasks' parts.
type (
	taskFunc      func(ctx context.Context, e *env, args []string, t cluster.Task) error
	mergeTaskFunc func(ctx context.Context, e *env, args []string, tasks int) error
)

// splitRunner declares --task on fs and returns the pipeline's runner:
// the whole run without --task, one task with it, the merge when `voxlab
// merge` calls it (mergeVia).
func splitRunner(fs *flag.FlagSet, whole runFunc, task taskFunc, merge mergeTaskFunc) runFunc {
	t := addTaskFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		if n := mergeTasks(ctx); n > 0 {
			if t.Count != 0 {
				return usagef("merge joins every task: give --tasks N, not --task")
			}
			return merge(ctx, e, args, n)
		}
		// An explicit --task 0/1 is a task too: its part is what the merge
		// of a one-task submission reads.
		if t.Count != 0 {
			return task(ctx, e, args, t.Task)
		}
		return whole(ctx, e, args)
	}
}

// mergeVia makes a pipeline's merge step from its setup, whose runner
// came from splitRunner.
func mergeVia(setup func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc)) func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
	return func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
		_, run := setup(fs, out)
		return func(ctx context.Context, e *env, args []string, tasks int) error {
			return run(withMerge(ctx, tasks), e, args)
		}
	}
}

// absSpec makes a volume spec's path absolute (keeping a :/dataset), so
// that a task and a merge run from different folders agree on the input.
func absSpec(spec string) string {
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

// removeParts deletes a merged run's parts; failing to is only a warning,
// the output being complete.
func removeParts(e *env, out *outputFlags, dir, pipeline string, tasks int) {
	if err := cluster.RemoveParts(dir, pipeline, tasks); err != nil && !out.quiet {
		fmt.Fprintf(e.stderr, "merge %s: warning: could not remove the parts: %v\n", pipeline, err)
	}
}

// taskNote prints what a task did, unless --quiet or --json.
func taskNote(e *env, out *outputFlags, format string, a ...any) {
	if !out.quiet && !out.json {
		fmt.Fprintf(e.stderr, format+"\n", a...)
	}
}

// partStack reads the payloads of parts holding consecutive planes of one
// volume (a task's planes each) as one volume.Source.
type partStack struct {
	info   volume.Info
	parts  []*cluster.Part
	starts []int // first plane of each part; starts[len(parts)] = total
}

func newPartStack(parts []*cluster.Part, planes []int, plane volume.Info) (*partStack, error) {
	s := &partStack{parts: parts, info: plane, starts: []int{0}}
	pb := plane.PlaneBytes()
	for i, p := range parts {
		if want := int64(planes[i]) * pb; p.Size() != want {
			return nil, fmt.Errorf("part %s holds %d bytes, want %d (%d planes): it is damaged; run its task again", p.Path(), p.Size(), want, planes[i])
		}
		s.starts = append(s.starts, s.starts[i]+planes[i])
	}
	s.info.Shape[0] = s.starts[len(parts)]
	return s, nil
}

func (s *partStack) Info() volume.Info { return s.info }

func (s *partStack) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := s.info.PlaneBytes()
	for i, p := range s.parts {
		lo, hi := max(z0, s.starts[i]), min(z1, s.starts[i+1])
		if lo >= hi {
			continue
		}
		d := dst[int64(lo-z0)*pb : int64(hi-z0)*pb]
		if n, err := p.Payload().ReadAt(d, int64(lo-s.starts[i])*pb); n < len(d) {
			return fmt.Errorf("read %s: %w", p.Path(), err)
		}
	}
	return nil
}

func (s *partStack) Close() error {
	for _, p := range s.parts {
		p.Close()
	}
	return nil
}

// closeParts closes parts opened so far (on an error while opening).
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
