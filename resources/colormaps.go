package resources

import "sort"

//go:generate /usr/bin/python3 gen_colormaps.py

// ColormapTable is a colormap sampled at 256 evenly spaced points from its
// low end (index 0) to its high end (index 255), as 8-bit RGB.
type ColormapTable = [256][3]uint8

// Colormap names that are always present.
const (
	Gray     = "gray"
	Viridis  = "viridis"
	Inferno  = "inferno"
	Magma    = "magma"
	Coolwarm = "coolwarm" // diverging (Moreland 2009), for differences
)

// linear maps from black to a single colour, for additive overlays of
// channels (napari's red, green, ... colormaps).
var linear = map[string][3]uint8{
	Gray:      {255, 255, 255},
	"red":     {255, 0, 0},
	"green":   {0, 255, 0},
	"blue":    {0, 0, 255},
	"cyan":    {0, 255, 255},
	"magenta": {255, 0, 255},
	"yellow":  {255, 255, 0},
}

// Colormap returns the table of the named colormap.
func Colormap(name string) (*ColormapTable, bool) {
	if t, ok := sampledTables[name]; ok {
		return t, true
	}
	top, ok := linear[name]
	if !ok {
		return nil, false
	}
	t := new(ColormapTable)
	for i := range t {
		for c := range 3 {
			// Rounded i*top/255, so index 255 is exactly the colour.
			t[i][c] = uint8((i*int(top[c]) + 127) / 255)
		}
	}
	return t, true
}

// ColormapNames lists the colormaps: gray and the matplotlib maps first,
// then the single-colour ones alphabetically.
func ColormapNames() []string {
	names := []string{Gray, Viridis, Inferno, Magma, Coolwarm}
	var rest []string
	for n := range linear {
		if n != Gray {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}
