package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"os/user"
	"strings"
	"time"
)

// Slurm runs SLURM's commands. The zero value runs sbatch, squeue and
// scancel from PATH.
type Slurm struct {
	Sbatch, Squeue, Scancel string
}

func (s Slurm) cmd(name, def string) string {
	if name != "" {
		return name
	}
	return def
}

// run runs a SLURM command and returns its standard output; a failure
// carries the command and its standard error.
func (s Slurm) run(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		var nf *exec.Error
		if errors.As(err, &nf) && errors.Is(nf.Err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s not found: run this on a SLURM login node (or install slurm-client)", name)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
	}
	return stdout.String(), nil
}

// ParseJobID reads the job id `sbatch --parsable` prints: "ID" or
// "ID;CLUSTER".
func ParseJobID(out string) (string, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if id == "" || strings.Trim(id, "0123456789") != "" {
		return "", fmt.Errorf("sbatch printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// sbatch submits script with extra options and returns the job id.
func (s Slurm) sbatch(ctx context.Context, script string, opts ...string) (string, error) {
	out, err := s.run(ctx, s.cmd(s.Sbatch, "sbatch"), append(append([]string{"--parsable"}, opts...), script)...)
	if err != nil {
		return "", err
	}
	return ParseJobID(out)
}

// Submit writes the scripts into the shared folder, submits the job array
// and the merge job (after all tasks succeed: afterok), and saves the
// submission. If the merge job cannot be submitted the array is cancelled.
func (s Slurm) Submit(ctx context.Context, spec Spec) (*Submission, error) {
	if err := spec.Write(); err != nil {
		return nil, err
	}
	array, err := s.sbatch(ctx, spec.ArrayScriptPath())
	if err != nil {
		return nil, err
	}
	merge, err := s.sbatch(ctx, spec.MergeScriptPath(), "--dependency=afterok:"+array)
	if err != nil {
		s.cancel(ctx, array)
		return nil, fmt.Errorf("submit the merge job (the job array %s was cancelled): %w", array, err)
	}
	sub := &Submission{Spec: spec, ArrayJob: array, MergeJob: merge, Submitted: time.Now().UTC()}
	for range spec.Tasks {
		sub.Attempts = append(sub.Attempts, array)
	}
	if err := sub.Save(); err != nil {
		return sub, fmt.Errorf("jobs %s and %s submitted, but: %w", array, merge, err)
	}
	return sub, nil
}

func (s Slurm) cancel(ctx context.Context, ids ...string) error {
	_, err := s.run(ctx, s.cmd(s.Scancel, "scancel"), ids...)
	return err
}

// QueueEntry is one job (or array element) squeue lists.
type QueueEntry struct {
	ID, State, Reason string
}

// Queue lists this user's jobs, array elements one by one and ended jobs
// included (SLURM keeps those for MinJobAge, 300 s by default), by id
// ("123", "123_4").
func (s Slurm) Queue(ctx context.Context) (map[string]QueueEntry, error) {
	args := []string{"--noheader", "--array", "--states=all", "--format=%i|%T|%r"}
	if u, err := user.Current(); err == nil {
		args = append(args, "--user="+u.Username)
	}
	out, err := s.run(ctx, s.cmd(s.Squeue, "squeue"), args...)
	if err != nil {
		return nil, err
	}
	return parseQueue(out), nil
}

func parseQueue(out string) map[string]QueueEntry {
	q := map[string]QueueEntry{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 3)
		if len(f) < 2 || f[0] == "" {
			continue
		}
		e := QueueEntry{ID: f[0], State: f[1]}
		if len(f) == 3 && f[2] != "None" {
			e.Reason = f[2]
		}
		q[e.ID] = e
	}
	return q
}
