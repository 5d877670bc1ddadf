package distance

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/task"
)

// writeTestPart writes payload as task t's part under a header and opens
// it back.
func writeTestPart(t *testing.T, payload []byte) *cluster.Part {
	t.Helper()
	h, err := cluster.NewPartHeader("distance", task.Task{Index: 0, Count: 1}, map[string]int{"run": 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "part")
	w, err := cluster.CreatePart(path, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(payload)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	p, err := cluster.OpenPart(path, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPartRoundTrip: a task's result written as a part's payload reads
// back bit for bit (NaN, infinities and signed zeros too), and a part
// cut short or grown is refused as damaged.
func TestPartRoundTrip(t *testing.T) {
	res := &Result{Metrics: []Metric{L2, Corr}, NGT: 2, NSub: 3, Row0: 4, Box: 8, Voxels: 100, Chunk: 2, PeakDevice: 7,
		Matrices: [][]float64{{1, 2, math.NaN(), math.Inf(1), -0.0, 3.25}, {math.Inf(-1), 0.5, 1e-300, 6, 7, 8}}}
	var b bytes.Buffer
	if err := writePart(&b, res, 2); err != nil {
		t.Fatal(err)
	}
	got, meta, err := readPart(writeTestPart(t, b.Bytes()), res.Metrics, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Rows != [2]int{4, 6} || meta.Tile != 2 || got.Row0 != 4 || got.NGT != 2 || got.Box != 8 || got.Voxels != 100 {
		t.Errorf("meta %+v, result rows %d+%d", meta, got.Row0, got.NGT)
	}
	for k := range res.Matrices {
		for i, v := range res.Matrices[k] {
			if math.Float64bits(got.Matrices[k][i]) != math.Float64bits(v) {
				t.Errorf("%s[%d] = %v, want %v", res.Metrics[k], i, got.Matrices[k][i], v)
			}
		}
	}
	data := b.Bytes()
	for name, payload := range map[string][]byte{
		"cut":     data[:len(data)-8],
		"grown":   append(append([]byte(nil), data...), 0),
		"no json": []byte("not json\n"),
	} {
		if _, _, err := readPart(writeTestPart(t, payload), res.Metrics, 3, false); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s part: %v", name, err)
		}
	}
}

// TestIsOutput: the names a run writes into OUT_DIR, which a rerun may
// replace; anything else is the user's.
func TestIsOutput(t *testing.T) {
	for name, want := range map[string]bool{
		"summary.json": true, "l2.npy": true, "corr-distance.csv": true, "fsc.png": true,
		"L2.npy": false, "notes.txt": false, "l2.txt": false, "emd.npy": false, "summary.csv": false,
	} {
		if got := isOutput(name); got != want {
			t.Errorf("isOutput(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestSpecExampleRuns: the spec's example runs through Open, Plan, Run
// and the split into tasks on the CPU, with this package alone.
func TestSpecExampleRuns(t *testing.T) {
	args, err := Spec.Example(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if args[3] != "--voxel-size" {
		t.Fatalf("example args %q", args)
	}
	vals := Spec.Defaults()
	vals["voxel-size"] = 2.0
	j, err := Spec.Open(pipelineRequest(args[:3], vals))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	d := cpuDevice(t)
	if _, err := j.Plan(d); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Run(t.Context(), nopProgress(), d)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary.(*Summary); s.NGroundTruth != 5 || s.NSubmitted != 4 || len(s.Metrics) != len(DefaultMetrics) {
		t.Errorf("summary %+v", s)
	}
	for _, m := range DefaultMetrics {
		if _, err := os.Stat(filepath.Join(args[2], m.String()+".npy")); err != nil {
			t.Error(err)
		}
	}
}
