package reconstruct

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Config is a reconstruction run's settings, as the spec's parameters
// give them.
type Config struct {
	// Center is the rotation axis as a detector column; NaN: the
	// detector's middle, columns/2 (tomopy's default). AutoCenter: found
	// by Vo's method on the middle row of Rows.
	Center     float64
	AutoCenter bool
	// Gridrec: reconstruct by gridrec instead of FBP.
	Gridrec bool
	Filter  Filter
	// Stripes is "none", "sorting" or "all" (remove_all_stripe);
	// StripeSize the sorting method's median window.
	Stripes    string
	StripeSize int
	// Pad is "diagonal" (zeros to the slice's diagonal, as scikit-image),
	// "edge" (edge values, httomolibgpu's detector_pad=True) or "none".
	Pad        string
	MaskRadius float64
	// Rows are the detector rows [From, To) reconstructed; To 0: to the
	// last row.
	From, To int
	// Block is the number of rows per block (0: the planner chooses).
	Block int
	// Paganin, when not nil, retrieves the phase of each flat-field
	// corrected projection (in place of −log) before the sinograms.
	Paganin *PaganinParams
	// Sweep, when not nil, are the centres a sweep reconstructs the
	// middle row of Rows at, one slice each, in place of the slices.
	Sweep []float64
	// Dezing, when not nil, removes zingers from the projections, darks
	// and flats before the flat-field correction (dezing.go).
	Dezing *DezingParams
	// PixelSize is the detector's pixel in µm as given (0: the scan's).
	PixelSize float64
}

// maxSweep bounds a centre sweep's slices.
const maxSweep = 1000

// parseSweep reads --center-sweep FROM:TO:STEP ("" for none): the
// centres FROM, FROM+STEP, … up to TO (inclusive when on the grid).
func parseSweep(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ":")
	bad := fmt.Errorf("--center-sweep %q: want FROM:TO:STEP, detector columns with STEP > 0 (e.g. 1270:1290:0.5)", s)
	if len(parts) != 3 {
		return nil, bad
	}
	var v [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, bad
		}
		v[i] = x
	}
	from, to, step := v[0], v[1], v[2]
	if step <= 0 || to < from {
		return nil, bad
	}
	n := int(math.Floor((to-from)/step+1e-9)) + 1
	if n > maxSweep {
		return nil, fmt.Errorf("--center-sweep %q: %d centres, at most %d", s, n, maxSweep)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = from + float64(i)*step
	}
	return out, nil
}

// Pad and stripe choices.
var (
	padChoices    = []string{"diagonal", "edge", "none"}
	stripeChoices = []string{"none", "sorting", "all"}
)

// parseCenter reads --center: "" for columns/2, "auto", or a column.
func parseCenter(s string) (c float64, auto bool, err error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return math.NaN(), false, nil
	case "auto":
		return math.NaN(), true, nil
	}
	c, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(c) || math.IsInf(c, 0) {
		return 0, false, fmt.Errorf("--center %q: want a detector column (0-based, fractional) or auto", s)
	}
	return c, false, nil
}

// parseRows reads --rows FROM:TO ("" for every row; TO may be left out).
func parseRows(s string) (from, to int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("--rows %q: want FROM:TO, detector rows from FROM up to TO (exclusive)", s)
	}
	if from, err = strconv.Atoi(strings.TrimSpace(a)); err != nil || from < 0 {
		return 0, 0, fmt.Errorf("--rows %q: FROM is not a row number", s)
	}
	if strings.TrimSpace(b) == "" {
		return from, 0, nil
	}
	if to, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || to <= from {
		return 0, 0, fmt.Errorf("--rows %q: TO must be a row number above FROM", s)
	}
	return from, to, nil
}

// rows resolves the row range against a detector of n rows.
func (c Config) rows(n int) (from, to int, err error) {
	from, to = c.From, c.To
	if to == 0 {
		to = n
	}
	if from >= n || to > n {
		return 0, 0, fmt.Errorf("--rows %d:%d is outside the detector's %d rows", c.From, to, n)
	}
	return from, to, nil
}

// slicer reconstructs slices of one geometry: FBP or Gridrec.
type slicer interface {
	SliceContext(ctx context.Context, dst, sino []float32) error
}

// newSlicer makes the run's reconstruction of geometry g.
func (c Config) newSlicer(g Geometry) (slicer, error) {
	if c.Gridrec {
		return NewGridrec(g)
	}
	return NewFBP(g)
}

// newSlicer makes the run's reconstruction of geometry g on the run's
// backend: FBP with its back-projection on the device when the backend
// is not the CPU (deviceFBP), else Config.newSlicer's. A slicer that
// holds device buffers is freed by closeSlicer.
func (j *reconJob) newSlicer(g Geometry) (slicer, error) {
	if j.onDevice(j.be) {
		return newDeviceFBP(g, j.be)
	}
	return j.cfg.newSlicer(g)
}

// closeSlicer frees what a slicer holds on a device.
func closeSlicer(s slicer) {
	if c, ok := s.(interface{ Close() }); ok {
		c.Close()
	}
}

// geometry is the FBP geometry of the run for the scan's angles and
// columns, with centre c.
func (c Config) geometry(angles []float64, cols int, centre float64) Geometry {
	g := Geometry{Angles: angles, Columns: cols, Center: centre, MaskRadius: c.MaskRadius, Filter: c.Filter}
	switch c.Pad {
	case "diagonal":
		g.Pad, g.PadZeros = DiagonalPad(cols), true
	case "edge":
		g.Pad = AutoPad(cols)
	}
	return g
}

func (c Config) algorithm() string {
	if c.Gridrec {
		return "gridrec"
	}
	return "fbp"
}

// stripeRemover removes the stripes of a run's sinograms (nil: none).
type stripeRemover func(sino []float32)

func (c Config) stripeRemover(nang, ncol int) stripeRemover {
	switch c.Stripes {
	case "sorting":
		return NewStripeSorter(c.StripeSize, nang, ncol).Remove
	case "all":
		return func(sino []float32) { DefaultAllStripes.RemoveAll(sino, nang, ncol) }
	}
	return nil
}
