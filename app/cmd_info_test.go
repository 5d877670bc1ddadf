package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// runCmd is in fakepipe_test.go.

const golden = "../processing/volume/testdata/"

func TestInfoFormats(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"npy/f4be.npy", []string{"npy", "shape: (3, 4, 5)", "float32", "byte order: big"}},
		{"npy/stack4d.npy", []string{"shape: (3, 4, 4, 4)", "maps: 3"}},
		{"mrc/mode1.mrc", []string{"mrc", "dtype: int16", "voxel size: 2.5, 2, 1.5 (z, y, x)", "int16 stored, read as int16"}},
		{"types/mode12.mrc", []string{"dtype: float32", "float16 stored, read as float32"}},
		{"types/tiled_pred_u16.tif", []string{"tiles: 16 x 16 (rows x columns), 12 per page", "compression: Deflate, horizontal predictor", "channels: 1"}},
		{"types/zcyx.ome.tif:/channel/1", []string{"ome-tiff", "channels: 3 (0, 1, 2); reading channel 1", "strips: 1 per page"}},
		{"../h5/testdata/codecs.h5:/bslz4_uint16", []string{"chunks: (1, 17, 37)", "codec: bitshuffle (block 0) + lz4"}},
		{"../h5/testdata/codecs.h5:/blosc_zstd_shuffle", []string{"codec: blosc (zstd, level 5, byte shuffle)"}},
		{"tiff/imagej_u16.tif", []string{"tiff", "uint16", "voxel size: 2, 0.25, 0.5"}},
		{"tiff/planes", []string{"tiff-dir", "planes: 3", "plane2.tif", "plane100.tif"}},
		{"../h5/testdata/scan.nxs", []string{"nexus", "6 projections, 5 flats, 2 darks", "image_key (13) int64",
			"opens as: 6 projections; left out 2 darks and 5 flats (image_key): give " + golden + "../h5/testdata/scan.nxs:/entry1/tomo_entry/data/data for every frame"}},
		{"../h5/testdata/vds_scan.nxs", []string{"nexus", "layout: virtual (2 mappings)", "codec: shuffle | gzip (level 4)",
			"opens as: 4 projections; left out 1 dark and 1 flat (image_key)"}},
		{"../h5/testdata/types.h5:/u16be", []string{"hdf5", "dataset: /u16be", "i16 (3, 4, 5) int16"}},
	} {
		code, out, errOut := runCmd("info", golden+tc.file)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.file, code, errOut)
			continue
		}
		// Compare with runs of spaces collapsed: column widths vary.
		flat := strings.Join(strings.Fields(out), " ")
		for _, w := range tc.want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.file, w, out)
			}
		}
	}
}

func TestInfoJSON(t *testing.T) {
	code, out, errOut := runCmd("info", "--json", golden+"mrc/stack.mrc", golden+"../h5/testdata/scan.nxs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ds []volume.Description
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(ds) != 2 || ds[0].Maps != 3 || ds[1].NeXus == nil || ds[1].NeXus.Darks != 2 || len(ds[1].Tree) == 0 {
		t.Errorf("%+v", ds)
	}
	// The bare scan opens as its projections; the JSON says what it leaves out.
	if len(ds) == 2 && (ds[0].Part != nil || ds[1].Part == nil || ds[1].Part.Kept != "6 projections" ||
		ds[1].Part.Whole != golden+"../h5/testdata/scan.nxs:/entry1/tomo_entry/data/data") {
		t.Errorf("parts %+v, %+v", ds[0].Part, ds[1].Part)
	}
}

// TestInfoRejects checks that info validates what it reports: exit 1 and
// a message naming the file, for each kind of bad input.
func TestInfoRejects(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake.tif")
	os.WriteFile(fake, []byte("GIF89a not a tiff at all"), 0o644)
	for _, tc := range []struct{ file, want string }{
		{golden + "npy/truncated.npy", "truncated"},
		{golden + "mrc/wrongmagic.mrc", "not an MRC file"},
		{golden + "tiff/mixed_sizes", "planes differ"},
		{golden + "../h5/testdata/truncated.h5", "damaged or truncated"},
		{golden + "../h5/testdata/types.h5:/nope", "no dataset /nope"},
		{golden + "../h5/testdata/codecs.h5:/unknown", "HDF5 filter 40000"},
		{golden + "../h5/testdata/k11_dangling.nxs", "/entry/instrument/imaging/data links to k11/k11-missing.h5, which is missing"},
		{fake, "not a TIFF file"},
		{filepath.Join(dir, "missing.npy"), "no such file"},
	} {
		code, out, errOut := runCmd("info", tc.file)
		path, _ := volume.SplitSpec(tc.file)
		if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, path) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.file, code, out, errOut)
		}
	}
	if code, _, _ := runCmd("info"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	// One bad file among good ones: the good ones are described, exit 1.
	code, out, _ := runCmd("info", golden+"npy/u1.npy", golden+"npy/truncated.npy")
	if code != 1 || !strings.Contains(out, "u1.npy") {
		t.Errorf("mixed: exit %d, %q", code, out)
	}
}

// TestInfoCandidates: info on an HDF5 file of several 3D datasets
// succeeds listing them (path, shape, dtype, chunks, filters) with how to
// name one, since that describes the file usefully; a pipeline given the
// file without a dataset fails with the same list and writes nothing. A
// NeXus scan whose frames are behind an external link is found.
func TestInfoCandidates(t *testing.T) {
	several := golden + "../h5/testdata/several.h5"
	list := []string{"name one as " + several + ":/path", "/raw (13, 22, 26) uint16, contiguous",
		"/processed/filtered (4, 8, 9) uint16, chunks (1, 8, 9), shuffle | gzip (level 4)"}
	code, out, errOut := runCmd("info", several)
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, errOut)
	}
	for _, w := range list {
		if !strings.Contains(flat, w) {
			t.Errorf("info lacks %q:\n%s", w, out)
		}
	}
	dst := filepath.Join(t.TempDir(), "out.h5")
	code, _, errOut = runCmd("dezing", "--backend", "cpu", several, dst)
	flat = strings.Join(strings.Fields(errOut), " ")
	if code == 0 {
		t.Fatal("dezing without a dataset named succeeded")
	}
	for _, w := range list {
		if !strings.Contains(flat, w) {
			t.Errorf("dezing's error lacks %q:\n%s", w, errOut)
		}
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("dezing left an output")
	}
	code, out, errOut = runCmd("info", golden+"../h5/testdata/k11.nxs")
	flat = strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, "dataset: /entry/imaging/data") || !strings.Contains(flat, "8 projections, 3 flats, 2 darks") {
		t.Errorf("k11: exit %d: %s%s", code, out, errOut)
	}
	// dezing used to fail on it listing 480 scalar datasets.
	k11out := filepath.Join(t.TempDir(), "k11.h5")
	if code, _, errOut := runCmd("dezing", "--backend", "cpu", golden+"../h5/testdata/k11.nxs", k11out); code != 0 {
		t.Errorf("dezing k11: exit %d: %.500s", code, errOut)
	} else if _, err := os.Stat(k11out); err != nil {
		t.Errorf("dezing k11: %v", err)
	}
}

func TestDemoCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
	code, out, errOut := runCmd("demo", dir, "--size", "small", "--seed", "3")
	if code != 0 || !strings.Contains(out, "already holds") {
		t.Errorf("exit %d: %q %q", code, out, errOut)
	}
	if code, _, _ := runCmd("demo", dir, "--size", "huge"); code != 2 {
		t.Errorf("bad size: exit %d", code)
	}
	if code, _, _ := runCmd("demo"); code != 2 {
		t.Errorf("no folder: exit %d", code)
	}
}
