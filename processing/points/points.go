package points

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// Point is one annotation: its position in voxels (z plane, y row, x
// column; fractional positions allowed) and its type.
type Point struct {
	Z, Y, X float64
	Type    string
}

// Class is what curation decides about a point.
type Class uint8

// Classes, in the order they are listed.
const (
	Unknown Class = iota
	Cell
	NonCell
	NumClasses = 3
)

// The type names voxlab writes for each class.
const (
	TypeUnknown = "unknown"
	TypeCell    = "cell"
	TypeNonCell = "non-cell"
)

// String returns the class's type name.
func (c Class) String() string {
	switch c {
	case Cell:
		return TypeCell
	case NonCell:
		return TypeNonCell
	}
	return TypeUnknown
}

// ClassOf folds a type name into its class: the names the pipelines and
// cellfinder use for cells and for artifacts are recognised (whatever
// their case), anything else is unknown.
func ClassOf(typ string) Class {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "cell", "cells", "2":
		return Cell
	case "non-cell", "noncell", "non_cell", "no_cell", "no-cell", "not cell", "artifact", "artefact", "artifacts", "1":
		return NonCell
	}
	return Unknown
}

// Summary describes a set of points for `voxlab info`.
type Summary struct {
	N int
	// ByClass counts the points of each class.
	ByClass [NumClasses]int
	// Types lists the type names in order of first appearance, with
	// Count[i] points of Types[i].
	Types []string
	Count []int
	// Min and Max bound the coordinates (z, y, x); zero without points.
	Min, Max [3]float64
}

// Summarize counts pts by class and type and finds their extent.
func Summarize(pts []Point) Summary {
	s := Summary{N: len(pts)}
	idx := map[string]int{}
	for i, p := range pts {
		s.ByClass[ClassOf(p.Type)]++
		j, ok := idx[p.Type]
		if !ok {
			j = len(s.Types)
			idx[p.Type] = j
			s.Types = append(s.Types, p.Type)
			s.Count = append(s.Count, 0)
		}
		s.Count[j]++
		c := [3]float64{p.Z, p.Y, p.X}
		for a := range 3 {
			if i == 0 || c[a] < s.Min[a] {
				s.Min[a] = c[a]
			}
			if i == 0 || c[a] > s.Max[a] {
				s.Max[a] = c[a]
			}
		}
	}
	return s
}

// Outside counts the points that fall outside a volume of shape (z, y,
// x): a point is inside when each coordinate, rounded to the nearest
// voxel, is in [0, shape).
func Outside(pts []Point, shape [3]int) int {
	n := 0
	for _, p := range pts {
		if !Inside(p, shape) {
			n++
		}
	}
	return n
}

// Inside reports whether p lies in a volume of shape (z, y, x).
func Inside(p Point, shape [3]int) bool {
	for a, c := range [3]float64{p.Z, p.Y, p.X} {
		k := math.Round(c)
		if !(k >= 0 && k < float64(shape[a])) {
			return false
		}
	}
	return true
}

// IsPointsFile reports whether path names a points file by its
// extension (.csv or .xml).
func IsPointsFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".xml":
		return true
	}
	return false
}

// Read reads a points file, CSV or cellfinder XML by its extension.
func Read(path string) ([]Point, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return ReadXML(path)
	case ".csv":
		return ReadCSV(path)
	}
	return nil, fmt.Errorf("points %s: not a points file (want .csv or .xml)", path)
}
