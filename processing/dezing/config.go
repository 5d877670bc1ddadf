package dezing

import (
	"errors"
	"fmt"
	"strings"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Reduction is how a stack of darks or flats becomes one frame.
type Reduction int

// The reductions.
const (
	Mean Reduction = iota
	Median
)

func (r Reduction) String() string {
	if r == Median {
		return "median"
	}
	return "mean"
}

// ParseReduction parses "mean" or "median".
func ParseReduction(s string) (Reduction, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "mean":
		return Mean, nil
	case "median":
		return Median, nil
	}
	return Mean, fmt.Errorf("darks/flats reduction %q: use mean or median", s)
}

// Defaults, as the field's tools have them (httomolibgpu's remove_outlier
// and normalisation).
const (
	DefaultKernel = 3
	DefaultDif    = 1000
	// DefaultClip bounds the flat-field result to ±1e12.
	DefaultClip = 1e12
)

// Config is what a dezinging run does.
type Config struct {
	// Kernel is the side of the median cube: odd, 3 to 13.
	Kernel int
	// Dif is the outlier threshold in data units: |x − median| ≥ Dif.
	Dif float64
	// Reduce reduces the dezinged darks and flats to one frame each.
	Reduce Reduction
	// FlatField applies (I − D) / max(F − D, 1e-7) to the projections,
	// clipped to [ClipLow, ClipHigh], as float32; MinusLog then takes −log.
	FlatField, MinusLog bool
	ClipLow, ClipHigh   float32
	// Block is the number of projections per block; 0 lets the planner
	// choose the largest that fits.
	Block int
	// FrameBlock (darks and flats per block) and ReduceRows (rows per
	// block of the reduction) are chosen by the planner when 0; tests set
	// them to check that results do not depend on them.
	FrameBlock, ReduceRows int
	// Range, when Range[1] > 0, restricts the run to projections
	// [Range[0], Range[1]) (halos still come from outside the range), so
	// that a cluster task can process part of a scan on its own.
	Range [2]int
	// Pin page-locks the host staging buffers (CUDA only).
	Pin bool
	// Budget is the memory the plan may use.
	Budget plan.Budget
	// WriterBytes is the host memory the output writer holds of its own
	// (its library's caches), for the plan.
	WriterBytes int64
	// Output, when set, is the file or store the run writes: the plan
	// bounds its size on disk (OutputBytes) and refuses a run whose
	// output would not fit the space free there.
	Output string
	// Track, when set, counts the run's host arrays (tests hold the peak
	// against the plan).
	Track *plan.Tracker
	// Partials makes Run hand each finished block of projections to the
	// job's sinks as a *Block (a copy).
	Partials bool
}

// DefaultConfig returns the field's defaults: kernel 3, dif 1000, mean
// reduction, no flat-field, clipping ±1e12.
func DefaultConfig() Config {
	return Config{Kernel: DefaultKernel, Dif: DefaultDif, ClipLow: -DefaultClip, ClipHigh: DefaultClip}
}

// Validate checks the parameters (not the input).
func (c Config) Validate() error {
	switch {
	case c.Kernel < 3 || c.Kernel > 13 || c.Kernel%2 == 0:
		return fmt.Errorf("kernel %d: must be odd, from 3 to 13", c.Kernel)
	case !(c.Dif > 0):
		return fmt.Errorf("dif %v: must be positive (it is the outlier threshold in data units)", c.Dif)
	case c.Block < 0 || c.FrameBlock < 0 || c.ReduceRows < 0:
		return errors.New("block sizes must be positive (or 0 for the planner's choice)")
	case c.MinusLog && !c.FlatField:
		return errors.New("-log needs the flat-field correction")
	case c.FlatField && !(c.ClipLow < c.ClipHigh):
		return fmt.Errorf("flat-field clipping bounds [%v, %v]: the low bound must be below the high one", c.ClipLow, c.ClipHigh)
	case c.Range[0] < 0 || c.Range[1] < 0 || (c.Range[1] > 0 && c.Range[0] >= c.Range[1]):
		return fmt.Errorf("projection range [%d, %d) is empty or negative", c.Range[0], c.Range[1])
	}
	return nil
}

// Shapes describe the inputs of a run without their data. Darks and Flats
// are the zero Info when absent.
type Shapes struct {
	Projections, Darks, Flats volume.Info
	// Readers are the inputs' readers: what they hold to decode chunks
	// (the decoders at once and a cache of decoded chunks) is planned
	// with the rest, and the plan sets it (Run).
	Readers volume.Readers
}

// HasDarks and HasFlats report whether the sets are present.
func (s Shapes) HasDarks() bool { return s.Darks.Shape[0] > 0 }

// HasFlats reports whether flats are present.
func (s Shapes) HasFlats() bool { return s.Flats.Shape[0] > 0 }

// Check validates the inputs against each other and the config: there
// must be projections, every set must be an integer type or float32, darks and
// flats must have the projections' frame size, and the flat-field needs
// both.
func (s Shapes) Check(c Config) error {
	p := s.Projections
	if p.Shape[0] < 1 {
		return errors.New("no projections: the input holds no frames to dezing")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("projections: %w", err)
	}
	sets := []struct {
		name string
		in   volume.Info
	}{{"projections", p}}
	if s.HasDarks() {
		sets = append(sets, struct {
			name string
			in   volume.Info
		}{"darks", s.Darks})
	}
	if s.HasFlats() {
		sets = append(sets, struct {
			name string
			in   volume.Info
		}{"flats", s.Flats})
	}
	for _, set := range sets {
		if dt := kernelType(set.in.DType); dt != volume.Uint16 && dt != volume.Float32 {
			return fmt.Errorf("%s are %s: dezinging computes in uint16 or float32 (other integer types are converted to float32); convert %s data to float32 first", set.name, set.in.DType, set.in.DType)
		}
		if set.in.Shape[1] != p.Shape[1] || set.in.Shape[2] != p.Shape[2] {
			return fmt.Errorf("%s have frames of %d x %d, the projections %d x %d: they must be the same size",
				set.name, set.in.Shape[1], set.in.Shape[2], p.Shape[1], p.Shape[2])
		}
	}
	if c.FlatField && (!s.HasDarks() || !s.HasFlats()) {
		return errors.New("the flat-field correction needs darks and flats")
	}
	if c.Range[1] > p.Shape[0] {
		return fmt.Errorf("projection range [%d, %d) passes the %d projections", c.Range[0], c.Range[1], p.Shape[0])
	}
	return nil
}

// span returns the projections a run processes.
func (c Config) span(s Shapes) (z0, z1 int) {
	if c.Range[1] > 0 {
		return c.Range[0], c.Range[1]
	}
	return 0, s.Projections.Shape[0]
}

// OutInfo describes the processed projections a run writes: the input's
// type (float32 for integer types other than uint16), or float32 after
// the flat-field correction.
func OutInfo(s Shapes, c Config) volume.Info {
	s = s.kernelTypes()
	out := s.Projections
	z0, z1 := c.span(s)
	out.Shape[0] = z1 - z0
	if c.FlatField {
		out.DType = volume.Float32
	}
	return out
}
