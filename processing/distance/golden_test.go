package distance

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// goldenCase is one entry of testdata/golden.json (made by golden.py).
type goldenCase struct {
	Name      string   `json:"name"`
	Box       int      `json:"box"`
	NGT       int      `json:"ngt"`
	NSub      int      `json:"nsub"`
	Radius    float64  `json:"radius"`
	Normalize string   `json:"normalize"`
	Voxel     float64  `json:"voxel"`
	Metrics   []string `json:"metrics"`
}

func readLE[T float32 | float64](t *testing.T, name string, n int) []T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]T, n)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// goldenInputs loads a case's maps, mask (from the mask file, checked
// against SphereMask) and configuration.
func goldenInputs(t *testing.T, c goldenCase) (gt, sub *MemMaps, cfg Config) {
	t.Helper()
	v := c.Box * c.Box * c.Box
	gt, err := NewMemMaps(readLE[float32](t, c.Name+"-gt.f32", c.NGT*v), c.NGT, c.Box)
	if err != nil {
		t.Fatal(err)
	}
	sub, err = NewMemMaps(readLE[float32](t, c.Name+"-sub.f32", c.NSub*v), c.NSub, c.Box)
	if err != nil {
		t.Fatal(err)
	}
	mask, err := MaskFromMap(c.Box, readLE[float32](t, c.Name+"-mask.f32", v))
	if err != nil {
		t.Fatal(err)
	}
	if c.Radius > 0 {
		sphere, err := SphereMask(c.Box, c.Radius)
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(sphere.Index, mask.Index) {
			t.Fatalf("%s: SphereMask(%d, %g) keeps %d voxels, numpy's sphere %d", c.Name, c.Box, c.Radius, sphere.Len(), mask.Len())
		}
	}
	norm, err := ParseNormalization(c.Normalize)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMetrics(strings.Join(c.Metrics, ","))
	if err != nil {
		t.Fatal(err)
	}
	return gt, sub, Config{Metrics: ms, Mask: mask, Normalize: norm, VoxelSize: c.Voxel, AutoChunk: true}
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		gt, sub, cfg := goldenInputs(t, c)
		for _, low := range []bool{false, true} {
			cfg.LowMemory = low
			res, err := Run(context.Background(), nil, gpu.NewCPU(), cfg, gt, sub)
			if err != nil {
				t.Fatalf("%s low=%v: %v", c.Name, low, err)
			}
			for k, m := range res.Metrics {
				want := readLE[float64](t, c.Name+"-"+m.String()+".f64", c.NGT*c.NSub)
				for i, w := range want {
					if got := res.Matrices[k][i]; !closeTo(got, w, 1e-9) {
						t.Errorf("%s low=%v %s[%d,%d] = %.15g, numpy %.15g", c.Name, low, m, i/c.NSub, i%c.NSub, got, w)
					}
				}
			}
		}
	}
}

// closeTo reports |a − b| ≤ tol·max(1, |b|).
func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
