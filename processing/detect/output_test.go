package detect

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCSVAndXML(t *testing.T) {
	c := []Candidate{{1, 2, 3, Cell}, {1, 2, 9, Artifact}, {4, 5, 6, Cell}}
	var b strings.Builder
	if err := WriteCSV(&b, c); err != nil {
		t.Fatal(err)
	}
	if want := "z,y,x,type\n1,2,3,cell\n1,2,9,artifact\n4,5,6,cell\n"; b.String() != want {
		t.Errorf("CSV:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteXML(&b, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"CellCounter_Marker_File"`
		File    string   `xml:"Image_Properties>Image_Filename"`
		Types   []struct {
			Type    int `xml:"Type"`
			Markers []struct {
				X int `xml:"MarkerX"`
				Y int `xml:"MarkerY"`
				Z int `xml:"MarkerZ"`
			} `xml:"Marker"`
		} `xml:"Marker_Data>Marker_Type"`
	}
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Types) != 2 || doc.Types[0].Type != 1 || doc.Types[1].Type != 2 ||
		len(doc.Types[0].Markers) != 1 || doc.Types[0].Markers[0].X != 9 ||
		len(doc.Types[1].Markers) != 2 || doc.Types[1].Markers[1].Z != 4 || doc.Types[1].Markers[1].Y != 5 {
		t.Errorf("XML parsed as %+v", doc)
	}
	b.Reset()
	WriteXML(&b, nil)
	if strings.Contains(b.String(), "Marker_Type") {
		t.Error("an empty result has marker types")
	}
}

// The CSV and the XML are committed together: when the XML cannot be put
// in place after everything was written (its path is a folder), the CSV
// of the previous run is still there, untouched, and no temporary file
// is left; when both can, both are replaced.
func TestWriteFilesCommitsBothOrNeither(t *testing.T) {
	dir := t.TempDir()
	csvPath, xmlPath := filepath.Join(dir, "cells.csv"), filepath.Join(dir, "cells.xml")
	old := "z,y,x,type\n7,7,7,cell\n"
	if err := os.WriteFile(csvPath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(xmlPath, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := []Candidate{{1, 2, 3, Cell}}
	if err := WriteFiles(csvPath, xmlPath, c); err == nil {
		t.Fatal("writing the XML onto a folder succeeded")
	}
	if b, _ := os.ReadFile(csvPath); string(b) != old {
		t.Errorf("the previous CSV was not kept: it holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want cells.csv and cells.xml only", names)
	}

	if err := os.RemoveAll(xmlPath); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(csvPath, xmlPath, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(csvPath); string(b) != "z,y,x,type\n1,2,3,cell\n" {
		t.Errorf("CSV holds %q", b)
	}
	if b, _ := os.ReadFile(xmlPath); !strings.Contains(string(b), "<MarkerX>3</MarkerX>") {
		t.Errorf("XML holds %q", b)
	}
	// Without an XML only the CSV is written.
	if err := WriteFiles(csvPath, "", nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(csvPath); string(b) != "z,y,x,type\n" {
		t.Errorf("CSV holds %q", b)
	}
}
