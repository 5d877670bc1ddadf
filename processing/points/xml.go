package points

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// XML marker types as cellfinder uses them (brainglobe-utils' Cell:
// UNKNOWN = NO_CELL = 1, CELL = 2).
const (
	xmlNonCell = 1
	xmlCell    = 2
)

// typeOfCode is the type name a Marker_Type code reads as: 2 a cell, 1
// a non-cell, other codes (ImageJ's Cell Counter has up to eight) keep
// their number.
func typeOfCode(code int) string {
	switch code {
	case xmlCell:
		return TypeCell
	case xmlNonCell:
		return TypeNonCell
	}
	return "type " + strconv.Itoa(code)
}

// codeOf is the Marker_Type code a type name is written as: cells 2,
// "type N" N, everything else 1 (non-cells and unknowns alike, as
// cellfinder writes its unclassified candidates).
func codeOf(typ string) int {
	if ClassOf(typ) == Cell {
		return xmlCell
	}
	if n, ok := strings.CutPrefix(typ, "type "); ok {
		if c, err := strconv.Atoi(n); err == nil && c > 0 {
			return c
		}
	}
	return xmlNonCell
}

// ReadXML reads a CellCounter_Marker_File (cellfinder's cells.xml): every
// Marker of every Marker_Type, with MarkerX as the column, MarkerY the
// row and MarkerZ the plane. A marker with a missing or non-numeric
// coordinate, a Marker_Type without a numeric Type, or a file that is
// not a marker file is an error naming the file and the line, and no
// points are returned.
//
// Files laid out as cellfinder and ImageJ write them (elements without
// attributes, text without entities) are scanned directly, about ten
// times faster than encoding/xml (10^6 markers: BENCHMARKS.md); anything
// else, and every error, goes through encoding/xml, which also finds the
// line of the error.
func ReadXML(path string) ([]Point, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("points %s: %w", path, err)
	}
	if pts, ok := scanSimple(data); ok {
		return pts, nil
	}
	return readXML(bytes.NewReader(data), path)
}

// markers is the state of reading a marker file, fed elements and text
// by either tokenizer.
type markers struct {
	pts   []Point
	stack []string
	text  []byte
	// Within a Marker_Type: its type, once its Type element was read;
	// within a Marker: which coordinates were seen.
	typ     string
	hasType bool
	coord   [3]float64
	seen    [3]bool
	root    bool
}

func (m *markers) start(name string) error {
	if len(m.stack) == 0 {
		if name != "CellCounter_Marker_File" {
			return fmt.Errorf("root element is <%s>, not <CellCounter_Marker_File>: not a cell marker file", clip(name))
		}
		m.root = true
	}
	m.stack = append(m.stack, name)
	m.text = m.text[:0]
	switch name {
	case "Marker_Type":
		m.hasType = false
	case "Marker":
		if parent(m.stack) != "Marker_Type" {
			break
		}
		if !m.hasType {
			return errors.New("<Marker> before the <Type> of its <Marker_Type>")
		}
		m.seen = [3]bool{}
	}
	return nil
}

func (m *markers) end(closing string) error {
	if len(m.stack) == 0 {
		return fmt.Errorf("unexpected </%s>", clip(closing))
	}
	name := m.stack[len(m.stack)-1]
	if closing != name {
		return fmt.Errorf("</%s> closes <%s>", clip(closing), clip(name))
	}
	in := parent(m.stack)
	m.stack = m.stack[:len(m.stack)-1]
	b := bytes.TrimSpace(m.text)
	m.text = m.text[:0]
	switch {
	case name == "Type" && in == "Marker_Type":
		code, err := strconv.Atoi(string(b))
		if err != nil {
			return fmt.Errorf("marker type %s is not a number", quote(string(b)))
		}
		m.typ, m.hasType = typeOfCode(code), true
	case in == "Marker" && (name == "MarkerX" || name == "MarkerY" || name == "MarkerZ"):
		a := int('Z' - name[len(name)-1]) // Z 0, Y 1, X 2
		if len(b) == 0 {
			return fmt.Errorf("<%s> is empty", name)
		}
		v, ok := parseInt(b)
		if !ok {
			var err error
			v, err = strconv.ParseFloat(string(b), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s %s is not a number", name, quote(string(b)))
			}
		}
		m.coord[a], m.seen[a] = v, true
	case name == "Marker" && in == "Marker_Type":
		for a, n := range [3]string{"MarkerZ", "MarkerY", "MarkerX"} {
			if !m.seen[a] {
				return fmt.Errorf("<Marker> without <%s>", n)
			}
		}
		m.pts = append(m.pts, Point{Z: m.coord[0], Y: m.coord[1], X: m.coord[2], Type: m.typ})
	}
	return nil
}

// plainName reports whether tag is an element name of letters, digits,
// '_', '-' and '.', starting with a letter or '_', with nothing after it
// (no attributes, namespaces).
func plainName(tag []byte) bool {
	if len(tag) == 0 || !('a' <= tag[0] && tag[0] <= 'z' || 'A' <= tag[0] && tag[0] <= 'Z' || tag[0] == '_') {
		return false
	}
	for _, c := range tag {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// parseInt parses a whole number of at most 15 digits, as markers hold
// them, without the string strconv.ParseFloat would need.
func parseInt(b []byte) (float64, bool) {
	neg := len(b) > 1 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return float64(n), true
}

// finish checks the file was a whole marker file.
func (m *markers) finish() error {
	if !m.root {
		return errors.New("no <CellCounter_Marker_File> element: not a cell marker file")
	}
	if len(m.stack) > 0 {
		return fmt.Errorf("file ends inside <%s>", clip(m.stack[len(m.stack)-1]))
	}
	return nil
}

// readXML reads a marker file with encoding/xml.
func readXML(r io.Reader, path string) ([]Point, error) {
	d := xml.NewDecoder(r)
	fail := func(err error) error {
		line, _ := d.InputPos()
		return fmt.Errorf("points %s line %d: %w", path, line, err)
	}
	var m markers
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fail(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			err = m.start(t.Name.Local)
		case xml.CharData:
			m.text = append(m.text, t...)
		case xml.EndElement:
			err = m.end(t.Name.Local)
		}
		if err != nil {
			return nil, fail(err)
		}
	}
	if err := m.finish(); err != nil {
		line, _ := d.InputPos()
		return nil, fmt.Errorf("points %s line %d: %w", path, line, err)
	}
	return m.pts, nil
}

// scanSimple reads a marker file made only of an XML declaration,
// elements without attributes and text without entities, reporting
// false for anything else or any error (which readXML then explains).
// Written by hand because encoding/xml spends most of its time on
// generality these files never use.
func scanSimple(data []byte) ([]Point, bool) {
	// Plain ASCII only: encoding/xml decides about anything else (other
	// encodings, invalid UTF-8, characters XML forbids).
	for _, c := range data {
		if c >= 0x80 || c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return nil, false
		}
	}
	m := markers{pts: make([]Point, 0, bytes.Count(data, []byte("<Marker>")))}
	names := map[string]string{} // interned element names
	i := 0
	if bytes.HasPrefix(data, []byte("<?xml")) {
		j := bytes.Index(data, []byte("?>"))
		if j < 0 {
			return nil, false
		}
		i = j + 2
	}
	for i < len(data) {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			j = len(data) - i
		}
		txt := data[i : i+j]
		if bytes.IndexByte(txt, '&') >= 0 || bytes.IndexByte(txt, '>') >= 0 {
			return nil, false
		}
		if len(m.stack) > 0 {
			m.text = append(m.text, txt...)
		} else if len(bytes.TrimSpace(txt)) > 0 {
			return nil, false
		}
		i += j
		if i >= len(data) {
			break
		}
		k := bytes.IndexByte(data[i:], '>')
		if k < 0 {
			return nil, false
		}
		tag := data[i+1 : i+k]
		i += k + 1
		closing := len(tag) > 0 && tag[0] == '/'
		if closing {
			tag = tag[1:]
		}
		if !plainName(tag) {
			return nil, false
		}
		name, ok := names[string(tag)]
		if !ok {
			name = string(tag)
			names[name] = name
		}
		var err error
		if closing {
			err = m.end(name)
		} else {
			err = m.start(name)
		}
		if err != nil {
			return nil, false
		}
	}
	if m.finish() != nil {
		return nil, false
	}
	return m.pts, true
}

// parent returns the element enclosing the innermost one of stack.
func parent(stack []string) string {
	if len(stack) < 2 {
		return ""
	}
	return stack[len(stack)-2]
}

// WriteXML writes pts as cellfinder writes a cells.xml (brainglobe-utils'
// make_xml, pretty-printed by minidom with two-space indents): one
// Marker_Type per code present, in ascending code order, each with its
// points in their order, coordinates rounded to whole voxels. Reading
// the file back and writing it again gives the same bytes.
func WriteXML(w io.Writer, pts []Point) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CellCounter_Marker_File>\n" +
		"  <Image_Properties>\n    <Image_Filename>placeholder.tif</Image_Filename>\n  </Image_Properties>\n" +
		"  <Marker_Data>\n    <Current_Type>1</Current_Type>\n")
	codes := make([]int32, len(pts))
	var present []int
	for i, p := range pts {
		c := codeOf(p.Type)
		codes[i] = int32(c)
		if !slices.Contains(present, c) {
			present = append(present, c)
		}
	}
	slices.Sort(present)
	var buf []byte
	for _, code := range present {
		fmt.Fprintf(bw, "    <Marker_Type>\n      <Type>%d</Type>\n", code)
		for i, p := range pts {
			if codes[i] != int32(code) {
				continue
			}
			buf = append(buf[:0], "      <Marker>\n        <MarkerX>"...)
			buf = strconv.AppendInt(buf, int64(math.Round(p.X)), 10)
			buf = append(buf, "</MarkerX>\n        <MarkerY>"...)
			buf = strconv.AppendInt(buf, int64(math.Round(p.Y)), 10)
			buf = append(buf, "</MarkerY>\n        <MarkerZ>"...)
			buf = strconv.AppendInt(buf, int64(math.Round(p.Z)), 10)
			buf = append(buf, "</MarkerZ>\n      </Marker>\n"...)
			bw.Write(buf)
		}
		bw.WriteString("    </Marker_Type>\n")
	}
	bw.WriteString("  </Marker_Data>\n</CellCounter_Marker_File>\n")
	return bw.Flush()
}

// readRegular reads the regular file at path whole (a marker file is
// read at once for the direct scanner); a FIFO or a device is refused.
func readRegular(path string) ([]byte, error) {
	f, size, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// echoMax is how much of a value from the file an error repeats.
const echoMax = 80

// clip shortens s to echoMax bytes (on a rune boundary) with "…", so an
// error never echoes a huge value whole.
func clip(s string) string {
	if len(s) <= echoMax {
		return s
	}
	i := echoMax
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// quote is %q of clip(s).
func quote(s string) string {
	if len(s) <= echoMax {
		return strconv.Quote(s)
	}
	return strconv.Quote(clip(s)[:len(clip(s))-len("…")]) + "…"
}
