package volume

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenTIFFCodecs reads the TIFF files libtiff's tiffcp wrote with
// Zstandard and with the floating-point predictor (testdata/gen_codecs.py)
// and compares them bit for bit with the values tifffile wrote them from
// (NaN, -0, infinities and subnormals included).
func TestGoldenTIFFCodecs(t *testing.T) {
	files, _ := filepath.Glob("testdata/codecs/*.tif")
	if len(files) < 12 {
		t.Fatalf("testdata/codecs holds %d TIFF files; run gen_codecs.py", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".tif")
		t.Run(name, func(t *testing.T) {
			spec := f
			if strings.HasSuffix(name, "_samples") {
				spec += ":/channel/1"
			}
			got, err := Open(spec)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			want, err := Open(strings.TrimSuffix(f, ".tif") + ".npy")
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()
			if got.Info.Shape != want.Shape || got.DType != want.DType {
				t.Fatalf("%v %s, want %v %s", got.Shape, got.DType, want.Shape, want.DType)
			}
			g, err := got.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			w, _ := want.ReadAll()
			if !bytes.Equal(g, w) {
				es := got.DType.Size()
				for i := 0; i < len(g); i += es {
					if !bytes.Equal(g[i:i+es], w[i:i+es]) {
						t.Fatalf("voxel %d: bytes %x, want %x", i/es, g[i:i+es], w[i:i+es])
					}
				}
			}
			// Plane by plane too: the strip buffers carry over.
			pb := got.PlaneBytes()
			buf := make([]byte, pb)
			for z := got.Shape[0] - 1; z >= 0; z-- {
				if err := got.ReadSlab(z, z+1, buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, w[int64(z)*pb:int64(z+1)*pb]) {
					t.Fatalf("plane %d differs", z)
				}
			}
			d, err := Inspect(spec)
			if err != nil {
				t.Fatal(err)
			}
			var comp string
			for _, fl := range d.Header {
				if fl.Name == "compression" {
					comp = fl.Value
				}
			}
			if wantComp := map[string]string{"zstd": "Zstandard", "deflate": "Deflate", "lzw": "LZW"}[strings.Split(name, "_")[0]]; !strings.HasPrefix(comp, wantComp) {
				t.Errorf("info says compression %q, want %s", comp, wantComp)
			}
			if strings.Contains(name, "pred3") != strings.Contains(comp, "floating-point predictor") {
				t.Errorf("info says compression %q", comp)
			}
		})
	}
}

// TestFloatPredictorRefusedOnIntegers: predictor 3 on integer samples
// is a damaged file, refused naming the problem.
func TestFloatPredictorRefusedOnIntegers(t *testing.T) {
	b := tiffWithTags(t, map[uint16]uint64{tagPredictor: 3})
	_, err := readTIFF("x.tif", bytes.NewReader(b), int64(len(b)), 0)
	if err == nil || !strings.Contains(err.Error(), "floating-point predictor (3) on uint16") {
		t.Fatalf("error %v", err)
	}
}
