package svd

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// The heat map's drawing is package heatplot's, which this test binary
// does not link: a stand-in writes a marker file.
func init() {
	testutil.StandInPlots()
}

func cpuDevice(t *testing.T) pipeline.Device {
	be := gpu.NewCPU()
	t.Cleanup(func() { be.Close() })
	b := plan.Budget{Shared: true, Host: 1 << 30, HostSource: "test"}
	return pipeline.Device{Backend: be, Budget: b, BudgetFor: func(gpu.DeviceInfo) (plan.Budget, error) { return b, nil }}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunMatchesChallenge: `voxlab svd` on the challenge's test maps
// and the synthetic sets (flat NPY stacks of 16³ maps, read 3 planes at
// a time) writes the challenge's distance matrix to 1e-5 with its labels
// (the ground truth as gt), numpy's singular values and the challenge's
// common embedding's.
func TestRunMatchesChallenge(t *testing.T) {
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	if err := os.Mkdir(subs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range sets[1:] {
		copyFile(t, filepath.Join("testdata", name+"_maps.npy"), filepath.Join(subs, name+".npy"))
	}
	out := filepath.Join(dir, "out")
	r := pipeline.Request{Args: []string{subs, out}, Values: Spec.Defaults(), Batch: 3}
	r.Values["gt"] = filepath.Join("testdata", "challenge_gt_maps.npy")
	j, err := Spec.Open(r)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p := job.NewProgress("test", func(job.Event) {})
	if _, err := j.Run(context.Background(), p, cpuDevice(t)); err != nil {
		t.Fatal(err)
	}
	// Each of the 3 sets' planes is read twice (the Gram matrix, then
	// the eigenvectors): the progress counts every one.
	if e := p.Snapshot(); e.Total < 6 || e.Done != e.Total || e.Unit != "planes" {
		t.Errorf("progress at the end: %d of %d %s", e.Done, e.Total, e.Unit)
	}
	var golden struct {
		WithGT struct {
			Matrix [][]float64
			Labels []string
		} `json:"with_gt"`
		goldenEmbedding
	}
	b, _ := os.ReadFile("testdata/golden_svd.json")
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	var labels []string
	b, _ = os.ReadFile(filepath.Join(out, "labels.json"))
	if err := json.Unmarshal(b, &labels); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(golden.WithGT.Labels)
	want[slices.Index(want, GroundTruthLabel)] = "gt"
	if !slices.Equal(labels, want) {
		t.Errorf("labels %v, the challenge's %v", labels, want)
	}
	_, _, m := readMatrixFile(t, filepath.Join(out, "svd_distance.npy"))
	for i, w := range slices.Concat(golden.WithGT.Matrix...) {
		if math.Abs(m[i]-w) > 1e-5 {
			t.Errorf("svd_distance[%d] = %.12g, the challenge's %.12g", i, m[i], w)
		}
	}
	for png, kind := range map[string]string{"svd_distance.png": "heat map", "common_embedding.png": "scatter plot", "gt_embedding.png": "scatter plot"} {
		if b, err := os.ReadFile(filepath.Join(out, png)); err != nil || !strings.HasPrefix(string(b), kind+" of ") {
			t.Errorf("%s: %q, %v; want the stand-in's %s", png, b, err, kind)
		}
	}
	_, _, cs := readMatrixFile(t, filepath.Join(out, "common_singular_values.npy"))
	for i, w := range golden.Common.S {
		if math.Abs(cs[i]-w) > 1e-9*golden.Common.S[0] {
			t.Errorf("common_singular_values[%d] = %.15g, the challenge's %.15g", i, cs[i], w)
		}
	}
	for _, name := range sets {
		label := name
		if name == "challenge_gt" {
			label = "gt"
		}
		_, _, got := readMatrixFile(t, filepath.Join(out, label, "singular_values.npy"))
		_, _, s := readMatrix(t, name+"_s.npy")
		for i := range s {
			if math.Abs(got[i]-s[i]) > 1e-9*s[0] {
				t.Errorf("%s: S[%d] = %.15g, numpy's %.15g", label, i, got[i], s[i])
			}
		}
	}
}

// TestOpenRefusesMismatches: maps of different boxes and a rank the
// maps cannot have are refused, naming the files.
func TestOpenRefusesMismatches(t *testing.T) {
	dir := t.TempDir()
	args, err := example(dir)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.npy")
	if err := writeBlobs(big, 4, 0, 10); err != nil {
		t.Fatal(err)
	}
	r := pipeline.Request{Args: args[:2], Values: Spec.Defaults()}
	r.Values["gt"] = big
	if _, err := Spec.Open(r); err == nil || !strings.Contains(err.Error(), "box sizes differ") || !strings.Contains(err.Error(), "big.npy") {
		t.Errorf("a ground truth of another box: %v", err)
	}
	r.Values["gt"], r.Values["rank"] = "", 6
	if _, err := Spec.Open(r); err == nil || !strings.Contains(err.Error(), "sub_a.npy holds 6 maps") {
		t.Errorf("rank 6 of 6 maps: %v", err)
	}
}

// TestRunPreprocessedMatchesChallenge: with the challenge's test config
// (tests/config_files/test_config_svd.yaml: its mask, B-factor 170 at
// 1 Å, box 16), the singular values of the challenge's test maps are
// numpy's of the maps the challenge's own functions preprocess, to 1e-6
// (the challenge's B-factor scaling is float32).
func TestRunPreprocessedMatchesChallenge(t *testing.T) {
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	if err := os.Mkdir(subs, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "challenge_coffee_maps.npy"), filepath.Join(subs, "coffee.npy"))
	out := filepath.Join(dir, "out")
	r := pipeline.Request{Args: []string{subs, out}, Values: Spec.Defaults(), Batch: 5}
	r.Values["gt"] = filepath.Join("testdata", "challenge_gt_maps.npy")
	r.Values["mask"] = filepath.Join("testdata", "test_mask_dilated_wide.mrc")
	r.Values["bfactor"], r.Values["voxel-size"], r.Values["box-size-ds"] = 170.0, 1.0, 16
	j, err := Spec.Open(r)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	p := job.NewProgress("test", func(job.Event) {})
	if _, err := j.Run(context.Background(), p, cpuDevice(t)); err != nil {
		t.Fatal(err)
	}
	// Each of the 3 sets' planes is read twice (the Gram matrix, then
	// the eigenvectors): the progress counts every one.
	if e := p.Snapshot(); e.Total < 6 || e.Done != e.Total || e.Unit != "planes" {
		t.Errorf("progress at the end: %d of %d %s", e.Done, e.Total, e.Unit)
	}
	var golden struct {
		Pre map[string]any `json:"preprocessing"`
	}
	b, _ := os.ReadFile("testdata/golden_svd.json")
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	for label, key := range map[string]string{"gt": "challenge_gt_s", "coffee": "challenge_coffee_s"} {
		_, _, got := readMatrixFile(t, filepath.Join(out, label, "singular_values.npy"))
		want := golden.Pre[key].([]any)
		for i, w := range want {
			if wf := w.(float64); math.Abs(got[i]-wf) > 1e-6*want[0].(float64) {
				t.Errorf("%s: S[%d] = %.12g, numpy's of the challenge's preprocessing %.12g", label, i, got[i], wf)
			}
		}
	}
}

// TestOpenRefusesPixelSizes: stacks whose headers give different voxel
// sizes are refused, naming both.
func TestOpenRefusesPixelSizes(t *testing.T) {
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	if err := os.Mkdir(subs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		vs   float64
	}{{"a.mrcs", 1.5}, {"b.mrcs", 2}} {
		info := volume.Info{Shape: [3]int{8, 8, 8}, DType: volume.Float32, VoxelSize: [3]float64{f.vs, f.vs, f.vs}}
		w, err := volume.CreateStack(filepath.Join(subs, f.name), 4, info)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]float32, 4*512)
		for i := range vals {
			vals[i] = float32(i % 7)
		}
		if err := w.WriteSlab(0, volume.Bytes(vals)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	r := pipeline.Request{Args: []string{subs, filepath.Join(dir, "out")}, Values: Spec.Defaults()}
	r.Values["rank"] = 2
	_, err := Spec.Open(r)
	if err == nil || !strings.Contains(err.Error(), "pixel sizes differ") || !strings.Contains(err.Error(), "b.mrcs") {
		t.Errorf("stacks of 1.5 and 2 Å: %v", err)
	}
}

// TestCancelLeavesNoOutput: a cancelled run fails and writes no OUT.
func TestCancelLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	args, err := example(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := pipeline.Request{Args: args[:2], Values: Spec.Defaults()}
	r.Values["gt"], r.Values["rank"] = args[3], 3
	j, err := Spec.Open(r)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Run(ctx, job.NewProgress("test", func(job.Event) {}), cpuDevice(t)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if _, err := os.Stat(args[1]); !os.IsNotExist(err) {
		t.Errorf("a cancelled run left %s: %v", args[1], err)
	}
}
