package model

import "fmt"

// Axis names the volume axis a view slices along: Z shows (y, x) planes, Y
// shows (z, x) planes and X shows (z, y) planes.
type Axis int

// The three slicing axes.
const (
	Z Axis = iota
	Y
	X
)

// String returns "z", "y" or "x".
func (a Axis) String() string { return [...]string{"z", "y", "x"}[a] }

// ParseAxis parses "z", "y" or "x".
func ParseAxis(s string) (Axis, error) {
	switch s {
	case "z", "Z":
		return Z, nil
	case "y", "Y":
		return Y, nil
	case "x", "X":
		return X, nil
	}
	return Z, fmt.Errorf("axis %q: use z, y or x", s)
}

// DisplayAxes returns the volume axes shown as rows and columns when
// slicing along a.
func (a Axis) DisplayAxes() (row, col int) {
	switch a {
	case Y:
		return 0, 2
	case X:
		return 0, 1
	}
	return 1, 2
}

// Coords returns (slice, row, col) of p for axis a.
func Coords(p *Point, a Axis) (s, r, c float64) {
	switch a {
	case Y:
		return p.Y, p.Z, p.X
	case X:
		return p.X, p.Z, p.Y
	}
	return p.Z, p.Y, p.X
}

// FromCoords is the inverse of Coords: the point at (slice, row, col)
// of axis a.
func FromCoords(a Axis, s, r, c float64) (z, y, x float64) {
	switch a {
	case Y:
		return r, s, c
	case X:
		return r, c, s
	}
	return s, r, c
}
