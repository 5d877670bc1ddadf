package testutil

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// SamePixels fails t when got and want differ in size or in any pixel,
// saying how many differ and where, and writes both to testdata/failed
// as name and want_name (beside the test's package) to be looked at.
func SamePixels(t testing.TB, name string, got, want image.Image) {
	t.Helper()
	if got.Bounds() != want.Bounds() {
		t.Fatalf("%s: image %v, want %v", name, got.Bounds(), want.Bounds())
	}
	bad := 0
	var box image.Rectangle
	b := got.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r1, g1, b1, a1 := got.At(x, y).RGBA()
			r2, g2, b2, a2 := want.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				bad++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d pixels differ, within %v", name, bad, b.Dx()*b.Dy(), box)
		WriteFailed(name, got)
		WriteFailed("want_"+name, want)
	}
}

// WriteFailed writes img to testdata/failed/name, for a test that found
// it wrong; errors are ignored (the test has failed already).
func WriteFailed(name string, img image.Image) {
	os.MkdirAll(filepath.Join("testdata", "failed"), 0o755)
	if out, err := os.Create(filepath.Join("testdata", "failed", name)); err == nil {
		png.Encode(out, img)
		out.Close()
	}
}
