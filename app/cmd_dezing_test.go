package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
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
	var sum dezingSummary
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
// run fails naming the file and the full disk, leaves nothing there, and
// the input is untouched. Mounting needs root; elsewhere it is skipped.
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
