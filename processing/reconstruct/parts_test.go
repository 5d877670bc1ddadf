package reconstruct

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// splitRun runs `--task i/n` for every task into parts under dir and
// merges them into out, as voxlab merge does.
func splitRun(t *testing.T, dir, in, out string, n int, flags map[string]any) {
	t.Helper()
	v := Spec.Defaults()
	for k, x := range flags {
		v[k] = x
	}
	j, err := Spec.Open(pipeline.Request{Args: []string{in, out}, Values: v})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	s := j.(pipeline.Splitter)
	d := pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}
	var parts []*cluster.Part
	for i := 0; i < n; i++ {
		tk := task.Task{Index: i, Count: n}
		run, err := s.PartRun(tk)
		if err != nil {
			t.Fatal(err)
		}
		h, err := cluster.NewPartHeader(Spec.Name, tk, run)
		if err != nil {
			t.Fatal(err)
		}
		path := cluster.PartPath(dir, Spec.Name, tk)
		w, err := cluster.CreatePart(path, h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RunTask(context.Background(), job.NewProgress("task"), d, tk, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		part, err := cluster.OpenPart(path, h)
		if err != nil {
			t.Fatal(err)
		}
		defer part.Close()
		parts = append(parts, part)
	}
	if _, err := s.Merge(context.Background(), job.NewProgress("merge"), d, parts); err != nil {
		t.Fatal(err)
	}
}

// TestSplitMatchesWhole: the example's slices (with sorting, and with
// remove_all_stripe and gridrec), and a centre sweep, split into 1, 2, 3 and 5 tasks (more tasks than a
// sweep of 3 has slices: empty parts) and merged, are the whole run's
// output byte for byte; so is a run with --center auto.
func TestSplitMatchesWhole(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, flags := range []map[string]any{
		{"darks": darks, "flats": flats, "stripes": "sorting"},
		{"darks": darks, "flats": flats, "stripes": "all", "algorithm": "gridrec"},
		{"darks": darks, "flats": flats, "center-sweep": "15:17:1"},
		{"darks": darks, "flats": flats, "center": "auto", "rows": "1:4"},
	} {
		whole := filepath.Join(dir, "whole.npy")
		if _, err := runSpec(t, proj, whole, 0, flags); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 5} {
			out := filepath.Join(dir, "merged.npy")
			splitRun(t, t.TempDir(), proj, out, n, flags)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%v in %d tasks: the merged output differs from the whole run's", flags, n)
			}
		}
	}
}
