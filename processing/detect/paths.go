package detect

import (
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
)

// Paths are what a detection run reads and writes, for iocheck.Check: the
// volume; the CSV and, with xml, the cellfinder XML beside it (XMLPath).
func Paths(in, csv string, xml bool) iocheck.Paths {
	p := iocheck.Paths{
		Inputs:  []iocheck.Input{{Name: "input", Path: in}},
		Outputs: []iocheck.Output{{Name: "output", Path: csv}},
	}
	if xml && csv != "" {
		p.Outputs = append(p.Outputs, iocheck.Output{Name: "XML output (named after the CSV)", Path: XMLPath(csv)})
	}
	return p
}

// XMLPath is where the cellfinder XML of the CSV csv goes: its name with
// .xml for its extension.
func XMLPath(csv string) string {
	return strings.TrimSuffix(csv, filepath.Ext(csv)) + ".xml"
}
