package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/outfile"
)

// Size selects how big the demo datasets are.
type Size int

// Demo sizes.
const (
	Small Size = iota
	Large
)

// ParseSize parses "small" or "large".
func ParseSize(s string) (Size, error) {
	switch s {
	case "", "small":
		return Small, nil
	case "large":
		return Large, nil
	}
	return Small, fmt.Errorf("demo size %q: use small or large", s)
}

// The files of a demo folder, relative to it.
const (
	TomoScan      = "tomo/scan.nxs"      // NeXus: projections, flats, darks by image_key
	TomoZingers   = "tomo/zingers.csv"   // frame,row,col,kind of every injected zinger
	BrainPlanes   = "brain/planes"       // folder of 2D uint16 TIFF planes
	BrainCells    = "brain/cells.csv"    // ground truth: z,y,x of each cell centre
	MapsGT        = "maps/gt.npy"        // (n, box, box, box) float32
	MapsSubmitted = "maps/submitted.npy" // (m, box, box, box) float32
	MapsMask      = "maps/mask.mrc"      // non-zero inside
	CompleteMark  = ".complete"          // written last: the folder is whole
)

// String returns "small" or "large".
func (s Size) String() string {
	if s == Large {
		return "large"
	}
	return "small"
}

// Write writes the three demo datasets into dir (created if needed) and
// then CompleteMark. If CompleteMark exists the folder is whole and Write
// does nothing; otherwise what an interrupted run left is removed first.
// Every dataset is attempted; their errors are joined, and CompleteMark is
// written only when all three succeeded.
func Write(dir string, size Size, seed int64) error {
	mark := filepath.Join(dir, CompleteMark)
	if _, err := os.Stat(mark); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	for _, p := range []string{TomoScan, TomoZingers, BrainPlanes, BrainCells, MapsGT, MapsSubmitted, MapsMask} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			return fmt.Errorf("demo: remove what an interrupted run left: %w", err)
		}
	}
	var errs []error
	for _, w := range []struct {
		name  string
		write func(string, Size, int64) error
	}{{"tomography scan", WriteTomo}, {"light-sheet brain", WriteBrain}, {"cryo-EM maps", WriteMaps}} {
		if err := w.write(dir, size, seed); err != nil {
			errs = append(errs, fmt.Errorf("demo %s: %w", w.name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	f, err := outfile.Create(mark)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := fmt.Fprintf(f, "size=%s seed=%d\n", size, seed); err != nil {
		return err
	}
	return f.Commit()
}
