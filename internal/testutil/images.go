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

// SavePNG writes img as a PNG file at path.
func SavePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CheckExample runs example, which saves a picture named name in the
// working directory (as the examples of the packages' documentation
// do), in a temporary folder, and compares the picture pixel for pixel
// with testdata/name (Fyne's software painter draws the same pixels on
// every machine); with update it replaces testdata/name instead, to be
// looked at before committing. gonum/plot's cmpimg.CheckPlot does the
// same for its examples, which have no Output comment either, so that go
// test only compiles them and this runs them.
func CheckExample(t *testing.T, update bool, name string, example func()) {
	t.Helper()
	golden, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	example()
	got := ReadPNG(t, name)
	t.Chdir(wd) // a failure's pictures go under the package's testdata/failed
	if update {
		if err := SavePNG(golden, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	SamePixels(t, name, got, ReadPNG(t, golden))
}
