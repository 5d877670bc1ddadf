package gpu

import (
	"fmt"
	"time"
)

// DefaultBandwidthBytes is the size of each probe transfer when Bandwidth
// is given 0: large enough for a steady rate, small enough that both
// probes finish well under a second on a PCIe 3 link or better.
const DefaultBandwidthBytes = 256 << 20

// bandwidthReps is how many timed copies each probe makes; the fastest
// counts, since slower ones measure interference, not the link.
const bandwidthReps = 3

// BandwidthResult is what Bandwidth measured.
type BandwidthResult struct {
	// Backend and Device name what was measured.
	Backend string `json:"backend"`
	Device  string `json:"device"`
	// Bytes is the size of each copy.
	Bytes int64 `json:"bytes"`
	// Pageable is the host-to-device rate from pageable memory in GB/s
	// (10⁹ bytes per second); on the CPU backend, the memcpy rate.
	Pageable float64 `json:"pageable_gbps"`
	// Pinned is the rate from page-locked memory in GB/s; 0 when it was
	// not measured, and PinnedNote says why.
	Pinned     float64 `json:"pinned_gbps,omitempty"`
	PinnedNote string  `json:"pinned_note,omitempty"`
}

// Speedup returns Pinned / Pageable, or 0 when pinned was not measured.
func (r BandwidthResult) Speedup() float64 {
	if r.Pinned == 0 || r.Pageable == 0 {
		return 0
	}
	return r.Pinned / r.Pageable
}

// String is one line for the log and the GUI, with advice on pin_memory.
func (r BandwidthResult) String() string {
	head := fmt.Sprintf("%s on %s, %d MiB copies", r.Backend, r.Device, r.Bytes>>20)
	if r.Pinned == 0 {
		what := "host to device from pageable memory"
		if r.Backend == "cpu" {
			what = "memcpy"
		}
		return fmt.Sprintf("%s: %s %.1f GB/s; %s", head, what, r.Pageable, r.PinnedNote)
	}
	advice := "pin_memory gains little here; leave it off"
	if s := r.Speedup(); s >= 1.3 {
		advice = fmt.Sprintf("pin_memory makes uploads %.1fx faster here, at the cost of RAM that cannot be swapped out", s)
	}
	return fmt.Sprintf("%s: host to device %.1f GB/s pageable, %.1f GB/s pinned: %s", head, r.Pageable, r.Pinned, advice)
}

// Bandwidth measures host-to-device copy rates on be with copies of bytes
// bytes (0: DefaultBandwidthBytes): from pageable memory, and from pinned
// memory where the backend can pin. Both go through UploadAsync, the path
// staging buffers take. It allocates one device buffer and up to two host
// buffers of that size, and frees them before returning.
func Bandwidth(be Backend, bytes int64) (BandwidthResult, error) {
	if bytes <= 0 {
		bytes = DefaultBandwidthBytes
	}
	info := be.Info()
	r := BandwidthResult{Backend: be.Name(), Device: info.Name, Bytes: bytes}
	dev, err := be.Alloc("bandwidth probe", bytes)
	if err != nil {
		return r, fmt.Errorf("bandwidth probe: %w", err)
	}
	defer be.Free(dev)

	pageable, err := be.HostAlloc(bytes, false)
	if err != nil {
		return r, fmt.Errorf("bandwidth probe: %w", err)
	}
	if r.Pageable, err = uploadRate(be, dev, pageable); err != nil {
		return r, fmt.Errorf("bandwidth probe, pageable: %w", err)
	}
	be.HostFree(pageable)

	pinned, err := be.HostAlloc(bytes, true)
	switch {
	case err != nil:
		r.PinnedNote = fmt.Sprintf("pinned memory not measured: %v", err)
		return r, nil
	case !pinned.Pinned:
		r.PinnedNote = fmt.Sprintf("pinning does not apply to the %s backend (no host-to-device copy)", be.Name())
		be.HostFree(pinned)
		return r, nil
	}
	defer be.HostFree(pinned)
	if r.Pinned, err = uploadRate(be, dev, pinned); err != nil {
		return r, fmt.Errorf("bandwidth probe, pinned: %w", err)
	}
	return r, nil
}

// uploadRate returns the best of bandwidthReps timed uploads of src into
// dst, in GB/s, after one untimed upload that faults the pages in and
// warms the driver's paths.
func uploadRate(be Backend, dst *Buffer, src *HostBuffer) (float64, error) {
	for i := range src.Bytes {
		src.Bytes[i] = byte(i)
	}
	best := time.Duration(0)
	for rep := 0; rep <= bandwidthReps; rep++ {
		if err := be.Sync(); err != nil {
			return 0, err
		}
		start := time.Now()
		wait, err := be.UploadAsync(dst, 0, src)
		if err != nil {
			return 0, err
		}
		if err := wait(); err != nil {
			return 0, err
		}
		d := time.Since(start)
		if rep > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return float64(len(src.Bytes)) / best.Seconds() / 1e9, nil
}
