package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Where says where an array lives. It is a property of each array, never
// derived from another one.
type Where int

// Memory kinds.
const (
	Device Where = iota
	Pinned
	Host
)

func (w Where) String() string { return [...]string{"device", "pinned", "host"}[w] }

// Array is one buffer a phase keeps resident.
type Array struct {
	Name  string
	Where Where
	// Fixed bytes, whatever the block size.
	Fixed int64
	// PerUnit bytes for each unit of the block.
	PerUnit int64
	// Halo: the array also holds the phase's halo units on each side of the
	// block (an input block of a 3D filter does; its output does not).
	Halo bool
}

// Phase is one stage of a pipeline with its own block size: the darks, the
// flats and the projections of a dezinging run are three phases.
type Phase struct {
	Name string
	// Units is how many units the phase processes; Unit names them.
	Units int
	Unit  string
	// Halo units each side of a block (kernel/2 for a 3D median).
	Halo int
	// Block, when positive, fixes the block size (the user's --batch-size)
	// instead of choosing the largest that fits.
	Block int
	// MinBlock is the smallest useful block (default 1).
	MinBlock int
	// MaxBlock, when positive, is the largest block the planner picks by
	// itself even when the budget holds more: blocks no larger than
	// throughput needs start showing progress and overlapping reads with
	// compute sooner.
	MaxBlock int
	// Align, when above 1, makes a block the planner picks a multiple of
	// Align planes whenever it is at least that (the depth of the input's
	// chunks: a block then ends where a chunk does, and no chunk is
	// decoded for two blocks).
	Align  int
	Arrays []Array
}

// Budget is the memory a plan may use.
type Budget struct {
	// Device and Host are the bytes available; 0 means unlimited.
	Device, Host int64
	// DeviceSource and HostSource say where the figures came from
	// ("--device-memory", "free memory of NVIDIA H200", ...).
	DeviceSource, HostSource string
	// Margin is the usable fraction of each budget (default 0.9, as httomo).
	Margin float64
	// PinnedCap caps pinned host memory (0: no cap).
	PinnedCap int64
	// Shared says device buffers are host RAM (the CPU backend): they are
	// counted once, with the host arrays, against Host. Device, when set,
	// then only caps the device buffers on their own (--device-memory).
	Shared bool
}

// DefaultMargin is the fraction of a budget a plan may fill.
const DefaultMargin = 0.9

func (b Budget) margin() float64 {
	if b.Margin <= 0 || b.Margin > 1 {
		return DefaultMargin
	}
	return b.Margin
}

// Usage is the memory one phase needs at a block size.
type Usage struct {
	Device, Pinned, Host int64
	// Breakdown maps "where:name" to bytes.
	Breakdown map[string]int64
}

// RAM returns the host RAM the usage takes: pageable and pinned host
// memory, and the device buffers too when they are host RAM (shared).
func (u Usage) RAM(shared bool) int64 {
	n := u.Host + u.Pinned
	if shared {
		n += u.Device
	}
	return n
}

// unitsHeld returns how many units an array holds for block b, capped at
// the phase's total because a halo never reaches past the data.
func (ph Phase) unitsHeld(a Array, b int) int64 {
	n := b
	if a.Halo {
		n += 2 * ph.Halo
	}
	if ph.Units > 0 && n > ph.Units {
		n = ph.Units
	}
	return int64(n)
}

// UsageAt returns the memory the phase needs with blocks of b units.
func (ph Phase) UsageAt(b int) Usage {
	u := Usage{Breakdown: map[string]int64{}}
	for _, a := range ph.Arrays {
		n := a.Fixed + a.PerUnit*ph.unitsHeld(a, b)
		u.Breakdown[a.Where.String()+":"+a.Name] += n
		switch a.Where {
		case Device:
			u.Device += n
		case Pinned:
			u.Pinned += n
		default:
			u.Host += n
		}
	}
	return u
}

// PhasePlan is the plan of one phase.
type PhasePlan struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Units  int    `json:"units"`
	Block  int    `json:"block"`
	Blocks int    `json:"blocks"`
	Halo   int    `json:"halo"`
	Usage
}

// Plan is the outcome for a whole pipeline.
type Plan struct {
	Pipeline string
	Phases   []PhasePlan
	// Main is the index of the phase whose block size the pipeline is
	// known by (the projections of a dezinging run): the last phase.
	Main int
	// Peaks over all phases: device, pinned host and pageable host bytes.
	PeakDevice, PeakPinned, PeakHost int64
	// PeakRAM is the highest host RAM any phase holds (Usage.RAM): the
	// prediction a run's resident memory is checked against, beyond the
	// program's own baseline.
	PeakRAM int64
	// PeakPhase is the index of the phase with the highest device usage
	// (or host usage, when nothing is on the device): the one the
	// breakdown is shown for.
	PeakPhase int
	Budget    Budget
	// Warnings, e.g. a fixed block that exceeds the budget.
	Warnings []string
	// Choice is the alternative Choose took (0 for Make), and Reading
	// says what it means for people (how the input's reader decodes).
	Choice  int
	Reading string
	// Output is the most bytes the run writes to disk (0: not planned),
	// Free the bytes free where it writes (0: not known).
	Output, Free int64
}

// Block returns the main phase's block size.
func (p *Plan) Block() int { return p.Phases[p.Main].Block }

// fits reports whether usage u fits the budget's usable share.
func fits(u Usage, b Budget) bool {
	m := b.margin()
	if b.Device > 0 && float64(u.Device) > m*float64(b.Device) {
		return false
	}
	if b.Host > 0 && float64(u.RAM(b.Shared)) > m*float64(b.Host) {
		return false
	}
	if b.PinnedCap > 0 && u.Pinned > b.PinnedCap {
		return false
	}
	return true
}

// TooSmallError says a budget cannot hold even the smallest block.
type TooSmallError struct {
	Pipeline, Phase string
	Where           Where
	// Need is what the smallest block needs, Have the budget and Usable
	// the share of it a plan may fill.
	Need, Have, Usable int64
	Source             string
	// Good, when set, is the smallest budget with which Choose takes the
	// run's fastest alternative (a cache of decoded chunks).
	Good int64
}

func (e *TooSmallError) Error() string {
	src := ""
	if e.Source != "" {
		src = " (" + e.Source + ")"
	}
	msg := fmt.Sprintf("%s: not enough %s memory for %s: the smallest block needs %s, %s is usable of %s available%s; the smallest budget that works is %s",
		e.Pipeline, e.Where, e.Phase, FormatBytes(e.Need), FormatBytes(e.Usable), FormatBytes(e.Have), src, FormatBytes(e.Smallest()))
	if e.Good > e.Smallest() {
		msg += fmt.Sprintf(" (%s runs with every chunk of the input decoded once)", FormatBytes(e.Good))
	}
	return msg
}

// Smallest returns the smallest budget whose usable share holds Need:
// what to give --host-memory or --device-memory (the pinned cap is used
// whole).
func (e *TooSmallError) Smallest() int64 { return e.budgetFor(e.Need) }

// budgetFor returns the smallest budget whose usable share holds need.
func (e *TooSmallError) budgetFor(need int64) int64 {
	if e.Where == Pinned || e.Have <= 0 || e.Usable >= e.Have {
		return need
	}
	m := float64(e.Usable) / float64(e.Have)
	n := int64(math.Ceil(float64(need) / m))
	// Round up to a whole MiB, so that the figure can be typed back.
	return (n + 1<<20 - 1) &^ (1<<20 - 1)
}

// Make plans every phase: each gets the largest block (up to its units)
// whose usage fits the budget, or the fixed block it asks for.
func Make(pipeline string, phases []Phase, b Budget) (*Plan, error) {
	if len(phases) == 0 {
		return nil, fmt.Errorf("%s: nothing to plan", pipeline)
	}
	p := &Plan{Pipeline: pipeline, Budget: b, Main: len(phases) - 1}
	for _, ph := range phases {
		pp, warn, err := planPhase(pipeline, ph, b)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			p.Warnings = append(p.Warnings, warn)
		}
		p.Phases = append(p.Phases, pp)
		p.PeakDevice = max(p.PeakDevice, pp.Device)
		p.PeakPinned = max(p.PeakPinned, pp.Pinned)
		p.PeakHost = max(p.PeakHost, pp.Host)
		p.PeakRAM = max(p.PeakRAM, pp.RAM(b.Shared))
	}
	p.PeakPhase = peakPhase(p.Phases)
	return p, nil
}

func peakPhase(phases []PhasePlan) int {
	best := 0
	for i, ph := range phases {
		b := phases[best]
		if ph.Device > b.Device || ph.Device == b.Device && ph.Host+ph.Pinned > b.Host+b.Pinned {
			best = i
		}
	}
	return best
}

func planPhase(pipeline string, ph Phase, b Budget) (PhasePlan, string, error) {
	units := max(ph.Units, 1)
	minB := min(max(ph.MinBlock, 1), units)
	pp := PhasePlan{Name: ph.Name, Unit: ph.Unit, Units: ph.Units, Halo: ph.Halo}
	if ph.Block > 0 {
		blk := min(ph.Block, units)
		pp.Block, pp.Usage = blk, ph.UsageAt(blk)
		pp.Blocks = ceilDiv(ph.Units, blk)
		if !fits(pp.Usage, b) {
			e := tooSmall(pipeline, ph.Name, pp.Usage, b)
			return pp, fmt.Sprintf("%s: a block of %d %s needs %s of %s memory, more than the %s usable: it may not fit (choose a smaller block, or auto)",
				ph.Name, blk, ph.Unit, FormatBytes(e.Need), e.Where, FormatBytes(e.Usable)), nil
		}
		return pp, "", nil
	}
	if u := ph.UsageAt(minB); !fits(u, b) {
		return pp, "", tooSmall(pipeline, ph.Name, u, b)
	}
	// Usage grows monotonically with the block, so bisect for the largest
	// block that fits.
	lo, hi := minB, units
	if ph.MaxBlock > 0 {
		hi = max(minB, min(units, ph.MaxBlock))
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(ph.UsageAt(mid), b) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if ph.Align > 1 && lo >= ph.Align {
		lo -= lo % ph.Align
	}
	pp.Block, pp.Usage = lo, ph.UsageAt(lo)
	pp.Blocks = ceilDiv(ph.Units, lo)
	return pp, "", nil
}

// Choose plans alternatives of one run (alts[i] are its phases), from
// the fastest, which holds the most, to the leanest: how an input's
// reader decodes, say, every CPU at once with a cache of decoded chunks
// or one chunk at a time without. It returns the plan of the first whose
// every phase fits without warnings and that good accepts (nil: any),
// else of the first that fits, with Plan.Choice set to its index. When
// none fits it returns the leanest's error: its TooSmallError names the
// smallest budget with which the run works at all, and Good, when the
// fastest alternative needs more, the one with which it runs best.
func Choose(pipeline string, alts [][]Phase, b Budget, good func(*Plan) bool) (*Plan, error) {
	if len(alts) == 0 {
		return nil, fmt.Errorf("%s: nothing to plan", pipeline)
	}
	var fallback *Plan
	var err error
	for i, phases := range alts {
		var p *Plan
		p, err = Make(pipeline, phases, b)
		if err != nil || len(p.Warnings) > 0 && i < len(alts)-1 {
			continue
		}
		p.Choice = i
		if good == nil || good(p) {
			return p, nil
		}
		if fallback == nil {
			fallback = p
		}
	}
	if fallback != nil {
		return fallback, nil
	}
	err = Binding(err, alts[len(alts)-1], b)
	var ts *TooSmallError
	if errors.As(err, &ts) && len(alts) > 1 {
		ts.Good = smallestGood(pipeline, alts[0], b, ts.Where, good)
	}
	return nil, err
}

// smallestGood returns the smallest budget of kind w, in whole MiB, with
// which phases plan without warnings and good accepts the plan: what
// Choose needs to take them. It returns 0 when none below 1 PiB does.
func smallestGood(pipeline string, phases []Phase, b Budget, w Where, good func(*Plan) bool) int64 {
	ok := func(n int64) bool {
		bb := b
		switch w {
		case Device:
			bb.Device = n
		case Pinned:
			bb.PinnedCap = n
		default:
			bb.Host = n
		}
		p, err := Make(pipeline, phases, bb)
		return err == nil && len(p.Warnings) == 0 && (good == nil || good(p))
	}
	const mib = 1 << 20
	lo, hi := int64(0), int64(mib)
	for !ok(hi) {
		if lo, hi = hi, 2*hi; hi > 1<<50 {
			return 0
		}
	}
	for hi-lo > mib {
		if mid := (lo + hi) / 2 &^ (mib - 1); ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func tooSmall(pipeline, phase string, u Usage, b Budget) *TooSmallError {
	m := b.margin()
	usable := func(n int64) int64 { return int64(m * float64(n)) }
	switch {
	case b.Device > 0 && float64(u.Device) > m*float64(b.Device):
		return &TooSmallError{pipeline, phase, Device, u.Device, b.Device, usable(b.Device), b.DeviceSource, 0}
	case b.PinnedCap > 0 && u.Pinned > b.PinnedCap:
		return &TooSmallError{pipeline, phase, Pinned, u.Pinned, b.PinnedCap, b.PinnedCap, "pinned memory cap", 0}
	default:
		return &TooSmallError{pipeline, phase, Host, u.RAM(b.Shared), b.Host, usable(b.Host), b.HostSource, 0}
	}
}

// NeedAtSmallest returns the phase that needs the most memory of kind w
// at its smallest block, and that need: what a budget must hold for the
// run to go ahead. Phases of a fixed block are left out (they only warn
// when they do not fit). shared counts device buffers as host RAM, as
// Budget.Shared does.
func NeedAtSmallest(phases []Phase, w Where, shared bool) (string, int64) {
	var name string
	var need int64
	for _, ph := range phases {
		if ph.Block > 0 {
			continue
		}
		u := ph.UsageAt(min(max(ph.MinBlock, 1), max(ph.Units, 1)))
		n := u.RAM(shared)
		switch w {
		case Device:
			n = u.Device
		case Pinned:
			n = u.Pinned
		}
		if n > need {
			name, need = ph.Name, n
		}
	}
	return name, need
}

// Binding makes a TooSmallError name the phase of phases that needs the
// most at its smallest block, rather than the first that did not fit, so
// that the smallest budget it names is one with which every phase fits.
func Binding(err error, phases []Phase, b Budget) error {
	var ts *TooSmallError
	if !errors.As(err, &ts) {
		return err
	}
	e := *ts
	if name, need := NeedAtSmallest(phases, e.Where, b.Shared); need > e.Need {
		e.Phase, e.Need = name, need
	}
	return &e
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// SortedBreakdown returns the breakdown's keys in a stable order.
func (u Usage) SortedBreakdown() []string {
	keys := make([]string, 0, len(u.Breakdown))
	for k := range u.Breakdown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
