package train

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestNormalizeChannels: with --normalize-channels each channel of a
// cube is (x − mean)/std with its YAML entry's signal_/bg_ statistics
// (cellfinder's get_dataloader), and an entry without them is refused.
func TestNormalizeChannels(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	dir := t.TempDir()
	y, err := WriteExampleCubes(dir, 1, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(y)
	if err != nil {
		t.Fatal(err)
	}
	stats := "  signal_mean: 210.5\n  signal_std: 40\n  bg_mean: 190\n  bg_std: 12.5\n"
	withStats := filepath.Join(dir, "norm.yaml")
	s := strings.ReplaceAll(string(b), "  bg_channel: 1\n", "  bg_channel: 1\n"+stats)
	if err := os.WriteFile(withStats, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := ReadYAML(withStats)
	if err != nil {
		t.Fatal(err)
	}
	normed, err := ListSamples(src, true)
	if err != nil {
		t.Fatal(err)
	}
	plainSrc, err := ReadYAML(y)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ListSamples(plainSrc, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ListSamples(plainSrc, true); err == nil || !strings.Contains(err.Error(), "signal_mean") {
		t.Errorf("an entry without statistics, normalising: %v", err)
	}
	l := classify.CubeLen(arch)
	got, raw := make([]float32, l), make([]float32, l)
	for i := range normed {
		if err := LoadCube(got, normed[i], arch); err != nil {
			t.Fatal(err)
		}
		if err := LoadCube(raw, plain[i], arch); err != nil {
			t.Fatal(err)
		}
		for k := range raw {
			mean, std := float32(210.5), float32(40)
			if k%2 == 1 {
				mean, std = 190, 12.5
			}
			if want := (raw[k] - mean) / std; got[k] != want {
				t.Fatalf("%s value %d: %g, want (%g − %g)/%g = %g", normed[i].Files[0], k, got[k], raw[k], mean, std, want)
			}
		}
	}
}

// TestCubeReaderKeepsItsBuffer: cube after cube through one cubeReader
// (what Fit and Evaluate read batches with) allocates at least a
// channel's stored voxels less per cube than LoadCube, which makes the
// buffer anew for each cube: the garbage of a cube's bytes per channel
// and step had piled up to the runtime's soft limit between
// collections, past the plan (issue 35, BENCHMARKS.md).
func TestCubeReaderKeepsItsBuffer(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	samples := cropCubes(t)[:8]
	x := make([]float32, classify.CubeLen(arch))
	v, err := volume.Open(samples[0].Files[0])
	if err != nil {
		t.Fatal(err)
	}
	stored := uint64(v.Bytes()) // one channel's voxels
	v.Close()
	var r cubeReader
	allocated := func(load func(Sample) error) uint64 {
		if err := load(samples[0]); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, s := range samples {
			if err := load(s); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / uint64(len(samples))
	}
	kept := allocated(func(s Sample) error { return r.load(x, s, arch) })
	fresh := allocated(func(s Sample) error { return LoadCube(x, s, arch) })
	t.Logf("per cube: %d B allocated keeping the buffer, %d B making it anew (a channel's voxels: %d B)", kept, fresh, stored)
	if kept+stored > fresh {
		t.Errorf("keeping the buffer allocates %d B a cube, making it anew %d B: it saves less than a channel's %d B of voxels", kept, fresh, stored)
	}
}
