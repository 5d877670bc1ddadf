package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
)

// readNPY2 reads a 2D little-endian float64 NPY written by report.WriteNPY.
func readNPY2(t *testing.T, path string) (rows, cols int, v []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	h := string(b[10 : 10+hl])
	if !strings.Contains(h, "'descr': '<f8'") {
		t.Fatalf("%s: header %q", path, h)
	}
	if _, err := fmt.Sscanf(h[strings.Index(h, "'shape': (")+len("'shape': ("):], "%d, %d)", &rows, &cols); err != nil {
		t.Fatalf("%s: shape in %q: %v", path, h, err)
	}
	data := b[10+hl:]
	v = make([]float64, len(data)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	if len(v) != rows*cols {
		t.Fatalf("%s: %d values for shape (%d, %d)", path, len(v), rows, cols)
	}
	return rows, cols, v
}

func TestDistanceCommand(t *testing.T) {
	gt, sub, mask := distDemo(t)
	l := demo.MapsLayoutFor(demo.Small)
	mem := filepath.Join(t.TempDir(), "mem")
	code, stdout, stderr := runCmd("distance", gt, sub, mem, "--mask", mask, "--backend", "cpu", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		NGT       int     `json:"n_ground_truth"`
		NSub      int     `json:"n_submitted"`
		Voxel     float64 `json:"voxel_size_angstrom"`
		Pipeline  string  `json:"pipeline"`
		Chunk     int     `json:"chunk_size"`
		PeakRSS   int64   `json:"peak_rss_bytes"`
		Predicted int64   `json:"predicted_peak_device_bytes"`
		Metrics   []struct {
			Name       string `json:"name"`
			Similarity bool   `json:"similarity"`
			Meaning    string `json:"meaning"`
		} `json:"metrics"`
		Plan map[string]any `json:"plan"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if sum.NGT != l.GT || sum.NSub != l.Submitted || math.Abs(sum.Voxel-demo.MapsVoxelSize) > 1e-5 || sum.Pipeline != "in-memory" || len(sum.Metrics) != 5 || sum.Plan["chunk_maps"] == nil {
		t.Errorf("summary %+v", sum)
	}
	for _, m := range sum.Metrics {
		if (m.Name == "corr") != m.Similarity || (m.Similarity && !strings.Contains(m.Meaning, "similarity")) {
			t.Errorf("metric %+v: corr must say it is a similarity", m)
		}
	}
	// The file from disk says the same as summary.json.
	b, err := os.ReadFile(filepath.Join(mem, "summary.json"))
	if err != nil || !strings.Contains(string(b), `"chunk_size"`) || !strings.Contains(string(b), `"peak_device_bytes"`) {
		t.Errorf("summary.json: %v\n%s", err, b)
	}
	for _, m := range []string{"l2", "corr", "bioem", "fsc", "res"} {
		for _, ext := range []string{".npy", ".csv", ".png"} {
			if st, err := os.Stat(filepath.Join(mem, m+ext)); err != nil || st.Size() == 0 {
				t.Errorf("%s%s: %v", m, ext, err)
			}
		}
		rows, cols, v := readNPY2(t, filepath.Join(mem, m+".npy"))
		if rows != l.GT || cols != l.Submitted {
			t.Errorf("%s.npy is (%d, %d)", m, rows, cols)
		}
		// The CSV holds the same numbers, row by row.
		csv, _ := os.ReadFile(filepath.Join(mem, m+".csv"))
		lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
		if len(lines) != rows {
			t.Fatalf("%s.csv has %d lines", m, len(lines))
		}
		for i, line := range lines {
			for j, f := range strings.Split(line, ",") {
				x, err := strconv.ParseFloat(f, 64)
				if err != nil || x != v[i*cols+j] {
					t.Fatalf("%s.csv [%d,%d] = %q, npy %v", m, i, j, f, v[i*cols+j])
				}
			}
		}
	}

	// Low memory, a chunk that does not divide 40: the same matrices.
	low := filepath.Join(t.TempDir(), "low")
	if code, _, stderr := runCmd("distance", gt, sub, low, "--mask", mask, "--backend", "cpu", "--low-memory", "--chunk-size", "7", "--quiet"); code != 0 {
		t.Fatalf("low memory: exit %d: %s", code, stderr)
	}
	for _, m := range []string{"l2", "corr", "bioem", "fsc", "res"} {
		_, _, a := readNPY2(t, filepath.Join(mem, m+".npy"))
		_, _, b := readNPY2(t, filepath.Join(low, m+".npy"))
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-6*math.Abs(a[i]) {
				t.Fatalf("%s[%d]: in memory %g, low memory %g", m, i, a[i], b[i])
			}
		}
	}
	var ls struct {
		Pipeline string `json:"pipeline"`
		Chunk    int    `json:"chunk_size"`
	}
	b, _ = os.ReadFile(filepath.Join(low, "summary.json"))
	if err := json.Unmarshal(b, &ls); err != nil || ls.Pipeline != "low-memory" || ls.Chunk != 7 {
		t.Errorf("low-memory summary: %+v %v", ls, err)
	}
}

// writeFlatNPY writes maps in the challenge's flat layout (n, box³).
func writeFlatNPY(t *testing.T, path string, n, box int, vals []float32) {
	t.Helper()
	testutil.WriteNPY(t, path, []int{n, box * box * box}, vals)
}

// TestDistanceInputLayouts: the flat (n, box³) NPY and a folder of MRC
// files give the same matrices as the 4D NPY they were made from.
func TestDistanceInputLayouts(t *testing.T) {
	gt, sub, _ := distDemo(t)
	l := demo.MapsLayoutFor(demo.Small)
	s, err := volume.OpenStack(gt)
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, s.N*int(s.MapBytes()))
	if err := s.ReadMaps(0, s.N, raw); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := t.TempDir()
	flat := filepath.Join(dir, "flat.npy")
	writeFlatNPY(t, flat, l.GT, l.Box, volume.Float32s(raw))
	mrcs := filepath.Join(dir, "mrcs")
	os.Mkdir(mrcs, 0o755)
	v := l.Box * l.Box * l.Box
	for i := 0; i < l.GT; i++ {
		w, err := volume.Create(filepath.Join(mrcs, fmt.Sprintf("map%d.mrc", i)), volume.Info{Shape: [3]int{l.Box, l.Box, l.Box}, DType: volume.Float32})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, raw[i*v*4:(i+1)*v*4]); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var ref []float64
	for _, in := range []string{gt, flat, mrcs} {
		out := filepath.Join(dir, "out-"+filepath.Base(in))
		if code, _, stderr := runCmd("distance", in, sub, out, "--metrics", "l2,fsc", "--mask-radius", "12", "--backend", "cpu", "--quiet"); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
		_, _, got := readNPY2(t, filepath.Join(out, "fsc.npy"))
		if ref == nil {
			ref = got
			continue
		}
		for i := range ref {
			if got[i] != ref[i] {
				t.Fatalf("%s: fsc[%d] = %g, from the 4D NPY %g", in, i, got[i], ref[i])
			}
		}
	}
}

func TestDistanceCommandErrors(t *testing.T) {
	gt, sub, mask := distDemo(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.npy")
	w, err := volume.CreateStack(small, 2, volume.Info{Shape: [3]int{8, 8, 8}, DType: volume.Float32})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, 2*8*8*8*4))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	smallMask := filepath.Join(dir, "small.mrc")
	if w, err = volume.Create(smallMask, volume.Info{Shape: [3]int{8, 8, 8}, DType: volume.Float32}); err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, 8*8*8*4))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	nan := filepath.Join(dir, "nan.npy")
	{
		s, _ := volume.OpenStack(sub)
		raw := make([]byte, s.N*int(s.MapBytes()))
		s.ReadMaps(0, s.N, raw)
		s.Close()
		f := volume.Float32s(raw)
		f[3*32*32*32+(16*32+16)*32+16] = float32(math.NaN())
		writeFlatNPY(t, nan, 10, 32, f)
	}
	empty := filepath.Join(dir, "empty.npy")
	writeFlatNPY(t, empty, 0, 32, nil)
	aFile := filepath.Join(dir, "a-file")
	os.WriteFile(aFile, []byte("x"), 0o644)

	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two arguments", []string{gt, sub}, 2, "want GT SUB OUT_DIR"},
		{"chunk 0", []string{gt, sub, "OUT", "--chunk-size", "0"}, 2, "--chunk-size"},
		{"negative chunk", []string{gt, sub, "OUT", "--chunk-size", "-4", "--low-memory"}, 2, "--chunk-size"},
		{"unknown metric", []string{gt, sub, "OUT", "--metrics", "l2,emd"}, 2, `unknown metric "emd"`},
		{"mask and radius", []string{gt, sub, "OUT", "--mask", mask, "--mask-radius", "5"}, 2, "not both"},
		{"bad normalisation", []string{gt, sub, "OUT", "--normalize", "minmax"}, 2, "--normalize"},
		{"res without voxel size", []string{gt, sub, "OUT", "--metrics", "l2,res"}, 2, "needs the voxel size"},
		{"missing file", []string{filepath.Join(dir, "nope.npy"), sub, "OUT"}, 1, "nope.npy"},
		{"box mismatch", []string{gt, small, "OUT"}, 1, "box sizes differ"},
		{"voxel mismatch", []string{gt, sub, "OUT", "--mask", mask, "--voxel-size", "1.5"}, 1, "voxel sizes differ"},
		{"NaN in a map", []string{gt, nan, "OUT", "--backend", "cpu", "--metrics", "l2,fsc"}, 1, "map 3 of the submitted set"},
		{"empty set", []string{empty, sub, "OUT"}, 1, "empty"},
		{"output is a file", []string{gt, sub, aFile, "--metrics", "l2"}, 1, "not a folder"},
		{"mask box", []string{gt, sub, "OUT", "--mask", smallMask}, 1, "is 8 x 8 x 8 but the maps are 32³"},
	} {
		args := append([]string{"distance"}, c.args...)
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		for i, a := range args {
			if a == "OUT" {
				args[i] = out
			}
		}
		code, _, stderr := runCmd(args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was written", c.name, out)
		}
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".out-*"))
		if len(leftovers) > 0 {
			t.Errorf("%s: temporary output left: %v", c.name, leftovers)
		}
	}
}

func TestDistanceCancelled(t *testing.T) {
	gt, sub, _ := distDemo(t)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e strings.Builder
	code := run(ctx, []string{"distance", gt, sub, out, "--metrics", "l2", "--backend", "cpu"}, &env{stdout: &o, stderr: &e})
	if code != 1 || !strings.Contains(e.String(), "cancelled") {
		t.Errorf("exit %d: %s", code, e.String())
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("cancelled run left %v", entries)
	}
}

// TestDistanceHostMemoryLimit: --host-memory makes the garbage collector
// keep the heap within the plan while a headless voxlab distance (or a
// task of it) runs, and the previous limit is back when it ends; in the
// GUI, whose process holds the viewer and other jobs, the process-wide
// limit is left alone.
func TestDistanceHostMemoryLimit(t *testing.T) {
	gt, sub, _ := distDemo(t)
	const before = 1 << 40
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(before))
	// The limit follows the plan's predicted RAM (limitMemory).
	code, stdout, stderr := runCmd("plan", "distance", gt, sub, "--metrics", "l2", "--backend", "cpu", "--host-memory", "3GiB", "--json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	var pl struct {
		PeakRAM int64 `json:"peak_ram_bytes"`
	}
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil || pl.PeakRAM <= 0 {
		t.Fatalf("plan JSON %q: %v", stdout, err)
	}
	limit := pl.PeakRAM + pl.PeakRAM/50 + runtimeHeadroom
	for i, tc := range []struct {
		gui  bool
		task string
		want int64
	}{{false, "", limit}, {false, "0/1", limit}, {true, "", before}} {
		var during atomic.Int64
		e := &env{stdout: io.Discard, stderr: io.Discard, inGUI: tc.gui,
			sinks: []job.Sink{func(job.Event) { during.Store(debug.SetMemoryLimit(-1)) }}}
		args := []string{"distance", gt, sub, filepath.Join(t.TempDir(), fmt.Sprint("out", i)), "--metrics", "l2", "--backend", "cpu", "--host-memory", "3GiB", "--quiet"}
		if tc.task != "" {
			args = append(args, "--task", tc.task)
		}
		if code := run(context.Background(), args, e); code != 0 {
			t.Fatalf("gui %v, task %q: exit %d", tc.gui, tc.task, code)
		}
		if got := during.Load(); got != tc.want {
			t.Errorf("gui %v, task %q: the memory limit was %d during the run, want %d", tc.gui, tc.task, got, tc.want)
		}
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Errorf("gui %v, task %q: the memory limit is %d after the run, want %d as before", tc.gui, tc.task, after, int64(before))
		}
	}
}

func TestPlanDistance(t *testing.T) {
	gt, sub, mask := distDemo(t)
	code, stdout, stderr := runCmd("plan", "distance", gt, sub, filepath.Join(t.TempDir(), "out"), "--mask", mask,
		"--low-memory", "--host-memory", "24MiB", "--backend", "cpu", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	chunk, _ := p["chunk_maps"].(float64)
	if chunk < 1 || chunk >= 40 || p["peak_device_bytes"].(float64) <= 0 {
		t.Errorf("plan under 24 MiB: chunk %v, %s", chunk, stdout)
	}
	// OUT_DIR may be left out of a plan: the plan is the same (the
	// device budget, the free RAM of the CPU backend, may move between
	// calls, so compare what the host budget decides).
	code, stdout2, stderr := runCmd("plan", "distance", gt, sub, "--mask", mask,
		"--low-memory", "--host-memory", "24MiB", "--backend", "cpu", "--json")
	var p2 map[string]any
	if err := json.Unmarshal([]byte(stdout2), &p2); code != 0 || err != nil || p2["chunk_maps"] != p["chunk_maps"] || p2["peak_host_bytes"] != p["peak_host_bytes"] {
		t.Errorf("plan without OUT_DIR: exit %d, %s%s\nwant %s", code, stdout2, stderr, stdout)
	}
	// Too little memory for one map: a clear error, exit 1.
	code, _, stderr = runCmd("plan", "distance", gt, sub, "out", "--mask", mask, "--host-memory", "100KiB", "--backend", "cpu")
	if code != 1 || !strings.Contains(stderr, "smallest block needs") || !strings.Contains(stderr, "--low-memory") {
		t.Errorf("tiny budget: exit %d, %s", code, stderr)
	}
}
