package distance

import (
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
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
	// Readers are the sets' readers: what they hold to decode chunks is
	// planned with the rest (Phases' reading), and Run sets it.
	Readers volume.Readers
}

// plannedRows returns the ground-truth rows a run computes.
func (c Config) plannedRows(ngt int) (int, int) {
	if c.Rows[1] > 0 {
		return c.Rows[0], c.Rows[1]
	}
	return 0, ngt
}

// Phases describe the memory of a run for processing/plan; their unit is
// a ground-truth map. Every array a run holds at once is one of theirs,
// and Run allocates each through cfg.Tracker under the same name, so
// that a test can hold what a run held against the plan.
//
// Maps are read in batches, one read per batch into one of two read
// buffers (reading the next batch overlaps preparing this one), and
// prepared by the host goroutines. On the CPU backend, whose device
// buffers are host RAM, they are prepared straight into those buffers;
// on CUDA into two host staging buffers that are then uploaded.
//
// Low memory has one phase, "distances": the submitted maps and the
// ground-truth chunks (two on the CPU, where the next chunk is prepared
// into one while the products of the other are computed; one on CUDA,
// beside two in staging), the read buffers, the chunk's products and
// metric values. Its block is the chunk, at most a quarter of the maps
// unless the user says (MaxBlock), so that reading overlaps computing.
//
// In memory has three: "load" reads and prepares both sets in batches
// into their resident arrays (its block, the batch, is a few maps per
// preparing goroutine), "distances" computes tile by tile from them (its
// block, the tile, is the run's chunk) once the read buffers are gone,
// and "write" holds the matrices while the output is written.
func Phases(cfg Config, sh Shape, backend string, workers int) ([]plan.Phase, Layout, error) {
	return phasesAt(cfg, sh, backend, workers, nil)
}

// phasesAt is Phases with the readers' memory (reading, resident through
// the run).
func phasesAt(cfg Config, sh Shape, backend string, workers int, reading []plan.Array) ([]plan.Phase, Layout, error) {
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
	direct := hostBuffers(backend)
	resident := []plan.Array{
		{Name: "submitted maps", Where: plan.Device, Fixed: nsub * row},
		{Name: "segment bounds", Where: plan.Device, Fixed: int64(lay.Segs()+1) * 8},
		{Name: "distance matrices", Where: plan.Host, Fixed: matrixBytes(cfg, units, sh.NSub)},
		{Name: "mask and shell tables", Where: plan.Host, Fixed: tableBytes(voxels, sh.Box, shells)},
		{Name: "prepare scratch", Where: plan.Host, Fixed: int64(workers) * prepScratchBytes(lay, sh.Box)},
	}
	resident = append(resident, reading...)
	loading := []plan.Array{
		{Name: "read buffers", Where: plan.Host, PerUnit: readBytes(sh)},
	}
	if !direct {
		staging := plan.Host
		if cfg.Pin && backend == "cuda" {
			staging = plan.Pinned
		}
		loading = append(loading, plan.Array{Name: "staging", Where: staging, PerUnit: 2 * row})
	}
	computing := []plan.Array{
		{Name: "products", Where: plan.Device, PerUnit: int64(lay.Segs()) * nsub * 8},
		{Name: "metric values", Where: plan.Device, PerUnit: int64(len(cfg.Metrics)) * nsub * 8},
	}
	dist := plan.Phase{Name: "distances", Units: units, Unit: "maps"}
	if !cfg.AutoChunk {
		dist.Block = cfg.Chunk
	}
	if cfg.LowMemory {
		chunks := int64(1)
		if direct {
			chunks = 2
		}
		dist.MaxBlock = chunkCap(units)
		dist.Arrays = cat(resident, loading, computing, []plan.Array{{Name: "ground-truth chunks", Where: plan.Device, PerUnit: chunks * row}})
		return []plan.Phase{dist, writePhase(cfg, units, sh.NSub, workers)}, lay, nil
	}
	all := []plan.Array{{Name: "ground-truth maps", Where: plan.Device, Fixed: ngt * row}}
	n := max(units, sh.NSub)
	load := plan.Phase{Name: "load", Units: n, Unit: "maps", MaxBlock: loadBatch(workers, n), Arrays: cat(resident, all, loading)}
	dist.Arrays = cat(resident, all, computing)
	return []plan.Phase{load, dist, writePhase(cfg, units, sh.NSub, workers)}, lay, nil
}

// writePhase is what writing the output (voxlab distance's OUT_DIR)
// holds: the matrices and the writer's buffers of as many metrics as are
// written at once (one per core).
func writePhase(cfg Config, ngt, nsub, workers int) plan.Phase {
	at := int64(min(len(cfg.Metrics), max(workers, 1)))
	return plan.Phase{Name: "write", Units: 1, Unit: "outputs", Arrays: []plan.Array{
		{Name: "distance matrices", Where: plan.Host, Fixed: matrixBytes(cfg, ngt, nsub)},
		{Name: "output writer", Where: plan.Host, Fixed: at * WriterBytes(ngt, nsub)},
	}}
}

// WriterBytes is what WriteReport holds to write one
// metric of an ngt x nsub matrix besides the matrix: the 800 x 600 heat
// map's canvas, its RGBA copy and the PNG encoder's rows (three images of
// 800 x 600 x 4 bytes), the image of the cells (each cell a block of
// about the pixels it covers), and the files' 64 KiB write buffers and
// the encoder's compressor (1 MiB).
func WriterBytes(ngt, nsub int) int64 {
	const w, h = 800, 600
	cells := int64(nsub*max(1, w/max(nsub, 1))) * int64(ngt*max(1, h/max(ngt, 1))) * 4
	return 3*w*h*4 + cells + 1<<20
}

func cat(parts ...[]plan.Array) []plan.Array {
	var out []plan.Array
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// hostBuffers reports whether the backend's device buffers are host
// memory (the CPU backend): maps are then prepared straight into them.
func hostBuffers(backend string) bool { return backend == "cpu" }

func matrixBytes(cfg Config, ngt, nsub int) int64 {
	return int64(ngt) * int64(nsub) * 8 * int64(len(cfg.Metrics))
}

// tableBytes is the mask's voxel index and row runs and the Fourier
// shells' tables.
func tableBytes(voxels, box int, sh *Shells) int64 {
	n := int64(voxels)*4 + int64(box*box+1)*8
	if sh != nil {
		n += sh.Bytes()
	}
	return n
}

// readBytes is the read buffers' size per map: two maps of float32 (one
// read, one being prepared) and the reader's conversion scratch.
func readBytes(sh Shape) int64 {
	return 2*int64(sh.Box)*int64(sh.Box)*int64(sh.Box)*4 + sh.ConvertBytes
}

// loadBatch is the in-memory pipeline's largest load batch: a few maps
// per preparing goroutine, so that they all have work and reading
// overlaps preparing, without holding more than that in the read
// buffers.
func loadBatch(workers, units int) int {
	return max(1, min(units, max(8, 2*workers)))
}

// chunkCap is the largest chunk the planner picks by itself in low-memory
// mode: a quarter of the maps, so that at least four chunks stream and
// reading overlaps computing even when the budget would hold them all.
func chunkCap(units int) int { return max(1, (units+3)/4) }

// MakePlan plans a run: the chunk (or tile) size and the predicted peak
// memory, phase by phase. On the CPU backend the "device" is host memory:
// the budget is shared (plan.Budget.Shared), device and host arrays
// counted once against the host budget.
//
// The maps' readers are planned at each level of their memory, fastest
// first (volume.ReadOptions), and the first level that fits is taken
// (Plan.Choice; Run sets the readers to it).
func MakePlan(cfg Config, sh Shape, backend string, workers int) (*plan.Plan, error) {
	rd := sh.Readers
	alts := make([][]plan.Phase, rd.Levels())
	for k := range alts {
		phases, _, err := phasesAt(cfg, sh, backend, workers, rd.Arrays(k))
		if err != nil {
			return nil, err
		}
		alts[k] = phases
	}
	b := cfg.Budget
	if hostBuffers(backend) {
		b.Shared = true
	}
	p, err := plan.Choose("distance", alts, b, nil)
	if err != nil {
		return nil, hint(cfg, err)
	}
	p.Reading = rd.Describe(p.Choice)
	// The run is known by its chunk (tile): the distances phase's block,
	// not the last phase's (the output).
	for i, ph := range p.Phases {
		if ph.Name == "distances" {
			p.Main = i
		}
	}
	return p, nil
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
