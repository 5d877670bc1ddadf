package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

func TestBrainDeterministic(t *testing.T) {
	a, b, c := NewBrain(Small, 3), NewBrain(Small, 3), NewBrain(Small, 4)
	pa, pb, pc := make([]uint16, 256*256), make([]uint16, 256*256), make([]uint16, 256*256)
	a.Plane(30, pa)
	b.Plane(30, pb)
	c.Plane(30, pc)
	if string(volume.Bytes(pa)) != string(volume.Bytes(pb)) {
		t.Error("same seed, different planes")
	}
	if string(volume.Bytes(pa)) == string(volume.Bytes(pc)) {
		t.Error("different seeds, same planes")
	}
	if len(a.Cells()) < 100 {
		t.Errorf("%d cells in the small brain", len(a.Cells()))
	}
}

// TestBrainLooksLikeTissue: somata are bright above the tissue, the
// tissue above the background, the corners dark.
func TestBrainLooksLikeTissue(t *testing.T) {
	b := NewBrain(Small, 1)
	nx := b.info.Shape[2]
	for _, c := range b.Cells()[:20] {
		p := make([]uint16, 256*256)
		b.Plane(c[0], p)
		centre := p[c[1]*nx+c[2]]
		corner := p[0]
		if centre < 1000 || corner > 200 {
			t.Fatalf("cell %v: centre %d, corner %d", c, centre, corner)
		}
		if b.inside[c[1]*nx+c[2]] < 24 {
			t.Errorf("cell %v is %g px inside the tissue", c, b.inside[c[1]*nx+c[2]])
		}
	}
}

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
	if v.Shape != b.info.Shape || v.DType != volume.Uint16 {
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
