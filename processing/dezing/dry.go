package dezing

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
)

// DryRun runs the pipeline on inputs of the given shapes without their
// data, to check a plan at full size in seconds: it is Run itself — the
// same plan, the same buffers allocated through be (so be's tracking
// allocator and SetLimit see exactly a real run's device memory), the same
// staging, uploads and downloads, block by block — except where noted:
//
//   - the sources synthesise their frames (zeros, written into the staging
//     buffers as a read would) instead of reading a file;
//   - the three kernels only validate their arguments and buffer sizes
//     and compute nothing;
//   - the output discards what it is given.
func DryRun(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, s Shapes) (*Result, error) {
	in := Input{Projections: synthetic{s.Projections}}
	if s.HasDarks() {
		in.Darks = synthetic{s.Darks}
	}
	if s.HasFlats() {
		in.Flats = synthetic{s.Flats}
	}
	return Run(ctx, p, dryBackend{be}, cfg, in, discard{})
}

// synthetic is a Source of zeros.
type synthetic struct{ info volume.Info }

func (s synthetic) Info() volume.Info { return s.info }

func (s synthetic) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	clear(dst)
	return nil
}

func (s synthetic) Close() error { return nil }

// dryBackend is be for a dry run: allocation and transfers are be's,
// and OpsFor gives it dryOps over be's ops.
type dryBackend struct{ gpu.Backend }

// dryOps are dezinging ops that check their arguments and buffer sizes
// (the scratch sizes are the real ops') and compute nothing.
type dryOps struct{ Ops }

func (d dryOps) Median(dst, src, scratch *gpu.Buffer, p MedianParams) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return checkSizes(sized{p.SrcBytes(), src}, sized{p.DstBytes(), dst}, sized{d.MedianScratch(p), scratch})
}

func (d dryOps) Reduce(dst, src, scratch *gpu.Buffer, p ReduceParams) error {
	if err := p.Validate(); err != nil {
		return err
	}
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	return checkSizes(sized{int64(p.Frames) * int64(p.Pixels) * es, src}, sized{int64(p.Pixels) * 4, dst}, sized{d.ReduceScratch(p), scratch})
}

func (d dryOps) FlatField(dst, src, dark, flat, scratch *gpu.Buffer, p FlatFieldParams) (int64, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	n := int64(p.Frames) * int64(p.Pixels)
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	if err := checkSizes(sized{n * es, src}, sized{n * 4, dst}, sized{d.FlatFieldScratch(p), scratch}); err != nil {
		return 0, err
	}
	return 0, checkSizes(sized{int64(p.Pixels) * 4, dark}, sized{int64(p.Pixels) * 4, flat})
}

// sized is a buffer and the bytes a kernel would touch in it.
type sized struct {
	n int64
	b *gpu.Buffer
}

// checkSizes checks that buffers hold what a kernel would touch.
func checkSizes(bs ...sized) error {
	for _, s := range bs {
		if s.n > 0 && (s.b == nil || s.b.Len() < s.n) {
			return fmt.Errorf("dry run: a kernel was given a buffer smaller than the %d bytes it would touch", s.n)
		}
	}
	return nil
}

// discard is an Output that keeps nothing.
type discard struct{}

func (discard) Frames(dark, flat []float32) error { return nil }
func (discard) Slab(z0 int, data []byte) error    { return nil }
