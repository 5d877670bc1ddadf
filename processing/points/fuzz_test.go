package points

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzScanSimple: whenever the direct scanner accepts a file, encoding/xml
// reads the same points from it; and reading never panics.
func FuzzScanSimple(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.xml")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("<CellCounter_Marker_File><Marker_Data><Marker_Type><Type>2</Type><Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := scanSimple(data)
		slow, err := readXML(bytes.NewReader(data), "fuzz.xml")
		if ok && (err != nil || !slices.Equal(fast, slow)) {
			t.Fatalf("direct scan %d points, encoding/xml %d points, %v", len(fast), len(slow), err)
		}
	})
}

// TestSaveFailureKeepsTarget: a save that cannot complete leaves the
// target as it was and no temporary file.
func TestSaveFailureKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	if err := Save(filepath.Join(dir, "missing", "c.csv"), []Point{{Z: 1}}); err == nil {
		t.Error("saved into a folder that does not exist")
	}
	target := filepath.Join(dir, "cells.xml")
	os.Mkdir(target, 0o755) // a folder where the file should go
	if err := Save(target, []Point{{Z: 1, Type: TypeCell}}); err == nil {
		t.Error("saved over a folder")
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		t.Errorf("target changed: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestScanSimpleDeclines: names and bytes encoding/xml refuses are left
// to it (found by FuzzScanSimple).
func TestScanSimpleDeclines(t *testing.T) {
	for _, s := range []string{
		"<CellCounter_Marker_File><1></1></CellCounter_Marker_File>",
		"<CellCounter_Marker_File><-a></-a></CellCounter_Marker_File>",
		"<CellCounter_Marker_File><a>\xff</a></CellCounter_Marker_File>",
		"<CellCounter_Marker_File><a>\x00</a></CellCounter_Marker_File>",
	} {
		if _, ok := scanSimple([]byte(s)); ok {
			t.Errorf("%q scanned directly", s)
		}
		if _, err := readXML(bytes.NewReader([]byte(s)), "x.xml"); err == nil {
			t.Errorf("%q: encoding/xml took it", s)
		}
	}
}

// FuzzCSV: any bytes either read as points or give an error naming the
// file; never a panic, never more points than lines.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"z,y,x,type\n1,2,3,cell\n4,5,6,non-cell\n",
		"\ufeffz,y,x\n1,2,3\n",
		"# comment\naxis-0,axis-1,axis-2\n1.5,2,3\n",
		"1,2,\"3\",\"a,b\"\n",
		"1,2," + strings.Repeat("9", 400) + "x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := readCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if len(pts) > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d points from %d lines", len(pts), bytes.Count(data, []byte("\n"))+1)
		}
	})
}
