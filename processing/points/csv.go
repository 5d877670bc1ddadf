package points

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// maxLine bounds a CSV line: a points row is tens of bytes, a header a
// few hundred; a longer line is not a points file (a line of hundreds of
// MB would otherwise be held whole, several times over, by encoding/csv).
const maxLine = 1 << 20

// ReadCSV reads points from a CSV file with columns z, y, x and
// optionally type. A header row naming the columns (in any order; napari's
// axis-0, axis-1, axis-2 too) is used when present; without one the first
// three columns are z, y, x and a fourth is the type. Lines starting with
// # are comments; a UTF-8 byte order mark (Excel's "CSV UTF-8") is
// skipped. A missing or non-numeric coordinate, or a line longer than 1
// MiB, is an error naming the file and the line, and no points are
// returned. Only regular files are read.
func ReadCSV(path string) ([]Point, error) {
	f, _, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("points %s: %w", path, err)
	}
	defer f.Close()
	pts, err := readCSV(bufio.NewReaderSize(f, 1<<16), path)
	if err != nil {
		return nil, err
	}
	return pts, nil
}

// lineLimit passes a reader's bytes through until a line runs past max
// bytes, then fails naming the line.
type lineLimit struct {
	r    io.Reader
	max  int
	run  int // bytes since the last line break
	line int // lines ended so far
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.run += len(b)
			break
		}
		if l.run+i > l.max {
			break
		}
		l.run, l.line, b = 0, l.line+1, b[i+1:]
	}
	if l.run > l.max || len(b) > 0 && bytes.IndexByte(b, '\n') >= 0 {
		return 0, fmt.Errorf("line %d is longer than %d MiB: not a points file", l.line+1, l.max>>20)
	}
	return n, err
}

func readCSV(rd io.Reader, path string) ([]Point, error) {
	br := bufio.NewReader(&lineLimit{r: rd, max: maxLine})
	// Excel writes a byte order mark before the header.
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\ufeff")) {
		br.Discard(3)
	}
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1
	r.Comment = '#'
	r.ReuseRecord = true
	cols := [4]int{0, 1, 2, 3} // z, y, x, type
	names := [3]string{"z", "y", "x"}
	var pts []Point
	types := map[string]string{} // interned: one string per type name
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return pts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("points %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		if first {
			if hdr, ok := headerColumns(rec); ok {
				cols = hdr
				continue
			}
		}
		var c [3]float64
		for i := range 3 {
			if cols[i] >= len(rec) {
				return nil, fmt.Errorf("points %s line %d: %d columns, want z,y,x", path, line, len(rec))
			}
			s := strings.TrimSpace(rec[cols[i]])
			if s == "" {
				return nil, fmt.Errorf("points %s line %d: %s is missing", path, line, names[i])
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("points %s line %d: %s %s is not a number", path, line, names[i], quote(rec[cols[i]]))
			}
			c[i] = v
		}
		p := Point{Z: c[0], Y: c[1], X: c[2]}
		if cols[3] >= 0 && cols[3] < len(rec) {
			t := strings.TrimSpace(rec[cols[3]])
			s, ok := types[t]
			if !ok {
				s = strings.Clone(t) // rec is reused
				types[s] = s
			}
			p.Type = s
		}
		pts = append(pts, p)
	}
}

// headerColumns finds z, y, x and type in a header row.
func headerColumns(rec []string) ([4]int, bool) {
	cols := [4]int{-1, -1, -1, -1}
	for i, h := range rec {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "z", "axis-0", "z_um":
			cols[0] = i
		case "y", "axis-1", "y_um":
			cols[1] = i
		case "x", "axis-2", "x_um":
			cols[2] = i
		case "type", "kind", "label", "class":
			cols[3] = i
		}
	}
	return cols, cols[0] >= 0 && cols[1] >= 0 && cols[2] >= 0
}

// WriteCSV writes pts as CSV: a "z,y,x,type" header, then one row per
// point, coordinates in the shortest form that reads back exactly.
func WriteCSV(w io.Writer, pts []Point) error { return writeCSV(w, pts, nil) }

// WriteCSVProbability writes pts as WriteCSV does with a fifth column,
// probability, prob[i] for pts[i] (empty where NaN or past prob's end):
// the layout of voxlab classify's CSV, so that a reviewed classification
// saved keeps the classifier's probabilities.
func WriteCSVProbability(w io.Writer, pts []Point, prob []float64) error {
	return writeCSV(w, pts, prob)
}

// writeCSV writes pts, with a probability column when prob is not nil.
func writeCSV(w io.Writer, pts []Point, prob []float64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if prob != nil {
		bw.WriteString("z,y,x,type,probability\n")
	} else {
		bw.WriteString("z,y,x,type\n")
	}
	var buf []byte
	for i, p := range pts {
		buf = buf[:0]
		buf = strconv.AppendFloat(buf, p.Z, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, p.Y, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, p.X, 'f', -1, 64)
		buf = append(buf, ',')
		buf = appendField(buf, p.Type)
		if prob != nil {
			buf = append(buf, ',')
			if i < len(prob) && !math.IsNaN(prob[i]) {
				buf = strconv.AppendFloat(buf, prob[i], 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// appendField quotes a type name as encoding/csv would when it holds a
// separator, quote or line break (written by hand: csv.Writer would
// allocate a record per point).
func appendField(buf []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "#") {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(s, `"`, `""`)...)
	return append(buf, '"')
}
