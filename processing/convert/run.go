package convert

import (
	"context"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// Summary is the JSON report of a run.
type Summary struct {
	Input       string     `json:"input"`
	Output      string     `json:"output"`
	Format      string     `json:"format"`
	Shape       [3]int     `json:"shape"`
	DType       string     `json:"dtype"`
	Box         volume.Box `json:"box"`
	Levels      int        `json:"levels"`
	Compression string     `json:"compression,omitempty"`
	BlockPlanes int        `json:"block_planes"`
	BytesRead   int64      `json:"bytes_read"`
	Seconds     float64    `json:"seconds"`
	// Part says what a bare NeXus scan's projections left out.
	Part *volume.Part `json:"part,omitempty"`
}

// slab is planes [z0, z1) of the output read into buf.
type slab struct {
	z0, z1 int
	buf    []byte
	err    error
}

// Run converts, slab by slab: a reader goroutine fills one slab while
// the other is cast, written and reduced into the pyramid.
func (j *conversion) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	pl, err := j.Plan(d)
	if err != nil {
		return nil, err
	}
	block := pl.Block()
	path, dataset := volume.SplitSpec(j.outArg)
	w, err := j.exp.Create(path, dataset, j.out, j.opts)
	if err != nil {
		return nil, err
	}
	if c, ok := w.(volume.Cancelable); ok {
		c.SetContext(ctx)
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	feed, err := j.pyramid(ctx, w)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	slabs, done := j.read(ctx, block)
	// The reader stops before Run returns: the input is closed after.
	defer func() {
		cancel()
		<-done
	}()
	var castBuf []byte
	if j.cast() {
		castBuf = make([]byte, int64(block)*j.out.PlaneBytes())
	}
	p.Stage("converting "+j.inArg, int64(j.out.Shape[0]), "planes")
	var read int64
	for s := range slabs {
		if s.err != nil {
			return nil, s.err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		read += int64(len(s.buf))
		out := s.buf
		if j.cast() {
			out = castBuf[:int64(s.z1-s.z0)*j.out.PlaneBytes()]
			if i, v := castInto(out, j.out.DType, s.buf, j.in.DType); i >= 0 {
				return nil, fmt.Errorf("%s: %w", j.inArg, j.castErr(s.z0, i, v))
			}
		}
		if err := w.WriteLevel(0, s.z0, out); err != nil {
			return nil, err
		}
		if err := feed(s.z0, out); err != nil {
			return nil, err
		}
		s.buf = s.buf[:cap(s.buf)]
		j.free <- s.buf
		p.Add(int64(s.z1 - s.z0))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.Stage("committing "+j.outArg, 1, "outputs")
	if err := w.Commit(); err != nil {
		return nil, err
	}
	committed = true
	p.Add(1)
	return j.report(block, read), nil
}

// castErr names the voxel (in the input's coordinates) of the i-th
// value of the slab from output plane z0.
func (j *conversion) castErr(z0, i int, v float64) error {
	ny, nx := j.out.Shape[1], j.out.Shape[2]
	z, y, x := z0+i/(ny*nx), i/nx%ny, i%nx
	return &castError{value: v, from: j.in.DType, to: j.out.DType, at: [3]int{z + j.box.Z0, y + j.box.Y0, x + j.box.X0}}
}

// read starts the reader: it fills the slabs of block planes in order
// from two buffers, which the consumer hands back on j.free; done is
// closed when it has stopped.
func (j *conversion) read(ctx context.Context, block int) (<-chan slab, <-chan struct{}) {
	out := make(chan slab)
	done := make(chan struct{})
	rp := j.readPlaneBytes()
	j.free = make(chan []byte, 2)
	for range 2 {
		j.free <- make([]byte, int64(block)*rp)
	}
	go func() {
		defer close(done)
		defer close(out)
		for z0 := 0; z0 < j.out.Shape[0]; z0 += block {
			var buf []byte
			select {
			case buf = <-j.free:
			case <-ctx.Done():
				return
			}
			z1 := min(z0+block, j.out.Shape[0])
			s := slab{z0: z0, z1: z1}
			s.buf, s.err = j.readSlab(buf, z0, z1)
			select {
			case out <- s:
			case <-ctx.Done():
				return
			}
			if s.err != nil {
				return
			}
		}
	}()
	return out, done
}

// readSlab reads output planes [z0, z1) of the input's crop into buf.
func (j *conversion) readSlab(buf []byte, z0, z1 int) ([]byte, error) {
	b := j.box
	b.Z0, b.Z1 = j.box.Z0+z0, j.box.Z0+z1
	n := int64(z1-z0) * int64(j.out.Shape[1]) * int64(j.out.Shape[2]) * int64(j.in.DType.Size())
	if j.fullPlanes() {
		return buf[:n], j.in.ReadSlab(b.Z0, b.Z1, buf[:n])
	}
	if j.boxRead {
		br, _ := volume.AsBoxReader(j.in.Source())
		if err := br.ReadBox(b, buf[:n]); err != nil {
			return nil, fmt.Errorf("read %v of %s: %w", b, j.in.Name, err)
		}
		return buf[:n], nil
	}
	full := buf[:int64(z1-z0)*j.in.PlaneBytes()]
	if err := j.in.ReadSlab(b.Z0, b.Z1, full); err != nil {
		return nil, err
	}
	// Crop in place: each kept row moves to or before where it was.
	es := j.in.DType.Size()
	row := (b.X1 - b.X0) * es
	d := 0
	for z := range z1 - z0 {
		for y := b.Y0; y < b.Y1; y++ {
			s := ((z*j.in.Shape[1]+y)*j.in.Shape[2] + b.X0) * es
			copy(full[d:d+row], full[s:s+row])
			d += row
		}
	}
	return full[:n], nil
}

// pyramid chains a reducer per level above 0: level l's planes fill its
// layer of chunks, written whole, and feed level l+1. It returns the
// function feeding level 0's slabs in.
func (j *conversion) pyramid(ctx context.Context, w volume.LevelWriter) (func(z0 int, src []byte) error, error) {
	levels := j.opts.Levels
	if len(levels) < 2 {
		return func(int, []byte) error { return nil }, nil
	}
	a := j.aligns()
	feeds := make([]func(z int, plane []byte) error, len(levels))
	feeds[len(levels)-1] = func(int, []byte) error { return nil }
	for l := len(levels) - 1; l >= 1; l-- {
		li := levels[l]
		layer := make([]byte, int64(a[l])*li.PlaneBytes())
		up := feeds[l]
		pb := li.PlaneBytes()
		emit := func(z int, plane []byte) error {
			k := z % a[l]
			copy(layer[int64(k)*pb:], plane)
			if k == a[l]-1 || z == li.Shape[0]-1 {
				z0 := z - k
				if err := w.WriteLevel(l, z0, layer[:int64(k+1)*pb]); err != nil {
					return err
				}
			}
			return up(z, plane)
		}
		feeds[l-1] = newReducer(levels[l-1], li, j.mean, emit).feed
	}
	pb := j.out.PlaneBytes()
	return func(z0 int, src []byte) error {
		for i := 0; int64(i)*pb < int64(len(src)); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := feeds[0](z0+i, src[int64(i)*pb:int64(i+1)*pb]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func (j *conversion) report(block int, read int64) *pipeline.Report {
	s := Summary{Input: j.inArg, Output: j.outArg, Format: j.format.Name, Shape: j.out.Shape, DType: j.out.DType.String(),
		Box: j.box, Levels: max(1, len(j.opts.Levels)), Compression: j.opts.Compression, BlockPlanes: block,
		BytesRead: read, Seconds: time.Since(j.start).Seconds()}
	notes := []string{fmt.Sprintf("convert: %s (%v %s) -> %s (%s, %d level(s)) in %.1f s",
		j.inArg, j.out.Shape, j.out.DType, j.outArg, j.format.Name, s.Levels, s.Seconds)}
	if part, ok := volume.PartOf(j.in); ok {
		s.Part = &part
		notes = append(notes, "convert: wrote "+part.Text())
	}
	return &pipeline.Report{Summary: s, Notes: notes}
}
