package reconstruct

import (
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestDeviceFBPOnCPU: the device path (deviceFBP: filter on the CPU,
// upload, BackProject of the backend's ops, download), run here on the
// CPU backend's ops, gives FBP's slices bit for bit, frees its buffers,
// and the plan of a run counts its device buffers only off the CPU.
func TestDeviceFBPOnCPU(t *testing.T) {
	cpu := gpu.NewCPU()
	angles, cols := evenAngles(64), 48
	sino := make([]float32, len(angles)*cols)
	for i := range sino {
		sino[i] = float32((i*31)%53) / 53
	}
	for _, g := range []Geometry{
		{Angles: angles, Columns: cols, Center: 25.4, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1, Filter: Hann},
		{Angles: angles, Columns: cols, Center: 23.5, Pad: AutoPad(cols)},
		{Angles: angles, Columns: cols, Center: 20, Size: 40},
	} {
		f, err := NewFBP(g)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, f.Size()*f.Size())
		f.Slice(want, sino)
		d, err := newDeviceFBP(g, cpu)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(want))
		if err := d.SliceContext(t.Context(), got, sino); err != nil {
			t.Fatal(err)
		}
		if n := cpu.Stats().Current; n != deviceFBPBytes(d.s) {
			t.Errorf("a deviceFBP holds %d bytes, deviceFBPBytes says %d", n, deviceFBPBytes(d.s))
		}
		d.Close()
		if err := gpu.CompareBits("slice", volume.Bytes(got), volume.Bytes(want), 4); err != nil {
			t.Errorf("%+v: %v", g, err)
		}
	}
	if n := cpu.Stats().Current; n != 0 {
		t.Errorf("%d bytes left allocated", n)
	}
}

// TestBackProjectShapeCheck: the ops refuse a bad shape and buffers too
// small for the shape.
func TestBackProjectShapeCheck(t *testing.T) {
	cpu := gpu.NewCPU()
	ops := cpuOps{cpu}
	s := BackProjectShape{Slices: 1, Angles: 4, Columns: 8, Size: 8, Center: 3.5}
	small, _ := cpu.Alloc("small", 16)
	trig, _ := cpu.Alloc("trig", int64(s.TrigLen())*8)
	if err := ops.BackProject(small, small, trig, s); err == nil {
		t.Error("BackProject into a 16-byte buffer: no error")
	}
	bad := s
	bad.Angles = 0
	if err := ops.BackProject(small, small, trig, bad); err == nil {
		t.Error("BackProject of no angles: no error")
	}
}

// otherBackend is a backend that is not the CPU's (its buffers are the
// CPU's), for which the default build has no kernels.
type otherBackend struct{ *gpu.CPUBackend }

func (otherBackend) Name() string { return "other" }

// TestOtherBackend: on a backend other than the CPU the plan of an FBP
// run counts the back-projection's device buffers (gridrec's does not),
// and a build without kernels for it refuses the run, naming the
// pipeline and the backend, rather than compute elsewhere unsaid.
func TestOtherBackend(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	be := otherBackend{gpu.NewCPU()}
	for _, alg := range []string{"fbp", "gridrec"} {
		v := Spec.Defaults()
		v["darks"], v["flats"], v["algorithm"] = darks, flats, alg
		j, err := Spec.Open(pipeline.Request{Args: []string{proj, dir + "/out-" + alg + ".npy"}, Values: v})
		if err != nil {
			t.Fatal(err)
		}
		d := pipeline.Device{Backend: be, Budget: plan.Budget{Host: 1 << 30, Device: 1 << 30}}
		pl, err := j.Plan(d)
		if err != nil {
			t.Fatal(err)
		}
		if onDev := pl.PeakDevice > 0; onDev != (alg == "fbp") {
			t.Errorf("%s: plan's device peak %d bytes", alg, pl.PeakDevice)
		}
		_, err = j.Run(t.Context(), job.NewProgress("reconstruct"), d)
		j.Close()
		if alg == "fbp" && (err == nil || !strings.Contains(err.Error(), "reconstruct: no kernels for the other backend")) {
			t.Errorf("fbp on a backend without kernels: %v", err)
		}
		if alg == "gridrec" && err != nil {
			t.Errorf("gridrec on another backend (computed on the CPU): %v", err)
		}
	}
}
