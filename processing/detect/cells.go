package detect

import (
	"cmp"
	"slices"
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
// and its type. It is the element of the []Candidate partial results Run
// emits.
type Candidate struct {
	Z, Y, X int
	Type    CellType
}

// SortCandidates orders candidates by z, y, x (then type).
func SortCandidates(c []Candidate) {
	slices.SortFunc(c, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.Z, b.Z), cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.Type, b.Type))
	})
}
