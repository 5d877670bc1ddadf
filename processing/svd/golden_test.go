package svd

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// The golden files are testdata/gen_golden.py's: numpy's exact
// linalg.svd of each set of maps (normalised, mean removed) and the
// challenge's own compute_distance_matrix on those SVDs.

// readMatrix reads testdata's 2D NPY name.
func readMatrix(t *testing.T, name string) (rows, cols int, x []float64) {
	t.Helper()
	return readMatrixFile(t, filepath.Join("testdata", name))
}

// readMatrixFile reads a 2D NPY of float32 or float64 as float64.
func readMatrixFile(t *testing.T, path string) (rows, cols int, x []float64) {
	t.Helper()
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	switch v.DType {
	case volume.Float64:
		x = slices.Clone(volume.Float64s(b))
	case volume.Float32:
		for _, f := range volume.Float32s(b) {
			x = append(x, float64(f))
		}
	default:
		t.Fatalf("%s: %s", path, v.DType)
	}
	return v.Shape[1], v.Shape[2], x
}

var sets = []string{"challenge_gt", "challenge_coffee", "synthetic_a", "synthetic_b"}

const rank = 5

func svdOf(t *testing.T, name string, chunk int) *Result {
	t.Helper()
	n, d, x := readMatrix(t, name+"_maps.npy")
	r, err := GramSVD(context.Background(), &matrixSource{n, d, x}, rank, chunk, runtime.GOMAXPROCS(0))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// columnsAgree: each column of got is ± the same column of want, to tol
// (|cos| of the angle between them within tol of 1).
func columnsAgree(t *testing.T, what string, got, want []float64, rows, cols int, tol float64) {
	t.Helper()
	for c := range cols {
		var dot, ng, nw float64
		for i := range rows {
			g, w := got[i*cols+c], want[i*cols+c]
			dot, ng, nw = dot+g*w, ng+g*g, nw+w*w
		}
		if cos := math.Abs(dot) / math.Sqrt(ng*nw); math.Abs(cos-1) > tol {
			t.Errorf("%s column %d: |cos| %.15f with numpy's", what, c, cos)
		}
	}
}

// TestGramSVDMatchesNumPy: on the challenge's test maps and synthetic
// sets, read in slabs of 1,000 voxels (and whole), the singular values
// are numpy's to 1e-9, each left singular vector numpy's up to sign
// (|cos| within 1e-9 of 1) and each eigenvector (V) numpy's (within
// 1e-6: the golden V is stored as float32).
func TestGramSVDMatchesNumPy(t *testing.T) {
	for _, name := range sets {
		for _, chunk := range []int{1000, 1 << 30} {
			r := svdOf(t, name, chunk)
			_, _, s := readMatrix(t, name+"_s.npy")
			for k := range rank {
				if math.Abs(r.S[k]-s[k]) > 1e-9*s[0] {
					t.Errorf("%s, chunk %d: S[%d] = %.15g, numpy's %.15g", name, chunk, k, r.S[k], s[k])
				}
			}
			_, _, u := readMatrix(t, name+"_u.npy")
			columnsAgree(t, name+" U", r.U, u, r.N, rank, 1e-9)
			if _, err := os.Stat(filepath.Join("testdata", name+"_v.npy")); err == nil {
				_, _, v := readMatrix(t, name+"_v.npy")
				columnsAgree(t, name+" V", r.V, v, r.D, rank, 1e-6)
			}
		}
	}
}

// TestDistanceMatrixMatchesChallenge: the captured-variance matrix and
// its labels, with and without the ground truth, are the challenge's
// compute_distance_matrix's to 1e-5 (in the challenge's order).
func TestDistanceMatrixMatchesChallenge(t *testing.T) {
	var golden struct {
		WithGT, WithoutGT struct {
			Matrix [][]float64
			Labels []string
		}
	}
	b, err := os.ReadFile("testdata/golden_svd.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &struct {
		W *struct {
			Matrix [][]float64
			Labels []string
		} `json:"with_gt"`
		WO *struct {
			Matrix [][]float64
			Labels []string
		} `json:"without_gt"`
	}{&golden.WithGT, &golden.WithoutGT}); err != nil {
		t.Fatal(err)
	}
	subs, labels := []*Result{}, []string{}
	for _, name := range sets[1:] {
		subs, labels = append(subs, svdOf(t, name, 1000)), append(labels, name)
	}
	gt := svdOf(t, "challenge_gt", 1000)
	for _, c := range []struct {
		name string
		gt   *Result
		want struct {
			Matrix [][]float64
			Labels []string
		}
	}{{"with the ground truth", gt, golden.WithGT}, {"without", nil, golden.WithoutGT}} {
		m, got, err := DistanceMatrix(subs, labels, c.gt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want.Labels) {
			t.Errorf("%s: labels %v, the challenge's %v", c.name, got, c.want.Labels)
		}
		want := slices.Concat(c.want.Matrix...)
		for i := range want {
			if math.Abs(m[i]-want[i]) > 1e-5 {
				t.Errorf("%s: [%d] = %.12g, the challenge's %.12g", c.name, i, m[i], want[i])
			}
		}
	}
}
