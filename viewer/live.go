package viewer

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
)

// LiveVolume is a volume being computed: a Source that a job fills block
// by block (Write) while an image layer shows it (call
// the layer's Feed().RefreshPlanes after each Write). Planes not yet written
// read as zeros, and the layer draws them transparent (what is below
// it, the raw scan, shows through). Safe for concurrent use.
//
// It never holds the whole output (a 1800-frame scan is 10-20 GB): it
// keeps finished planes within a byte budget, newest first, except that
// the planes the layer read last as z slices (the slice on screen and
// its prefetched neighbours) are kept when their block arrives, so the
// slice being watched fills in however large the blocks are. The
// layer's loader caches what it read in its own bounded cache, so a
// slice once seen stays while it is looked at. A finished plane no
// longer held is read back with LiveOptions.ReadBack when the job can
// (its output part file); otherwise reading it fails with ErrNotHeld
// and the layer says it shows when the run ends. That is the simple
// correct choice: zeros or a stale plane would look like data, and the
// finished output replaces the live layer anyway.
type LiveVolume struct {
	info     volume.Info
	budget   int64
	readBack func(z0, z1 int, dst []byte) error

	mu sync.Mutex
	// done marks the planes written; held holds some of them, in order
	// (oldest first), heldBytes their size.
	done      []bool
	held      map[int][]byte
	order     []int
	heldBytes int64
	// wanted are the planes last read one at a time (z slices), newest
	// last: kept over older planes.
	wanted []int
	filled int
}

// LiveOptions configures a LiveVolume. Zero values take the defaults.
type LiveOptions struct {
	// Budget bounds the bytes of finished planes held (default
	// DefaultLiveBytes); at least one plane is held whatever its size.
	Budget int64
	// ReadBack, when set, reads finished planes [z0, z1) that are no
	// longer held (from the job's output so far). It is called from the
	// layer's loader goroutine, possibly while Write runs.
	ReadBack func(z0, z1 int, dst []byte) error
}

// DefaultLiveBytes is the default budget of a LiveVolume: with its
// layer's slice cache (96 MiB) a live layer holds at most 160 MiB.
const DefaultLiveBytes = 64 << 20

// wantedPlanes is how many of the planes last read stay held: the slice
// on screen and the neighbours the loader prefetches.
const wantedPlanes = 2*prefetchN + 1

// ErrNotHeld is returned, wrapped, when a LiveVolume is asked for
// finished planes it no longer holds and cannot read back.
var ErrNotHeld = errors.New("finished, not kept in memory while the job runs: shown when it ends")

// NewLiveVolume returns an empty volume of the given shape and type.
func NewLiveVolume(info volume.Info, opts LiveOptions) (*LiveVolume, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("live volume: %w", err)
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultLiveBytes
	}
	return &LiveVolume{
		info: info, budget: opts.Budget, readBack: opts.ReadBack,
		done: make([]bool, info.Shape[0]), held: map[int][]byte{},
	}, nil
}

// Info returns the volume's description.
func (l *LiveVolume) Info() volume.Info { return l.info }

// ReadSlab copies planes [z0, z1) into dst: held planes, zeros for
// planes not written yet, and planes written but no longer held read
// back (or ErrNotHeld).
func (l *LiveVolume) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(l.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := l.info.PlaneBytes()
	var gone [][2]int // runs of planes to read back
	l.mu.Lock()
	if z1-z0 == 1 {
		l.want(z0)
	}
	for z := z0; z < z1; z++ {
		d := dst[int64(z-z0)*pb : int64(z-z0+1)*pb]
		switch h, ok := l.held[z]; {
		case ok:
			copy(d, h)
		case !l.done[z]:
			clear(d)
		case len(gone) > 0 && gone[len(gone)-1][1] == z:
			gone[len(gone)-1][1] = z + 1
		default:
			gone = append(gone, [2]int{z, z + 1})
		}
	}
	l.mu.Unlock()
	for _, r := range gone {
		if l.readBack == nil {
			return fmt.Errorf("planes %d-%d: %w", r[0], r[1], ErrNotHeld)
		}
		if err := l.readBack(r[0], r[1], dst[int64(r[0]-z0)*pb:int64(r[1]-z0)*pb]); err != nil {
			return fmt.Errorf("read back planes %d-%d: %w", r[0], r[1], err)
		}
	}
	return nil
}

// unwritten reports, for planes [z0, z1), which have not been written
// yet (nil when all have).
func (l *LiveVolume) unwritten(z0, z1 int) []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	var off []bool
	for z := z0; z < z1; z++ {
		if !l.done[z] {
			if off == nil {
				off = make([]bool, z1-z0)
			}
			off[z-z0] = true
		}
	}
	return off
}

// want records that plane z was read as a z slice (with l.mu held).
func (l *LiveVolume) want(z int) {
	if i := slices.Index(l.wanted, z); i >= 0 {
		l.wanted = slices.Delete(l.wanted, i, i+1)
	}
	l.wanted = append(l.wanted, z)
	if len(l.wanted) > wantedPlanes {
		l.wanted = l.wanted[1:]
	}
}

// Write stores whole planes from z0 on; data holds a whole number of
// planes of the volume's type. Only the planes the budget keeps are
// copied: the newest of the block and the wanted ones.
func (l *LiveVolume) Write(z0 int, data []byte) error {
	pb := l.info.PlaneBytes()
	if int64(len(data))%pb != 0 {
		return fmt.Errorf("live volume: %d bytes are not whole planes of %d bytes", len(data), pb)
	}
	z1 := z0 + int(int64(len(data))/pb)
	if z0 < 0 || z1 > l.info.Shape[0] {
		return fmt.Errorf("live volume: planes [%d,%d) outside [0,%d)", z0, z1, l.info.Shape[0])
	}
	// Planes before newest would only be evicted by the planes after
	// them in this block.
	newest := max(z0, z1-int(max(l.budget/pb, 1)))
	l.mu.Lock()
	defer l.mu.Unlock()
	for z := z0; z < z1; z++ {
		l.done[z] = true
		l.drop(z)
		if z >= newest || slices.Contains(l.wanted, z) {
			l.hold(z, data[int64(z-z0)*pb:int64(z-z0+1)*pb])
		}
	}
	l.filled += z1 - z0
	return nil
}

// hold keeps a copy of plane z, evicting the oldest planes that are not
// wanted (then wanted ones) until it fits the budget (with l.mu held).
func (l *LiveVolume) hold(z int, src []byte) {
	n := int64(len(src))
	for l.heldBytes+n > l.budget && len(l.order) > 0 {
		i := slices.IndexFunc(l.order, func(z int) bool { return !slices.Contains(l.wanted, z) })
		l.drop(l.order[max(i, 0)])
	}
	l.held[z] = append([]byte(nil), src...)
	l.order = append(l.order, z)
	l.heldBytes += n
}

// drop forgets plane z if held (with l.mu held).
func (l *LiveVolume) drop(z int) {
	h, ok := l.held[z]
	if !ok {
		return
	}
	delete(l.held, z)
	l.order = slices.DeleteFunc(l.order, func(x int) bool { return x == z })
	l.heldBytes -= int64(len(h))
}

// Filled returns how many planes have been written (counting rewrites).
func (l *LiveVolume) Filled() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.filled
}

// HeldBytes returns the bytes of planes the volume holds now.
func (l *LiveVolume) HeldBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heldBytes
}

// Close forgets the held planes.
func (l *LiveVolume) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held, l.order, l.heldBytes = map[int][]byte{}, nil, 0
	return nil
}

// Spec returns the file spec the layer was opened from, or "" for a
// layer made in memory.
func Spec(l Layer) string { return l.base().spec }

// LayerFor returns the topmost layer opened from spec (compared as
// cleaned paths with their datasets), or nil.
func (v *Viewer) LayerFor(spec string) Layer {
	want := cleanSpec(spec)
	for i := v.stack.Len() - 1; i >= 0; i-- {
		if s := v.stack.At(i).base().spec; s != "" && cleanSpec(s) == want {
			return v.stack.At(i)
		}
	}
	return nil
}

func cleanSpec(spec string) string {
	p, ds := volume.SplitSpec(spec)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p + ":" + ds
}

// PlaceAbove ties l to ref, the layer it was computed from (points
// over the image they were found in): grid mode draws l in ref's panel.
// l stays where it is, on top of the list when new, drawn over every
// image (napari puts a new layer on top, where users look: moving
// detections just above ch0 left them under an opaque ch1).
func (v *Viewer) PlaceAbove(l, ref Layer) {
	if v.stack.IndexOf(l) < 0 || v.stack.IndexOf(ref) < 0 || l == ref {
		return
	}
	l.base().over = ref
	if v.grid {
		v.Panels().rebuild()
		v.redraw()
	}
}
