package detect

import (
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// files is what a detection run reads and writes (Spec.Files): the
// volume; the CSV and, with --xml, the cellfinder XML beside it
// (xmlPath).
func files(r pipeline.Request) iocheck.Paths {
	return paths(r.Arg(0), r.Arg(1), r.Values.Bool("xml"))
}

func paths(in, csv string, xml bool) iocheck.Paths {
	p := iocheck.Paths{
		Inputs:  []iocheck.Input{{Name: "input", Path: in}},
		Outputs: []iocheck.Output{{Name: "output", Path: csv}},
	}
	if xml && csv != "" && !strings.EqualFold(filepath.Ext(csv), ".xml") {
		p.Outputs = append(p.Outputs, iocheck.Output{Name: "XML output (named after the CSV)", Path: xmlPath(csv)})
	}
	return p
}

// xmlPath is where the cellfinder XML of the CSV csv goes: its name with
// .xml for its extension.
func xmlPath(csv string) string {
	return strings.TrimSuffix(csv, filepath.Ext(csv)) + ".xml"
}
