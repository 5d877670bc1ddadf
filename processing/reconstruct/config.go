package reconstruct

import (
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
	Filter     Filter
	// Stripes is "none" or "sorting"; StripeSize the median's window.
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
}

// Pad and stripe choices.
var (
	padChoices    = []string{"diagonal", "edge", "none"}
	stripeChoices = []string{"none", "sorting"}
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
