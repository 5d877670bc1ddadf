package detect

import (
	"context"
	"fmt"
	"sync"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// fedBatch is a batch of planes on the device, in the input buffer's half
// index%2.
type fedBatch struct{ index, planes int }

// feed delivers the batches of a run onto the device, reading ahead of
// the compute.
type feed interface {
	// next waits until the next batch is on the device; ok is false
	// after the last one.
	next() (b fedBatch, ok bool, err error)
	// release says the compute no longer needs b's half of the input
	// buffer (it may have queued work on it: a GPU feed refills it only
	// after the run's Sync).
	release(b fedBatch)
	// stop ends the feed, waiting for its loader; after the last batch it
	// only frees what the feed holds. It may be called more than once.
	stop()
}

// newFeed returns the feed of the run's backend: on the CPU the planes
// are read straight into the input buffer, which is host memory; on a GPU
// through staging buffers (pinned when cfg.PinMemory) and uploads.
func (r *run) newFeed(ctx context.Context, src *volume.Volume, cfg Config) (feed, error) {
	if r.host {
		return newHostFeed(ctx, r, src), nil
	}
	return newDeviceFeed(ctx, r, src, cfg)
}

// batchRange returns the planes [z0, z1) of batch i.
func (r *run) batchRange(i int) (z0, z1 int) {
	z0 = r.p.Start + i*r.batch
	return z0, min(z0+r.batch, r.p.End)
}

// batches returns the number of batches of the run.
func (r *run) batches() int { return (r.p.Planes() + r.batch - 1) / r.batch }

// planeBytes is the size of one input plane.
func (r *run) planeBytes() int64 {
	return int64(r.p.Shape[1]) * int64(r.p.Shape[2]) * int64(r.p.DType.Size())
}

// hostFeed is the CPU backend's feed: a loader goroutine reads batch i
// into half i%2 of the input buffer once the compute has released it, so
// reading batch i+1 overlaps filtering batch i, with no staging buffer
// and no copy.
type hostFeed struct {
	ready  chan loaded
	free   chan struct{} // one token per half the loader may fill
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// loaded is a batch the loader read, or the error that stopped it.
type loaded struct {
	b   fedBatch
	err error
}

func newHostFeed(ctx context.Context, r *run, src *volume.Volume) *hostFeed {
	lctx, cancel := context.WithCancel(ctx)
	f := &hostFeed{ready: make(chan loaded, 2), free: make(chan struct{}, 2), cancel: cancel}
	f.free <- struct{}{}
	f.free <- struct{}{}
	in := r.bufs.in.HostBytes()
	pb := r.planeBytes()
	half := int64(r.batch) * pb
	n := r.batches()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer close(f.ready)
		for i := 0; i < n; i++ {
			select {
			case <-f.free:
			case <-lctx.Done():
				return
			}
			z0, z1 := r.batchRange(i)
			off := int64(i%2) * half
			err := src.ReadSlab(z0, z1, in[off:off+int64(z1-z0)*pb])
			if err != nil {
				err = fmt.Errorf("load batch %d of %d: %w", i, n, err)
			}
			f.ready <- loaded{fedBatch{index: i, planes: z1 - z0}, err}
			if err != nil {
				return
			}
		}
	}()
	return f
}

func (f *hostFeed) next() (fedBatch, bool, error) {
	l, ok := <-f.ready
	if !ok {
		return fedBatch{}, false, nil
	}
	return l.b, l.err == nil, l.err
}

func (f *hostFeed) release(fedBatch) { f.free <- struct{}{} }

func (f *hostFeed) stop() {
	f.once.Do(func() {
		f.cancel()
		for range f.ready {
		}
		f.wg.Wait()
	})
}

// deviceFeed is a GPU's feed: gpu.Load reads batches into a pool of
// staging buffers, and batch i+1 is uploaded asynchronously into the
// other half of the input buffer while batch i is filtered.
type deviceFeed struct {
	r       *run
	st      *gpu.Staging
	ch      <-chan gpu.Batch
	loadErr func() error
	cancel  context.CancelFunc
	pending func() error // the upload in flight
	pendB   fedBatch
	started bool
	staged  int64 // the staging pool's bytes, counted in the run's tracker
	once    sync.Once
}

func newDeviceFeed(ctx context.Context, r *run, src *volume.Volume, cfg Config) (*deviceFeed, error) {
	pb := r.planeBytes()
	st, err := gpu.NewStaging(r.be, stagingBuffers, int64(r.batch)*pb, cfg.PinMemory, cfg.PinnedCap)
	if err != nil {
		return nil, err
	}
	if w := st.Warning(); w != "" {
		r.prog.Warn(w)
		r.res.Warnings = append(r.res.Warnings, w)
	}
	r.res.Pinned = st.Pinned()
	r.hostBytes += st.Bytes()
	// The CPU backend counts its own staging; another backend's is
	// counted here.
	r.mem.Add("staging", st.Bytes())
	lctx, cancel := context.WithCancel(ctx)
	f := &deviceFeed{r: r, st: st, cancel: cancel, staged: st.Bytes()}
	f.ch, f.loadErr = gpu.Load(lctx, st, r.batches(), func(i int, dst []byte) (int, error) {
		z0, z1 := r.batchRange(i)
		m := int(int64(z1-z0) * pb)
		return m, src.ReadSlab(z0, z1, dst[:m])
	})
	return f, nil
}

// upload starts uploading the next loaded batch, if any, into its half.
func (f *deviceFeed) upload() error {
	b, ok := <-f.ch
	if !ok {
		return nil
	}
	pb := f.r.planeBytes()
	off := int64(b.Index%2) * int64(f.r.batch) * pb
	// The whole staging buffer goes up (the tail of a short last batch
	// is never read): it keeps the pinned allocation the copy needs.
	wait, err := f.r.be.UploadAsync(f.r.bufs.in, off, b.Buf)
	if err != nil {
		f.st.Put(b.Buf)
		return err
	}
	f.r.prog.Transfer(int64(len(b.Buf.Bytes)), 0)
	f.pending = func() error { err := wait(); f.st.Put(b.Buf); return err }
	f.pendB = fedBatch{index: b.Index, planes: int(int64(b.N) / pb)}
	return nil
}

func (f *deviceFeed) next() (fedBatch, bool, error) {
	if !f.started {
		f.started = true
		if err := f.upload(); err != nil {
			return fedBatch{}, false, err
		}
	}
	if f.pending == nil {
		if err := f.loadErr(); err != nil {
			return fedBatch{}, false, err
		}
		return fedBatch{}, false, nil
	}
	err := f.pending()
	f.pending = nil
	if err != nil {
		return fedBatch{}, false, err
	}
	cur := f.pendB
	// The other half's batch was computed and synchronised before this
	// call: the next upload may go there.
	if err := f.upload(); err != nil {
		return fedBatch{}, false, err
	}
	return cur, true, nil
}

func (f *deviceFeed) release(fedBatch) {}

func (f *deviceFeed) stop() {
	f.once.Do(func() {
		if f.pending != nil {
			f.pending()
			f.pending = nil
		}
		f.cancel()
		for b := range f.ch {
			f.st.Put(b.Buf)
		}
		f.loadErr()
		f.st.Close()
		f.r.mem.Add("staging", -f.staged)
	})
}
