package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/voxlab/voxlab/processing/detect"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/volume"
)

// detectRun runs `voxlab detect args...` and returns the exit code,
// stdout and stderr.
func detectRun(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(ctx, append([]string{"detect"}, args...), &env{stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func TestDetectCommand(t *testing.T) {
	in, cells := smallBrain(t)
	out := filepath.Join(t.TempDir(), "cells.csv")
	code, stdout, stderr := detectRun(context.Background(), in, out, "--xml", "--backend", "cpu", "--json", "--batch-size", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s detect.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	csv, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "z,y,x,type" || len(lines)-1 != s.Cells+s.Artifacts {
		t.Errorf("CSV header %q and %d rows; summary says %d cells, %d artifacts", lines[0], len(lines)-1, s.Cells, s.Artifacts)
	}
	// Every true cell in the planes a ball can centre in is found.
	found := 0
	for _, c := range cells {
		for _, l := range lines[1:] {
			var z, y, x int
			var typ string
			if n, _ := fmtSscan(l, &z, &y, &x, &typ); n == 4 && abs(z-c[0]) <= 3 && abs(y-c[1]) <= 3 && abs(x-c[2]) <= 3 {
				found++
				break
			}
		}
	}
	if len(cells) == 0 || float64(found) < 0.95*float64(len(cells)) {
		t.Errorf("found %d of %d true cells", found, len(cells))
	}
	if s.Batch != 3 || s.Planes != 20 || s.VoxelFrom != "file" || s.VoxelSize != demo.BrainVoxel || s.Backend != "cpu" {
		t.Errorf("summary %+v", s)
	}
	xml, err := os.ReadFile(filepath.Join(filepath.Dir(out), "cells.xml"))
	if err != nil || !bytes.Contains(xml, []byte("<CellCounter_Marker_File>")) || bytes.Count(xml, []byte("<Marker>")) != len(lines)-1 {
		t.Errorf("XML: %v, %d markers", err, bytes.Count(xml, []byte("<Marker>")))
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*part*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func fmtSscan(line string, z, y, x *int, typ *string) (int, error) {
	f := strings.Split(line, ",")
	if len(f) != 4 {
		return 0, nil
	}
	for i, p := range []*int{z, y, x} {
		n := 0
		for _, ch := range f[i] {
			n = n*10 + int(ch-'0')
		}
		*p = n
	}
	*typ = f[3]
	return 4, nil
}

func abs(a int) int { return max(a, -a) }

// TestDetectBadInput: clear errors, the right exit codes and no output.
func TestDetectBadInput(t *testing.T) {
	in, _ := smallBrain(t)
	dir := t.TempDir()
	floatDir := filepath.Join(dir, "float")
	w, err := volume.CreatePlaneDir(floatDir, volume.Info{Shape: [3]int{5, 32, 32}, DType: volume.Float32})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, 5*32*32*4))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	thinDir := filepath.Join(dir, "thin")
	w, err = volume.CreatePlaneDir(thinDir, volume.Info{Shape: [3]int{2, 32, 32}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, 2*32*32*2))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cells.csv")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{in}, 2, "want an input volume and an output CSV"},
		{"zero voxel", []string{in, out, "--voxel-size", "5,0,2"}, 2, "voxel sizes must be positive"},
		{"bad voxel", []string{in, out, "--voxel-size", "5,2"}, 2, "three numbers"},
		{"ball z rounds to 0", []string{in, out, "--ball-z", "2"}, 2, "rounds to 0 planes"},
		{"too few planes asked", []string{in, out, "--start-plane", "5", "--end-plane", "7"}, 2, "at least ball-z planes"},
		{"too few planes", []string{thinDir, out}, 1, "at least ball-z planes"},
		{"float input", []string{floatDir, out}, 1, "integer data"},
		{"missing input", []string{filepath.Join(dir, "nope"), out}, 1, "nope"},
		{"missing folder", []string{in, filepath.Join(dir, "no", "cells.csv")}, 1, "does not exist"},
		{"bad batch", []string{in, out, "--batch-size", "0"}, 2, "batch size"},
		{"bad backend", []string{in, out, "--backend", "tpu"}, 2, "unknown backend"},
		{"device too small", []string{in, out, "--backend", "cpu", "--device-memory", "64KiB"}, 1, "not enough device memory"},
	} {
		code, _, stderr := detectRun(context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", tc.name, code, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: an output file was left", tc.name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in the output folder: %v", entries)
	}
}

func TestDetectCancelledLeavesNothing(t *testing.T) {
	in, _ := smallBrain(t)
	out := filepath.Join(t.TempDir(), "cells.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := detectRun(ctx, in, out, "--backend", "cpu", "--xml")
	if code != 1 || !strings.Contains(stderr, "cancelled") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}

// TestDetectPlan plans with the same arguments, reading only metadata.
func TestDetectPlan(t *testing.T) {
	in, _ := smallBrain(t)
	fs := flag.NewFlagSet("plan detect", flag.ContinueOnError)
	out := addOutputFlags(fs)
	planFn, _ := specSetup(pipelines["detect"])(fs, out)
	pos, err := parseInterspersed(fs, []string{in, "x.csv", "--backend", "cpu", "--device-memory", "8MiB"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := planFn(context.Background(), &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, pos)
	if err != nil {
		t.Fatal(err)
	}
	if p.Block() < 1 || p.Block() > 4 || p.PeakDevice > 8<<20 || p.Phases[0].Units != 20 {
		t.Errorf("plan: batch %d, peak %d, %d planes", p.Block(), p.PeakDevice, p.Phases[0].Units)
	}
}

// TestPlanDetectCommand: `voxlab plan detect` takes detect's arguments and
// prints the plan as JSON.
func TestPlanDetectCommand(t *testing.T) {
	in, _ := smallBrain(t)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"plan", "detect", in, "x.csv", "--backend", "cpu", "--device-memory", "8MiB", "--json"}, &env{stdout: &out, stderr: &errb})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var p map[string]any
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if b, ok := p["batch_planes"].(float64); !ok || b < 1 || b > 4 {
		t.Errorf("batch_planes %v in %s", p["batch_planes"], out.String())
	}
	if peak, ok := p["peak_device_bytes"].(float64); !ok || peak > 8<<20 {
		t.Errorf("peak_device_bytes %v", p["peak_device_bytes"])
	}
	// A plan writes nothing, so the output may be left out; the plan is
	// the same (the host budget, available RAM, may move between calls).
	var out2 bytes.Buffer
	code = run(context.Background(), []string{"plan", "detect", in, "--backend", "cpu", "--device-memory", "8MiB", "--json"}, &env{stdout: &out2, stderr: &errb})
	var p2 map[string]any
	if err := json.Unmarshal(out2.Bytes(), &p2); code != 0 || err != nil || p2["batch_planes"] != p["batch_planes"] || p2["peak_device_bytes"] != p["peak_device_bytes"] {
		t.Errorf("plan without OUT.csv: exit %d, %s\nwant %s", code, out2.String(), out.String())
	}
}
