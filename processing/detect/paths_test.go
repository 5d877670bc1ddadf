package detect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/iocheck"
)

// The cellfinder XML written beside the CSV is an output too: an input
// under its name is refused, and only when the XML is asked for.
func TestPathsCheckTheXMLCompanion(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cells.xml")
	os.WriteFile(in, []byte("<x/>"), 0o644)
	csv := filepath.Join(dir, "cells.csv")
	if xmlPath(csv) != in {
		t.Fatalf("xmlPath(%s) = %s", csv, xmlPath(csv))
	}
	if err := iocheck.Check(paths(in, csv, false)); err != nil {
		t.Errorf("without --xml: %v", err)
	}
	err := iocheck.Check(paths(in, csv, true))
	var c *iocheck.Clash
	if !errors.As(err, &c) || c.Path != in || !strings.Contains(err.Error(), "XML output") {
		t.Errorf("with --xml: %v", err)
	}
}
