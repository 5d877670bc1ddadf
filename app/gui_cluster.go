package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// The processing panel's "Run on: SLURM cluster" choice (offered where
// cluster.Available()) runs clusterRunner's function: runOnCluster submits a panel request through
// `voxlab submit slurm` — the very command line a user would type, so the
// scripts, quoting and checks are the command's — and follows the
// submission as the queued job's progress until the merge job ends.

// clusterOptions are the panel's cluster settings.
type clusterOptions struct {
	// Tasks is the number of array tasks (at least 1).
	Tasks int
	// Partition, Gres ("gpu:1") and Time ("2:00:00") go to sbatch when
	// set; Shared is the shared folder (default: voxlab submit's).
	Partition, Gres, Time, Shared string
	// Voxlab is the binary the nodes run (default: this one).
	Voxlab string
	// Interval is the time between status checks (default 5 s).
	Interval time.Duration
}

// clusterArgs returns the `voxlab submit` arguments that submit r: every
// parameter and the device settings given, as --name=value in the
// order of their names, then the cluster's options and the arguments.
func clusterArgs(s *pipeline.Spec, r panel.Request, o clusterOptions) ([]string, error) {
	if o.Tasks < 1 {
		return nil, fmt.Errorf("tasks: %d; want at least 1", o.Tasks)
	}
	iv, err := guiInvocation(s, r, &env{stdout: io.Discard, stderr: io.Discard})
	if err != nil {
		return nil, err
	}
	flags := map[string]string{"backend": iv.dev.backend, "pin-memory": fmt.Sprint(iv.dev.pin)}
	for _, kv := range [][2]string{{"device-memory", iv.dev.deviceMem}, {"host-memory", iv.dev.hostMem}, {s.Batch.Flag, iv.dev.batch}} {
		if kv[1] != "" {
			flags[kv[0]] = kv[1]
		}
	}
	for _, p := range s.Params {
		flags[p.Name] = p.Format(iv.req.Values[p.Name])
	}
	names := make([]string, 0, len(flags))
	for n := range flags {
		names = append(names, n)
	}
	sort.Strings(names)
	args := []string{"slurm", s.Name}
	for _, n := range names {
		args = append(args, "--"+n+"="+flags[n])
	}
	args = append(args, "--tasks", fmt.Sprint(o.Tasks))
	for _, kv := range [][2]string{{"partition", o.Partition}, {"gres", o.Gres}, {"time", o.Time}, {"shared", o.Shared}, {"voxlab", o.Voxlab}} {
		if kv[1] != "" {
			args = append(args, "--"+kv[0]+"="+kv[1])
		}
	}
	return append(append(args, "--json", "--"), r.Args...), nil
}

// panelVoxlab is the binary the panel's cluster runs have the nodes run
// ("": this one). Tests, whose binary is not voxlab, set it.
var panelVoxlab string

// clusterRunner is the panel's RunCluster for s: nil unless sbatch is on
// the PATH and s splits into tasks.
func clusterRunner(s *pipeline.Spec) func(context.Context, panel.Request, *job.Progress) error {
	if !cluster.Available() || !s.Split {
		return nil
	}
	return func(ctx context.Context, r panel.Request, prog *job.Progress) error {
		if r.Cluster == nil {
			return fmt.Errorf("%s: the request does not say how to run on the cluster", s.Name)
		}
		c := r.Cluster
		return runOnCluster(ctx, s, r, clusterOptions{Tasks: c.Tasks, Partition: c.Partition, Gres: c.Gres, Time: c.Time,
			Shared: panelShared(s, r), Voxlab: panelVoxlab}, prog)
	}
}

// panelShared is the shared folder of a panel's cluster run: beside its
// first output (which the nodes must see anyway), not in whatever folder
// the viewer was started from.
func panelShared(s *pipeline.Spec, r panel.Request) string {
	for i, f := range s.Args {
		if f.Kind == pipeline.Output && i < len(r.Args) && r.Args[i] != "" {
			out := filepath.Clean(r.Args[i])
			return filepath.Join(filepath.Dir(out), "voxlab-slurm", r.Command+"-"+time.Now().Format("20060102-150405.000"))
		}
	}
	return ""
}

// runOnCluster submits r to SLURM as a job array and a merge job and
// reports the submission on prog until the merge job completes (nil) or
// something fails (the error says which task, and how to resubmit it).
// Cancelling ctx cancels the jobs.
func runOnCluster(ctx context.Context, s *pipeline.Spec, r panel.Request, o clusterOptions, prog *job.Progress) error {
	args, err := clusterArgs(s, r, o)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := runSubmit(ctx, &env{stdout: &out, stderr: io.Discard}, args); err != nil {
		return plainError(err)
	}
	var res struct {
		ArrayJob string `json:"array_job"`
		Shared   string `json:"shared"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return fmt.Errorf("voxlab submit printed %q: %w", out.String(), err)
	}
	sub, err := cluster.Load(res.Shared)
	if err != nil {
		return err
	}
	prog.Warn(fmt.Sprintf("submitted to SLURM as job array %s, merge job %s; shared folder %s", sub.ArrayJob, sub.MergeJob, sub.Spec.Shared))
	every := o.Interval
	if every <= 0 {
		every = 5 * time.Second
	}
	_, err = cluster.Slurm{}.Follow(ctx, sub, every, prog)
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if cerr := (cluster.Slurm{}).Cancel(cctx, sub); cerr != nil {
			return fmt.Errorf("cancelled, but scancel failed (cancel jobs %s and %s by hand): %w", sub.ArrayJob, sub.MergeJob, cerr)
		}
		return ctx.Err()
	}
	return err
}
