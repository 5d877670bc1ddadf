package matrix

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteNPYMatchesNumpy: the bytes numpy.save writes (testdata/gen.py).
func TestWriteNPYMatchesNumpy(t *testing.T) {
	want, err := os.ReadFile("testdata/golden.npy")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.npy")
	if err := WriteNPY(path, 2, 3, []float64{0.1, -2.5, 1e-300, math.Pi, math.Inf(1), math.Float64frombits(0x7ff8000000000000)}); err != nil { // numpy's NaN bits
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Errorf("WriteNPY wrote\n%q\nnumpy.save wrote\n%q", got, want)
	}
	if err := WriteNPY(path, 2, 2, []float64{1}); err == nil {
		t.Error("wrong count accepted")
	}
}

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.csv")
	if err := WriteCSV(path, 2, 2, []float64{0.1, 2, -3e-20, 1.0 / 3}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "0.1,2\n-3e-20,0.3333333333333333\n"; string(got) != want {
		t.Errorf("CSV %q, want %q", got, want)
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels.json")
	if err := WriteJSON(path, []string{"gt", "a"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "[\n  \"gt\",\n  \"a\"\n]\n" {
		t.Errorf("wrote %q", b)
	}
	bad := filepath.Join(t.TempDir(), "missing", "s.json")
	if err := WriteJSON(bad, 1); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("into a missing folder: %v", err)
	}
	if err := WriteJSON(path, math.NaN()); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("NaN: %v", err)
	}
}

// TestColumns: a group's points are its matrix's columns x and y, row
// by row, and a group of unequal coordinates is refused.
func TestColumns(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}                // 2 × 3
	b := []float64{7, 8, 9, 10, 11, 12, 13, 14, 15} // 3 × 3
	s := Columns("e", []string{"a", "b"}, [][]float64{a, b}, 3, 0, 2)
	if s.XLabel != "Z1" || s.YLabel != "Z3" || len(s.Groups) != 2 || s.Groups[1].Label != "b" {
		t.Fatalf("%+v", s)
	}
	if g := s.Groups[0]; !slices.Equal(g.X, []float64{1, 4}) || !slices.Equal(g.Y, []float64{3, 6}) {
		t.Errorf("group a: %v, %v", g.X, g.Y)
	}
	if g := s.Groups[1]; !slices.Equal(g.X, []float64{7, 10, 13}) || !slices.Equal(g.Y, []float64{9, 12, 15}) {
		t.Errorf("group b: %v, %v", g.X, g.Y)
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
	s.Groups[1].Y = s.Groups[1].Y[:1]
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "group b") {
		t.Errorf("unequal coordinates: %v", err)
	}
}
