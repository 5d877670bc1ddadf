package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Submission is a submitted split pipeline, saved as submission.json in
// its shared folder so that `voxlab status` can follow it from any node.
type Submission struct {
	Spec Spec `json:"spec"`
	// ArrayJob is the job id of the array, MergeJob that of the merge job
	// now waiting for the tasks.
	ArrayJob string `json:"array_job"`
	MergeJob string `json:"merge_job"`
	// Attempts[i] is the array job id that runs task i now: ArrayJob, or
	// the job that resubmitted the task alone (`sbatch --array=i`, so it
	// is element i of that job).
	Attempts  []string  `json:"attempts"`
	Submitted time.Time `json:"submitted"`
}

// TaskJob is the SLURM id of task i's latest attempt ("123_4").
func (s *Submission) TaskJob(i int) string { return fmt.Sprintf("%s_%d", s.Attempts[i], i) }

func submissionPath(shared string) string { return filepath.Join(shared, "submission.json") }

// Save writes submission.json and indexes the job ids, so that Find can
// locate the shared folder from a job id.
func (s *Submission) Save() error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(submissionPath(s.Spec.Shared), append(data, '\n'), 0o644); err != nil {
		return err
	}
	dir, err := IndexDir()
	if err != nil {
		return nil // no home folder: status needs --shared
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	for _, id := range append([]string{s.ArrayJob, s.MergeJob}, s.Attempts...) {
		if id != "" {
			// The index only saves typing --shared: failing to write it
			// is not worth failing a submission for.
			_ = writeFile(filepath.Join(dir, id), []byte(s.Spec.Shared+"\n"), 0o644)
		}
	}
	return nil
}

// Load reads the submission saved in a shared folder.
func Load(shared string) (*Submission, error) {
	data, err := os.ReadFile(submissionPath(shared))
	if err != nil {
		return nil, fmt.Errorf("%s is not a voxlab submission folder: %w", shared, err)
	}
	var s Submission
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", submissionPath(shared), err)
	}
	if s.Spec.Tasks < 1 || len(s.Attempts) != s.Spec.Tasks {
		return nil, fmt.Errorf("read %s: damaged (%d attempts for %d tasks)", submissionPath(shared), len(s.Attempts), s.Spec.Tasks)
	}
	return &s, nil
}

// IndexDir is the per-user folder mapping job ids to shared folders:
// $XDG_STATE_HOME/voxlab/slurm, or ~/.local/state/voxlab/slurm.
func IndexDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "voxlab", "slurm"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "voxlab", "slurm"), nil
}

// Find loads the submission of a job id (the array's, the merge job's or
// a resubmission's; "123_4" means job 123).
func Find(jobID string) (*Submission, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(jobID), "_")
	if id == "" || strings.Trim(id, "0123456789") != "" {
		return nil, fmt.Errorf("job id %q: want a number such as 1234", jobID)
	}
	dir, err := IndexDir()
	if err != nil {
		return nil, fmt.Errorf("job %s: %w; give its shared folder with --shared", id, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("job %s was not submitted by voxlab from this account (not in %s); give its shared folder with --shared", id, dir)
	}
	if err != nil {
		return nil, err
	}
	return Load(strings.TrimSpace(string(data)))
}
