package dezing

import (
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
)

// Paths are what a dezinging run reads and writes, for iocheck.Check: the
// scan (or plain projections) and the darks and flats files when given;
// out, an HDF5 file, or an OME-Zarr store (a folder, replaced as a
// whole) when its name ends in .zarr. Empty names are left out.
func Paths(in, out, darks, flats string) iocheck.Paths {
	p := iocheck.Paths{Inputs: []iocheck.Input{
		{Name: "input", Path: in},
		{Name: "darks (--darks)", Path: darks},
		{Name: "flats (--flats)", Path: flats},
	}}
	kind := iocheck.File
	if IsZarr(out) {
		kind = iocheck.Folder
	}
	p.Outputs = []iocheck.Output{{Name: "output", Path: out, Kind: kind}}
	return p
}

// IsZarr reports whether an output path names a Zarr store.
func IsZarr(path string) bool {
	return strings.HasSuffix(strings.ToLower(strings.TrimRight(path, "/")), ".zarr")
}
