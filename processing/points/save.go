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
func Save(path string, pts []Point) error {
	write := WriteCSV
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		write = WriteXML
	}
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("save points %s: %w", path, err)
	}
	if err := write(io.Writer(f), pts); err != nil {
		f.Abort()
		return fmt.Errorf("save points %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("save points %s: %w", path, err)
	}
	return nil
}
