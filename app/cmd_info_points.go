package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	pointsio "github.com/voxlab/voxlab/processing/points"
)

// pointsDescription is what `voxlab info` says of a points file.
type pointsDescription struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Points int    `json:"points"`
	// ByClass counts cells, non-cells and unknowns; Types the type names
	// as written in the file.
	ByClass map[string]int `json:"classes"`
	Types   map[string]int `json:"types"`
	// Min and Max bound the coordinates (z, y, x) in voxels.
	Min [3]float64 `json:"min,omitempty"`
	Max [3]float64 `json:"max,omitempty"`
	// Outside counts the points outside the volume named before the
	// points file on the command line, when there is one.
	Outside *int   `json:"outside,omitempty"`
	Volume  string `json:"volume,omitempty"`
	shape   [3]int
	types   []string
}

// describePoints reads a points file (CSV or cellfinder XML); with a
// volume's shape (zero: none) it also counts the points outside it.
func describePoints(path, volName string, shape [3]int) (*pointsDescription, error) {
	pts, err := pointsio.Read(path)
	if err != nil {
		return nil, err
	}
	s := pointsio.Summarize(pts)
	d := &pointsDescription{Path: path, Format: "points CSV", Points: s.N, ByClass: map[string]int{}, Types: map[string]int{}, types: s.Types}
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		d.Format = "cellfinder XML (CellCounter_Marker_File)"
	}
	for c := range pointsio.NumClasses {
		d.ByClass[pointsio.Class(c).String()] = s.ByClass[c]
	}
	for i, t := range s.Types {
		d.Types[t] = s.Count[i]
	}
	if s.N > 0 {
		d.Min, d.Max = s.Min, s.Max
	}
	if shape != [3]int{} {
		n := pointsio.Outside(pts, shape)
		d.Outside, d.Volume, d.shape = &n, volName, shape
	}
	return d, nil
}

// WriteText writes the description for a reader.
func (d *pointsDescription) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(name, value string) { fmt.Fprintf(&b, "  %-11s %s\n", name+":", value) }
	fmt.Fprintf(&b, "%s: %s\n", d.Path, d.Format)
	line("points", fmt.Sprint(d.Points))
	for _, c := range []pointsio.Class{pointsio.Cell, pointsio.NonCell, pointsio.Unknown} {
		line(c.String(), fmt.Sprint(d.ByClass[c.String()]))
	}
	var types []string
	for _, t := range d.types {
		name := t
		if name == "" {
			name = "(no type)"
		}
		types = append(types, fmt.Sprintf("%s %d", name, d.Types[t]))
	}
	if len(types) > 0 {
		line("types", strings.Join(types, ", "))
	}
	if d.Points > 0 {
		line("extent", fmt.Sprintf("z %g–%g, y %g–%g, x %g–%g (voxels)", d.Min[0], d.Max[0], d.Min[1], d.Max[1], d.Min[2], d.Max[2]))
	}
	if d.Outside != nil {
		line("outside", fmt.Sprintf("%d points outside the volume %s (%d x %d x %d)", *d.Outside, d.Volume, d.shape[0], d.shape[1], d.shape[2]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
