package reconstruct

import (
	"context"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// rowReader reads blocks of detector rows across every projection: as
// one box where the reader reads parts of frames (HDF5 hyperslabs), else
// projection by projection, keeping the rows of each.
type rowReader struct {
	j     *reconJob
	box   volume.BoxReader
	plane []byte
}

func newRowReader(j *reconJob) *rowReader {
	r := &rowReader{j: j}
	if b, ok := volume.AsBoxReader(j.s.proj.Source()); ok {
		r.box = b
	} else {
		r.plane = make([]byte, j.s.proj.PlaneBytes())
	}
	return r
}

// read reads rows [y0, y1) of every projection into dst (projection,
// row, column order).
func (r *rowReader) read(dst []byte, y0, y1 int) error {
	v := r.j.s.proj
	b := volume.Box{Z0: 0, Z1: v.Shape[0], Y0: y0, Y1: y1, X0: 0, X1: v.Shape[2]}
	if r.box != nil {
		if err := volume.CheckBox(v.Info, b, len(dst)); err != nil {
			return fmt.Errorf("read rows %d-%d of %s: %w", y0, y1, v.Name, err)
		}
		if err := r.box.ReadBox(b, dst); err != nil {
			return fmt.Errorf("read rows %d-%d of %s: %w", y0, y1, v.Name, err)
		}
		return nil
	}
	rowBytes := int64(v.Shape[2]) * int64(v.DType.Size())
	n := int64(y1-y0) * rowBytes
	for p := 0; p < v.Shape[0]; p++ {
		if err := v.ReadSlab(p, p+1, r.plane); err != nil {
			return err
		}
		copy(dst[int64(p)*n:int64(p+1)*n], r.plane[int64(y0)*rowBytes:int64(y1)*rowBytes])
	}
	return nil
}

// rawBlock is a block of rows [y0, y1) read as rows [ry0, ry1) (with
// the dezinging halo), or the error reading it.
type rawBlock struct {
	y0, y1, ry0, ry1 int
	buf              []byte
	err              error
}

// readBlocks reads the blocks of rows [from, to) in order on its own
// goroutine, two buffers in turn (free gives a buffer back), until ctx is
// done.
func (j *reconJob) readBlocks(ctx context.Context, block, from, to int) (<-chan rawBlock, chan<- []byte, <-chan struct{}) {
	out, free, done := make(chan rawBlock), make(chan []byte, 2), make(chan struct{})
	row := int64(j.nproj) * int64(j.cols) * int64(j.s.proj.DType.Size())
	size := row * int64(min(block+2*j.cfg.halo(), j.rows))
	if j.retrieved != nil {
		size = 0 // the rows are in memory already
	}
	free <- make([]byte, size)
	free <- make([]byte, size)
	go func() {
		defer close(done)
		defer close(out)
		r := newRowReader(j)
		for y0 := from; y0 < to; y0 += block {
			y1 := min(y0+block, to)
			var buf []byte
			select {
			case buf = <-free:
			case <-ctx.Done():
				return
			}
			ry0, ry1 := j.haloRows(y0, y1)
			var err error
			if size > 0 {
				buf = buf[:int64(ry1-ry0)*row]
				err = r.read(buf, ry0, ry1)
			}
			select {
			case out <- rawBlock{y0, y1, ry0, ry1, buf, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, free, done
}

// planeWriter takes the output's planes in order: OUT's writer, or a
// task's part. z0 counts from the output's first plane.
type planeWriter interface {
	WriteLevel(level, z0 int, src []byte) error
}

// livePlanes hands a copy of each block of planes written to the
// progress as a *pipeline.VolumeBlock, which the panel shows as the
// slices arrive.
type livePlanes struct {
	planeWriter
	p    *job.Progress
	info volume.Info
}

func (l *livePlanes) WriteLevel(level, z0 int, src []byte) error {
	if err := l.planeWriter.WriteLevel(level, z0, src); err != nil {
		return err
	}
	n := len(src) / int(l.info.PlaneBytes())
	l.p.Partial(&pipeline.VolumeBlock{Z0: z0, Depth: l.info.Shape[0], DType: l.info.DType,
		Shape: [3]int{n, l.info.Shape[1], l.info.Shape[2]}, Data: append([]byte(nil), src...)})
	return nil
}

// write reconstructs the slices [lo, hi) of the output (detector rows
// from+lo…) block by block into w.
func (j *reconJob) write(ctx context.Context, p *job.Progress, block, lo, hi int, w planeWriter) error {
	rec, err := j.newSlicer(j.cfg.geometry(j.angles, j.cols, j.center))
	if err != nil {
		return fmt.Errorf("%s: %w", j.s.name, err)
	}
	defer closeSlicer(rec)
	stripes := j.cfg.stripeRemover(j.nproj, j.cols)
	ctx, cancel := context.WithCancel(ctx)
	blocks, free, done := j.readBlocks(ctx, block, j.from+lo, j.from+hi)
	defer func() {
		cancel()
		<-done
	}()
	sino := make([]float32, j.nproj*j.cols)
	slices := make([]float32, block*j.cols*j.cols)
	plane := j.cols * j.cols
	p.Stage("reconstructing "+j.s.name, int64(hi-lo), "slices")
	for b := range blocks {
		if b.err != nil {
			return b.err
		}
		rb := b.y1 - b.y0
		rows, dt := b.buf, j.s.proj.DType
		if j.retrieved == nil {
			var err error
			if rows, dt, err = j.dezinged(ctx, b.buf, b.ry0, b.ry1, b.y0, b.y1); err != nil {
				return err
			}
		}
		for r := 0; r < rb; r++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			j.sinogram(sino, rows, dt, rb, r, b.y0+r)
			if stripes != nil {
				stripes(sino)
			}
			if err := rec.SliceContext(ctx, slices[r*plane:(r+1)*plane], sino); err != nil {
				return err
			}
			p.Add(1)
		}
		free <- b.buf[:cap(b.buf)]
		if err := w.WriteLevel(0, b.y0-j.from, volume.Bytes(slices[:rb*plane])); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// output is the writer of OUT, removed unless committed.
type output struct {
	volume.LevelWriter
	committed bool
}

func (j *reconJob) create(centre string) (*output, error) {
	path, dataset := volume.SplitSpec(j.out)
	w, err := j.exp.Create(path, dataset, j.outInfo(), volume.ExportOptions{Attrs: j.attrs(centre)})
	if err != nil {
		return nil, err
	}
	return &output{LevelWriter: w}, nil
}

// commit renames the output into place unless ctx is done.
func (o *output) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	o.committed = true
	return nil
}

func (o *output) abort() {
	if !o.committed {
		o.Abort()
	}
}

// writeSweep reconstructs the middle row of the range at centres [lo,
// hi) of the sweep, a slice per centre, block by block of centres, into
// w.
func (j *reconJob) writeSweep(ctx context.Context, p *job.Progress, block, lo, hi int, w planeWriter) error {
	row := (j.from + j.to) / 2
	sino, err := j.rowSinogram(ctx, row)
	if err != nil {
		return err
	}
	if stripes := j.cfg.stripeRemover(j.nproj, j.cols); stripes != nil {
		stripes(sino)
	}
	plane := j.cols * j.cols
	slices := make([]float32, block*plane)
	sweep := j.cfg.Sweep
	p.Stage(fmt.Sprintf("centre sweep of row %d", row), int64(hi-lo), "centres")
	for c0 := lo; c0 < hi; c0 += block {
		c1 := min(c0+block, hi)
		for k, c := range sweep[c0:c1] {
			rec, err := j.newSlicer(j.cfg.geometry(j.angles, j.cols, c))
			if err != nil {
				return fmt.Errorf("%s: --center-sweep: %w", j.s.name, err)
			}
			err = rec.SliceContext(ctx, slices[k*plane:(k+1)*plane], sino)
			closeSlicer(rec)
			if err != nil {
				return err
			}
			p.Add(1)
		}
		if err := w.WriteLevel(0, c0, volume.Bytes(slices[:(c1-c0)*plane])); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Summary is the --json output of voxlab reconstruct.
type Summary struct {
	Input       string         `json:"input"`
	Output      string         `json:"output"`
	Projections int            `json:"projections"`
	Shape       [3]int         `json:"shape"`
	Rows        [2]int         `json:"rows"`
	Center      float64        `json:"center"`
	CenterFrom  string         `json:"center_from"`
	Algorithm   string         `json:"algorithm"`
	Filter      string         `json:"filter"`
	Stripes     string         `json:"stripes"`
	Pad         string         `json:"pad"`
	MaskRadius  float64        `json:"mask_radius"`
	Angles      string         `json:"angles"`
	Sweep       []float64      `json:"center_sweep,omitempty"`
	Paganin     *PaganinParams `json:"paganin,omitempty"`
	Dezing      *DezingParams  `json:"dezing,omitempty"`
	VoxelSize   float64        `json:"voxel_size_um"`
	Block       int            `json:"block_rows"`
	Tasks       int            `json:"tasks,omitempty"`
	Clipped     int            `json:"clipped"`
	Seconds     float64        `json:"seconds"`
}

// report says what the run, or the merge of tasks parts, did.
func (j *reconJob) report(block int, centre string, took time.Duration, tasks int) *pipeline.Report {
	angles := "evenly over [0°, 180°)"
	if !j.evenAngles {
		angles = "from " + j.anglesFrom
	}
	info := j.outInfo()
	sum := Summary{Input: j.s.name, Output: j.out, Projections: j.nproj, Shape: info.Shape,
		Rows: [2]int{j.from, j.to}, Center: j.center, CenterFrom: centre, Algorithm: j.cfg.algorithm(),
		Filter: j.cfg.Filter.String(), Stripes: j.cfg.Stripes, Pad: j.cfg.Pad, MaskRadius: j.cfg.MaskRadius,
		Angles: angles, Sweep: j.cfg.Sweep, Paganin: j.cfg.Paganin, Dezing: j.cfg.Dezing, VoxelSize: j.voxel, Block: block, Tasks: tasks, Clipped: j.clipped, Seconds: took.Seconds()}
	alg := "FBP"
	if j.cfg.Gridrec {
		alg = "gridrec"
	}
	if pg := j.cfg.Paganin; pg != nil {
		alg = fmt.Sprintf("Paganin (%g keV, %g mm, %g µm pixels, δ/β %g) and %s",
			pg.Energy, pg.Distance*1000, pg.PixelSize, pg.Ratio, alg)
	}
	if dz := j.cfg.Dezing; dz != nil {
		alg = fmt.Sprintf("dezinged (kernel %d, dif %g), %s", dz.Kernel, dz.Dif, alg)
	}
	notes := []string{
		fmt.Sprintf("reconstructed rows %d to %d of %s (%d projections, angles %s) into %s: %d slices of %d x %d, voxels of %g µm",
			j.from, j.to, j.s.name, j.nproj, angles, j.out, info.Shape[0], info.Shape[1], info.Shape[2], j.voxel),
		fmt.Sprintf("centre of rotation: column %.2f (%s); %s, filter %s, stripes %s; %s in blocks of %s",
			j.center, centre, alg, sum.Filter, sum.Stripes, took.Round(time.Millisecond), pipeline.Plural(block, "row")),
	}
	if s := j.cfg.Sweep; s != nil {
		notes[0] = fmt.Sprintf("centre sweep of row %d of %s (%d projections, angles %s) into %s: %d slices of %d x %d, slice i at centre %g + %g·i",
			(j.from+j.to)/2, j.s.name, j.nproj, angles, j.out, len(s), j.cols, j.cols, s[0], sweepStep(s))
		notes[1] = fmt.Sprintf("%s, filter %s, stripes %s; %s", alg, sum.Filter, sum.Stripes, took.Round(time.Millisecond))
	}
	return &pipeline.Report{Summary: sum, Notes: notes}
}

func sweepStep(s []float64) float64 {
	if len(s) < 2 {
		return 0
	}
	return s[1] - s[0]
}
