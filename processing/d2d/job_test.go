package d2d

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// The heat maps' drawing is package heatplot's, which this test binary
// does not link: a stand-in writes a marker file for each PNG.
func init() {
	testutil.StandInPlots()
}

func cpuDevice(t *testing.T) pipeline.Device {
	be := gpu.NewCPU()
	t.Cleanup(func() { be.Close() })
	b := plan.Budget{Shared: true, Host: 1 << 30, HostSource: "test"}
	return pipeline.Device{Backend: be, Budget: b, BudgetFor: func(gpu.DeviceInfo) (plan.Budget, error) { return b, nil }}
}

// request parses the example's command line (after the arguments) into
// a request, as the generic path does.
func request(t *testing.T, args []string) pipeline.Request {
	t.Helper()
	r := pipeline.Request{Values: Spec.Defaults()}
	for len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		r.Args, args = append(r.Args, args[0]), args[1:]
	}
	for ; len(args) >= 2; args = args[2:] {
		p, ok := Spec.Param(strings.TrimPrefix(args[0], "--"))
		if !ok {
			t.Fatalf("no parameter %s", args[0])
		}
		v, err := p.Parse(args[1])
		if err != nil {
			t.Fatal(err)
		}
		r.Values[p.Name] = v
	}
	return r
}

func runRequest(t *testing.T, ctx context.Context, r pipeline.Request) (*pipeline.Report, error) {
	t.Helper()
	j, err := Spec.Open(r)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	p := job.NewProgress("test", func(job.Event) {})
	rep, err := j.Run(ctx, p, cpuDevice(t))
	// A finished run has counted every replicate of every metric.
	if e := p.Snapshot(); err == nil && (e.Total < 1 || e.Done != e.Total || e.Unit != "replicates") {
		t.Errorf("progress at the end: %d of %d %s", e.Done, e.Total, e.Unit)
	}
	return rep, err
}

// TestRunWritesOutputs: a run on the example writes every array and
// summary.json, and what it wrote is Analyse's result on the same input:
// the submitted transport plan's cost over the written windowed costs is
// the summary's EMD_submitted.
func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	args, err := example(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := request(t, args)
	if _, err := runRequest(t, context.Background(), r); err != nil {
		t.Fatal(err)
	}
	out := r.Args[1]
	var s struct{ Metrics []MetricSummary } // the plan's JSON is for reading, not a round trip
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Metrics) != 1 || s.Metrics[0].Metric != "cost" || len(s.Metrics[0].Replicates) != 3 {
		t.Fatalf("summary: %+v", s.Metrics)
	}
	for _, f := range s.Metrics[0].Files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	cost, rows, cols, _ := readCost(r.Args[0])
	g, _ := readMetadata(r.Values.String("metadata"))
	pops, _ := readPopulations(r.Values.String("populations"))
	want, err := Analyse(context.Background(), cost, rows, cols, g, pops, Config{Replicates: 3, Pool: 2, Fraction: 0.9, KLIterations: 100000, KLTolerance: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	w := readNPY3(t, filepath.Join(out, "cost_cost_rank_windowed.npy"))
	plan := readNPY3(t, filepath.Join(out, "cost_transport_submitted.npy"))
	per := want[0].Windows * cols
	if len(w) != 3*per || len(plan) != 3*per {
		t.Fatalf("arrays of %d and %d values, want %d", len(w), len(plan), 3*per)
	}
	for k, rep := range s.Metrics[0].Replicates {
		c := 0.0
		for i := range per {
			c += w[k*per+i] * plan[k*per+i]
		}
		if !near(c, rep.EMDSubmitted, 1e-12) || rep.EMDSubmitted != want[k].EMDSubmitted || rep.KLpqSubmitted != want[k].KLpqSubmitted {
			t.Errorf("replicate %d: written plan costs %g, summary EMD %g, Analyse's %g", k, c, rep.EMDSubmitted, want[k].EMDSubmitted)
		}
	}
}

func readNPY3(t *testing.T, path string) []float64 {
	t.Helper()
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return volume.Float64s(b)
}

// TestOpenRefusesMismatches: counts that do not match the cost matrix,
// populations that do not sum to 1 and a matrix that is not 2D are
// refused before anything runs, naming the file and the counts.
func TestOpenRefusesMismatches(t *testing.T) {
	dir := t.TempDir()
	args, err := example(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	three := write("three.txt", "0.2 0.3 0.5")
	half := write("half.txt", "0.1 0.1 0.1 0.2")
	short := write("short.csv", "pc1,populations\n1,0.5\n2,0.5\n")
	nopc := write("nopc.csv", "x,populations\n1,0.5\n")
	cube := filepath.Join(dir, "cube.npy")
	if w, err := volume.CreateNPY(cube, volume.Info{Shape: [3]int{2, 12, 4}, DType: volume.Float64}); err != nil {
		t.Fatal(err)
	} else if err := w.WriteSlab(0, make([]byte, 2*12*4*8)); err != nil {
		t.Fatal(err)
	} else if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key, value string
		want             []string
	}{
		{"population count", "populations", three, []string{"three.txt", "3 populations", "4 columns"}},
		{"population sum", "populations", half, []string{"half.txt", "sum to 1"}},
		{"metadata rows", "metadata", short, []string{"short.csv", "2 ground-truth maps", "12 rows"}},
		{"metadata columns", "metadata", nopc, []string{"nopc.csv", "pc1"}},
		{"3D cost", "cost", cube, []string{"cube.npy", "2D"}},
		{"window larger than a replicate", "pool", "11", []string{"--pool 11"}},
	} {
		r := request(t, args)
		if c.key == "cost" {
			r.Args[0] = c.value
		} else {
			p, _ := Spec.Param(c.key)
			v, err := p.Parse(c.value)
			if err != nil {
				t.Fatal(err)
			}
			r.Values[c.key] = v
		}
		_, err := Spec.Open(r)
		if err == nil {
			t.Errorf("%s: opened", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
	r := request(t, args)
	r.Values["metadata"] = ""
	var ue pipeline.UsageError
	if _, err := Spec.Open(r); !errors.As(err, &ue) {
		t.Errorf("without --metadata: %v, want a usage error", err)
	}
}

// TestCancelLeavesNoOutput: a cancelled run fails and writes no OUT.
func TestCancelLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	args, err := example(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := request(t, args)
	if _, err := runRequest(t, ctx, r); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if _, err := os.Stat(r.Args[1]); !os.IsNotExist(err) {
		t.Errorf("a cancelled run left %s: %v", r.Args[1], err)
	}
}
