package reconstruct

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// reconJob is an opened reconstruction run.
type reconJob struct {
	cfg               Config
	s                 *scan
	out               string
	exp               *volume.Exporter
	nproj, rows, cols int
	from, to          int
	angles            []float64
	evenAngles        bool
	anglesFrom        string
	centerArg         string // --center as given
	partials          bool   // hand each block of slices to the viewer
	center            float64
	voxel             float64 // the slices' voxel size, µm
	// dark and flat are the means, filled by Run; retrieved the
	// phase-retrieved rows with --paganin.
	dark, flat []float32
	retrieved  []float32
	clipped    int
	// dzIn and dzOut are a block's rows before and after dezinging.
	dzIn, dzOut []float32
	// be is the backend of the run (Run, RunTask): FBP back-projects on
	// it when it is not the CPU (newSlicer).
	be gpu.Backend
}

func (j *reconJob) Close() error {
	j.s.Close()
	return nil
}

// Run reconstructs rows [from, to) into OUT, block by block: the
// darks' and flats' means, the centre when auto, then for each block of
// detector rows (read while the previous block is reconstructed) each
// row's sinogram flat-field corrected, −log, stripes removed when asked,
// reconstructed by FBP, and the block's slices written.
func (j *reconJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	start := time.Now()
	pl, err := j.Plan(d)
	if err != nil {
		return nil, err
	}
	block := j.blockOf(pl)
	j.be = d.Backend
	// The output is created once the centre is known: its metadata
	// records it.
	centre, err := j.prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	w, err := j.create(centre)
	if err != nil {
		return nil, err
	}
	defer w.abort()
	if err := j.emit(ctx, p, block, 0, j.outInfo().Shape[0], w); err != nil {
		return nil, err
	}
	if err := w.commit(ctx); err != nil {
		return nil, err
	}
	rep := j.report(block, centre, time.Since(start), 0)
	if n := j.backendNote(d.Backend); n != "" {
		rep.Notes = append(rep.Notes, n)
	}
	return rep, nil
}

// backendNote says what ran where on a backend other than the CPU ("" on
// the CPU).
func (j *reconJob) backendNote(be gpu.Backend) string {
	if _, cpu := be.(*gpu.CPUBackend); cpu || be == nil {
		return ""
	}
	if j.onDevice(be) {
		return fmt.Sprintf("reconstruct: FBP's back-projection ran on %s (the filtering of the projections and every stage before it on the CPU)", be.Name())
	}
	return fmt.Sprintf("reconstruct: gridrec has CPU kernels only: it computed on the CPU, not on %s", be.Name())
}

// blockOf is the plan's block, a multiple of the writer's alignment.
func (j *reconJob) blockOf(pl *plan.Plan) int {
	block := pl.Block()
	if a := j.align(); block > a {
		block = block / a * a
	}
	return block
}

// compute writes output planes [lo, hi) — slices of rows from+lo…, or
// centres of the sweep — to w after the darks' and flats' means and the
// centre, and says where the centre came from.
func (j *reconJob) compute(ctx context.Context, p *job.Progress, block, lo, hi int, w planeWriter) (string, error) {
	centre, err := j.prepare(ctx, p)
	if err != nil {
		return "", err
	}
	return centre, j.emit(ctx, p, block, lo, hi, w)
}

// prepare computes what every slice needs: the darks' and flats'
// means, the phase-retrieved rows with --paganin, and the centre; it
// says where the centre came from.
func (j *reconJob) prepare(ctx context.Context, p *job.Progress) (string, error) {
	if err := j.means(ctx, p); err != nil {
		return "", err
	}
	if j.cfg.Paganin != nil {
		if err := j.retrieve(ctx, p); err != nil {
			return "", err
		}
	}
	switch {
	case j.cfg.Sweep != nil:
		return "sweep", nil
	case j.cfg.AutoCenter:
		if err := j.findCenter(ctx, p); err != nil {
			return "", err
		}
		return "auto (Vo's method)", nil
	case math.IsNaN(j.cfg.Center):
		return "columns/2", nil
	}
	return "given", nil
}

// emit writes output planes [lo, hi) to w once prepared.
func (j *reconJob) emit(ctx context.Context, p *job.Progress, block, lo, hi int, w planeWriter) error {
	endPhase()
	if j.partials {
		w = &livePlanes{planeWriter: w, p: p, info: j.outInfo()}
	}
	if j.cfg.Sweep != nil {
		return j.writeSweep(ctx, p, block, lo, hi, w)
	}
	return j.write(ctx, p, block, lo, hi, w)
}

// means reads the darks and flats frame by frame into their means, and
// refuses flats darker than the darks over most of the detector.
func (j *reconJob) means(ctx context.Context, p *job.Progress) error {
	frame := j.rows * j.cols
	p.Stage("darks and flats of "+j.s.name, int64(j.s.darks.Shape[0]+j.s.flats.Shape[0]), "frames")
	mean := func(v *volume.Volume) ([]float32, error) {
		if j.cfg.Dezing != nil {
			return dezingedMean(ctx, p, v, j.rows, j.cols, *j.cfg.Dezing)
		}
		return meanOf(ctx, p, v, frame)
	}
	var err error
	if j.dark, err = mean(j.s.darks); err != nil {
		return err
	}
	endPhase() // the darks' sums and frame, before the flats' own
	if j.flat, err = mean(j.s.flats); err != nil {
		return err
	}
	if f := DarkerFlats(j.dark, j.flat); f > 0.5 {
		return fmt.Errorf("%s: the flats (%s) are no brighter than the darks (%s) over %.0f %% of the pixels: are they swapped, or the wrong files?",
			j.s.name, j.s.flatsFrom, j.s.darksFrom, 100*f)
	}
	return nil
}

// endPhase collects what the phase that ends held and returns it to
// the system, before the next phase allocates its own arrays. The plan's
// peak is its largest phase (plan.go), but the collector, left alone,
// runs only once the heap nears the CLI's soft limit (the plan + 2 % +
// 24 MiB), so the 10 GB scan's darks' and flats' sums (39 MB at 11,000
// rows) were still resident under the first blocks' arrays. One
// collection of a heap of a few large buffers takes a millisecond or
// two, against seconds for a phase.
func endPhase() { debug.FreeOSMemory() }

// meanOf is the per-pixel mean of v's frames, read one at a time.
func meanOf(ctx context.Context, p *job.Progress, v *volume.Volume, frame int) ([]float32, error) {
	raw := make([]byte, int64(frame)*int64(v.DType.Size()))
	f := make([]float32, frame)
	sum := make([]float64, frame)
	for z := 0; z < v.Shape[0]; z++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := v.ReadSlab(z, z+1, raw); err != nil {
			return nil, err
		}
		volume.ToFloat32(f, raw, v.DType)
		for i, x := range f {
			sum[i] += float64(x)
		}
		p.Add(1)
	}
	for i, s := range sum {
		f[i] = float32(s / float64(v.Shape[0]))
	}
	return f, nil
}

// findCenter finds the axis by Vo's method on the flat-field corrected
// middle row of the range (httomolibgpu's find_center_vo takes the
// middle row of its data), and checks it lies on the detector.
func (j *reconJob) findCenter(ctx context.Context, p *job.Progress) error {
	row := (j.from + j.to) / 2
	p.Stage(fmt.Sprintf("centre of rotation (row %d)", row), 1, "rows")
	sino, err := j.rowSinogram(ctx, row)
	if err != nil {
		return err
	}
	j.center = centerSearch(j.cols).Find(sino, j.nproj, j.cols)
	p.Add(1)
	if err := j.cfg.geometry(j.angles, j.cols, j.center).Check(); err != nil {
		return fmt.Errorf("%s: --center auto: %w", j.s.name, err)
	}
	return nil
}

// retrieve reads each projection whole, flat-field corrects it and
// retrieves its phase (Paganin, which mixes rows: it needs the whole
// frame), and keeps the rows of the range in j.retrieved (projection,
// row, column), from which the sinograms are then taken.
func (j *reconJob) retrieve(ctx context.Context, p *job.Progress) error {
	v := j.s.proj
	frame := j.rows * j.cols
	raw := make([]byte, v.PlaneBytes())
	f := make([]float32, frame)
	nr := j.to - j.from
	j.retrieved = make([]float32, j.nproj*nr*j.cols)
	pg := NewPaganin(*j.cfg.Paganin, j.rows, j.cols)
	var win *projWindow
	if j.cfg.Dezing != nil {
		win = newProjWindow(j)
	}
	p.Stage("phase retrieval (Paganin) of "+j.s.name, int64(j.nproj), "projections")
	for z := 0; z < j.nproj; z++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if win != nil {
			if err := win.dezinged(ctx, f, z); err != nil {
				return err
			}
		} else if err := v.ReadSlab(z, z+1, raw); err != nil {
			return err
		} else {
			volume.ToFloat32(f, raw, v.DType)
		}
		lo, hi := DefaultFlatField.Correct(f, f, j.dark, j.flat)
		j.clipped += lo + hi
		pg.Apply(f, f)
		copy(j.retrieved[z*nr*j.cols:(z+1)*nr*j.cols], f[j.from*j.cols:j.to*j.cols])
		p.Add(1)
	}
	return nil
}

// rowSinogram reads detector row y across every projection, flat-field
// corrected and −log (or phase-retrieved).
func (j *reconJob) rowSinogram(ctx context.Context, y int) ([]float32, error) {
	if j.retrieved != nil {
		sino := make([]float32, j.nproj*j.cols)
		j.sinogram(sino, nil, j.s.proj.DType, 1, 0, y)
		return sino, nil
	}
	ry0, ry1 := j.haloRows(y, y+1)
	raw := make([]byte, int64(j.nproj)*int64(ry1-ry0)*int64(j.cols)*int64(j.s.proj.DType.Size()))
	if err := newRowReader(j).read(raw, ry0, ry1); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sino := make([]float32, j.nproj*j.cols)
	rows, dt, err := j.dezinged(ctx, raw, ry0, ry1, y, y+1)
	if err != nil {
		return nil, err
	}
	j.sinogram(sino, rows, dt, 1, 0, y)
	return sino, nil
}

// centerSearch is httomolibgpu's search, its coarse range narrowed to
// ±columns/4 on a detector narrower than 200 columns: the default ±50
// there reaches shifts where the stacked sinogram is mostly its own
// upside-down copy, which is smooth across the seam and scores a
// spuriously low metric (seen on 128 columns: an axis at 69.3 found at 8).
func centerSearch(cols int) CenterVo {
	p := DefaultCenterVo
	if r := cols / 4; r < p.Smax {
		p.Smin, p.Smax = -r, r
	}
	return p
}

// haloRows are the rows read for output rows [y0, y1): with --dezing,
// the kernel's halo on each side within the detector.
func (j *reconJob) haloRows(y0, y1 int) (ry0, ry1 int) {
	h := j.cfg.halo()
	return max(y0-h, 0), min(y1+h, j.rows)
}

// dezinged is rows [y0, y1) of a block read as rows [ry0, ry1), and
// their type: dezinged float32 with --dezing, else raw as read.
func (j *reconJob) dezinged(ctx context.Context, raw []byte, ry0, ry1, y0, y1 int) ([]byte, volume.DType, error) {
	if j.cfg.Dezing == nil {
		return raw, j.s.proj.DType, nil
	}
	rows, err := j.dezingRows(ctx, raw, ry0, ry1, y0, y1)
	return rows, volume.Float32, err
}

// sinogram writes into dst row r (of a block of rb rows of type dt
// starting at detector row y) of raw, across every projection,
// flat-field corrected and −log.
func (j *reconJob) sinogram(dst []float32, raw []byte, dt volume.DType, rb, r, y int) {
	ds := dt.Size()
	nc := j.cols
	if j.retrieved != nil {
		nr := j.to - j.from
		for p := 0; p < j.nproj; p++ {
			copy(dst[p*nc:(p+1)*nc], j.retrieved[(p*nr+y-j.from)*nc:])
		}
		return
	}
	for p := 0; p < j.nproj; p++ {
		off := ((p*rb + r) * nc) * ds
		volume.ToFloat32(dst[p*nc:(p+1)*nc], raw[off:off+nc*ds], dt)
	}
	dark, flat := j.dark[y*nc:(y+1)*nc], j.flat[y*nc:(y+1)*nc]
	lo, hi := DefaultFlatField.Correct(dst, dst, dark, flat)
	j.clipped += lo + hi
	MinusLog(dst, dst)
}
