package classify

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// loader reads planes into a ring, each plane of each channel once, and
// cuts the cubes of each batch out of it. Candidates come in order of
// their first plane, so the planes a batch needs only move forward: a
// plane below the batch's first is never needed again and its slot is
// reused. A batch ends at the batch size or when its planes would pass
// the ring.
type loader struct {
	s       *Session
	be      gpu.Backend
	order   []int
	batch   int
	vols    []*volume.Volume
	ring    [][][]byte // [slot][channel] raw plane
	hi      int        // planes below hi have been read (or skipped)
	crop    *cropper
	tmp     [][]float32
	workers int
	bufs    []tracked // for the tracker
}

func (s *Session) newLoader(be gpu.Backend, order []int, batch int) (*loader, error) {
	ld := &loader{s: s, be: be, order: order, batch: batch}
	ld.vols = []*volume.Volume{s.In.Signal, s.In.Background}[:s.Geo.Channels]
	workers := 1
	if c, ok := be.(*gpu.CPUBackend); ok {
		workers = c.Workers()
	}
	ld.workers = extractWorkers(workers)
	var norm [2]Norm
	if s.Cfg.NormalizeChannels {
		norm = s.norm
	}
	crop, err := newCropper(s.Geo, ld.vols[0].Info.DType, norm)
	if err != nil {
		return nil, err
	}
	for c, v := range ld.vols[1:] {
		if crop.conv[c+1], err = converter(v.Info.DType); err != nil {
			return nil, err
		}
	}
	ld.crop = crop
	n := s.ringPlanes()
	ld.ring = make([][][]byte, n)
	for i := range ld.ring {
		ld.ring[i] = make([][]byte, len(ld.vols))
		for c, v := range ld.vols {
			ld.ring[i][c] = ld.alloc("plane ring (raw planes of every channel)", v.Info.PlaneBytes())
		}
	}
	if t := crop.tmpLen(); t > 0 {
		for range ld.workers {
			ld.tmp = append(ld.tmp, f32(ld.alloc("cuboid before rescaling (per extraction worker)", int64(4*t))))
		}
	} else {
		ld.tmp = make([][]float32, ld.workers)
	}
	return ld, nil
}

// tracked is a buffer counted under label.
type tracked struct {
	label string
	b     []byte
}

// alloc allocates n bytes counted under label until release.
func (ld *loader) alloc(label string, n int64) []byte {
	b := ld.s.Cfg.Memory.Bytes(label, n)
	ld.bufs = append(ld.bufs, tracked{label, b})
	return b
}

// release stops counting the loader's buffers.
func (ld *loader) release() {
	for _, t := range ld.bufs {
		ld.s.Cfg.Memory.Free(t.label, t.b)
	}
	ld.bufs = nil
}

// run fills free slots with batches and hands them on full, until the
// candidates are done or ctx ends. With staging (a GPU), cubes are cut
// into a staging buffer and its upload to the slot's device buffer is
// started.
func (ld *loader) run(ctx context.Context, free <-chan *slot, full chan<- *slot, staging *gpu.Staging) error {
	s := ld.s
	cz := s.Geo.Crop[0]
	ringN := len(ld.ring)
	cube := s.cubeLen()
	for i := 0; i < len(ld.order); {
		first := s.Starts[ld.order[i]][0]
		j := i + 1
		for j < len(ld.order) && j-i < ld.batch && s.Starts[ld.order[j]][0]+cz-first <= ringN {
			j++
		}
		need := s.Starts[ld.order[j-1]][0] + cz
		if err := ld.readPlanes(ctx, max(ld.hi, first), need); err != nil {
			return err
		}
		var sl *slot
		select {
		case sl = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		host := sl.host
		if staging != nil {
			h, err := staging.Get(ctx)
			if err != nil {
				return err
			}
			sl.stage = h
			host = f32(h.Bytes)
		}
		idx := ld.order[i:j]
		sl.idx = idx
		plane := func(z, ch int) []byte { return ld.ring[z%ringN][ch] }
		gpu.ParallelForWorker(ld.workers, len(idx), func(w, lo, hi int) {
			for k := lo; k < hi; k++ {
				if ctx.Err() != nil {
					return
				}
				ld.crop.cube(host[k*cube:(k+1)*cube], ld.tmp[w], s.Starts[idx[k]], plane)
			}
		})
		if err := ctx.Err(); err != nil {
			full <- sl // handed back to the free list by the consumer
			return err
		}
		if staging != nil {
			wait, err := ld.be.UploadAsync(sl.dev, 0, sl.stage)
			if err != nil {
				full <- sl
				return err
			}
			sl.wait = wait
		}
		select {
		case full <- sl:
		case <-ctx.Done():
			full <- sl
			return ctx.Err()
		}
		i = j
	}
	return nil
}

// readPlanes reads planes [z0, z1) of every channel into the ring.
func (ld *loader) readPlanes(ctx context.Context, z0, z1 int) error {
	for z := z0; z < z1; z++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for c, v := range ld.vols {
			if err := v.ReadSlab(z, z+1, ld.ring[z%len(ld.ring)][c]); err != nil {
				return fmt.Errorf("read plane %d of %s: %w", z, v.Name, err)
			}
		}
	}
	ld.hi = max(ld.hi, z1)
	return nil
}

// cubeLen returns the float32s of one cube (network height x width x
// depth x channels).
func (s *Session) cubeLen() int { return s.Geo.Net[0] * s.Geo.Net[1] * s.Geo.Net[2] * s.Geo.Channels }

// EachCube cuts the cubes of the candidates inside the volume, in order
// of their first plane, batch at a time (each plane read once), and calls
// fn with the candidates' indices and their cubes (len(idx) cubes of
// y, x, z, channel, the network's size; valid until fn returns). It is
// what voxlab cubes writes, without a network. Progress counts cubes.
func (s *Session) EachCube(ctx context.Context, prog interface{ Add(int64) }, workers, batch int, fn func(idx []int, cubes []float32) error) error {
	be := gpu.NewCPUWorkers(workers)
	if s.Cfg.NormalizeChannels && !s.norm[0].On {
		return fmt.Errorf("classify: normalisation asked but not computed (call Normalise first)")
	}
	ld, err := s.newLoader(be, s.Order, batch)
	if err != nil {
		return err
	}
	defer ld.release()
	free := make(chan *slot, 2)
	for range 2 {
		free <- &slot{host: f32(ld.alloc("cube batches (2: one classified, one extracted)", int64(4*batch*s.cubeLen())))}
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	full := make(chan *slot)
	var loadErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(full)
		loadErr = ld.run(lctx, free, full, nil)
	}()
	var fnErr error
	for sl := range full {
		if fnErr == nil && lctx.Err() == nil {
			if fnErr = fn(sl.idx, sl.host[:len(sl.idx)*s.cubeLen()]); fnErr != nil {
				cancel()
			} else if prog != nil {
				prog.Add(int64(len(sl.idx)))
			}
		}
		free <- sl
	}
	<-done
	if fnErr != nil {
		return fnErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return loadErr
}
