//go:build clustertest

package main

// A tiny split pipeline for scripts/test-cluster.sh, built only with
// -tags clustertest until the real pipelines split into tasks:
//
//	voxlab clustertest OUT --units N [--task I/N] [--delay D]
//	voxlab merge clustertest OUT --units N --tasks N
//
// It sums k² over its units [lo, hi) (a task's share, or all of them) and
// writes OUT/part-I-of-N.txt, or OUT/result.txt for a whole run; the
// merge checks that the parts tile [0, units) and writes OUT/result.txt,
// which must equal the whole run's. --fail-task I --fail-once MARKER makes
// task I fail the first time (creating MARKER), to test resubmission.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/plan"
)

type clusterTestFlags struct {
	units    int
	delay    time.Duration
	failTask int
	failOnce string
	task     *taskFlag
}

func (c *clusterTestFlags) declare(fs *flag.FlagSet, withTask bool) {
	fs.IntVar(&c.units, "units", 1000, "units to sum over")
	fs.DurationVar(&c.delay, "delay", 0, "time each unit takes (to watch progress)")
	fs.IntVar(&c.failTask, "fail-task", -1, "task that fails on its first attempt")
	fs.StringVar(&c.failOnce, "fail-once", "", "marker file recording that --fail-task failed once")
	if withTask {
		c.task = addTaskFlag(fs)
	}
}

func init() {
	registerPipeline(&pipelineCmd{
		name: "clustertest", summary: "test pipeline for scripts/test-cluster.sh", usage: "OUT --units N",
		setup: func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
			c := &clusterTestFlags{}
			c.declare(fs, true)
			planFn := func(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
				return plan.Make("clustertest", []plan.Phase{{Name: "units", Unit: "units", Units: c.units,
					Arrays: []plan.Array{{Name: "sum", Where: plan.Host, PerUnit: 8}}}}, plan.Budget{})
			}
			return planFn, func(ctx context.Context, e *env, args []string) error { return c.run(ctx, e, out, args) }
		},
	})
	registerMerge("clustertest", func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
		c := &clusterTestFlags{}
		c.declare(fs, true)
		return func(ctx context.Context, e *env, args []string, tasks int) error { return c.merge(args, tasks) }
	})
}

func (c *clusterTestFlags) run(ctx context.Context, e *env, out *outputFlags, args []string) error {
	if len(args) != 1 {
		return usagef("want one output folder")
	}
	t := c.task.get()
	lo, hi := t.Range(c.units)
	target := filepath.Join(args[0], "result.txt")
	if t.Count > 1 {
		target = filepath.Join(args[0], fmt.Sprintf("part-%d-of-%d.txt", t.Index, t.Count))
	}
	if err := os.MkdirAll(args[0], 0o755); err != nil {
		return err
	}
	sinks, done, err := jobSinks(e, out)
	if err != nil {
		return err
	}
	err = job.Run(ctx, "clustertest "+t.String(), func(ctx context.Context, p *job.Progress) error {
		if t.Index == c.failTask && c.failOnce != "" {
			if _, err := os.Stat(c.failOnce); os.IsNotExist(err) {
				os.WriteFile(c.failOnce, nil, 0o644)
				return fmt.Errorf("task %s: simulated failure (first attempt)", t)
			}
		}
		f, err := outfile.Create(target)
		if err != nil {
			return err
		}
		defer f.Abort()
		p.Stage("units", int64(hi-lo), "units")
		var sum uint64
		for k := lo; k < hi; k++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			sum += uint64(k) * uint64(k)
			time.Sleep(c.delay)
			p.Add(1)
		}
		if t.Count > 1 {
			fmt.Fprintf(f, "%d %d %d\n", lo, hi, sum)
		} else {
			fmt.Fprintf(f, "units %d sum %d\n", c.units, sum)
		}
		return f.Commit()
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	return err
}

func (c *clusterTestFlags) merge(args []string, tasks int) error {
	if len(args) != 1 {
		return usagef("want one output folder")
	}
	var total uint64
	next := 0
	for i := range tasks {
		path := filepath.Join(args[0], fmt.Sprintf("part-%d-of-%d.txt", i, tasks))
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		var lo, hi int
		var sum uint64
		if _, err := fmt.Sscan(string(data), &lo, &hi, &sum); err != nil || lo != next {
			return fmt.Errorf("merge: %s: bad part (want units from %d): %q", path, next, data)
		}
		next, total = hi, total+sum
	}
	if next != c.units {
		return fmt.Errorf("merge: the parts cover %d of %d units", next, c.units)
	}
	f, err := outfile.Create(filepath.Join(args[0], "result.txt"))
	if err != nil {
		return err
	}
	defer f.Abort()
	fmt.Fprintf(f, "units %d sum %d\n", c.units, total)
	return f.Commit()
}
