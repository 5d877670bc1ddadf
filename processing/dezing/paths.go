package dezing

import (
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// files is what a dezinging run reads and writes (Spec.Files): the scan
// (or plain projections) and the darks and flats files when given; OUT,
// an HDF5 file, or an OME-Zarr store (a folder, replaced as a whole)
// when it names one.
func files(r pipeline.Request) iocheck.Paths {
	return paths(r.Arg(0), r.Arg(1), r.Values.String("darks"), r.Values.String("flats"))
}

func paths(in, out, darks, flats string) iocheck.Paths {
	p := iocheck.Paths{Inputs: []iocheck.Input{
		{Name: "input", Path: in},
		{Name: "darks (--darks)", Path: darks},
		{Name: "flats (--flats)", Path: flats},
	}}
	kind := iocheck.File
	if isStore(out) {
		kind = iocheck.Folder
	}
	p.Outputs = []iocheck.Output{{Name: "output", Path: out, Kind: kind}}
	return p
}
