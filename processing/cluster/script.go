package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
)

// Environment variables the generated scripts set for voxlab.
const (
	// EnvProgressFile names the file a task appends its progress to.
	EnvProgressFile = "VOXLAB_PROGRESS_FILE"
	// EnvShared is the submission's shared folder, set for the tasks
	// (their parts go into it: PartsDir) and for the merge job (which also
	// checks that every task finished).
	EnvShared = "VOXLAB_SLURM_SHARED"
)

// Spec describes a pipeline run split into array tasks.
type Spec struct {
	// Pipeline is the pipeline's command name ("dezing").
	Pipeline string
	// Exe is the voxlab binary the tasks run: an absolute path on the
	// shared file system.
	Exe string
	// Args are the pipeline's options (--flag=value) and Inputs its
	// positional arguments (files, folders), passed to every task and to
	// the merge job unchanged. The scripts write the inputs after "--",
	// so an input that starts with "-" is never read as an option.
	Args, Inputs []string
	// Tasks is the number of array tasks.
	Tasks int
	// Partition, Gres ("gpu:1") and Time ("01:00:00") are passed to sbatch
	// when set; Gres only for the array tasks.
	Partition, Gres, Time string
	// Shared is the folder, visible from every node, for the scripts,
	// logs and progress files.
	Shared string
	// Workdir is the tasks' working folder (relative arguments are
	// relative to it): where the submission was made.
	Workdir string
}

var pipelineName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// Check validates the spec.
func (s Spec) Check() error {
	switch {
	case !pipelineName.MatchString(s.Pipeline):
		return fmt.Errorf("pipeline name %q: want lower-case letters, digits, - and _", s.Pipeline)
	case s.Tasks < 1:
		return fmt.Errorf("--tasks %d: want at least 1", s.Tasks)
	case !filepath.IsAbs(s.Exe):
		return fmt.Errorf("voxlab binary %q: want an absolute path the nodes can run", s.Exe)
	case !filepath.IsAbs(s.Shared):
		return fmt.Errorf("shared folder %q: want an absolute path", s.Shared)
	case !filepath.IsAbs(s.Workdir):
		return fmt.Errorf("working folder %q: want an absolute path", s.Workdir)
	}
	return CheckOptions(s.Partition, s.Gres, s.Time)
}

// ProgressPath is the progress file of task i (i < 0: the merge job).
func ProgressPath(shared string, i int) string {
	if i < 0 {
		return filepath.Join(shared, "progress", "merge.jsonl")
	}
	return filepath.Join(shared, "progress", fmt.Sprintf("task-%d.jsonl", i))
}

// LogPath is the output file of task i of array job arrayJob (i < 0: the
// merge job, whose id is arrayJob).
func LogPath(shared, arrayJob string, i int) string {
	if i < 0 {
		return filepath.Join(shared, "logs", "merge-"+arrayJob+".out")
	}
	return filepath.Join(shared, "logs", fmt.Sprintf("task-%s_%d.out", arrayJob, i))
}

// ArrayScriptPath and MergeScriptPath are where Write puts the scripts.
func (s Spec) ArrayScriptPath() string { return filepath.Join(s.Shared, "array.sh") }
func (s Spec) MergeScriptPath() string { return filepath.Join(s.Shared, "merge.sh") }

// ArrayScript returns the sbatch script of the job array: task i runs
// `EXE PIPELINE ARGS… --task i/N -- INPUTS…`.
func (s Spec) ArrayScript() (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# voxlab %s split into %d tasks: array task i runs `voxlab %s … --task i/%d`.\n",
		s.Pipeline, s.Tasks, s.Pipeline, s.Tasks)
	fmt.Fprintf(&b, "# Written by voxlab submit slurm; resubmit task I alone with `voxlab status JOBID --resubmit I`.\n")
	if err := s.directives(&b, "voxlab-"+s.Pipeline, filepath.Join(s.Shared, "logs", "task-%A_%a.out"), true); err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", s.Tasks-1)
	b.WriteString("set -eu\n")
	dir, err := ShellQuote(filepath.Join(s.Shared, "progress") + "/task-")
	if err != nil {
		return "", err
	}
	// The task id comes from SLURM, and is a number; it is the only
	// expansion in the script.
	fmt.Fprintf(&b, "export %s=%s\"${SLURM_ARRAY_TASK_ID}\".jsonl\n", EnvProgressFile, dir)
	// The tasks write their parts into the shared folder (PartsDir).
	shared, err := ShellQuote(s.Shared)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "export %s=%s\n", EnvShared, shared)
	cmd, inputs, err := s.command(s.Pipeline)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "exec %s --task \"${SLURM_ARRAY_TASK_ID}\"/%d%s\n", cmd, s.Tasks, inputs)
	return b.String(), nil
}

// MergeScript returns the sbatch script of the merge job:
// `EXE merge PIPELINE ARGS… --tasks N -- INPUTS…`.
func (s Spec) MergeScript() (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# Merges the %d tasks of voxlab %s once they have finished.\n# Written by voxlab submit slurm.\n",
		s.Tasks, s.Pipeline)
	if err := s.directives(&b, "voxlab-"+s.Pipeline+"-merge", filepath.Join(s.Shared, "logs", "merge-%j.out"), false); err != nil {
		return "", err
	}
	b.WriteString("set -eu\n")
	for _, kv := range [][2]string{{EnvProgressFile, ProgressPath(s.Shared, -1)}, {EnvShared, s.Shared}} {
		q, err := ShellQuote(kv[1])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "export %s=%s\n", kv[0], q)
	}
	cmd, inputs, err := s.command("merge", s.Pipeline)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "exec %s --tasks %d%s\n", cmd, s.Tasks, inputs)
	return b.String(), nil
}

// directives writes the #SBATCH lines common to both scripts.
func (s Spec) directives(b *strings.Builder, name, output string, gres bool) error {
	out, err := sbatchQuote(slurmLiteral(filepath.Dir(output)) + "/" + filepath.Base(output))
	if err != nil {
		return fmt.Errorf("shared folder: %w", err)
	}
	wd, err := sbatchQuote(s.Workdir)
	if err != nil {
		return fmt.Errorf("working folder: %w", err)
	}
	fmt.Fprintf(b, "#SBATCH --job-name=%s\n#SBATCH --output=%s\n#SBATCH --chdir=%s\n", name, out, wd)
	if s.Partition != "" {
		fmt.Fprintf(b, "#SBATCH --partition=%s\n", s.Partition)
	}
	if s.Gres != "" && gres {
		fmt.Fprintf(b, "#SBATCH --gres=%s\n", s.Gres)
	}
	if s.Time != "" {
		fmt.Fprintf(b, "#SBATCH --time=%s\n", s.Time)
	}
	return nil
}

// command returns the quoted voxlab command line up to the pipeline's
// options, and its inputs (after " -- ", or nothing).
func (s Spec) command(words ...string) (cmd, inputs string, err error) {
	head, err := quoteAll(append(append([]string{s.Exe}, words...), s.Args...))
	if err != nil {
		return "", "", err
	}
	if len(s.Inputs) == 0 {
		return head, "", nil
	}
	tail, err := quoteAll(s.Inputs)
	return head, " -- " + tail, err
}

func quoteAll(words []string) (string, error) {
	q := make([]string, len(words))
	for i, w := range words {
		var err error
		if q[i], err = ShellQuote(w); err != nil {
			return "", err
		}
	}
	return strings.Join(q, " "), nil
}

// Write creates the shared folder (with logs/ and progress/) and writes
// both scripts into it.
func (s Spec) Write() error {
	array, err := s.ArrayScript()
	if err != nil {
		return err
	}
	merge, err := s.MergeScript()
	if err != nil {
		return err
	}
	for _, d := range []string{"logs", "progress"} {
		if err := os.MkdirAll(filepath.Join(s.Shared, d), 0o755); err != nil {
			return fmt.Errorf("create shared folder %s: %w", s.Shared, err)
		}
	}
	for path, text := range map[string]string{s.ArrayScriptPath(): array, s.MergeScriptPath(): merge} {
		if err := writeFile(path, []byte(text), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes data to path through a temporary file.
func writeFile(path string, data []byte, mode os.FileMode) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// arrayRange is the --array value for task indices.
func arrayRange(tasks []int) string {
	s := make([]string, len(tasks))
	for i, t := range tasks {
		s[i] = strconv.Itoa(t)
	}
	return strings.Join(s, ",")
}
