package main

// End-to-end tests of the registered pipelines' commands: each run on the
// demo's data through voxlab NAME as a user would, its outputs against
// references, bad input, cancellation and plans.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
	"gonum.org/v1/hdf5"
)

func TestDezingCommand(t *testing.T) {
	scan, zcsv := dezingScan(t)
	out := filepath.Join(t.TempDir(), "out.h5")
	code, stdout, stderr := runCmd("dezing", scan, out, "--backend", "cpu", "--json", "--batch-size", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum dezing.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	l := demo.TomoLayoutFor(demo.Small)
	if sum.Projections != l.Projections || sum.Darks != l.Darks || sum.Flats != l.FlatsBefore+l.FlatsAfter ||
		sum.Block != 7 || sum.DType != "uint16" || sum.PeakDevice <= 0 || sum.PeakDevice > sum.Predicted {
		t.Errorf("summary %+v", sum)
	}

	// Every injected projection zinger is gone, and little else changed.
	nx, err := h5.OpenNeXus(scan)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	orig, err := nx.Projections.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	info, got := testutil.ReadVolume(t, out+":/data")
	if info.Shape != nx.Projections.Shape || info.DType != volume.Uint16 {
		t.Fatalf("/data is %v %s", info.Shape, info.DType)
	}
	zs, err := demo.ReadZingers(zcsv)
	if err != nil {
		t.Fatal(err)
	}
	proj := map[int]int{}
	for i, f := range nx.ProjectionFrames {
		proj[f] = i
	}
	a, b := volume.Uint16s(orig), volume.Uint16s(got)
	n := 0
	for _, z := range zs {
		p, ok := proj[z.Frame]
		if !ok {
			continue
		}
		n++
		i := (p*info.Shape[1]+z.Row)*info.Shape[2] + z.Col
		if math.Abs(float64(a[i])-float64(b[i])) < demo.MinZinger/2 {
			t.Errorf("zinger at projection %d (%d, %d): %d → %d, not removed", p, z.Row, z.Col, a[i], b[i])
		}
	}
	changed := 0
	for i := range a {
		if a[i] != b[i] {
			changed++
		}
	}
	if n == 0 || changed > 2*n {
		t.Errorf("%d voxels changed for %d zingers", changed, n)
	}

	// The reduced frames and the parameters.
	for _, name := range []string{"/dark", "/flat"} {
		fi, frame := testutil.ReadVolume(t, out+":"+name)
		if fi.Shape != [3]int{1, info.Shape[1], info.Shape[2]} || fi.DType != volume.Float32 {
			t.Errorf("%s is %v %s", name, fi.Shape, fi.DType)
		}
		if m := volume.Float32s(frame)[0]; !(m > 1000) {
			t.Errorf("%s starts with %v", name, m)
		}
	}
	attrs := readAttrs(t, out, "/voxlab/params", "kernel", "dif", "reduction", "flat_field", "minus_log", "version", "input")
	if attrs["kernel"] != 3 || attrs["dif"] != 1000 {
		t.Errorf("attributes %v", attrs)
	}
}

// readAttrs checks that the attributes exist and returns the numeric ones.
func readAttrs(t *testing.T, path, group string, names ...string) map[string]float64 {
	t.Helper()
	f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := f.OpenGroup(group)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out := map[string]float64{}
	for _, n := range names {
		a, err := g.OpenAttribute(n)
		if err != nil {
			t.Errorf("attribute %s of %s: %v", n, group, err)
			continue
		}
		switch n {
		case "kernel":
			var v int64
			if err := a.Read(&v, hdf5.T_NATIVE_INT64); err == nil {
				out[n] = float64(v)
			}
		case "dif":
			var v float64
			if err := a.Read(&v, hdf5.T_NATIVE_DOUBLE); err == nil {
				out[n] = v
			}
		}
		a.Close()
	}
	return out
}

func TestDezingFlatFieldCommand(t *testing.T) {
	scan, _ := dezingScan(t)
	out := filepath.Join(t.TempDir(), "ff.h5")
	code, _, stderr := runCmd("dezing", scan, out, "--backend", "cpu", "--quiet", "--flat-field", "--minus-log", "--darks-flats", "median", "--kernel", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, data := testutil.ReadVolume(t, out+":/data")
	if info.DType != volume.Float32 {
		t.Fatalf("/data is %s", info.DType)
	}
	// Against a naive reference from the raw scan: −log((I − D)/(F − D))
	// with D and F the per-pixel medians of the darks and flats. Dezinging
	// changes the zingers (and little else) before the correction, so all
	// but a few voxels must agree; an all-zero or constant output cannot.
	ref := naiveMinusLog(t, scan)
	got := volume.Float32s(data)
	if len(got) != len(ref) {
		t.Fatalf("%d values, the scan's projections hold %d", len(got), len(ref))
	}
	agree := 0
	for i, v := range got {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("non-finite value %v", v)
		}
		if math.Abs(float64(v)-ref[i]) <= 1e-3*math.Max(1, math.Abs(ref[i])) {
			agree++
		}
	}
	t.Logf("%d of %d voxels agree with the naive flat-field", agree, len(got))
	if agree < len(got)*98/100 {
		t.Errorf("only %d of %d voxels agree with −log((I−D)/(F−D)) of the raw scan", agree, len(got))
	}
	if _, err := volume.Open(out + ":/dark"); err == nil {
		t.Error("/dark written although the flat-field used it")
	}
	if stderr != "" {
		t.Errorf("--quiet printed %q", stderr)
	}
}

func TestDezingPlainVolumes(t *testing.T) {
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	nx, err := h5.OpenNeXus(scan)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	for _, v := range []struct {
		vol  *volume.Volume
		name string
	}{{nx.Projections, "proj.npy"}, {nx.Darks, "darks.npy"}, {nx.Flats, "flats.npy"}} {
		data, err := v.vol.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		w, err := volume.Create(filepath.Join(dir, v.name), v.vol.Info)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, data); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.h5"), filepath.Join(dir, "b.h5")
	if code, _, stderr := runCmd("dezing", scan, a, "--backend", "cpu", "--quiet", "--flat-field"); code != 0 {
		t.Fatalf("NeXus: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd("dezing", filepath.Join(dir, "proj.npy"), b, "--darks", filepath.Join(dir, "darks.npy"),
		"--flats", filepath.Join(dir, "flats.npy"), "--backend", "cpu", "--quiet", "--flat-field", "--batch-size", "4"); code != 0 {
		t.Fatalf("plain volumes: exit %d: %s", code, stderr)
	}
	_, da := testutil.ReadVolume(t, a+":/data")
	_, db := testutil.ReadVolume(t, b+":/data")
	if !slices.Equal(da, db) {
		t.Error("plain volumes with --darks/--flats differ from the NeXus scan")
	}
}

func TestDezingBadInput(t *testing.T) {
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.npy")
	w, err := volume.Create(small, volume.Info{Shape: [3]int{3, 5, 5}, DType: volume.Uint16})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, 150))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	onlyFlats := filepath.Join(dir, "flats-only.nxs")
	src, _ := volume.NewMemory(volume.Info{Shape: [3]int{2, 5, 5}, DType: volume.Uint16}, make([]byte, 100))
	if err := h5.WriteNeXus(onlyFlats, src, []int{1, 1}, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.h5")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing input", []string{filepath.Join(dir, "nope.nxs"), out}, 1, "no such file"},
		{"one argument", []string{scan}, 2, "want an input"},
		{"even kernel", []string{scan, out, "--kernel", "4"}, 2, "odd"},
		{"kernel 15", []string{scan, out, "--kernel", "15"}, 2, "3 to 13"},
		{"dif 0", []string{scan, out, "--dif", "0"}, 2, "dif"},
		{"dif negative", []string{scan, out, "--dif", "-3"}, 2, "dif"},
		{"reduction", []string{scan, out, "--darks-flats", "mode"}, 2, "mean or median"},
		{"minus-log alone", []string{scan, out, "--minus-log"}, 2, "flat-field"},
		{"darks of another size", []string{scan, out, "--darks", small}, 1, "same size"},
		{"no projections", []string{onlyFlats, out}, 1, "projection"},
		{"flat-field without darks", []string{small, out, "--flat-field"}, 1, "darks and flats"},
		{"output folder missing", []string{scan, filepath.Join(dir, "no", "out.h5")}, 1, "does not exist"},
		{"output is the input", []string{small, small}, 1, "is the input"},
		{"device too small", []string{scan, out, "--device-memory", "64KiB"}, 1, "not enough device memory"},
		{"host too small", []string{scan, out, "--host-memory", "64KiB"}, 1, "not enough host memory"},
		{"host too small names a budget", []string{scan, out, "--host-memory", "64KiB"}, 1, "the smallest budget that works is"},
		{"bad backend", []string{scan, out, "--backend", "tpu"}, 2, "unknown backend"},
	} {
		before := onlyFiles(t, dir)
		// --backend cpu first: a case's own --backend comes later and wins.
		code, _, stderr := runCmd(append([]string{"dezing", "--backend", "cpu"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
		if after := onlyFiles(t, dir); !slices.Equal(before, after) {
			t.Errorf("%s: files changed from %v to %v", tc.name, before, after)
		}
	}
}

func TestDezingCancelled(t *testing.T) {
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e strings.Builder
	code := run(ctx, []string{"dezing", scan, filepath.Join(dir, "out.h5"), "--backend", "cpu"}, &env{stdout: &o, stderr: &e})
	if code != 1 || !strings.Contains(e.String(), "cancelled") {
		t.Errorf("exit %d: %s", code, e.String())
	}
	if files := onlyFiles(t, dir); len(files) != 0 {
		t.Errorf("files left after cancelling: %v", files)
	}
}

func TestPlanDezing(t *testing.T) {
	scan, _ := dezingScan(t)
	code, stdout, stderr := runCmd("plan", "dezing", scan, "--device-memory", "2MiB", "--backend", "cpu", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	for _, k := range []string{"block_slices", "peak_device_bytes", "device_memory_bytes", "host_pinned_bytes", "breakdown"} {
		if _, ok := p[k]; !ok {
			t.Errorf("plan JSON has no %q: %s", k, stdout)
		}
	}
	if b, _ := p["block_slices"].(float64); b < 1 || b >= 90 {
		t.Errorf("block_slices %v under 2 MiB", p["block_slices"])
	}
	if code, _, stderr := runCmd("plan", "dezing", scan, "--device-memory", "64KiB", "--backend", "cpu"); code != 1 || !strings.Contains(stderr, "not enough device memory") {
		t.Errorf("too small: exit %d: %s", code, stderr)
	}
}

func TestDezingPartials(t *testing.T) {
	scan, _ := dezingScan(t)
	out := filepath.Join(t.TempDir(), "out.h5")
	var blocks []*dezing.Block
	e := &env{stdout: io.Discard, stderr: io.Discard, partials: true, sinks: []job.Sink{func(ev job.Event) {
		if b, ok := ev.Partial.(*dezing.Block); ok {
			blocks = append(blocks, b)
		}
	}}}
	if code := run(context.Background(), []string{"dezing", scan, out, "--backend", "cpu", "--batch-size", "40", "--quiet"}, e); code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, data := testutil.ReadVolume(t, out+":/data")
	z := 0
	for _, b := range blocks {
		n := int64(len(b.Data))
		if b.Z0 != z || b.DType != volume.Uint16 || !slices.Equal(b.Data, data[int64(z)*n/int64(b.Shape[0]):][:n]) {
			t.Errorf("block at %d (%v) does not hold the written projections", b.Z0, b.Shape)
		}
		z += b.Shape[0]
	}
	if len(blocks) != 3 || z != 90 {
		t.Errorf("%d partial blocks covering %d projections, want 3 covering 90", len(blocks), z)
	}
}

// TestDezingDiskFull writes the output onto a tmpfs too small for it: the
// run fails naming the file and the full disk (the plan refuses it before
// anything is written: the output's bound passes the space free), leaves
// nothing there, and the input is untouched. Mounting needs root;
// elsewhere it is skipped.
func TestDezingDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	scan, _ := dezingScan(t)
	before := fileBytes(t, scan)
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	out := filepath.Join(dir, "out.h5")
	code, _, stderr := runCmd("dezing", "--backend", "cpu", scan, out)
	if code != 1 || !strings.Contains(stderr, out) || !strings.Contains(stderr, "no space left") {
		t.Errorf("exit %d, %q; want exit 1 naming %s and the full disk", code, stderr, out)
	}
	if left := onlyFiles(t, dir); len(left) != 0 {
		t.Errorf("the full disk holds %v after the failed run", left)
	}
	if !bytes.Equal(fileBytes(t, scan), before) {
		t.Error("the input changed")
	}
}

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

// naiveMinusLog computes −log((I − D)/max(F − D, 1e-7)) of every
// projection voxel of a NeXus scan, with D and F the per-pixel medians
// of its darks and flats (the mean of the two middle values for an even
// count, as NumPy's median), clipped as dezing's defaults clip, in
// float64: the reference of TestDezingFlatFieldCommand.
func naiveMinusLog(t *testing.T, scan string) []float64 {
	t.Helper()
	nx, err := h5.OpenNeXus(scan)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	read := func(v *volume.Volume) []float64 {
		buf, err := v.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, v.Len())
		for i := range out {
			out[i] = volume.At(buf, v.DType, i)
		}
		return out
	}
	median := func(v *volume.Volume) []float64 {
		all, n, px := read(v), v.Shape[0], v.PlaneLen()
		out := make([]float64, px)
		col := make([]float64, n)
		for i := range out {
			for k := range n {
				col[k] = all[k*px+i]
			}
			slices.Sort(col)
			out[i] = (col[(n-1)/2] + col[n/2]) / 2
		}
		return out
	}
	dark, flat := median(nx.Darks), median(nx.Flats)
	proj := read(nx.Projections)
	lo, hi := float64(-dezing.DefaultClip), float64(dezing.DefaultClip)
	px := nx.Projections.PlaneLen()
	for i, v := range proj {
		d, f := dark[i%px], flat[i%px]
		x := (v - d) / math.Max(f-d, 1e-7)
		proj[i] = -math.Log(min(max(x, lo), hi))
	}
	return proj
}
