package volume

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// typeValue is gen_types.py's value of voxel (z, y, x) for a dtype, with
// k added to the grid (k = 11c for channel c of an OME-TIFF).
func typeValue(dt DType, k int) func(z, y, x int) float64 {
	return func(z, y, x int) float64 {
		g := gridAt(z, y, x, k)
		switch dt {
		case Int8:
			return float64(g%251 - 125)
		case Uint8:
			return float64(g % 251)
		case Int16:
			return float64(g%60000 - 30000)
		case Uint16:
			return float64(g % 60000)
		case Int32:
			return float64((g%60000 - 30000) * 70001)
		case Uint32:
			return float64((g % 60000) * 70001)
		}
		return float64(g%97)*0.25 - 3.5
	}
}

func TestTypesNPY(t *testing.T) {
	for _, tc := range []struct {
		file string
		dt   DType
	}{
		{"int8_le.npy", Int8},
		{"int16_le.npy", Int16}, {"int16_be.npy", Int16},
		{"int32_le.npy", Int32}, {"int32_be.npy", Int32},
		{"uint32_le.npy", Uint32}, {"uint32_be.npy", Uint32},
	} {
		t.Run(tc.file, func(t *testing.T) {
			v, err := Open(filepath.Join("testdata", "types", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, goldShape, typeValue(tc.dt, 0))
		})
	}
}

func TestTypesMRC(t *testing.T) {
	for _, tc := range []struct {
		file, mode string
		dt         DType
		stored     DType // the values' type before any conversion
	}{
		{"mode0.mrc", "0 (int8 stored, read as int8)", Int8, Int8},
		{"mode1.mrc", "1 (int16 stored, read as int16)", Int16, Int16},
		{"mode2.mrc", "2 (float32 stored, read as float32)", Float32, Float32},
		{"mode6.mrc", "6 (uint16 stored, read as uint16)", Uint16, Uint16},
		{"mode12.mrc", "12 (float16 stored, read as float32)", Float32, Float32},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join("testdata", "types", tc.file)
			v, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, goldShape, typeValue(tc.stored, 0))
			d, err := Inspect(p)
			if err != nil {
				t.Fatal(err)
			}
			if d.Header[0].Value != tc.mode {
				t.Errorf("info mode %q, want %q", d.Header[0].Value, tc.mode)
			}
		})
	}
}

// TestFloat16 checks the half-precision conversion on every one of the
// 65536 values against the definition (-1)^s · 2^(e-15) · (1 + f/1024),
// subnormals 2^-14 · f/1024.
func TestFloat16(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		s, e, f := h>>15, h>>10&0x1f, h&0x3ff
		var want float64
		switch {
		case e == 0x1f && f == 0:
			want = math.Inf(1)
		case e == 0x1f:
			want = math.NaN()
		case e == 0:
			want = math.Ldexp(float64(f)/1024, -14)
		default:
			want = math.Ldexp(1+float64(f)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		got := float64(Float16(uint16(h)))
		if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && (got != want || math.Signbit(got) != (s == 1))) {
			t.Fatalf("Float16(%#04x) = %v, want %v", h, got, want)
		}
	}
}

func TestTypesTIFF(t *testing.T) {
	big := [3]int{2, 40, 56}
	for _, tc := range []struct {
		spec  string
		dt    DType
		shape [3]int
		k     int // channel c: 11c
		tiles string
	}{
		{"int8_le.tif", Int8, goldShape, 0, ""},
		{"uint8_le.tif", Uint8, goldShape, 0, ""},
		{"int16_le.tif", Int16, goldShape, 0, ""},
		{"int16_be.tif", Int16, goldShape, 0, ""},
		{"uint16_le.tif", Uint16, goldShape, 0, ""},
		{"int32_le.tif", Int32, goldShape, 0, ""},
		{"int32_be.tif", Int32, goldShape, 0, ""},
		{"uint32_le.tif", Uint32, goldShape, 0, ""},
		{"float32_le.tif", Float32, goldShape, 0, ""},
		{"float64_le.tif", Float64, goldShape, 0, ""},
		{"tiled_u16.tif", Uint16, big, 0, "16 x 16 (rows x columns), 12 per page"},
		{"tiled_deflate_i16.tif", Int16, big, 0, "16 x 16 (rows x columns), 12 per page"},
		{"tiled_pred_f32.tif", Float32, big, 0, "16 x 32 (rows x columns), 6 per page"},
		{"tiled_pred_u16.tif", Uint16, big, 0, "16 x 16 (rows x columns), 12 per page"},
		{"tiled.ome.tif", Uint16, big, 0, "16 x 16 (rows x columns), 12 per page"},
		{"zcyx.ome.tif", Uint16, goldShape, 0, ""},
		{"zcyx.ome.tif:/channel/1", Uint16, goldShape, 11, ""},
		{"zcyx.ome.tif:/channel/2", Uint16, goldShape, 22, ""},
		{"czyx.ome.tif:/c/0", Uint16, goldShape, 0, ""},
		{"czyx.ome.tif:/channel/1", Uint16, goldShape, 11, ""},
		{"tzcyx.ome.tif:/channel/1", Uint16, goldShape, 11, ""},
		{"rgb_u8.tif", Uint8, goldShape, 0, ""},
		{"rgb_u8.tif:/channel/2", Uint8, goldShape, 22, ""},
		{"separate_i16.tif:/channel/0", Int16, goldShape, 0, ""},
		{"separate_i16.tif:/channel/1", Int16, goldShape, 11, ""},
		{"contig_tiled_pred_u16.tif:/channel/0", Uint16, big, 0, "16 x 16 (rows x columns), 12 per page"},
		{"contig_tiled_pred_u16.tif:/channel/1", Uint16, big, 11, "16 x 16 (rows x columns), 12 per page"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			spec := filepath.Join("testdata", "types", tc.spec)
			v, err := Open(spec)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, tc.shape, typeValue(tc.dt, tc.k))
			d, err := Inspect(spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := header(d, "tiles"); got != tc.tiles {
				t.Errorf("info tiles %q, want %q", got, tc.tiles)
			}
		})
	}
	for spec, want := range map[string][2]string{
		"rgb_u8.tif:/channel/1":       {"3 (0, 1, 2); reading channel 1, pick one as FILE:/channel/N", "3 per pixel, interleaved"},
		"separate_i16.tif:/channel/1": {"2 (0, 1); reading channel 1, pick one as FILE:/channel/N", "2 per pixel, stored separately"},
	} {
		d, err := Inspect("testdata/types/" + spec)
		if err != nil {
			t.Fatal(err)
		}
		if header(d, "channels") != want[0] || header(d, "samples") != want[1] {
			t.Errorf("%s: info channels %q samples %q", spec, header(d, "channels"), header(d, "samples"))
		}
		n, err := TIFFChannels("testdata/types/" + spec[:strings.Index(spec, ":")])
		if err != nil || n != int(want[0][0]-'0') {
			t.Errorf("%s: TIFFChannels %d %v", spec, n, err)
		}
	}
	v, err := Open("testdata/types/czyx.ome.tif:/channel/1")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.VoxelSize != [3]float64{2, 0.5, 0.25} {
		t.Errorf("OME physical sizes: %v", v.VoxelSize)
	}
	d, err := Inspect("testdata/types/zcyx.ome.tif:/channel/2")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "ome-tiff" || header(d, "channels") != "3 (0, 1, 2); reading channel 2, pick one as FILE:/channel/N" ||
		header(d, "pages") != "3 (channel 2's, of 9 in the file)" ||
		header(d, "dimensions") != "Z 3, C 3, T 1 (order XYCZT)" {
		t.Errorf("info: %s %+v", d.Format, d.Header)
	}
}

func header(d *Description, name string) string {
	for _, f := range d.Header {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

// TestImageJChannels reads each channel of an ImageJ hyperstack (planes
// in C, Z order) with its voxel size.
func TestImageJChannels(t *testing.T) {
	for c := range 2 {
		spec := "testdata/types/imagej_zcyx.tif:/channel/" + string(rune('0'+c))
		v, err := Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		checkVolume(t, v, Uint16, goldShape, typeValue(Uint16, 11*c))
		if v.VoxelSize != [3]float64{2, 0.25, 0.5} {
			t.Errorf("channel %d: voxel size %v", c, v.VoxelSize)
		}
		v.Close()
		d, err := Inspect(spec)
		if err != nil {
			t.Fatal(err)
		}
		if want := "2 (0, 1); reading channel " + string(rune('0'+c)) + ", pick one as FILE:/channel/N"; d.Format != "tiff" || header(d, "channels") != want {
			t.Errorf("info: %s %q, want tiff %q", d.Format, header(d, "channels"), want)
		}
	}
}

// TestPlaneDirOfSamples reads folders of 2D planes of several samples
// (RGB interleaved; two channels stored separately): each plane's first
// sample.
func TestPlaneDirOfSamples(t *testing.T) {
	for _, tc := range []struct {
		dir string
		dt  DType
	}{{"rgb_planes", Uint8}, {"separate_planes", Int16}} {
		v, err := Open("testdata/types/" + tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		checkVolume(t, v, tc.dt, goldShape, typeValue(tc.dt, 0))
		v.Close()
	}
}

func TestOMETimePoints(t *testing.T) {
	d, err := Inspect("testdata/types/tzcyx.ome.tif")
	if err != nil {
		t.Fatal(err)
	}
	if header(d, "dimensions") != "Z 3, C 2, T 2 (order XYCZT)" || len(d.Notes) != 1 || d.Notes[0] != "2 time points: voxlab reads the first" ||
		header(d, "pages") != "3 (channel 0's, of 12 in the file)" {
		t.Errorf("info: %+v %v", d.Header, d.Notes)
	}
}
