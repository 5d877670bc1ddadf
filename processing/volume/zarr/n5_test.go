package zarr

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestGoldenN5 reads every container gen_n5.py wrote (zarr-python's
// N5Store for each compression and type, and blocks written by hand as
// n5-java writes them: cropped at the edges, varlength) and compares it
// with what zarr-python read back.
func TestGoldenN5(t *testing.T) {
	stores, _ := filepath.Glob("testdata/n5/*.n5")
	n := 0
	for _, s := range stores {
		base := strings.TrimSuffix(s, ".n5")
		name := filepath.Base(base)
		if name == "bdv" || name == "viewer" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			spec := s
			if strings.HasPrefix(name, "hand_") {
				spec += ":/data"
			}
			if f := volume.FormatFor(s); f == nil || f.Name != "n5" {
				t.Fatalf("format %v", f)
			}
			got, want := openPair(t, spec, base+".npy")
			sameVoxels(t, spec, got, want)
			// A box across blocks, read by itself.
			br, ok := volume.AsBoxReader(got.Source())
			if !ok {
				t.Fatal("not a box reader")
			}
			b := volume.Box{Z0: 0, Z1: got.Shape[0], Y0: 1, Y1: got.Shape[1], X0: 2, X1: got.Shape[2]}
			buf := make([]byte, b.Len()*int64(got.DType.Size()))
			if err := br.ReadBox(b, buf); err != nil {
				t.Fatal(err)
			}
			all, _ := want.ReadAll()
			es := got.DType.Size()
			i := 0
			for z := b.Z0; z < b.Z1; z++ {
				for y := b.Y0; y < b.Y1; y++ {
					for x := b.X0; x < b.X1; x++ {
						o := ((z*got.Shape[1]+y)*got.Shape[2] + x) * es
						if g, w := value(got.DType, buf[i:]), value(got.DType, all[o:]); g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
							t.Fatalf("box voxel (%d,%d,%d) = %v, want %v", z, y, x, g, w)
						}
						i += es
					}
				}
			}
			d, err := volume.Inspect(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(d.Format, "N5") || !d.Volume {
				t.Errorf("info: format %q", d.Format)
			}
		})
	}
	if n < 15 {
		t.Errorf("testdata/n5: %d containers, want the generator's (run gen_n5.py)", n)
	}
}

// TestGoldenN5Multiscale reads BigDataViewer's and n5-viewer's pyramids
// level by level, with their voxel sizes and downsampling factors.
func TestGoldenN5Multiscale(t *testing.T) {
	for _, tc := range []struct {
		spec, npy string
		levels    int
		voxel     func(l int) [3]float64
		factor2   [3]float64 // level 2's (or the last's) scale
	}{
		{"testdata/n5/bdv.n5:/setup0/timepoint0", "testdata/n5/bdv_s%d.npy", 3,
			func(l int) [3]float64 {
				return [][3]float64{{2, 0.5, 0.5}, {2, 1, 1}, {4, 2, 2}}[l]
			}, [3]float64{2, 4, 4}},
		{"testdata/n5/viewer.n5:/c0", "testdata/n5/viewer_s%d.npy", 2,
			func(l int) [3]float64 {
				return [][3]float64{{1, 0.25, 0.25}, {2, 0.5, 0.5}}[l]
			}, [3]float64{2, 2, 2}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			v, err := volume.Open(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			p, ok := volume.AsPyramid(v.Source())
			if !ok || p.Levels() != tc.levels {
				t.Fatalf("not a pyramid of %d levels", tc.levels)
			}
			for l := range tc.levels {
				lv, err := p.OpenLevel(l)
				if err != nil {
					t.Fatal(err)
				}
				want := readNPY(t, strings.Replace(tc.npy, "%d", string(rune('0'+l)), 1))
				sameVoxels(t, lv.Name, lv, want)
				if lv.VoxelSize != tc.voxel(l) {
					t.Errorf("level %d: voxel size %v, want %v", l, lv.VoxelSize, tc.voxel(l))
				}
				lv.Close()
			}
			if _, f := p.LevelInfo(tc.levels - 1); f != tc.factor2 {
				t.Errorf("last level's scale %v, want %v", f, tc.factor2)
			}
			// A level named by its path opens alone.
			lv, err := volume.Open(tc.spec + "/s1")
			if err != nil {
				t.Fatal(err)
			}
			sameVoxels(t, "s1", lv, readNPY(t, strings.Replace(tc.npy, "%d", "1", 1)))
			lv.Close()
			d, err := volume.Inspect(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != "N5 multiscale" {
				t.Errorf("info format %q", d.Format)
			}
		})
	}
	// The container's root is a group: info lists what it holds, open
	// names them.
	d, err := volume.Inspect("testdata/n5/bdv.n5")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range d.Tree {
		paths = append(paths, n.Path+" "+n.Kind)
	}
	if got := strings.Join(paths, ", "); !strings.Contains(got, "/setup0/timepoint0/s2 dataset") || d.Format != "N5 group" {
		t.Errorf("info: %s %s", d.Format, got)
	}
	if _, err := volume.Open("testdata/n5/bdv.n5"); err == nil || !strings.Contains(err.Error(), "testdata/n5/bdv.n5:/setup0/timepoint0") {
		t.Errorf("opening the root: %v, want the multiscale group named", err)
	}
}

// TestPaddedBlosc: Blosc frames followed by padding (z5py writes 16
// bytes after each) read as zarr-python reads them.
func TestPaddedBlosc(t *testing.T) {
	for _, s := range []string{"testdata/padded_blosc.zarr", "testdata/n5/padded_blosc.n5"} {
		got, want := openPair(t, s, strings.TrimSuffix(strings.TrimSuffix(s, ".zarr"), ".n5")+".npy")
		sameVoxels(t, s, got, want)
	}
}

// TestBadN5: damaged or unsupported N5 containers give an error naming
// the container and the problem, at open or at the read of the block.
func TestBadN5(t *testing.T) {
	edit := func(file string, f func([]byte) []byte) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, filepath.FromSlash(file))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, f(b), 0o644)
		}
	}
	replace := func(file, old, new string) func(string) {
		return edit(file, func(b []byte) []byte {
			if !bytes.Contains(b, []byte(old)) {
				t.Fatalf("%s holds no %q", file, old)
			}
			return bytes.Replace(b, []byte(old), []byte(new), 1)
		})
	}
	header := func(file string, at int, v uint16) func(string) {
		return edit(file, func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[at:], v)
			return b
		})
	}
	for _, tc := range []struct {
		name, store, spec string
		damage            func(dir string)
		want              string
	}{
		{"lz4", "gzip.n5", "", replace("attributes.json", `"type": "gzip"`, `"type": "lz4"`), "lz4 N5 blocks are not supported"},
		{"unknown compression", "gzip.n5", "", replace("attributes.json", `"type": "gzip"`, `"type": "lzf"`), `compression "lzf" is not supported`},
		{"uint64", "gzip.n5", "", replace("attributes.json", `"uint16"`, `"uint64"`), `dataType "uint64"`},
		{"no dimensions", "gzip.n5", "", replace("attributes.json", `"dimensions"`, `"dims"`), "not a multiscale image"},
		{"huge blocks", "gzip.n5", "", replace("attributes.json", "\"blockSize\": [\n        3,\n        4,\n        2\n    ]", `"blockSize": [800, 1000, 2000]`), "more than voxlab's limit"},
		{"object block", "gzip.n5", "", header("0/0/0", 0, 2), "object block (mode 2)"},
		{"bad mode", "gzip.n5", "", header("0/0/0", 0, 7), "mode 7"},
		{"dimensions", "gzip.n5", "", header("0/0/0", 2, 2), "N5 block of 2 dimensions in a dataset of 3"},
		{"block too large", "gzip.n5", "", header("0/0/0", 6, 9), "N5 block of size [2 4 9]"},
		{"block too small", "gzip.n5", "", header("0/0/0", 6, 1), "N5 block of size [2 4 1]"},
		{"varlength count", "hand_varlength_gzip.n5", "/data", header("data/0/0/0", 18, 5), "varlength N5 block of 5 elements"},
		{"truncated block", "gzip.n5", "", edit("1/0/0", func(b []byte) []byte { return b[:len(b)/2] }), "block 1/0/0"},
		{"short header", "gzip.n5", "", edit("1/0/0", func(b []byte) []byte { return b[:6] }), "shorter than its header"},
		{"leaving the container", "bdv.n5", "/../x", nil, "leaves the container"},
		{"channel", "bdv.n5", "/setup0/timepoint0,c=1", nil, "no channel or time axis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyStore(t, filepath.Join("testdata", "n5", tc.store))
			if tc.damage != nil {
				tc.damage(dir)
			}
			spec := dir
			if tc.spec != "" {
				spec += ":" + tc.spec
			}
			v, err := volume.Open(spec)
			if err == nil {
				_, err = v.ReadAll()
				v.Close()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one naming %s and saying %q", err, dir, tc.want)
			}
		})
	}
}

// TestXZDictionaryChecked: an xz block is decoded only when its LZMA2
// dictionary is within the limit (xz's preset 6 asks for 8 MiB), and
// what is not one single-block xz stream is refused before decoding.
func TestXZDictionaryChecked(t *testing.T) {
	b, err := os.ReadFile("testdata/n5/xz.n5/0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	body := b[4+4*3:]
	if err := checkXZ(body, maxXZDict); err != nil {
		t.Fatalf("zarr's xz block refused: %v", err)
	}
	if err := checkXZ(body, 4<<20); err == nil || !strings.Contains(err.Error(), "8 MiB dictionary, more than voxlab's limit of 4 MiB") {
		t.Errorf("an 8 MiB dictionary under a 4 MiB limit: %v", err)
	}
	// The dictionary byte of the LZMA2 filter set to 1.5 GiB (code 37):
	// refused, though the stream is otherwise sound.
	big := append([]byte(nil), body...)
	i := bytes.Index(big[12:], []byte{0x21, 0x01}) // LZMA2 filter ID, one byte of properties
	if i < 0 {
		t.Fatal("no LZMA2 filter flags in the block header")
	}
	big[12+i+2] = 37
	if err := checkXZ(big, maxXZDict); err == nil || !strings.Contains(err.Error(), "1536 MiB dictionary") {
		t.Errorf("a 1.5 GiB dictionary: %v", err)
	}
	for _, bad := range [][]byte{nil, body[:20], append(append([]byte(nil), body...), body...)} {
		if err := checkXZ(bad, maxXZDict); err == nil {
			t.Errorf("%d bytes accepted", len(bad))
		}
	}
}
