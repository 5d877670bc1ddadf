package detect

import (
	"encoding/xml"
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
