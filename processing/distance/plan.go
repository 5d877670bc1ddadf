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

// Phase describes the memory of a run as one plan.Phase whose unit is a
// ground-truth map of a chunk (low memory) or of a tile (in memory).
// Every array it lists is resident at once during the distance stage,
// which is the run's peak; the submitted set is loaded earlier through the
// same staging and read buffers.
func Phase(cfg Config, sh Shape, backend string, workers int) (plan.Phase, Layout, error) {
	if err := cfg.check(sh); err != nil {
		return plan.Phase{}, Layout{}, err
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
	ngt, nsub, row := int64(r1-r0), int64(sh.NSub), lay.RowBytes()
	mapBytes := int64(sh.Box) * int64(sh.Box) * int64(sh.Box) * 4
	staging := plan.Host
	if cfg.Pin && backend == "cuda" {
		staging = plan.Pinned
	}
	tables := int64(voxels)*4 + int64(sh.Box*sh.Box+1)*8
	if shells != nil {
		tables += int64(shells.Len()/2) * 12
	}
	ph := plan.Phase{
		Name:  "distances",
		Units: r1 - r0,
		Unit:  "maps",
		Arrays: []plan.Array{
			{Name: "submitted maps", Where: plan.Device, Fixed: nsub * row},
			{Name: "segment bounds", Where: plan.Device, Fixed: int64(lay.Segs()+1) * 8},
			{Name: "products", Where: plan.Device, PerUnit: int64(lay.Segs()) * nsub * 8},
			{Name: "metric values", Where: plan.Device, PerUnit: int64(len(cfg.Metrics)) * nsub * 8},
			{Name: "staging", Where: staging, PerUnit: 2 * row},
			{Name: "read buffer", Where: plan.Host, PerUnit: mapBytes + sh.ConvertBytes},
			{Name: "prepare scratch", Where: plan.Host, Fixed: int64(workers) * prepScratchBytes(lay, sh.Box)},
			{Name: "distance matrices", Where: plan.Host, Fixed: ngt * nsub * 8 * int64(len(cfg.Metrics))},
			{Name: "mask and shell tables", Where: plan.Host, Fixed: tables},
		},
	}
	if cfg.LowMemory {
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "ground-truth chunk", Where: plan.Device, PerUnit: row})
	} else {
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "ground-truth maps", Where: plan.Device, Fixed: ngt * row})
	}
	if !cfg.AutoChunk {
		ph.Block = cfg.Chunk
	}
	return ph, lay, nil
}

// MakePlan plans a run: the chunk (or tile) size and the predicted peak
// memory. On the CPU backend the "device" is host memory, so device and
// host arrays together must fit the host budget; on CUDA each fits its
// own.
func MakePlan(cfg Config, sh Shape, backend string, workers int) (*plan.Plan, error) {
	ph, _, err := Phase(cfg, sh, backend, workers)
	if err != nil {
		return nil, err
	}
	b := cfg.Budget
	var warn string
	if backend == "cpu" {
		if b.Device == 0 || (b.Host > 0 && b.Host < b.Device) {
			b.Device, b.DeviceSource = b.Host, b.HostSource+" (the CPU backend computes in host memory)"
		}
		if ph.Block == 0 {
			if ph.Block, err = largestUnified(ph, b); err != nil {
				return nil, hint(cfg, err)
			}
		} else if u := ph.UsageAt(min(ph.Block, ph.Units)); !fitsUnified(u, b) {
			warn = fmt.Sprintf("%s: a chunk of %d maps needs %s of host memory, more than the %s usable: it may not fit",
				ph.Name, ph.Block, plan.FormatBytes(u.Device+u.Host+u.Pinned), plan.FormatBytes(usable(b.Host, b)))
		}
	}
	p, err := plan.Make("distance", []plan.Phase{ph}, b)
	if err != nil {
		return nil, hint(cfg, err)
	}
	if warn != "" {
		p.Warnings = append(p.Warnings, warn)
	}
	return p, nil
}

func usable(n int64, b plan.Budget) int64 {
	m := b.Margin
	if m <= 0 || m > 1 {
		m = plan.DefaultMargin
	}
	return int64(m * float64(n))
}

func fitsUnified(u plan.Usage, b plan.Budget) bool {
	if b.Device > 0 && u.Device > usable(b.Device, b) {
		return false
	}
	return b.Host <= 0 || u.Device+u.Host+u.Pinned <= usable(b.Host, b)
}

// largestUnified returns the largest block whose device and host arrays
// together fit the host budget.
func largestUnified(ph plan.Phase, b plan.Budget) (int, error) {
	if u := ph.UsageAt(1); !fitsUnified(u, b) {
		return 0, &plan.TooSmallError{Pipeline: "distance", Phase: ph.Name, Where: plan.Host,
			Need: u.Device + u.Host + u.Pinned, Have: b.Host, Usable: usable(b.Host, b), Source: b.HostSource}
	}
	lo, hi := 1, max(ph.Units, 1)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fitsUnified(ph.UsageAt(mid), b) {
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
