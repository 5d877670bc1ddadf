package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
)

func init() {
	register(&command{
		name:    "submit",
		summary: "run a pipeline on a SLURM cluster as a job array and a merge job",
		usage:   "slurm PIPELINE ARGS... --tasks N [--partition P] [--gres gpu:1] [--time T] [--shared DIR]",
		examples: []string{
			"voxlab submit slurm dezing scan.nxs out.h5 --kernel 5 --tasks 8 --partition gpu --gres gpu:1 --time 2:00:00",
			"voxlab submit slurm detect brain/ cells.csv --tasks 16 --shared /scratch/$USER/brain1",
		},
		raw:   true,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error { return runSubmit },
	})
}

// submitFlags are submit's own options, declared beside the pipeline's.
type submitFlags struct {
	tasks                 int
	partition, gres, time string
	shared, exe           string
	dryRun                bool
	declared              map[string]bool
}

func addSubmitFlags(fs *flag.FlagSet, pipeline string) (*submitFlags, error) {
	s := &submitFlags{declared: map[string]bool{}}
	for _, f := range []struct {
		name  string
		ptr   any
		usage string
	}{
		{"tasks", &s.tasks, "number of array tasks to split the pipeline into (required)"},
		{"partition", &s.partition, "SLURM partition (default: the cluster's)"},
		{"gres", &s.gres, "generic resources of each array task, e.g. gpu:1"},
		{"time", &s.time, "time limit of each job, e.g. 2:00:00 or 1-00:00:00"},
		{"shared", &s.shared, "folder visible from every node for scripts, logs and progress (default: ./voxlab-slurm/PIPELINE-TIME)"},
		{"voxlab", &s.exe, "voxlab binary the nodes run (default: this one)"},
		{"dry-run", &s.dryRun, "write the scripts and print the sbatch commands without submitting"},
	} {
		if fs.Lookup(f.name) != nil {
			return nil, fmt.Errorf("pipeline %s has its own --%s option, which submit needs", pipeline, f.name)
		}
		s.declared[f.name] = true
		switch p := f.ptr.(type) {
		case *int:
			fs.IntVar(p, f.name, 0, f.usage)
		case *string:
			fs.StringVar(p, f.name, "", f.usage)
		case *bool:
			fs.BoolVar(p, f.name, false, f.usage)
		}
	}
	return s, nil
}

// runSubmit parses `slurm PIPELINE ARGS…` with the pipeline's own flags
// (so mistakes show now, not on the cluster), writes the scripts and
// submits them.
func runSubmit(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "slurm" {
		return usagef("submit to which scheduler? only slurm is supported: voxlab submit slurm PIPELINE ...")
	}
	p, err := lookupPipeline(args[1:])
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("voxlab submit slurm "+p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := addOutputFlags(fs)
	f, _, _ := specBind(p, fs, out)
	if !p.Split {
		return fmt.Errorf("%s cannot run on a cluster yet: it does not split into tasks (no --task option or merge step)", p.Name)
	}
	sf, err := addSubmitFlags(fs, p.Name)
	if err != nil {
		return err
	}
	inputs, err := parseInterspersed(fs, args[2:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, &command{name: "submit slurm " + p.Name, summary: "run " + p.Name + " on SLURM", usage: p.Usage + " --tasks N"}, fs)
		return nil
	}
	if err != nil {
		return err
	}
	// Refused here, not on the nodes after the tasks ran.
	if err := f.check(e, out, inputs); err != nil {
		return err
	}
	spec, err := sf.spec(p.Name, fs, inputs)
	if err != nil {
		return err
	}
	if sf.dryRun {
		return dryRun(e, spec)
	}
	sub, err := cluster.Slurm{}.Submit(ctx, spec)
	if err != nil {
		return err
	}
	if out.json {
		return json.NewEncoder(e.stdout).Encode(map[string]any{
			"array_job": sub.ArrayJob, "merge_job": sub.MergeJob, "tasks": spec.Tasks, "shared": spec.Shared,
		})
	}
	if !out.quiet {
		fmt.Fprintf(e.stdout, "submitted %s: job array %s (%d tasks), then merge job %s\nshared folder: %s\nfollow it with: voxlab status %s\n",
			p.Name, sub.ArrayJob, spec.Tasks, sub.MergeJob, spec.Shared, sub.ArrayJob)
	}
	return nil
}

// spec builds the cluster spec: the pipeline's options that were set,
// as --name=value, and its inputs.
func (sf *submitFlags) spec(pipeline string, fs *flag.FlagSet, inputs []string) (cluster.Spec, error) {
	if sf.tasks < 1 {
		return cluster.Spec{}, usagef("--tasks: how many array tasks? (at least 1)")
	}
	var fwd []string
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case sf.declared[f.Name] || f.Name == "json" || f.Name == "quiet":
		case f.Name == "task":
			err = usagef("--task is set by submit for each array task; use --tasks N")
		default:
			fwd = append(fwd, "--"+f.Name+"="+f.Value.String())
		}
	})
	if err != nil {
		return cluster.Spec{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return cluster.Spec{}, err
	}
	exe := sf.exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return cluster.Spec{}, fmt.Errorf("find this voxlab binary: %w (give --voxlab)", err)
		}
		exe, _ = filepath.EvalSymlinks(exe)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return cluster.Spec{}, err
	}
	shared := sf.shared
	if shared == "" {
		shared = filepath.Join("voxlab-slurm", pipeline+"-"+time.Now().Format("20060102-150405"))
	}
	if shared, err = filepath.Abs(shared); err != nil {
		return cluster.Spec{}, err
	}
	spec := cluster.Spec{Pipeline: pipeline, Exe: exe, Args: fwd, Inputs: inputs, Tasks: sf.tasks,
		Partition: sf.partition, Gres: sf.gres, Time: sf.time, Shared: shared, Workdir: wd}
	if err := spec.Check(); err != nil {
		return cluster.Spec{}, usagef("%v", err)
	}
	return spec, nil
}

func dryRun(e *env, spec cluster.Spec) error {
	if err := spec.Write(); err != nil {
		return err
	}
	a, _ := cluster.ShellQuote(spec.ArrayScriptPath())
	m, _ := cluster.ShellQuote(spec.MergeScriptPath())
	fmt.Fprintf(e.stdout, "wrote %s and %s (not submitted); submit them with:\n  id=$(sbatch --parsable %s)\n  sbatch --dependency=afterok:${id%%%%;*} %s\n",
		spec.ArrayScriptPath(), spec.MergeScriptPath(), a, m)
	return nil
}
