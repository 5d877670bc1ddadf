package pipeline

import (
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
)

// Paths are what a run of r reads and writes, for iocheck.Check, which
// the application runs before it opens anything (a run, a task, a
// merge, a plan given its outputs, a SLURM submission, the panel's
// form): first what the spec's Files says (its names, companion
// outputs, outputs replaced as a whole), then every Input and Output
// argument and parameter the spec declares, so that a pipeline without
// Files is checked on those alone. Empty paths (an output a plan leaves
// out, an optional input not given) are left for Check to skip.
func (s *Spec) Paths(r Request) iocheck.Paths {
	var p iocheck.Paths
	if s.Files != nil {
		p = s.Files(r)
	}
	for i, a := range s.Args {
		if i < len(r.Args) {
			addPath(&p, a, strings.ToLower(a.Title()), r.Args[i])
		}
	}
	for _, pa := range s.Params {
		if pa.Kind == Input || pa.Kind == Output {
			if v, ok := r.Values[pa.Name].(string); ok {
				addPath(&p, pa, "--"+pa.Name, v)
			}
		}
	}
	return p
}

// addPath adds path, the value of parameter pa, to p as an input or an
// output: an output folder counts as replaced as a whole (the strictest
// check: no input may lie inside it).
func addPath(p *iocheck.Paths, pa Param, name, path string) {
	switch pa.Kind {
	case Input:
		p.Inputs = append(p.Inputs, iocheck.Input{Name: name, Path: path})
	case Output:
		kind := iocheck.File
		if pa.Folder {
			kind = iocheck.Folder
		}
		p.Outputs = append(p.Outputs, iocheck.Output{Name: name, Path: path, Kind: kind})
	}
}

// Arg is the i-th positional argument, "" when r has fewer (a plan
// without its outputs; Open says what is missing).
func (r Request) Arg(i int) string {
	if i < len(r.Args) {
		return r.Args[i]
	}
	return ""
}
