package reconstruct

import (
	"runtime"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// maxBlockRows caps the block the planner picks by itself: slices start
// reaching the output (and the progress bar) early, and one block's read
// overlaps the previous block's reconstruction.
const maxBlockRows = 32

// outInfo is the output volume: a slice per detector row, or per centre
// of a sweep.
func (j *reconJob) outInfo() volume.Info {
	n := j.to - j.from
	if j.cfg.Sweep != nil {
		n = len(j.cfg.Sweep)
	}
	v := j.voxel
	return volume.Info{Shape: [3]int{n, j.cols, j.cols}, DType: volume.Float32, VoxelSize: [3]float64{v, v, v}}
}

// align is the output writer's plane alignment (its chunks' depth).
func (j *reconJob) align() int {
	if j.exp == nil || j.exp.Align == nil {
		return 1
	}
	if a := j.exp.Align(j.outInfo(), volume.ExportOptions{}); len(a) > 0 && a[0] > 1 {
		return a[0]
	}
	return 1
}

// phases are what a run holds at once: the darks' and flats' means while
// they are read; the centre search's arrays when --center auto; and,
// per block of detector rows, two blocks of raw rows across every
// projection (one read while the other is reconstructed), the block's
// slices, and the fixed scratch of a slice (its sinogram, FBP's filtered
// projections and per-core rows, the stripe sorter's order and sorted
// copy), the means, the writer's buffers and the reader's cache.
func (j *reconJob) phases() []plan.Phase { return j.phasesOn(nil) }

// phasesOn are the phases of a run on backend be: on a device backend
// with FBP, the slices' phase also holds the back-projection's device
// buffers (deviceFBPBytes).
func (j *reconJob) phasesOn(be gpu.Backend) []plan.Phase {
	ds := int64(j.s.proj.DType.Size())
	np, nc := int64(j.nproj), int64(j.cols)
	frame := int64(j.rows) * nc
	means := plan.Array{Name: "dark and flat means", Where: plan.Host, Fixed: 2 * frame * 4}
	var phases []plan.Phase
	phases = append(phases, plan.Phase{Name: "darks and flats", Units: 1, Unit: "means", Arrays: []plan.Array{
		means,
		{Name: "sums (float64)", Where: plan.Host, Fixed: frame * 8},
		{Name: "frame", Where: plan.Host, Fixed: frame * (ds + 4)},
	}})
	if pg := j.cfg.Paganin; pg != nil {
		pr, pc := int64(paddedPow2(j.rows)), int64(paddedPow2(j.cols))
		retrieved := plan.Array{Name: "phase-retrieved rows", Where: plan.Host, Fixed: np * int64(j.to-j.from) * nc * 4}
		phases = append(phases, plan.Phase{Name: "phase retrieval", Units: j.nproj, Unit: "projections", Block: 1, Arrays: []plan.Array{
			means, retrieved,
			{Name: "projection", Where: plan.Host, Fixed: frame * (ds + 4)},
			{Name: "Paganin grid and filter", Where: plan.Host, Fixed: pr*pc*(16+8) + pr*16},
		}})
		if dz := j.cfg.Dezing; dz != nil {
			ph := &phases[len(phases)-1]
			ph.Arrays = append(ph.Arrays,
				plan.Array{Name: "projections around each to dezing (ring and block, float32)", Where: plan.Host, Fixed: 2 * int64(dz.Kernel) * frame * 4},
				plan.Array{Name: "dezinging scratch", Where: plan.Host, Fixed: dezingScratch(*dz, j.cols)})
		}
	}
	if dz := j.cfg.Dezing; dz != nil {
		// Each stack of darks and of flats is dezinged whole.
		n := int64(max(j.s.darks.Shape[0], j.s.flats.Shape[0]))
		phases[0].Arrays = append(phases[0].Arrays,
			plan.Array{Name: "darks or flats to dezing (raw, float32 in and out)", Where: plan.Host, Fixed: n * frame * (int64(j.s.darks.DType.Size()) + 8)},
			plan.Array{Name: "dezinging scratch", Where: plan.Host, Fixed: dezingScratch(*dz, j.cols)})
	}
	if j.cfg.AutoCenter {
		workers := int64(runtime.GOMAXPROCS(0))
		phases = append(phases, plan.Phase{Name: "centre", Units: 1, Unit: "rows", Arrays: []plan.Array{
			means,
			{Name: "row across projections", Where: plan.Host, Fixed: np * nc * (ds + 4)},
			{Name: "smoothed sinograms (3, float64)", Where: plan.Host, Fixed: 3 * np * nc * 8},
			{Name: "transformed rows (complex128)", Where: plan.Host, Fixed: np * nc * 16},
			{Name: "double-wedge masks (2, float64)", Where: plan.Host, Fixed: 2 * 2 * np * nc * 8},
			{Name: "stacks per core (complex128)", Where: plan.Host, Fixed: workers * 2 * np * nc * 16},
		}})
	}
	// A writer that takes whole chunks of slices (OME-Zarr's 64) gets
	// blocks of whole chunks, however deep: its WriteLevel refuses less.
	align := j.align()
	main := plan.Phase{Name: "slices", Units: j.to - j.from, Unit: "detector rows", Block: j.cfg.Block,
		MinBlock: align, MaxBlock: max(maxBlockRows, align), Align: align, Arrays: []plan.Array{
			{Name: "read blocks (2)", Where: plan.Host, PerUnit: 2 * np * nc * ds},
			{Name: "slices", Where: plan.Host, PerUnit: nc * nc * 4},
			means,
			{Name: "sinogram", Where: plan.Host, Fixed: np * nc * 4},
			{Name: j.cfg.algorithm() + " scratch", Where: plan.Host, Fixed: j.slicerBytes()},
		}}
	if dz := j.cfg.Dezing; dz != nil && j.cfg.Paganin == nil {
		// The kernel's halo rows read with each block, and the block
		// before and after dezinging, as float32.
		halo := 2 * int64(j.cfg.halo())
		main.Arrays = append(main.Arrays,
			plan.Array{Name: "dezinging halo rows (2 blocks)", Where: plan.Host, Fixed: 2 * halo * np * nc * ds},
			plan.Array{Name: "block to dezing and dezinged (float32)", Where: plan.Host, PerUnit: 2 * np * nc * 4, Fixed: 2 * halo * np * nc * 4},
			plan.Array{Name: "dezinging scratch", Where: plan.Host, Fixed: dezingScratch(*dz, j.cols)})
	}
	if j.cfg.Sweep != nil {
		// A sweep reads one row, and writes a slice per centre.
		main.Name, main.Units, main.Unit = "centre sweep", len(j.cfg.Sweep), "centres"
		main.Arrays[0] = plan.Array{Name: "row across projections", Where: plan.Host, Fixed: np * nc * ds}
	}
	if j.cfg.Paganin != nil {
		// The rows come from memory: no blocks are read.
		main.Arrays[0] = plan.Array{Name: "phase-retrieved rows", Where: plan.Host, Fixed: np * int64(j.to-j.from) * nc * 4}
	}
	if j.onDevice(be) {
		s := j.cfg.geometry(j.angles, j.cols, float64(j.cols)/2)
		main.Arrays = append(main.Arrays, plan.Array{Name: "fbp back-projection: a slice, the filtered projections, cos and sin",
			Where: plan.Device, Fixed: deviceFBPBytes(BackProjectShape{Slices: 1, Angles: j.nproj, Columns: j.cols, Pad: s.Pad, Size: j.cols})})
	}
	if j.partials {
		main.Arrays = append(main.Arrays, plan.Array{Name: "copies of the slices for the viewer", Where: plan.Host, PerUnit: nc * nc * 4})
	}
	switch j.cfg.Stripes {
	case "sorting":
		main.Arrays = append(main.Arrays, plan.Array{Name: "stripe sorter", Where: plan.Host, Fixed: np*nc*8 + np*8})
	case "all":
		// The sinogram in float64, its order, sorted and smoothed copies,
		// and the sorter.
		main.Arrays = append(main.Arrays, plan.Array{Name: "stripe removal (all)", Where: plan.Host, Fixed: np*nc*(8+8+8+8) + np*nc*8 + np*8})
	}
	if _, ok := volume.AsBoxReader(j.s.proj.Source()); !ok {
		main.Arrays = append(main.Arrays, plan.Array{Name: "whole projection (no row reads)", Where: plan.Host, Fixed: frame * ds})
	}
	if j.exp != nil && j.exp.Bytes != nil {
		main.Arrays = append(main.Arrays, plan.Array{Name: "writer buffers", Where: plan.Host, Fixed: j.exp.Bytes(j.outInfo(), volume.ExportOptions{})})
	}
	if c := volume.CacheBytes(j.s.proj.Source()); c > 0 {
		main.Arrays = append(main.Arrays, plan.Array{Name: "reader cache", Where: plan.Host, Fixed: c})
	}
	return append(phases, main)
}

// slicerBytes is what the run's FBP or Gridrec holds.
func (j *reconJob) slicerBytes() int64 {
	if !j.cfg.Gridrec {
		return j.fbpBytes()
	}
	g := j.cfg.geometry(j.angles, j.cols, float64(j.cols)/2)
	n, grid := int64(j.cols), int64(gridSize(j.cols))
	p := int64(radialLength(j.cols+2*g.Pad, int(grid)))
	workers := int64(runtime.GOMAXPROCS(0))
	// Shared: the grid (complex64), its Hermitian half and the half's
	// inverse transform (float32) for FFTW, and as much again as the
	// half for FFTW's own work at execution (an allowance: a 2D c2r plan
	// may buffer), the deapodisation (n², float64), the weights and the
	// phases, the angles' cos and sin and their round order, the
	// projections' spectra (spectraRound of them, rows aligned), the
	// kernel's table and its rows, and each round's band edges. A
	// worker's: a padded projection (float32).
	half := grid * (grid/2 + 1) * 8
	stride := (p/2 + 1 + 7) / 8 * 8
	rounds := (int64(j.nproj)+spectraRound-1)/spectraRound + 1
	shared := grid*grid*8 + 2*half + grid*grid*4 + n*n*8 + p*8 + (p/2+1)*16 + int64(j.nproj)*(16+8) +
		spectraRound*stride*8 + (kbWidth/2*kbSteps+2)*8 + (kbSteps+1)*(kbWidth+1)*8 + rounds*(workers+2)*8
	perWorker := p*4 + 64
	return shared + workers*perWorker
}

// fbpBytes is what an FBP of the run holds (NewFBP).
func (j *reconJob) fbpBytes() int64 {
	g := j.cfg.geometry(j.angles, j.cols, float64(j.cols)/2)
	width := int64(j.cols + 2*g.Pad)
	p := int64(PaddedLength(int(width)))
	workers := int64(runtime.GOMAXPROCS(0))
	// The filtered projections and the angles' cos and sin; a worker's
	// padded row, its spectrum, its real FFT's work (2p) and the
	// fbpRowBlock slice rows it accumulates at once; the filter.
	return int64(j.nproj)*(width*4+16) + workers*(p*8+(p/2+1)*16+p*16+fbpRowBlock*int64(j.cols)*8) + p*8
}

// Plan plans the whole run.
func (j *reconJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	return plan.Make("reconstruct", j.phasesOn(d.Backend), d.Budget)
}

// onDevice says whether a run on be back-projects on it: FBP on a
// backend other than the CPU (gridrec is CPU-only).
func (j *reconJob) onDevice(be gpu.Backend) bool {
	if be == nil || j.cfg.Gridrec {
		return false
	}
	_, cpu := be.(*gpu.CPUBackend)
	return !cpu
}
