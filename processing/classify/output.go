package classify

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/points"
)

// Type numbers of cellfinder's outputs (brainglobe-utils' Cell): 2 a
// cell, 1 a non-cell — and an unclassified candidate, which cellfinder
// also numbers 1 (Cell.UNKNOWN == Cell.NO_CELL).
const (
	TypeCell    = 2
	TypeNonCell = 1
)

// Output formats of Write.
var OutputExts = []string{".xml", ".csv"}

// CheckOutput checks that path names an output Write can write.
func CheckOutput(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml", ".csv":
		return nil
	}
	return fmt.Errorf("output %s: name it .xml (cellfinder's cells and non-cells) or .csv (z,y,x,type,probability)", path)
}

// Write writes the result to path, under a temporary name renamed when
// complete: .xml as cellfinder writes its classified cells (Marker_Type
// 1 the non-cells, 2 the cells; unknown candidates, whose cube leaves the
// volume, are type 1 as cellfinder numbers an unclassified candidate),
// .csv as z,y,x,type,probability (type 2 cell, 1 non-cell; the
// probability of the cell class, empty for an unknown candidate).
func (r *Result) Write(path string) error {
	if err := CheckOutput(path); err != nil {
		return err
	}
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		err = points.WriteXML(f, r.typedPoints())
	} else {
		err = r.writeCSV(f)
	}
	if err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// typedPoints returns the candidates with their class as type.
func (r *Result) typedPoints() []points.Point {
	out := make([]points.Point, len(r.Candidates))
	for i, c := range r.Candidates {
		p := r.Points[c.Index]
		p.Type = c.Class.String()
		out[i] = p
	}
	return out
}

func (r *Result) writeCSV(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("z,y,x,type,probability\n")
	var buf []byte
	for _, c := range r.Candidates {
		p := r.Points[c.Index]
		buf = buf[:0]
		buf = strconv.AppendFloat(buf, p.Z, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, p.Y, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, p.X, 'f', -1, 64)
		buf = append(buf, ',')
		if c.Class == points.Cell {
			buf = strconv.AppendInt(buf, TypeCell, 10)
		} else {
			buf = strconv.AppendInt(buf, TypeNonCell, 10)
		}
		buf = append(buf, ',')
		if c.Class != points.Unknown {
			buf = strconv.AppendFloat(buf, float64(c.P), 'g', -1, 32)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// Report writes a summary of the result for the command line.
func (r *Result) Report(w io.Writer) {
	n := len(r.Candidates)
	fmt.Fprintf(w, "classified %d candidates with %s: %d cells, %d non-cells", n, r.Model, r.Cells, r.NonCells)
	if r.Unknown > 0 {
		fmt.Fprintf(w, ", %d unknown (their cube leaves the volume: not classified, written as non-cells without a probability)", r.Unknown)
	}
	fmt.Fprintln(w)
	if r.Norm[0].On {
		fmt.Fprintf(w, "normalised: signal mean %.6g sd %.6g", r.Norm[0].Mean, r.Norm[0].Std)
		if r.Norm[1].On {
			fmt.Fprintf(w, ", background mean %.6g sd %.6g", r.Norm[1].Mean, r.Norm[1].Std)
		}
		fmt.Fprintln(w)
	}
	for _, m := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
