package h5

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// want is gen_codecs.py's value of voxel (z, y, x) for a dtype.
func want(dt volume.DType, z, y, x int) float64 {
	g := grid(z, y, x)
	switch dt {
	case volume.Int8:
		return float64(g%251 - 125)
	case volume.Uint8:
		return float64(g % 251)
	case volume.Int16:
		return float64(g%60000 - 30000)
	case volume.Uint16:
		return float64(g % 60000)
	case volume.Int32:
		return float64((g%60000 - 30000) * 70001)
	case volume.Uint32:
		return float64((g % 60000) * 70001)
	}
	return float64(g%97)*0.25 - 3.5
}

// decode reads voxel i of b, values of dt in native (little-endian) order.
func decode(dt volume.DType, b []byte, i int) float64 {
	le := binary.LittleEndian
	switch dt {
	case volume.Int8:
		return float64(int8(b[i]))
	case volume.Uint8:
		return float64(b[i])
	case volume.Int16:
		return float64(int16(le.Uint16(b[2*i:])))
	case volume.Uint16:
		return float64(le.Uint16(b[2*i:]))
	case volume.Int32:
		return float64(int32(le.Uint32(b[4*i:])))
	case volume.Uint32:
		return float64(le.Uint32(b[4*i:]))
	case volume.Float32:
		return float64(math.Float32frombits(le.Uint32(b[4*i:])))
	case volume.Float64:
		return math.Float64frombits(le.Uint64(b[8*i:]))
	}
	panic("dtype " + dt.String())
}

// checkExact reads v whole and plane by plane and compares every voxel
// with gen_codecs.py's values.
func checkExact(t *testing.T, v *volume.Volume) {
	t.Helper()
	for _, r := range [][2]int{{0, v.Shape[0]}, {v.Shape[0] - 1, v.Shape[0]}} {
		buf := make([]byte, int64(r[1]-r[0])*v.PlaneBytes())
		if err := v.ReadSlab(r[0], r[1], buf); err != nil {
			t.Fatal(err)
		}
		i := 0
		for z := r[0]; z < r[1]; z++ {
			for y := 0; y < v.Shape[1]; y++ {
				for x := 0; x < v.Shape[2]; x++ {
					if got, w := decode(v.DType, buf, i), want(v.DType, z, y, x); got != w {
						t.Fatalf("%s: voxel (%d,%d,%d) = %v, want %v", v.Name, z, y, x, got, w)
					}
					i++
				}
			}
		}
	}
}

func TestDTypesExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		dt   volume.DType
	}{
		{"int8", volume.Int8}, {"uint8", volume.Uint8},
		{"int16", volume.Int16}, {"int16be", volume.Int16}, {"uint16", volume.Uint16},
		{"int32", volume.Int32}, {"int32be", volume.Int32},
		{"uint32", volume.Uint32}, {"uint32be", volume.Uint32},
		{"float32", volume.Float32}, {"float64", volume.Float64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Open("testdata/dtypes.h5", tc.name)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.DType != tc.dt || v.Shape != [3]int{3, 4, 5} {
				t.Fatalf("got %v %s, want %s", v.Shape, v.DType, tc.dt)
			}
			checkExact(t, v)
		})
	}
	_, err := Open("testdata/dtypes.h5", "int64")
	if err == nil || !strings.Contains(err.Error(), "unsupported dtype int64") {
		t.Errorf("int64: error %v", err)
	}
}

type codecCase struct {
	name  string
	dt    volume.DType
	codec string
}

// TestCodecsExact reads every compressed dataset of codecs.h5 (made with
// h5py, hdf5plugin, Debian's plugins and, for bitshuffle and zstd, chunks
// compressed by python3-lz4 and python3-zstandard) bit for bit.
func TestCodecsExact(t *testing.T) {
	cases := []codecCase{
		{"lz4", volume.Uint16, "lz4"},
		{"bzip2", volume.Uint16, "bzip2"},
		{"lzf", volume.Uint16, "lzf"},
		{"gzip_shuffle", volume.Uint16, "shuffle | gzip (level 4)"},
		{"blosc_lz4_noshuffle", volume.Uint16, "blosc (lz4, level 5, no shuffle)"},
		{"blosc_lz4_shuffle", volume.Uint16, "blosc (lz4, level 5, byte shuffle)"},
		{"blosc_lz4_bitshuffle", volume.Uint16, "blosc (lz4, level 5, bit shuffle)"},
		{"blosc_blosclz_shuffle", volume.Uint16, "blosc (blosclz, level 5, byte shuffle)"},
		{"blosc_lz4hc_shuffle", volume.Uint16, "blosc (lz4hc, level 5, byte shuffle)"},
		{"blosc_zlib_shuffle", volume.Uint16, "blosc (zlib, level 5, byte shuffle)"},
		{"blosc_zstd_shuffle", volume.Uint16, "blosc (zstd, level 5, byte shuffle)"},
		{"zfp_int32", volume.Int32, "zfp"},
		{"zfp_float32", volume.Float32, "zfp"},
		{"zfp_float64", volume.Float64, "zfp"},
		{"bslz4_uint8", volume.Uint8, "bitshuffle (block 0) + lz4"},
		{"bslz4_int16", volume.Int16, "bitshuffle (block 0) + lz4"},
		{"bslz4_uint16", volume.Uint16, "bitshuffle (block 0) + lz4"},
		{"bslz4_uint32", volume.Uint32, "bitshuffle (block 0) + lz4"},
		{"bslz4_float32", volume.Float32, "bitshuffle (block 0) + lz4"},
		{"bslz4_float64", volume.Float64, "bitshuffle (block 0) + lz4"},
		{"bslz4_edges", volume.Uint16, "bitshuffle (block 0) + lz4"},
		{"bs_uint16", volume.Uint16, "bitshuffle (block 256)"},
		{"zstd_edges", volume.Uint16, "zstd (level 3)"},
		{"bszstd_edges", volume.Uint16, "bitshuffle (block 0) + zstd (level 3)"},
	}
	for _, dt := range []struct {
		name string
		dt   volume.DType
	}{
		{"int8", volume.Int8}, {"uint8", volume.Uint8}, {"int16", volume.Int16}, {"int16be", volume.Int16},
		{"uint16", volume.Uint16}, {"int32", volume.Int32}, {"int32be", volume.Int32}, {"uint32", volume.Uint32},
		{"uint32be", volume.Uint32}, {"float32", volume.Float32}, {"float64", volume.Float64},
	} {
		cases = append(cases, codecCase{"zstd_" + dt.name, dt.dt, "zstd (level 3)"},
			codecCase{"bszstd_" + dt.name, dt.dt, "bitshuffle (block 0) + zstd (level 3)"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Open("testdata/codecs.h5", tc.name)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.DType != tc.dt || v.Shape != [3]int{2, 17, 37} {
				t.Fatalf("got %v %s, want %s", v.Shape, v.DType, tc.dt)
			}
			checkExact(t, v)
			// A y slice (ReadBox) decodes through the same filters.
			br, _ := volume.AsBoxReader(v.Source())
			b := volume.Box{Z0: 0, Z1: 2, Y0: 5, Y1: 6, X0: 0, X1: 37}
			buf := make([]byte, b.Len()*int64(v.DType.Size()))
			if err := br.ReadBox(b, buf); err != nil {
				t.Fatal(err)
			}
			for z := 0; z < 2; z++ {
				for x := 0; x < 37; x++ {
					if got, w := decode(v.DType, buf, z*37+x), want(v.DType, z, 5, x); got != w {
						t.Fatalf("box: voxel (%d,5,%d) = %v, want %v", z, x, got, w)
					}
				}
			}
			d, err := Inspect("testdata/codecs.h5", tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got := field(d, "codec"); got != tc.codec {
				t.Errorf("info codec %q, want %q", got, tc.codec)
			}
			if field(d, "chunks") == "" {
				t.Errorf("info has no chunk shape: %+v", d.Header)
			}
		})
	}
}

func field(d *volume.Description, name string) string {
	for _, f := range d.Header {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

func TestMissingFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"unknown", []string{"HDF5 filter 40000", "HDF5_PLUGIN_PATH"}},
		{"bsunknown", []string{"bitshuffle and compressor 4", "bitshuffle+zstd"}},
	} {
		p := filepath.Join("testdata", "codecs.h5")
		_, err := volume.Open(p + ":/" + tc.name)
		if err == nil {
			t.Fatalf("%s: opened", tc.name)
		}
		for _, w := range append(tc.want, p, "/"+tc.name) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
	}
}

// TestMissingFilterNamesPackage checks that the error for each plugin
// Debian packages names the package.
func TestMissingFilterNamesPackage(t *testing.T) {
	for id, pkg := range map[int]string{307: "hdf5-filter-plugin", 32004: "hdf5-filter-plugin",
		32000: "hdf5-plugin-lzf", 32001: "hdf5-filter-plugin-blosc-serial", 32013: "hdf5-filter-plugin-zfp-serial"} {
		err := missingFilter(id)
		if !strings.Contains(err.Error(), "apt-get install "+pkg) || !strings.Contains(err.Error(), filterName(id)) {
			t.Errorf("filter %d: %v", id, err)
		}
	}
}

// TestPluginFolderFound reads a ZFP dataset (Debian's plugin; LZ4 and
// the others voxlab decodes itself) in a child process whose
// HDF5_PLUGIN_PATH points elsewhere (which replaces libhdf5's default
// folder): the plugin is still found, in the folder voxlab appends.
func TestPluginFolderFound(t *testing.T) {
	if os.Getenv("VOXLAB_PLUGIN_CHILD") == "1" {
		v, err := Open("testdata/codecs.h5", "zfp_float32")
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		checkExact(t, v)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPluginFolderFound$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VOXLAB_PLUGIN_CHILD=1", "HDF5_PLUGIN_PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child with HDF5_PLUGIN_PATH elsewhere: %v\n%s", err, out)
	}
}

// TestDamagedBitshuffleChunk reads a dataset whose second chunk is cut
// short: plane 0 reads, plane 1 fails with an error naming the file.
func TestDamagedBitshuffleChunk(t *testing.T) {
	v, err := Open("testdata/codecs.h5", "bslz4_damaged")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, v.PlaneBytes())
	if err := v.ReadSlab(0, 1, buf); err != nil {
		t.Fatalf("intact plane 0: %v", err)
	}
	err = v.ReadSlab(1, 2, buf)
	if err == nil || !strings.Contains(err.Error(), "codecs.h5") || !strings.Contains(err.Error(), "planes 1-2") {
		t.Errorf("damaged plane 1: %v", err)
	}
}
