package volume

import (
	"fmt"
	"os"
)

// ScanInputs is a tomography scan opened for a pipeline (dezing's and
// reconstruct's SCAN with --darks and --flats): the projections, and
// the darks and flats from the scan's own file or from files given,
// which take the place of the file's own.
type ScanInputs struct {
	Projections, Darks, Flats *Volume
	// Angles are the file's own rotation angles in degrees (Scan.Angles;
	// nil when it has none).
	Angles []float64
	// DarksFrom and FlatsFrom say where the darks and flats came from,
	// for messages and attributes: the file with its markers, or the
	// file given ("" when there are none).
	DarksFrom, FlatsFrom string
	// Files are the darks and flats given as files.
	Files   []string
	closers []func() error
}

// OpenScanInputs opens the scan in (a NeXus file split by its image key,
// OpenScan, or a plain volume of projections) and, when darks or flats
// is not "", that file's volume as the darks or the flats. On error
// whatever was opened is closed.
func OpenScanInputs(in, darks, flats string) (*ScanInputs, error) {
	s := &ScanInputs{}
	path, _ := SplitSpec(in)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sc, ok, err := OpenScan(path)
	switch {
	case err != nil:
		return nil, err
	case ok:
		s.closers = append(s.closers, sc.Close)
		s.Projections, s.Darks, s.Flats, s.Angles = sc.Projections, sc.Darks, sc.Flats, sc.Angles
		if sc.Darks != nil {
			s.DarksFrom = fmt.Sprintf("%s (%s %s)", path, sc.Markers, sc.DarkKey)
		}
		if sc.Flats != nil {
			s.FlatsFrom = fmt.Sprintf("%s (%s %s)", path, sc.Markers, sc.FlatKey)
		}
	default:
		v, err := Open(in)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, v.Close)
		s.Projections = v
	}
	for _, extra := range []struct {
		spec string
		dst  **Volume
		from *string
	}{{darks, &s.Darks, &s.DarksFrom}, {flats, &s.Flats, &s.FlatsFrom}} {
		if extra.spec == "" {
			continue
		}
		v, err := Open(extra.spec)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.closers = append(s.closers, v.Close)
		*extra.dst, *extra.from = v, extra.spec
		s.Files = append(s.Files, extra.spec)
	}
	return s, nil
}

// Close closes every file the scan opened.
func (s *ScanInputs) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
