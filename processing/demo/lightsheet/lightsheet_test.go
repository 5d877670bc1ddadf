package lightsheet

import (
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

func TestBrainDeterministic(t *testing.T) {
	a, b, c := New(SmallShape, 3), New(SmallShape, 3), New(SmallShape, 4)
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
	b := New(SmallShape, 1)
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
