package detect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestSpecRunsTheExample: a run through the spec writes the CSV (and
// the XML) of the candidates Run finds on the same volume, and its
// summary counts them.
func TestSpecRunsTheExample(t *testing.T) {
	dir := t.TempDir()
	args, err := Spec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	vals := Spec.Defaults()
	vals["xml"] = true
	j, err := Spec.Open(pipeline.Request{Args: args, Values: vals})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	be := gpu.NewCPU()
	b := plan.Budget{Shared: true, Host: 2 << 30}
	d := pipeline.Device{Backend: be, Budget: b}
	rep, err := j.Run(context.Background(), job.NewProgress("detect", func(job.Event) {}), d)
	if err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	res, err := Run(context.Background(), job.NewProgress("ref", func(job.Event) {}), be, DefaultConfig(), v, b)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	WriteCSV(&want, res.Candidates)
	got, err := os.ReadFile(args[1])
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the CSV differs from Run's candidates (%v):\n%s\nwant\n%s", err, got, want.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "cells.xml")); err != nil {
		t.Error(err)
	}
	s := rep.Summary.(Summary)
	if s.Cells+s.Artifacts != len(res.Candidates) || s.Cells == 0 || s.VoxelFrom != "file" {
		t.Errorf("summary %+v, %d candidates", s, len(res.Candidates))
	}

	// OUT.xml is cellfinder's XML, alone, with or without --xml.
	for _, xml := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("only-%v.XML", xml))
		vals["xml"] = xml
		j, err := Spec.Open(pipeline.Request{Args: []string{args[0], out}, Values: vals})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := j.Run(context.Background(), job.NewProgress("detect", func(job.Event) {}), d)
		j.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		WriteXML(&want, res.Candidates)
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("--xml=%v: %s is not the candidates' XML (%v):\n%.300s", xml, out, err, got)
		}
		if es, _ := filepath.Glob(strings.TrimSuffix(out, ".XML") + ".*"); len(es) != 1 {
			t.Errorf("--xml=%v: files %v, want the XML alone", xml, es)
		}
		if s := rep.Summary.(Summary); s.Output != out {
			t.Errorf("--xml=%v: summary names %q, want %q", xml, s.Output, out)
		}
	}
}

// TestOutputsRefused: an output that is a folder or in a missing folder
// is refused before any work.
func TestOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	for out, want := range map[string]string{
		dir:                               "is a folder",
		filepath.Join(dir, "no", "c.csv"): "does not exist",
	} {
		if _, _, err := outputs(out, true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", out, err, want)
		}
	}
}
