package dezing

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Phase names, as the plan and the progress stages call them.
const (
	StageDarks       = "darks"
	StageDarksReduce = "darks reduce"
	StageFlats       = "flats"
	StageFlatsReduce = "flats reduce"
	StageProjections = "projections"
)

// stagingBuffers is the number of host staging buffers: one being read
// while the other is uploaded.
const stagingBuffers = 2

// downloadBuffers is the number of host buffers of processed
// projections: one being written while the next block is downloaded.
const downloadBuffers = 2

// blockTarget is the input bytes of the largest block the planner picks
// by itself for kernel 3, when the budget would hold more. Larger blocks
// gain nothing once reading, computing and writing overlap (the halo
// frames read twice are 2 of ~27 frames of a 2560 x 1024 scan), while a
// block as large as the budget allows (a 1,368-frame first block of a
// 9.5 GB scan) shows no progress and no overlap for minutes.
const blockTarget = 128 << 20

// maxBlock is the largest auto block of frames of fb bytes out of units:
// blockTarget for kernel 3, less for larger kernels, whose cost per voxel
// grows with the cube (k²/9 keeps a block at about a second of work for
// k ≤ 5 and bounds how long larger kernels go between progress reports).
// A short scan is still cut into about eight blocks (of at least kernel
// frames, so that the halo read twice stays a small share): with one
// block, reading, computing and writing could not overlap at all.
func maxBlock(fb int64, kernel, units int) int {
	target := int64(blockTarget * 9 / (kernel * kernel))
	byBytes := max(1, int(target/max(fb, 1)))
	return min(byBytes, max((units+7)/8, kernel))
}

// alignedMax is the largest auto block over an input whose chunks span
// depth planes: maxBlock, or depth itself when it is larger but still
// within four times the byte target, so that where the budget allows a
// block ends where a chunk does.
func alignedMax(fb int64, kernel, units, depth int) int {
	m := maxBlock(fb, kernel, units)
	if depth > m && int64(depth)*fb <= 4*blockTarget*9/int64(kernel*kernel) {
		return min(depth, units)
	}
	return m
}

// Plan describes the memory of a run and sizes its blocks. Each set is a
// phase of its own, holding only what is resident while it runs:
//
//   - darks, flats: the input block with its halo frames, the output
//     block and the median's scratch on the device; the staging buffers
//     and the host copy of the whole dezinged set (which the reduction
//     reads) on the host, plus the dark frame while the flats run.
//   - darks reduce, flats reduce: a band of rows of every dezinged frame
//     and the band of the reduced frame on the device, with the
//     reduction's scratch.
//   - projections: the input block with halos, the output block and the
//     scratch; with the flat-field, the dark and flat frames, the
//     float32 result (unless the input is float32, corrected in place) and
//     its scratch. On the host: staging, the downloaded block, the reduced
//     frames, and a copy of each block when partial results are on.
//
// The darks and flats never share the device with a projection block: the
// field's failure case (httomo issue 245) was darks and flats resident
// beside a block sized without them.
func Plan(be gpu.Backend, s Shapes, c Config) (*plan.Plan, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := s.Check(c); err != nil {
		return nil, err
	}
	ops, err := OpsFor(be)
	if err != nil {
		return nil, err
	}
	return choose("dezing", s, c, func(reading []plan.Array) []plan.Phase {
		return phases(ops, s.kernelTypes(), c, reading)
	})
}

// readers returns the inputs' readers for a run of c: consecutive blocks
// read their shared halo frames, twice the kernel's radius.
func (s Shapes) readers(c Config) volume.Readers { return s.Readers.Overlap(2 * (c.Kernel / 2)) }

// choose plans the run (build makes its phases with the readers' arrays)
// at each level of the readers' memory, fastest first (volume.ReadOptions:
// every CPU decoding, with a cache of the chunks consecutive blocks share,
// down to one chunk at a time and no cache), and takes the first level
// whose blocks are at least twice the kernel; it refuses, naming the
// smallest budget that works, when not even the leanest fits. With an
// output, the plan also bounds its size on disk and refuses one that the
// space free there cannot hold.
func choose(name string, s Shapes, c Config, build func(reading []plan.Array) []plan.Phase) (*plan.Plan, error) {
	rd := s.readers(c)
	alts := make([][]plan.Phase, rd.Levels())
	for k := range alts {
		alts[k] = build(rd.Arrays(k))
	}
	p, err := plan.Choose(name, alts, c.Budget, func(p *plan.Plan) bool {
		ph := p.Phases[p.Main]
		return ph.Block >= min(ph.Units, 2*c.Kernel)
	})
	if err != nil {
		return nil, err
	}
	p.Reading = rd.Describe(p.Choice)
	if w := decodesWarning(rd, p.Choice, p.Phases[p.Main].Block); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	if c.Output != "" {
		if err := p.CheckDisk(c.Output, OutputBytes(s, c)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// phases are the run's phases, with the scratch that ops ask for and the
// memory of the inputs' readers (reading).
func phases(ops Ops, s Shapes, c Config, reading []plan.Array) []plan.Phase {
	var out []plan.Phase
	var frames int64 // host bytes of reduced frames already resident
	stage := plan.Host
	if c.Pin {
		stage = plan.Pinned
	}
	frameLen := int64(s.Projections.PlaneLen())
	for _, set := range []struct {
		name, reduce string
		in           volume.Info
	}{{StageDarks, StageDarksReduce, s.Darks}, {StageFlats, StageFlatsReduce, s.Flats}} {
		if set.in.Shape[0] == 0 {
			continue
		}
		n := set.in.Shape[0]
		fb := set.in.PlaneBytes()
		mp := medianParams(set.in, c.Kernel, c.Dif)
		dezinged := plan.Array{Name: set.name + " dezinged", Where: plan.Host, Fixed: int64(n) * fb}
		resident := plan.Array{Name: "reduced frames", Where: plan.Host, Fixed: frames}
		out = append(out, plan.Phase{
			Name: set.name, Units: n, Unit: "frames", Halo: c.Kernel / 2, Block: c.FrameBlock,
			MaxBlock: maxBlock(fb, c.Kernel, n),
			Arrays: append([]plan.Array{
				{Name: set.name + " input", Where: plan.Device, PerUnit: fb, Halo: true},
				{Name: set.name + " output", Where: plan.Device, PerUnit: fb},
				{Name: "median scratch", Where: plan.Device, Fixed: ops.MedianScratch(mp)},
				{Name: "staging", Where: stage, PerUnit: stagingBuffers * fb, Halo: true},
				dezinged, resident,
			}, libraries(c, reading)...),
		})
		rp := reduceParams(set.in, c.Reduce, 1)
		out = append(out, plan.Phase{
			Name: set.reduce, Units: set.in.Shape[1], Unit: "rows", Block: c.ReduceRows,
			Arrays: []plan.Array{
				{Name: set.name + " rows", Where: plan.Device, PerUnit: int64(n) * int64(set.in.Shape[2]) * int64(set.in.DType.Size())},
				{Name: "reduced rows", Where: plan.Device, PerUnit: int64(set.in.Shape[2]) * 4},
				{Name: "reduce scratch", Where: plan.Device, Fixed: ops.ReduceScratch(rp)},
				dezinged, resident,
				{Name: "reduced frame", Where: plan.Host, Fixed: frameLen * 4},
			},
		})
		// The reduction works on the dezinged frames in memory: the
		// input file is not read, but its cache stays allocated.
		out[len(out)-1].Arrays = append(out[len(out)-1].Arrays, libraries(c, reading)...)
		frames += frameLen * 4
	}
	p := s.Projections
	z0, z1 := c.span(s)
	fb := p.PlaneBytes()
	outB := OutInfo(s, c).PlaneBytes()
	arrays := []plan.Array{
		{Name: "projections input", Where: plan.Device, PerUnit: fb, Halo: true},
		{Name: "projections output", Where: plan.Device, PerUnit: fb},
		{Name: "median scratch", Where: plan.Device, Fixed: ops.MedianScratch(medianParams(p, c.Kernel, c.Dif))},
		{Name: "staging", Where: stage, PerUnit: stagingBuffers * fb, Halo: true},
		{Name: "downloads", Where: plan.Host, PerUnit: downloadBuffers * outB},
		{Name: "reduced frames", Where: plan.Host, Fixed: frames},
	}
	arrays = append(arrays, libraries(c, reading)...)
	if c.FlatField {
		arrays = append(arrays,
			plan.Array{Name: "dark frame", Where: plan.Device, Fixed: frameLen * 4},
			plan.Array{Name: "flat frame", Where: plan.Device, Fixed: frameLen * 4},
			plan.Array{Name: "flat-field scratch", Where: plan.Device, Fixed: ops.FlatFieldScratch(flatParams(p, c, 1))})
		if p.DType != volume.Float32 {
			arrays = append(arrays, plan.Array{Name: "flat-field output", Where: plan.Device, PerUnit: frameLen * 4})
		}
		// The median's output, downloaded to count what it replaced
		// before the correction hides it (replaced.go).
		arrays = append(arrays, plan.Array{Name: "replaced count", Where: plan.Host, PerUnit: fb})
	}
	if extra := rangeHalo(s, c); extra > 0 {
		// The planner caps a block's halo at the phase's units; a range
		// inside the scan also reads halo frames from outside it.
		arrays = append(arrays, plan.Array{Name: "range halo", Where: plan.Device, Fixed: int64(extra) * fb},
			plan.Array{Name: "range halo staging", Where: stage, Fixed: int64(extra) * stagingBuffers * fb})
	}
	if c.Partials {
		arrays = append(arrays, plan.Array{Name: "partial result copy", Where: plan.Host, PerUnit: outB})
	}
	depth := s.Readers.Depth()
	return append(out, plan.Phase{
		Name: StageProjections, Units: z1 - z0, Unit: "slices", Halo: c.Kernel / 2, Block: c.Block,
		MaxBlock: alignedMax(fb, c.Kernel, z1-z0, depth), Align: depth, Arrays: arrays,
	})
}

// libraries are the host memory the input's readers (reading: their
// decode buffers and caches) and the output's library hold while the run
// has them open.
func libraries(c Config, reading []plan.Array) []plan.Array {
	a := append([]plan.Array(nil), reading...)
	if c.WriterBytes > 0 {
		a = append(a, plan.Array{Name: "output writer", Where: plan.Host, Fixed: c.WriterBytes})
	}
	return a
}

// medianParams are the kernel parameters for frames of in (the shape
// fields the scratch depends on: the row length and the kernel).
func medianParams(in volume.Info, kernel int, dif float64) MedianParams {
	return MedianParams{
		Float32: in.DType == volume.Float32, Planes: 1, Rows: in.Shape[1], Cols: in.Shape[2],
		N: 1, Kernel: kernel, Dif: dif,
	}
}

func reduceParams(in volume.Info, r Reduction, rows int) ReduceParams {
	return ReduceParams{Float32: in.DType == volume.Float32, Frames: in.Shape[0], Pixels: rows * in.Shape[2], Median: r == Median}
}

func flatParams(in volume.Info, c Config, frames int) FlatFieldParams {
	return FlatFieldParams{
		Float32: in.DType == volume.Float32, Frames: frames, Pixels: in.PlaneLen(),
		Low: c.ClipLow, High: c.ClipHigh, MinusLog: c.MinusLog,
	}
}

// rangeHalo is the number of halo frames a range run can read from
// outside its range.
func rangeHalo(s Shapes, c Config) int {
	z0, z1 := c.span(s)
	r := c.Kernel / 2
	return min(r, z0) + min(r, s.Projections.Shape[0]-z1)
}

// decodesWarning says, when the reads at level k keep no cache and the
// input's chunks span more frames than a block, how many times each
// chunk is decoded: about once per block that reads it.
func decodesWarning(rd volume.Readers, k, block int) string {
	depth := rd.Depth()
	if block <= 0 || depth <= block {
		return ""
	}
	for _, m := range rd.At(k) {
		if m.Cache > 0 {
			return ""
		}
	}
	return fmt.Sprintf("the input's chunks span %d frames and blocks are %d without a cache of decoded chunks: each chunk is decoded about %d times (a larger --host-memory caches them)",
		depth, block, (depth+block-1)/block+1)
}
