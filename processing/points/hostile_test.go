package points

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/volume/fileio"
	"github.com/voxlab/voxlab/processing/volume/fileio/memtest"
)

// TestCSVByteOrderMark: Excel's "CSV UTF-8" starts with a byte order
// mark; the header after it is still the header.
func TestCSVByteOrderMark(t *testing.T) {
	p := write(t, "bom.csv", "\ufeffz,y,x,type\n1,2,3,cell\n4.5,5,6,non-cell\n")
	pts, err := ReadCSV(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{1, 2, 3, "cell"}, {4.5, 5, 6, "non-cell"}}
	if len(pts) != 2 || pts[0] != want[0] || pts[1] != want[1] {
		t.Errorf("points %v, want %v", pts, want)
	}
	// Without a header, the BOM does not spoil the first coordinate.
	pts, err = ReadCSV(write(t, "bom2.csv", "\ufeff1,2,3\n"))
	if err != nil || len(pts) != 1 || pts[0].Z != 1 {
		t.Errorf("headerless: %v %v", pts, err)
	}
}

// marker is a marker file with one good marker, then body.
func marker(body string) string {
	return "<?xml version=\"1.0\"?>\n<CellCounter_Marker_File>\n<Marker_Data>\n<Marker_Type>\n<Type>2</Type>\n" +
		"<Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker>\n" + body +
		"\n</Marker_Type>\n</Marker_Data>\n</CellCounter_Marker_File>\n"
}

// TestHugeValuesNotEchoed: an error repeats at most 80 characters of
// the bad value, marked as cut.
func TestHugeValuesNotEchoed(t *testing.T) {
	big := strings.Repeat("7", 1<<20) + "x"
	for _, tc := range []struct{ name, content, want string }{
		{"x.xml", marker("<Marker><MarkerX>" + big + "</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker>"), `MarkerX "` + strings.Repeat("7", 80) + `"… is not a number`},
		{"t.xml", "<CellCounter_Marker_File><Marker_Data><Marker_Type>\n<Type>" + big + "</Type>\n</Marker_Type></Marker_Data></CellCounter_Marker_File>", `marker type "` + strings.Repeat("7", 80) + `"… is not a number`},
		{"r.xml", "<" + strings.Repeat("a", 1<<20) + "></" + strings.Repeat("a", 1<<20) + ">", "<" + strings.Repeat("a", 80) + "…>"},
		{"c.csv", "1,2," + big[:1<<19] + "x\n", `x "` + strings.Repeat("7", 80) + `"… is not a number`},
	} {
		_, err := Read(write(t, tc.name, tc.content))
		if err == nil {
			t.Fatalf("%s: read", tc.name)
		}
		if len(err.Error()) > 400 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error of %d bytes %.300q, want one saying %q", tc.name, len(err.Error()), err, tc.want)
		}
	}
}

// endless is a CSV of one line: "1,2," then n digits.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && int64(k) < e.n {
		p[k] = '7'
		k++
	}
	e.n -= int64(k)
	return k, nil
}

// TestHostileCSVAndXMLBounded: a 200 MB CSV line, and /dev/zero linked
// as a CSV or marker file, are refused within bounded memory. They run
// in a child process under an address-space limit (1 GiB over what it
// maps at start), so that unbounded code fails there, and the child's
// peak RSS must stay under 128 MiB.
func TestHostileCSVAndXMLBounded(t *testing.T) {
	if memtest.InChild(t, 1<<30) {
		_, err := readCSV(io.MultiReader(strings.NewReader("z,y,x\n1,2,"), &endless{200e6}), "long.csv")
		if err == nil || !strings.Contains(err.Error(), "long.csv") || !strings.Contains(err.Error(), "line 2 is longer than 1 MiB") {
			t.Errorf("a 200 MB line: %v", err)
		}
		dir := t.TempDir()
		for _, name := range []string{"zero.csv", "zero.xml"} {
			p := filepath.Join(dir, name)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			_, err := Read(p)
			if err == nil || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Errorf("/dev/zero as %s: %v", name, err)
			}
		}
		return
	}
	r := memtest.Run(t)
	if r.Err != nil {
		t.Fatalf("child: %v\n%s", r.Err, r.Output)
	}
	if r.PeakRSS > memtest.Bound(128<<20) {
		t.Errorf("peak RSS %d MiB, want under %d", r.PeakRSS>>20, memtest.Bound(128<<20)>>20)
	}
	t.Logf("peak RSS %d MiB", r.PeakRSS>>20)
}

// TestFIFOPoints: a FIFO named like a points file is refused at once
// (the deadline only catches a reader blocked opening it).
func TestFIFOPoints(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"f.csv", "f.xml"} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := Read(p); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			t.Errorf("reading FIFO %s hangs", name)
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			err = <-done
		}
		if err == nil || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("FIFO %s: %v", name, err)
		}
	}
}
