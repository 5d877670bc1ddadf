package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/job"
)

// unknownDevice is a backend no pipeline of this build has kernels for:
// its self-check fails (the ops cannot even be chosen), as a CUDA device
// whose kernels disagree with the CPU's would.
type unknownDevice struct{ *gpu.CPUBackend }

func (unknownDevice) Name() string { return "unknown-device" }

// withUnknownDevice makes every backend choice open an unknownDevice.
func withUnknownDevice(t *testing.T) {
	prev := openBackend
	openBackend = func(gpu.Choice) (gpu.Backend, string, error) {
		return unknownDevice{gpu.NewCPU()}, "backend: unknown-device (test)", nil
	}
	t.Cleanup(func() { openBackend = prev })
}

// TestSelfCheckFallbackInCLIAndPanel: a device whose kernels fail the
// pipeline's self-check is not trusted: `voxlab dezing` and the panel's
// run compute on the CPU, write the CPU's output, and warn naming the
// pipeline, the device and why (on stderr; with --json too; in the
// panel's job warnings).
func TestSelfCheckFallbackInCLIAndPanel(t *testing.T) {
	start := time.Now()
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	want := filepath.Join(dir, "cpu.h5")
	mustRun(t, "dezing", scan, want, "--backend", "cpu", "--quiet")

	withUnknownDevice(t)
	const says = "dezing: the unknown-device kernels failed their self-check against the CPU: dezing: no kernels for the unknown-device backend"
	for _, json := range []bool{false, true} {
		out := filepath.Join(dir, "fallback.h5")
		args := []string{"dezing", scan, out}
		if json {
			args = append(args, "--json")
		}
		code, _, stderr := runCmd(args...)
		if code != 0 {
			t.Fatalf("voxlab %q: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stderr, "dezing: warning: "+says) || !strings.Contains(stderr, "this run computes on the CPU instead") {
			t.Errorf("json %v: stderr does not warn of the fallback:\n%s", json, stderr)
		}
		if !json && !strings.Contains(stderr, "backend: cpu (dezing failed its unknown-device self-check)") {
			t.Errorf("the backend note does not say the CPU was used:\n%s", stderr)
		}
		if err := sameHDF5(fileBytes(t, want), fileBytes(t, out), start); err != nil {
			t.Errorf("json %v: the fallback's output differs from the CPU run's: %v", json, err)
		}
	}

	var warnings []string
	prog := job.NewProgress("dezing", func(e job.Event) {
		if e.Kind == job.Warning {
			warnings = append(warnings, e.Message)
		}
	})
	out := filepath.Join(dir, "panel.h5")
	if err := runRequest(context.Background(), pipelines["dezing"], panel.Request{Command: "dezing", Args: []string{scan, out}}, prog); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range warnings {
		found = found || strings.Contains(w, says)
	}
	if !found {
		t.Errorf("the panel's job warnings %q do not say the device failed its self-check", warnings)
	}
	if err := sameHDF5(fileBytes(t, want), fileBytes(t, out), start); err != nil {
		t.Errorf("the panel's fallback output differs from the CPU run's: %v", err)
	}
}
