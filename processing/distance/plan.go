package distance

import (
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/processing/plan"
)

// Shape is what planning needs to know of the inputs: read from headers,
// never from the data.
type Shape struct {
	// NGT and NSub are the numbers of ground-truth and submitted maps;
	// Box their edge.
	NGT, NSub, Box int
	// ConvertBytes is the host scratch a set's reader needs per map to
	// convert its file's type to float32 (0 for float32 files).
	ConvertBytes int64
}

// plannedRows returns the ground-truth rows a run computes.
func (c Config) plannedRows(ngt int) (int, int) {
	if c.Rows[1] > 0 {
		return c.Rows[0], c.Rows[1]
	}
	return 0, ngt
}

// Phases describe the memory of a run for processing/plan; their unit is
// a ground-truth map.
//
// Low memory has one phase, "distances": the submitted maps and one chunk
// of ground-truth maps on the device, two chunks in staging and one in the
// read buffer on the host, and the chunk's products and metric values.
// Its block is the chunk.
//
// In memory has two: "load" reads and prepares both sets in batches
// through staging into their resident device arrays (its block, the
// batch, is fixed: a few maps per preparing goroutine), and "distances"
// computes tile by tile from them (its block, the tile, is the run's
// chunk); staging and the read buffer are gone by then.
func Phases(cfg Config, sh Shape, backend string, workers int) ([]plan.Phase, Layout, error) {
	if err := cfg.check(sh); err != nil {
		return nil, Layout{}, err
	}
	voxels := sh.Box * sh.Box * sh.Box
	if cfg.Mask != nil {
		voxels = cfg.Mask.Len()
	}
	var shells *Shells
	if needSpec(cfg.Metrics) {
		shells = NewShells(sh.Box)
	}
	lay := newLayout(cfg.Metrics, voxels, shells)
	r0, r1 := cfg.plannedRows(sh.NGT)
	units := r1 - r0
	ngt, nsub, row := int64(units), int64(sh.NSub), lay.RowBytes()
	mapBytes := int64(sh.Box) * int64(sh.Box) * int64(sh.Box) * 4
	staging := plan.Host
	if cfg.Pin && backend == "cuda" {
		staging = plan.Pinned
	}
	tables := int64(voxels)*4 + int64(sh.Box*sh.Box+1)*8
	if shells != nil {
		tables += int64(shells.Len()/2) * 12
	}
	resident := []plan.Array{
		{Name: "submitted maps", Where: plan.Device, Fixed: nsub * row},
		{Name: "segment bounds", Where: plan.Device, Fixed: int64(lay.Segs()+1) * 8},
		{Name: "distance matrices", Where: plan.Host, Fixed: ngt * nsub * 8 * int64(len(cfg.Metrics))},
		{Name: "mask and shell tables", Where: plan.Host, Fixed: tables},
	}
	loading := []plan.Array{
		{Name: "staging", Where: staging, PerUnit: 2 * row},
		{Name: "read buffer", Where: plan.Host, PerUnit: mapBytes + sh.ConvertBytes},
		{Name: "prepare scratch", Where: plan.Host, Fixed: int64(workers) * prepScratchBytes(lay, sh.Box)},
	}
	computing := []plan.Array{
		{Name: "products", Where: plan.Device, PerUnit: int64(lay.Segs()) * nsub * 8},
		{Name: "metric values", Where: plan.Device, PerUnit: int64(len(cfg.Metrics)) * nsub * 8},
	}
	cat := func(parts ...[]plan.Array) []plan.Array {
		var out []plan.Array
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	dist := plan.Phase{Name: "distances", Units: units, Unit: "maps"}
	if !cfg.AutoChunk {
		dist.Block = cfg.Chunk
	}
	if cfg.LowMemory {
		dist.Arrays = cat(resident, loading, computing, []plan.Array{{Name: "ground-truth chunk", Where: plan.Device, PerUnit: row}})
		return []plan.Phase{dist}, lay, nil
	}
	all := []plan.Array{{Name: "ground-truth maps", Where: plan.Device, Fixed: ngt * row}}
	load := plan.Phase{Name: "load", Units: max(units, sh.NSub), Unit: "maps", Block: loadBatch(workers, max(units, sh.NSub)),
		Arrays: cat(resident, all, loading)}
	dist.Arrays = cat(resident, all, computing)
	return []plan.Phase{load, dist}, lay, nil
}

// loadBatch is the in-memory pipeline's load batch: a few maps per
// preparing goroutine, so that they all have work and reading overlaps
// preparing, without holding more than that in staging.
func loadBatch(workers, units int) int {
	return max(1, min(units, max(8, 2*workers)))
}

// chunkCap is the largest chunk the planner picks by itself in low-memory
// mode: a quarter of the maps, so that at least four chunks stream and
// reading overlaps computing even when the budget would hold them all.
func chunkCap(units int) int { return max(1, (units+3)/4) }

// MakePlan plans a run: the chunk (or tile) size and the predicted peak
// memory, phase by phase. On the CPU backend the "device" is host memory,
// so device and host arrays together must fit the host budget; on CUDA
// each fits its own budget.
func MakePlan(cfg Config, sh Shape, backend string, workers int) (*plan.Plan, error) {
	phases, _, err := Phases(cfg, sh, backend, workers)
	if err != nil {
		return nil, err
	}
	b := cfg.Budget
	unified := backend == "cpu"
	if unified && (b.Device == 0 || (b.Host > 0 && b.Host < b.Device)) {
		b.Device, b.DeviceSource = b.Host, b.HostSource+" (the CPU backend computes in host memory)"
	}
	var warns []string
	for i := range phases {
		ph := &phases[i]
		if ph.Block > 0 {
			if u := ph.UsageAt(min(ph.Block, max(ph.Units, 1))); !fitsBudget(u, b, unified) {
				warns = append(warns, fmt.Sprintf("%s: a block of %d %s needs %s, more than the budget allows (%s): it may not fit",
					ph.Name, ph.Block, ph.Unit, plan.FormatBytes(u.Device+u.Host+u.Pinned), b.HostSource))
			}
			continue
		}
		limit := max(ph.Units, 1)
		if cfg.LowMemory {
			limit = chunkCap(ph.Units)
		}
		if ph.Block, err = largestFitting(ph, b, unified, limit); err != nil {
			return nil, hint(cfg, err)
		}
	}
	p, err := plan.Make("distance", phases, b)
	if err != nil {
		return nil, hint(cfg, err)
	}
	p.Warnings = append(p.Warnings, warns...)
	return p, nil
}

func usable(n int64, b plan.Budget) int64 {
	m := b.Margin
	if m <= 0 || m > 1 {
		m = plan.DefaultMargin
	}
	return int64(m * float64(n))
}

// fitsBudget reports whether u fits b's usable share: device and host
// (with pinned) each in their own budget, and, when unified (the CPU
// backend), all of it in the host budget.
func fitsBudget(u plan.Usage, b plan.Budget, unified bool) bool {
	switch {
	case b.Device > 0 && u.Device > usable(b.Device, b):
		return false
	case b.PinnedCap > 0 && u.Pinned > b.PinnedCap:
		return false
	case b.Host > 0 && u.Host+u.Pinned > usable(b.Host, b):
		return false
	case unified && b.Host > 0 && u.Device+u.Host+u.Pinned > usable(b.Host, b):
		return false
	}
	return true
}

// largestFitting returns the largest block up to limit whose usage fits,
// or a TooSmallError saying what one map needs.
func largestFitting(ph *plan.Phase, b plan.Budget, unified bool, limit int) (int, error) {
	if u := ph.UsageAt(1); !fitsBudget(u, b, unified) {
		e := &plan.TooSmallError{Pipeline: "distance", Phase: ph.Name, Where: plan.Host,
			Need: u.Host + u.Pinned, Have: b.Host, Usable: usable(b.Host, b), Source: b.HostSource}
		switch {
		case unified:
			e.Need = u.Device + u.Host + u.Pinned
		case b.Device > 0 && u.Device > usable(b.Device, b):
			e.Where, e.Need, e.Have, e.Usable, e.Source = plan.Device, u.Device, b.Device, usable(b.Device, b), b.DeviceSource
		case b.PinnedCap > 0 && u.Pinned > b.PinnedCap:
			e.Where, e.Need, e.Have, e.Usable, e.Source = plan.Pinned, u.Pinned, b.PinnedCap, b.PinnedCap, "pinned memory cap"
		}
		return 0, e
	}
	lo, hi := 1, max(limit, 1)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fitsBudget(ph.UsageAt(mid), b, unified) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// hint adds what to do to an in-memory run that does not fit.
func hint(cfg Config, err error) error {
	var ts *plan.TooSmallError
	if !cfg.LowMemory && errors.As(err, &ts) {
		return fmt.Errorf("%w; the in-memory pipeline holds every ground-truth map: use --low-memory to stream them", err)
	}
	return err
}

func needSpec(ms []Metric) bool {
	for _, m := range ms {
		if m.spectral() {
			return true
		}
	}
	return false
}
