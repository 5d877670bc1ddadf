package detect

import (
	"cmp"
	"slices"

	"github.com/voxlab/voxlab/processing/pipeline"
)

// CellType says what a detected candidate is.
type CellType uint8

// The candidate types.
const (
	// Cell: a structure of up to a cell's volume, or one cell of a split
	// cluster.
	Cell CellType = iota
	// Artifact: a structure of at least the max cluster size.
	Artifact
)

func (t CellType) String() string {
	if t == Artifact {
		return "artifact"
	}
	return "cell"
}

// Candidate is a detected cell candidate: voxel indices of the input volume
// and its type. Run emits the candidates it finds as partial results
// (Points).
type Candidate struct {
	Z, Y, X int
	Type    CellType
}

// Points returns candidates as the points partial results are made of
// (pipeline.Points): what a viewer draws while a run goes on.
func Points(c []Candidate) pipeline.Points {
	pts := make(pipeline.Points, len(c))
	for i, x := range c {
		pts[i] = pipeline.Point{Z: float64(x.Z), Y: float64(x.Y), X: float64(x.X), Type: x.Type.String()}
	}
	return pts
}

// SortCandidates orders candidates by z, y, x (then type).
func SortCandidates(c []Candidate) {
	slices.SortFunc(c, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.Z, b.Z), cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.Type, b.Type))
	})
}
