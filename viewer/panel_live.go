package viewer

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
)

// LiveVolume is a volume being computed: a Source over memory that a job
// fills slab by slab (Write) while an image layer shows it (call
// ImageLayer.RefreshPlanes after each Write). Planes not yet written read
// as zeros. Safe for concurrent use.
type LiveVolume struct {
	mu     sync.RWMutex
	info   volume.Info
	data   []byte
	filled int
}

// NewLiveVolume returns an empty volume of the given shape and type.
func NewLiveVolume(info volume.Info) (*LiveVolume, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("live volume: %w", err)
	}
	return &LiveVolume{info: info, data: make([]byte, info.Bytes())}, nil
}

// Info returns the volume's description.
func (l *LiveVolume) Info() volume.Info { return l.info }

// ReadSlab copies planes [z0, z1) into dst.
func (l *LiveVolume) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(l.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := l.info.PlaneBytes()
	l.mu.RLock()
	copy(dst, l.data[int64(z0)*pb:int64(z1)*pb])
	l.mu.RUnlock()
	return nil
}

// Write stores whole planes from z0 on; data holds a whole number of
// planes of the volume's type.
func (l *LiveVolume) Write(z0 int, data []byte) error {
	pb := l.info.PlaneBytes()
	if int64(len(data))%pb != 0 {
		return fmt.Errorf("live volume: %d bytes are not whole planes of %d bytes", len(data), pb)
	}
	z1 := z0 + int(int64(len(data))/pb)
	if z0 < 0 || z1 > l.info.Shape[0] {
		return fmt.Errorf("live volume: planes [%d,%d) outside [0,%d)", z0, z1, l.info.Shape[0])
	}
	l.mu.Lock()
	copy(l.data[int64(z0)*pb:], data)
	l.filled += z1 - z0
	l.mu.Unlock()
	return nil
}

// Filled returns how many planes have been written (counting rewrites).
func (l *LiveVolume) Filled() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.filled
}

// Close does nothing: the memory goes with the volume.
func (l *LiveVolume) Close() error { return nil }

// WaitBackground waits for the viewer's background goroutines that post
// to the UI (plot renderers) to finish: call it, after Panel.Close, before
// the app's event loop ends.
func (v *Viewer) WaitBackground() { v.bg.Wait() }

// Do runs f on the UI goroutine (fyne.Do, or the queue of a headless
// viewer). Safe from any goroutine.
func (v *Viewer) Do(f func()) { v.post(f) }

// Spec returns the file spec the layer was opened from, or "" for a
// layer made in memory.
func Spec(l Layer) string { return l.base().spec }

// LayerFor returns the topmost layer opened from spec (compared as
// cleaned paths with their datasets), or nil.
func (v *Viewer) LayerFor(spec string) Layer {
	want := cleanSpec(spec)
	for i := len(v.layers) - 1; i >= 0; i-- {
		if s := v.layers[i].base().spec; s != "" && cleanSpec(s) == want {
			return v.layers[i]
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

// Specs returns the file specs of the open layers, top first, without
// repeats.
func (v *Viewer) Specs() []string {
	var out []string
	seen := map[string]bool{}
	for i := len(v.layers) - 1; i >= 0; i-- {
		if s := v.layers[i].base().spec; s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// PlaceAbove moves l to just above ref in the stack (a points layer over
// the image it was found in, so grid mode draws them in one panel).
func (v *Viewer) PlaceAbove(l, ref Layer) {
	i, j := v.indexOf(l), v.indexOf(ref)
	if i < 0 || j < 0 {
		return
	}
	if i > j {
		v.MoveLayer(l, j+1-i)
	} else {
		v.MoveLayer(l, j-i)
	}
}

// Focus shows the given layers and hides every other one, so a result is
// seen beside (or over) the data it came from; grid turns grid mode on
// or off.
func (v *Viewer) Focus(grid bool, show ...Layer) {
	v.Batch(func() {
		for _, l := range v.layers {
			on := false
			for _, s := range show {
				on = on || s == l
			}
			if l.Visible() != on {
				l.base().visible = on
			}
		}
		if v.grid {
			v.setPanels()
		}
		v.SetGrid(grid)
		v.list.Refresh()
		v.ResetView()
	})
}

// bgIdle reports whether no background goroutine is running (plots).
func (v *Viewer) bgIdle() bool { return v.bgCount.Load() == 0 }
