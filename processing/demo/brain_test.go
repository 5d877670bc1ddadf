package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

func TestWriteBrain(t *testing.T) {
	dir := t.TempDir()
	if err := WriteBrain(dir, Small, 5); err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(filepath.Join(dir, BrainPlanes))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b := NewBrain(Small, 5)
	if v.Shape != b.Info().Shape || v.DType != volume.Uint16 {
		t.Fatalf("wrote %v %s", v.Shape, v.DType)
	}
	got := make([]byte, v.PlaneBytes()*2)
	if err := v.ReadSlab(17, 19, got); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(got))
	b.ReadSlab(17, 19, want)
	if !bytes.Equal(got, want) {
		t.Error("planes read back differ from the generator's")
	}
	csv, err := os.ReadFile(filepath.Join(dir, BrainCells))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "z,y,x" || len(lines)-1 != len(b.Cells()) {
		t.Errorf("cells.csv: header %q, %d rows for %d cells", lines[0], len(lines)-1, len(b.Cells()))
	}
}
