package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestRealSlurm submits the nasty-argument scripts to a real SLURM (such
// as scripts/slurm-local.sh starts) and checks that every task and the
// merge job receive their arguments intact, that sbatch read the quoted
// #SBATCH paths (logs land in the shared folder) and that nothing else
// ran. scripts/test-cluster.sh runs it with VOXLAB_TEST_SLURM=1.
func TestRealSlurm(t *testing.T) {
	if os.Getenv("VOXLAB_TEST_SLURM") == "" {
		t.Skip("needs a running SLURM: set VOXLAB_TEST_SLURM=1 (scripts/test-cluster.sh does)")
	}
	if err := exec.Command("sinfo").Run(); err != nil {
		t.Fatalf("VOXLAB_TEST_SLURM is set but sinfo fails: %v", err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	record := filepath.Join(t.TempDir(), "argv")
	t.Setenv("RECORD", record) // sbatch passes the environment to the jobs
	spec := nastySpec(t)
	spec.Time = "5:00"
	start := time.Now()
	sub, err := Slurm{}.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var st *Status
	for {
		if st, err = (Slurm{}).Status(context.Background(), sub); err != nil {
			t.Fatal(err)
		}
		if st.State != Running {
			break
		}
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("not done after 3 minutes: %+v", st)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("array %s and merge %s ended %s in %.1f s", sub.ArrayJob, sub.MergeJob, st.State, time.Since(start).Seconds())
	if st.State != Completed {
		t.Fatalf("state %s: tasks %+v merge %+v", st.State, st.Tasks, st.Merge)
	}
	for i := range spec.Tasks {
		want := slices.Concat([]string{"dezing"}, spec.Args, []string{"--task", Task{Index: i, Count: spec.Tasks}.String(), "--"}, nasty)
		if got := readArgv(t, record+"."+string(rune('0'+i))); !slices.Equal(got, want) {
			t.Errorf("task %d argv:\n got %q\nwant %q", i, got, want)
		}
		if _, err := os.Stat(LogPath(spec.Shared, sub.ArrayJob, i)); err != nil {
			t.Errorf("task %d log: %v", i, err)
		}
	}
	want := slices.Concat([]string{"merge", "dezing"}, spec.Args, []string{"--tasks", "4", "--"}, nasty)
	if got := readArgv(t, record+".merge"); !slices.Equal(got, want) {
		t.Errorf("merge argv:\n got %q\nwant %q", got, want)
	}
	if _, err := os.Stat(LogPath(spec.Shared, sub.MergeJob, -1)); err != nil {
		t.Errorf("merge log: %v", err)
	}
	noPayloadRan(t, filepath.Dir(filepath.Dir(spec.Exe)), spec.Workdir, filepath.Dir(spec.Shared), filepath.Dir(record))
}
