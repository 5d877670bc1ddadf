package points

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
)

// Save writes pts to path, as cellfinder XML for a .xml name and CSV
// otherwise, under a temporary name renamed into place when complete: a
// failed save leaves what path held before.
func Save(path string, pts []Point) error { return SaveProbability(path, pts, nil) }

// SaveProbability saves pts as Save does, with a probability column in a
// CSV when prob is not nil (see WriteCSVProbability; cellfinder's XML has
// no place for it).
func SaveProbability(path string, pts []Point, prob []float64) error {
	write := func(w io.Writer) error { return WriteCSVProbability(w, pts, prob) }
	switch {
	case strings.EqualFold(filepath.Ext(path), ".xml"):
		write = func(w io.Writer) error { return WriteXML(w, pts) }
	case prob == nil:
		write = func(w io.Writer) error { return WriteCSV(w, pts) }
	}
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("save points %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("save points %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("save points %s: %w", path, err)
	}
	return nil
}
