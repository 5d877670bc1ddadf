package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/pipeline"
)

// formDump lists the processing panel's form of a pipeline: its name,
// summary, arguments, parameters (in the form's order) and block-size
// field, as the panel builds them from the spec.
func formDump(t *testing.T, command string) string {
	t.Helper()
	for _, vp := range guiPipelines() {
		s := vp.Spec
		if s.Name != command {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "pipeline %q command %q\nsummary %q\n", vp.Name(), s.Name, s.Summary)
		for _, f := range s.Args {
			fmt.Fprintf(&b, "arg %s\n", fieldLine(f))
		}
		for _, f := range s.Params {
			fmt.Fprintf(&b, "param %s\n", fieldLine(f))
		}
		fmt.Fprintf(&b, "batch %s\n", fieldLine(pipeline.Param{Name: s.Batch.Flag, Label: s.Batch.Label, Kind: pipeline.Text, Default: "auto"}))
		return b.String()
	}
	t.Fatalf("no form for %s", command)
	return ""
}

// yamlDump lists the keys a YAML step of a pipeline takes: its
// arguments, the flags, and which flags name input files (resolved
// relative to the YAML file).
func yamlDump(t *testing.T, command string) string {
	t.Helper()
	p, ok := pipelines[command]
	if !ok {
		t.Fatalf("no pipeline %s", command)
	}
	spec := specFor(p)
	fs, _, _, _ := newFlags(p)
	var inputs []string
	for _, f := range p.Params {
		if spec.inputs[f.Name] {
			inputs = append(inputs, f.Name)
		}
	}
	return fmt.Sprintf("args %s\nflags %s\ninput paths %s\n", argNames(spec), flagNames(fs), strings.Join(inputs, ", "))
}
