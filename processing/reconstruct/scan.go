package reconstruct

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// scan is an opened input: the projections, darks and flats, and what to
// close.
type scan struct {
	name string
	// angles are the file's own (degrees; nil when it has none).
	angles               []float64
	proj, darks, flats   *volume.Volume
	darksFrom, flatsFrom string
	closers              []func() error
}

func (s *scan) Close() {
	for _, c := range s.closers {
		c()
	}
}

// openScan opens a tomography scan (volume.OpenScanInputs: a NeXus file
// split by its image key, or a plain volume of projections, with darks
// and flats from files when given) and checks it has what a
// reconstruction needs.
func openScan(in, darks, flats string) (*scan, error) {
	in2, err := volume.OpenScanInputs(in, darks, flats)
	if err != nil {
		return nil, err
	}
	s := &scan{name: in, angles: in2.Angles, proj: in2.Projections, darks: in2.Darks, flats: in2.Flats,
		darksFrom: in2.DarksFrom, flatsFrom: in2.FlatsFrom, closers: []func() error{in2.Close}}
	if err := s.check(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// check refuses a scan without darks or flats, or whose darks or flats
// are not frames of the projections' size.
func (s *scan) check() error {
	if s.flats == nil {
		return fmt.Errorf("%s has no flats: give them with --flats FILE (and the darks with --darks FILE)", s.name)
	}
	if s.darks == nil {
		return fmt.Errorf("%s has no darks: give them with --darks FILE", s.name)
	}
	for _, f := range []struct {
		v    *volume.Volume
		what string
	}{{s.darks, "darks " + s.darksFrom}, {s.flats, "flats " + s.flatsFrom}} {
		if f.v.Shape[1] != s.proj.Shape[1] || f.v.Shape[2] != s.proj.Shape[2] {
			return fmt.Errorf("%s: frames of %d x %d, but the projections of %s are %d x %d",
				f.what, f.v.Shape[1], f.v.Shape[2], s.name, s.proj.Shape[1], s.proj.Shape[2])
		}
	}
	return nil
}

// readAngles reads --angles: rotation angles in degrees, one per
// projection, as numbers separated by white space or commas (a column of
// numbers, numpy.savetxt's output). Lines starting with # are comments.
func readAngles(path string, want int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var deg []float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("angles %s, line %d: %q is not an angle in degrees", path, line, w)
			}
			deg = append(deg, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("angles %s: %w", path, err)
	}
	if len(deg) != want {
		return nil, fmt.Errorf("angles %s: %d angles for %d projections: give one angle (degrees) per projection", path, len(deg), want)
	}
	return radiansOf(deg), nil
}

// evenAngles is n angles evenly spaced over [0°, 180°), the default of a
// scan whose angles are not given.
func evenAngles(n int) []float64 {
	deg := make([]float64, n)
	for i := range deg {
		deg[i] = 180 * float64(i) / float64(n)
	}
	return radiansOf(deg)
}

func radiansOf(deg []float64) []float64 {
	out := make([]float64, len(deg))
	for i, d := range deg {
		out[i] = d * math.Pi / 180
	}
	return out
}
