package matrix

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
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
