package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/hdf5"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
)

// Issue 23, item 6 and the checks of item 9: the plan of `voxlab
// dezing` on compressed inputs counts what their readers hold to decode
// chunks, refuses a budget that cannot hold one, naming the smallest
// that works, and refuses an output that the disk cannot hold.

func frameValue(z, y, x int) uint16 {
	h := uint32(z*73856093 ^ y*19349663 ^ x*83492791)
	return 1000 + uint16(h>>8)%64
}

// writeZstdStore writes frameValue over shape as a Zarr v2 array of
// uint16 in zstd chunks, as zarr-python does.
func writeZstdStore(t *testing.T, path string, shape, chunks [3]int) {
	t.Helper()
	data := make([]byte, 2*shape[0]*shape[1]*shape[2])
	i := 0
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				binary.LittleEndian.PutUint16(data[i:], frameValue(z, y, x))
				i += 2
			}
		}
	}
	testutil.WriteZarr(t, path, volume.Info{Shape: shape, DType: volume.Uint16}, data, chunks)
}

// writeH5 writes /data of shape in chunks (gzip when deflate), holding
// frameValue, or nothing when empty (a dataset whose chunks are never
// written: a file of a few kilobytes whatever its shape).
func writeH5(t *testing.T, path string, shape, chunks []uint, deflate, empty bool) {
	t.Helper()
	f, err := hdf5.CreateFile(path, hdf5.F_ACC_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	space, _ := hdf5.CreateSimpleDataspace(shape, nil)
	defer space.Close()
	dcpl, _ := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	defer dcpl.Close()
	if err := dcpl.SetChunk(chunks); err != nil {
		t.Fatal(err)
	}
	if deflate {
		if err := dcpl.SetDeflate(1); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := f.CreateDatasetWith("data", hdf5.T_NATIVE_UINT16, space, dcpl)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if empty {
		return
	}
	data := make([]uint16, 0, shape[0]*shape[1]*shape[2])
	for z := range int(shape[0]) {
		for y := range int(shape[1]) {
			for x := range int(shape[2]) {
				data = append(data, frameValue(z, y, x))
			}
		}
	}
	if err := ds.Write(&data); err != nil {
		t.Fatal(err)
	}
}

type dezingPlanJSON struct {
	Block     int                         `json:"block_slices"`
	PeakRAM   int64                       `json:"peak_ram_bytes"`
	Choice    int                         `json:"choice"`
	Reading   string                      `json:"reading"`
	Breakdown map[string]map[string]int64 `json:"breakdown"`
}

func planDezing(t *testing.T, args ...string) (dezingPlanJSON, int, string) {
	t.Helper()
	code, out, errs := runCmd(append([]string{"plan", "dezing", "--backend", "cpu", "--json"}, args...)...)
	var p dezingPlanJSON
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("plan JSON: %v\n%s", err, out)
		}
	}
	return p, code, errs
}

// TestPlanDezingCountsDecodeMemory: on compressed layouts whose chunks
// span many frames, the plan counts the decode buffers of the chunks
// decoded at once (each at least the chunk decoded, and libhdf5's
// filter output beside it) and the cache of decoded chunks that blocks
// share, all within the budget. Before, the command's plan counted
// nothing of them: 241 MB planned for runs that reached 458 MB to
// 1.47 GB.
func TestPlanDezingCountsDecodeMemory(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.zarr")
	writeZstdStore(t, deep, [3]int{48, 128, 128}, [3]int{16, 128, 128})
	cubes := filepath.Join(dir, "cubes.zarr")
	writeZstdStore(t, cubes, [3]int{48, 128, 128}, [3]int{16, 32, 32})
	gz := filepath.Join(dir, "deep.h5")
	writeH5(t, gz, []uint{48, 128, 128}, []uint{16, 128, 128}, true, false)
	const chunk = 16 * 128 * 128 * 2 // 512 KiB, a layer of any of them
	for _, tc := range []struct {
		in     string
		decode int64 // at least, per chunk decoded at once
	}{
		{deep, chunk + chunk/2},
		{cubes, chunk/16 + chunk/32},
		{gz + ":/data", 2 * chunk},
	} {
		p, code, errs := planDezing(t, tc.in, "--host-memory", "64MiB")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.in, code, errs)
		}
		host := p.Breakdown["host"]
		if host[volume.LabelDecode] < tc.decode || host[volume.LabelCache] < 2*chunk || p.PeakRAM > 64<<20*9/10 {
			t.Errorf("%s: plan of %d bytes (%q) counts decode buffers %d, cache %d; want ≥ %d and ≥ %d",
				tc.in, p.PeakRAM, p.Reading, host[volume.LabelDecode], host[volume.LabelCache], tc.decode, 2*chunk)
		}
		if p.Block != 16 {
			t.Errorf("%s: blocks of %d frames, want 16: the chunks' depth, which the budget allows", tc.in, p.Block)
		}
	}
}

// TestDezingRefusesChunkBeyondBudget: a store of one 4 MiB chunk cannot
// be read within 4 MiB: the plan refuses, naming the smallest budget
// that works, which does (and a MiB less does not), and the budget with
// which the chunk is decoded once; a run at the smallest budget gives the
// output of a run with all the memory it wants.
func TestDezingRefusesChunkBeyondBudget(t *testing.T) {
	dir := t.TempDir()
	single := filepath.Join(dir, "single.zarr")
	writeZstdStore(t, single, [3]int{32, 256, 256}, [3]int{32, 256, 256})
	_, code, errs := planDezing(t, single, "--host-memory", "4MiB")
	m := regexp.MustCompile(`the smallest budget that works is ([0-9.]+) MiB \(([0-9.]+) MiB runs with every chunk of the input decoded once\)`).FindStringSubmatch(errs)
	if code == 0 || m == nil {
		t.Fatalf("4 MiB for a 4 MiB chunk: exit %d: %s", code, errs)
	}
	var smallest, once float64
	fmt.Sscan(m[1], &smallest)
	fmt.Sscan(m[2], &once)
	if smallest < 8 || once <= smallest {
		t.Errorf("smallest budget %v MiB, decoding once %v MiB: a 4 MiB chunk needs its stored and decoded bytes", smallest, once)
	}
	if _, code, errs := planDezing(t, single, "--host-memory", fmt.Sprintf("%gMiB", smallest-1)); code == 0 {
		t.Errorf("a MiB below the smallest budget plans: %s", errs)
	}
	p, code, errs := planDezing(t, single, "--host-memory", m[1]+"MiB")
	if code != 0 || p.Reading == "" {
		t.Fatalf("the smallest budget it named: exit %d: %s", code, errs)
	}
	if p, code, errs := planDezing(t, single, "--host-memory", m[2]+"MiB"); code != 0 || p.Choice != 0 || !strings.Contains(p.Reading, "cache of decoded chunks") {
		t.Errorf("the budget it named for decoding once: exit %d, level %d (%s) %s", code, p.Choice, p.Reading, errs)
	}
	lean := filepath.Join(dir, "lean.h5")
	mustRun(t, "dezing", single, lean, "--backend", "cpu", "--host-memory", m[1]+"MiB", "--quiet")
	full := filepath.Join(dir, "full.h5")
	mustRun(t, "dezing", single, full, "--backend", "cpu", "--quiet")
	_, a := testutil.ReadVolume(t, lean+":/data")
	_, b := testutil.ReadVolume(t, full+":/data")
	if !bytes.Equal(a, b) {
		t.Error("the output at the smallest budget differs from the output with all the memory it wants")
	}
}

// TestDezingRefusesOutputBeyondDisk: a file of a few kilobytes
// declaring 10^12 frames (chunks never written: they read as the fill
// value) makes an output no disk holds: the run is refused with both
// figures before anything is written, to HDF5 and to Zarr alike. A
// contiguous dataset declaring them is refused as damaged when opened.
func TestDezingRefusesOutputBeyondDisk(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.h5")
	writeH5(t, tiny, []uint{1e12, 4, 4}, []uint{1, 4, 4}, false, true)
	for _, out := range []string{"out.h5", "out.zarr"} {
		code, _, errs := runCmd("dezing", tiny, filepath.Join(dir, out), "--backend", "cpu", "--quiet")
		if code == 0 || !strings.Contains(errs, "no space left for the output") || !strings.Contains(errs, "may take up to") || !strings.Contains(errs, "free") {
			t.Errorf("%s: exit %d: %s", out, code, errs)
		}
	}
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Errorf("the refused runs left %v", names)
	}
	p, code, errs := planDezing(t, tiny)
	if code != 0 || p.Block < 1 {
		t.Errorf("plan without an output: exit %d: %s", code, errs)
	}

	contiguous := filepath.Join(t.TempDir(), "contiguous.h5")
	f, _ := hdf5.CreateFile(contiguous, hdf5.F_ACC_TRUNC)
	space, _ := hdf5.CreateSimpleDataspace([]uint{1e12, 4, 4}, nil)
	ds, err := f.CreateDataset("data", hdf5.T_NATIVE_UINT16, space)
	if err != nil {
		t.Fatal(err)
	}
	ds.Close()
	space.Close()
	f.Close()
	code, _, errs = runCmd("dezing", contiguous, filepath.Join(dir, "c.h5"), "--backend", "cpu")
	if code == 0 || !strings.Contains(errs, "declares") || !strings.Contains(errs, "stores 0 B") {
		t.Errorf("contiguous 10^12 frames: exit %d: %s", code, errs)
	}
}
