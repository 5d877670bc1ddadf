package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/voxlab/voxlab/processing/detect"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/demo"
)

// TestDetectTasksMerge: voxlab detect --task i/N for every i, then voxlab
// merge detect, writes the CSV and XML voxlab detect writes, byte for
// byte, and the same counts, on the demo brain (60 planes, 58 centre
// planes) in a folder whose name needs quoting: for 1 task, counts that
// do not divide the planes, one task per centre plane and more tasks than
// planes.
func TestDetectTasksMerge(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := hostileDir(t)
	if err := demo.WriteBrain(dir, demo.Small, 2); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, demo.BrainPlanes)
	flags := []string{"--xml", "--backend", "cpu", "--json"}
	whole := filepath.Join(dir, "whole cells.csv")
	var want detect.Summary
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"detect", in, whole}, flags...)...)), &want); err != nil {
		t.Fatal(err)
	}
	if want.Cells < 50 {
		t.Fatalf("the demo brain gives %d cells: too few to test", want.Cells)
	}
	wantCSV, wantXML := fileBytes(t, whole), fileBytes(t, strings.TrimSuffix(whole, ".csv")+".xml")
	for _, n := range []int{1, 4, 7, 58, 75} {
		out := filepath.Join(dir, fmt.Sprintf("merged 'n=%d' $x.csv", n))
		for i := range n {
			mustRun(t, append([]string{"detect", in, out, "--task", fmt.Sprintf("%d/%d", i, n)}, flags...)...)
		}
		var got detect.Summary
		stdout := mustRun(t, append([]string{"merge", "detect", in, out, "--tasks", fmt.Sprint(n)}, flags...)...)
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%d tasks: merge --json: %v\n%s", n, err, stdout)
		}
		if !bytes.Equal(fileBytes(t, out), wantCSV) {
			t.Errorf("%d tasks: the merged CSV differs from voxlab detect's", n)
		}
		if !bytes.Equal(fileBytes(t, strings.TrimSuffix(out, ".csv")+".xml"), wantXML) {
			t.Errorf("%d tasks: the merged XML differs from voxlab detect's", n)
		}
		if got.Cells != want.Cells || got.Artifacts != want.Artifacts || got.Structures != want.Structures ||
			got.Split != want.Split || got.Planes != want.Planes {
			t.Errorf("%d tasks: summary %+v, want %+v", n, got, want)
		}
		if got.Tasks != n || strings.Contains(stdout, "planes_per_second") {
			t.Errorf("%d tasks: the merge's summary says %d tasks and %v planes per second: a merge reads no plane\n%s", n, got.Tasks, got.PlanesPerS, stdout)
		}
		if _, err := os.Stat(cluster.PartsDir(out)); !os.IsNotExist(err) {
			t.Errorf("%d tasks: the parts folder is left (%v)", n, err)
		}
	}
	// Without --json: the merge's line, not a rate it did not achieve.
	out := filepath.Join(dir, "text.csv")
	for i := range 2 {
		mustRun(t, "detect", in, out, "--backend", "cpu", "--quiet", "--task", fmt.Sprintf("%d/2", i))
	}
	code, _, stderr := runCmd("merge", "detect", in, out, "--backend", "cpu", "--tasks", "2")
	line := fmt.Sprintf("merge detect: %d cells and %d artifacts in %d planes from 2 tasks, merged in", want.Cells, want.Artifacts, want.Planes)
	if code != 0 || !strings.Contains(stderr, line) || strings.Contains(stderr, "planes/s") {
		t.Errorf("merge detect: exit %d, want %q, no planes/s:\n%s", code, line, stderr)
	}
	noPWNED(t, dir)
}

// TestDetectTaskRerun: a merge missing a part, or given a part of other
// parameters, fails naming the task and writes nothing; running that task
// again alone lets it finish.
func TestDetectTaskRerun(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	in, _ := smallBrain(t)
	dir := t.TempDir()
	whole, out := filepath.Join(dir, "whole.csv"), filepath.Join(dir, "out.csv")
	mustRun(t, "detect", in, whole, "--quiet")
	for i := range 3 {
		mustRun(t, "detect", in, out, "--quiet", "--task", fmt.Sprintf("%d/3", i))
	}
	os.Remove(cluster.PartPath(cluster.PartsDir(out), "detect", cluster.Task{Index: 1, Count: 3}))
	code, _, stderr := runCmd("merge", "detect", in, out, "--quiet", "--tasks", "3")
	if code != 1 || !strings.Contains(stderr, "task 1 of 3 has left no part") {
		t.Errorf("merge without task 1's part: exit %d, %s", code, stderr)
	}
	mustRun(t, "detect", in, out, "--quiet", "--task", "1/3", "--threshold", "9")
	code, _, stderr = runCmd("merge", "detect", in, out, "--quiet", "--tasks", "3")
	if code != 1 || !strings.Contains(stderr, "another run") || !strings.Contains(stderr, "config") {
		t.Errorf("merge with a part of another threshold: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed merge left %s (%v)", out, err)
	}
	mustRun(t, "detect", in, out, "--quiet", "--task", "1/3")
	mustRun(t, "merge", "detect", in, out, "--quiet", "--tasks", "3")
	if !bytes.Equal(fileBytes(t, out), fileBytes(t, whole)) {
		t.Error("after running task 1 again, the merged CSV differs from voxlab detect's")
	}
}
