package h5

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestExternalLinkScan opens gen_links.py's look-alike of httomo's DIAD
// scan, whose frames sit in another file behind an external link that
// an NXdata signal reaches through a soft link, with no dataset named:
// it used to fail listing the 480 scalar datasets and never the frames.
// Its rotation angles are found beside the frames. It is found from
// another working folder too (the link is relative to
// the file holding it).
func TestExternalLinkScan(t *testing.T) {
	abs, err := filepath.Abs("testdata/k11.nxs")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	v, err := volume.Open(abs + ":/entry/imaging/data")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Shape != [3]int{13, 22, 26} || v.DType != volume.Uint16 {
		t.Fatalf("opened %s %v %s", v.Name, v.Shape, v.DType)
	}
	check(t, v, 0, 13, same, ints(60000))
	if !IsNeXus(abs) {
		t.Fatal("not recognised as a NeXus scan")
	}
	nx, err := OpenNeXus(abs)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	c := nx.Counts()
	if c.Projections != 8 || c.Flats != 3 || c.Darks != 2 {
		t.Errorf("counts %+v, want 8 projections, 3 flats, 2 darks", c)
	}
	if nx.Data.Name != abs+":/entry/imaging/data" {
		t.Errorf("frames at %s", nx.Data.Name)
	}
	check(t, nx.Projections, 0, 8, func(i int) int { return nx.ProjectionFrames[i] }, ints(60000))
	// The angles beside the frames in their NXdata group (DIAD's
	// gts_theta_value, 90 + 15·frame degrees in gen_links.py), one per
	// projection: frames 4 to 11.
	if len(nx.Angles) != 8 {
		t.Fatalf("%d angles, want one per projection (8): DIAD keeps them at /entry/imaging/gts_theta_value", len(nx.Angles))
	}
	for i, a := range nx.Angles {
		if want := 90 + 15*float64(4+i); a != want {
			t.Errorf("angle of projection %d: %g, want %g", i, a, want)
		}
	}
	// Without a dataset: the projections, as in every command.
	bare, err := volume.Open(abs)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if bare.Shape != [3]int{8, 22, 26} {
		t.Fatalf("bare path opened %s %v", bare.Name, bare.Shape)
	}
	check(t, bare, 0, 8, func(i int) int { return nx.ProjectionFrames[i] }, ints(60000))
}

// TestDanglingExternalLink opens the look-alike whose external link
// points at a file that is not there: the error says so, in a few
// lines, instead of listing every scalar dataset.
func TestDanglingExternalLink(t *testing.T) {
	p := filepath.Join("testdata", "k11_dangling.nxs")
	for _, op := range []func() error{
		func() error { v, err := volume.Open(p); closeIf(v); return err },
		func() error { _, err := volume.Inspect(p); return err },
	} {
		err := op()
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		for _, w := range []string{p, "/entry/instrument/imaging/data links to k11/k11-missing.h5, which is missing"} {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
		if len(msg) > 1000 || strings.Contains(msg, "value_") {
			t.Errorf("error of %d bytes lists scalars: %.300s", len(msg), msg)
		}
	}
}

// TestSeveral3D: without a dataset named, a file of several 3D datasets
// fails to open with the list of them (path, shape, dtype, chunks,
// filters) and how to name one, and info describes the file with that
// list; it used to say "not one 3D dataset".
func TestSeveral3D(t *testing.T) {
	p := filepath.Join("testdata", "several.h5")
	want := []string{
		"name one as " + p + ":/path",
		"/raw  (13, 22, 26) uint16, contiguous",
		"/processed/filtered  (4, 8, 9) uint16, chunks (1, 8, 9), shuffle | gzip (level 4)",
		"/processed/mask  (2, 3, 4) uint8, contiguous",
	}
	v, err := volume.Open(p)
	if err == nil {
		v.Close()
		t.Fatal("opened without a dataset named")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "/angles") || strings.Contains(err.Error(), "/count") {
		t.Errorf("error lists 1D or scalar datasets: %v", err)
	}
	d, err := volume.Inspect(p)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(d.Notes, "\n")
	for _, w := range want {
		if !strings.Contains(notes, w) {
			t.Errorf("info notes %q do not say %q", notes, w)
		}
	}
	v, err = volume.Open(p + ":/processed/filtered")
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
}
