package detect

import (
	"bufio"
	"fmt"
	"io"

	"github.com/voxlab/voxlab/processing/outfile"
)

// WriteCSV writes candidates as CSV: a "z,y,x,type" header, then one row
// per candidate (voxel indices of the input; type "cell" or "artifact").
func WriteCSV(w io.Writer, cands []Candidate) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "z,y,x,type")
	for _, c := range cands {
		fmt.Fprintf(bw, "%d,%d,%d,%s\n", c.Z, c.Y, c.X, c.Type)
	}
	return bw.Flush()
}

// XML marker types. cellfinder writes its detection candidates as type 1
// (Cell.UNKNOWN) and artifacts, when kept, also as type 1; its classifier
// then writes cells as type 2 (Cell.CELL) and non-cells as 1 (NO_CELL).
// Here cells are type 2 and artifacts type 1, so that cellfinder's napari
// reader and the ImageJ Cell Counter show them as cells and non-cells.
const (
	xmlArtifact = 1
	xmlCell     = 2
)

// WriteXML writes candidates in the CellCounter marker-file format that
// cellfinder (brainglobe-utils' cells_to_xml) writes: one Marker_Type per
// type present, in ascending type order, each Marker holding MarkerX,
// MarkerY, MarkerZ voxel indices, indented by two spaces.
func WriteXML(w io.Writer, cands []Candidate) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CellCounter_Marker_File>\n"+
		"  <Image_Properties>\n    <Image_Filename>placeholder.tif</Image_Filename>\n  </Image_Properties>\n"+
		"  <Marker_Data>\n    <Current_Type>1</Current_Type>\n")
	for _, typ := range []struct {
		t    CellType
		code int
	}{{Artifact, xmlArtifact}, {Cell, xmlCell}} {
		first := true
		for _, c := range cands {
			if c.Type != typ.t {
				continue
			}
			if first {
				fmt.Fprintf(bw, "    <Marker_Type>\n      <Type>%d</Type>\n", typ.code)
				first = false
			}
			fmt.Fprintf(bw, "      <Marker>\n        <MarkerX>%d</MarkerX>\n        <MarkerY>%d</MarkerY>\n        <MarkerZ>%d</MarkerZ>\n      </Marker>\n", c.X, c.Y, c.Z)
		}
		if !first {
			fmt.Fprint(bw, "    </Marker_Type>\n")
		}
	}
	fmt.Fprint(bw, "  </Marker_Data>\n</CellCounter_Marker_File>\n")
	return bw.Flush()
}

// WriteFiles writes cands as CSV to csvPath and as cellfinder XML to
// xmlPath, each unless its path is "". Both are written under temporary names
// and committed together (outfile.CommitAll): when either fails, at any
// step, both targets keep what they held before, so a failed rerun never
// destroys the previous run's CSV nor leaves a CSV beside an older XML.
func WriteFiles(csvPath, xmlPath string, cands []Candidate) error {
	outs := []struct {
		path  string
		write func(io.Writer, []Candidate) error
	}{{csvPath, WriteCSV}, {xmlPath, WriteXML}}
	var files []*outfile.File
	defer func() {
		for _, f := range files {
			f.Abort() // after CommitAll this does nothing
		}
	}()
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		f, err := outfile.Create(o.path)
		if err != nil {
			return err
		}
		files = append(files, f)
		if err := o.write(f, cands); err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
	}
	return outfile.CommitAll(files...)
}
