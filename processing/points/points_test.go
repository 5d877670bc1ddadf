package points

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCellfinderFiles: cellfinder's own files open with the counts per
// type its reader gives (56 cells; 2 non-cells), and writing what was
// read gives back the very bytes cellfinder wrote.
func TestCellfinderFiles(t *testing.T) {
	for _, c := range []struct {
		file           string
		cells, noncell int
		first          Point
	}{
		{"cellfinder_cell_classification.xml", 56, 0, Point{Z: 10, Y: 308, X: 132, Type: TypeCell}},
		{"cellfinder_cube_extract_cells.xml", 0, 2, Point{Z: 15, Y: 1004, X: 340, Type: TypeNonCell}},
		{"two_types.xml", 4, 3, Point{Z: 0, Y: 5, X: 11, Type: TypeNonCell}},
	} {
		path := filepath.Join("testdata", c.file)
		pts, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		s := Summarize(pts)
		if s.ByClass[Cell] != c.cells || s.ByClass[NonCell] != c.noncell || s.N != c.cells+c.noncell {
			t.Errorf("%s: %d cells, %d non-cells of %d", c.file, s.ByClass[Cell], s.ByClass[NonCell], s.N)
		}
		if pts[0] != c.first {
			t.Errorf("%s: first point %+v, want %+v", c.file, pts[0], c.first)
		}
		want, _ := os.ReadFile(path)
		var got bytes.Buffer
		if err := WriteXML(&got, pts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: written again differs from the file:\n%s", c.file, got.String())
		}
	}
}

// TestRoundTrip: a saved file reads back to the same points (XML to whole
// voxels), and a saved XML or CSV read and saved again is byte-stable.
func TestRoundTrip(t *testing.T) {
	pts := []Point{
		{Z: 3, Y: 4.25, X: 5.5, Type: TypeCell},
		{Z: 0, Y: 0, X: 1e-3, Type: "artifact"},
		{Z: 7, Y: 8, X: 9, Type: TypeUnknown},
		{Z: 1, Y: 2, X: 3, Type: "odd, \"quoted\""},
		{Z: 12, Y: 2, X: 3, Type: "type 5"},
		{Z: -2, Y: 1000, X: 3},
	}
	dir := t.TempDir()
	for _, ext := range []string{".csv", ".xml"} {
		p1 := filepath.Join(dir, "a"+ext)
		if err := Save(p1, pts); err != nil {
			t.Fatal(err)
		}
		back, err := Read(p1)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(pts) {
			t.Fatalf("%s: %d points back of %d", ext, len(back), len(pts))
		}
		if ext == ".csv" {
			for i := range pts {
				if back[i] != pts[i] {
					t.Errorf("csv point %d: %+v, want %+v", i, back[i], pts[i])
				}
			}
		} else {
			// Grouped by code in ascending order: 1, 2, 5.
			wantTypes := []string{TypeNonCell, TypeNonCell, TypeNonCell, TypeNonCell, TypeCell, "type 5"}
			for i, p := range back {
				if p.Type != wantTypes[i] {
					t.Errorf("xml point %d type %q, want %q", i, p.Type, wantTypes[i])
				}
			}
			if back[4] != (Point{Z: 3, Y: 4, X: 6, Type: TypeCell}) {
				t.Errorf("xml cell %+v: want rounded to (3, 4, 6)", back[4])
			}
		}
		p2 := filepath.Join(dir, "b"+ext)
		if err := Save(p2, back); err != nil {
			t.Fatal(err)
		}
		b1, _ := os.ReadFile(p1)
		b2, _ := os.ReadFile(p2)
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s not byte-stable:\n%s\n---\n%s", ext, b1, b2)
		}
	}
}

// TestBadInput: each bad file is an error naming the file and the line
// of the problem, and no points come back.
func TestBadInput(t *testing.T) {
	marker := func(body string) string {
		return "<?xml version=\"1.0\"?>\n<CellCounter_Marker_File>\n<Marker_Data>\n<Marker_Type>\n<Type>2</Type>\n" +
			"<Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker>\n" + body +
			"\n</Marker_Type>\n</Marker_Data>\n</CellCounter_Marker_File>\n"
	}
	for _, c := range []struct {
		name, content, want string
	}{
		{"nonnum.csv", "z,y,x,type\n1,2,3,cell\n4,five,6,cell\n", "line 3: y \"five\" is not a number"},
		{"missing.csv", "z,y,x,type\n1,2,3,cell\n4,,6,cell\n", "line 3: y is missing"},
		{"short.csv", "1,2,3\n4,5\n", "line 2: 2 columns"},
		{"nan.csv", "1,2,NaN\n", "line 1: x \"NaN\" is not a number"},
		{"nonnum.xml", marker("<Marker><MarkerX>1</MarkerX><MarkerY>b</MarkerY><MarkerZ>3</MarkerZ></Marker>"), "line 7: MarkerY \"b\" is not a number"},
		{"missing.xml", marker("<Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY>\n</Marker>"), "line 8: <Marker> without <MarkerZ>"},
		{"empty.xml", marker("<Marker><MarkerX></MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker>"), "line 7: <MarkerX> is empty"},
		{"badtype.xml", "<CellCounter_Marker_File><Marker_Data><Marker_Type>\n<Type>cell</Type>\n</Marker_Type></Marker_Data></CellCounter_Marker_File>", "line 2: marker type \"cell\" is not a number"},
		{"other.xml", "<?xml version=\"1.0\"?>\n<svg></svg>\n", "line 2: root element is <svg>"},
		{"cut.xml", marker("<Marker><MarkerX>1</MarkerX>")[:150], "line 6: XML syntax error"},
		{"broken.xml", "<CellCounter_Marker_File>\n<Marker_Data>\n</Marker_Type>\n", "line 3: </Marker_Type> closes <Marker_Data>"},
	} {
		p := write(t, c.name, c.content)
		pts, err := Read(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
		if pts != nil {
			t.Errorf("%s: %d points half-loaded", c.name, len(pts))
		}
	}
}

func TestOutsideAndSummary(t *testing.T) {
	pts := []Point{{Z: 0, Y: 0, X: 0, Type: "cell"}, {Z: 9.4, Y: 19, X: 29, Type: "artifact"}, {Z: 9.5, Y: 0, X: 0}, {Z: -0.6, Y: 1, X: 1, Type: "no_cell"}, {Z: 1, Y: 1, X: 30, Type: "cell"}}
	if n := Outside(pts, [3]int{10, 20, 30}); n != 3 {
		t.Errorf("outside %d, want 3", n)
	}
	s := Summarize(pts)
	if s.ByClass != [3]int{1, 2, 2} || s.Min != [3]float64{-0.6, 0, 0} || s.Max != [3]float64{9.5, 19, 30} {
		t.Errorf("summary %+v", s)
	}
	if strings.Join(s.Types, "|") != "cell|artifact||no_cell" || s.Count[0] != 2 {
		t.Errorf("types %q counts %v", s.Types, s.Count)
	}
}

// TestScanSimpleAgrees: the direct scanner reads what encoding/xml reads,
// declines what it cannot (comments, attributes, entities), and those
// files still read.
func TestScanSimpleAgrees(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.xml")
	extra := map[string]string{
		"comment.xml": "<CellCounter_Marker_File><!-- hi --><Marker_Data><Marker_Type><Type>2</Type><Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3.5</MarkerZ></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>",
		"attr.xml":    "<CellCounter_Marker_File a=\"1\"><Marker_Data><Marker_Type><Type>1</Type><Marker><MarkerX>-1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>",
		"entity.xml":  "<CellCounter_Marker_File><Image_Properties><Image_Filename>a&amp;b.tif</Image_Filename></Image_Properties><Marker_Data><Marker_Type><Type>2</Type><Marker><MarkerX>1</MarkerX><MarkerY>2</MarkerY><MarkerZ>3</MarkerZ></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>",
	}
	for name, content := range extra {
		files = append(files, write(t, name, content))
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		slow, err := readXML(bytes.NewReader(data), f)
		if err != nil {
			t.Fatal(err)
		}
		fast, ok := scanSimple(data)
		if _, isExtra := extra[filepath.Base(f)]; isExtra {
			if ok {
				t.Errorf("%s: scanned directly, want encoding/xml", f)
			}
		} else if !ok || !slices.Equal(fast, slow) {
			t.Errorf("%s: direct scan %v (%d points), encoding/xml %d points", f, ok, len(fast), len(slow))
		}
		if got, err := ReadXML(f); err != nil || !slices.Equal(got, slow) {
			t.Errorf("%s: ReadXML %d points, %v", f, len(got), err)
		}
	}
}
