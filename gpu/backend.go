package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// DeviceInfo describes the device a backend computes on.
type DeviceInfo struct {
	// Backend is "cpu" or "cuda".
	Backend string `json:"backend"`
	// Name is the device's name ("NVIDIA H200", or the CPU model).
	Name string `json:"name"`
	// TotalBytes and FreeBytes of device memory (for the CPU backend,
	// physical RAM and the RAM available now).
	TotalBytes int64 `json:"total_bytes"`
	FreeBytes  int64 `json:"free_bytes"`
	// Cores is the number of CPU cores the CPU backend uses; for CUDA the
	// number of streaming multiprocessors.
	Cores int `json:"cores"`
	// ComputeCapability such as "9.0" (CUDA only).
	ComputeCapability string `json:"compute_capability,omitempty"`
}

// MemStats are a backend's tracked device-buffer figures.
type MemStats struct {
	Current, Peak int64
	// Allocs counts allocations since the backend was made.
	Allocs int
	// Limit is the cap set with SetLimit (0: none).
	Limit int64
}

// Backend is a compute device. A Backend is used by one job at a time; its
// kernel methods are called from that job's goroutine.
type Backend interface {
	// Name returns "cpu" or "cuda".
	Name() string
	Info() DeviceInfo
	// Alloc returns a zeroed device buffer of n bytes, counted against
	// the limit; label names it in errors and breakdowns.
	Alloc(label string, n int64) (*Buffer, error)
	// Free releases b. Freeing nil or an already freed buffer does nothing.
	Free(b *Buffer)
	// Upload copies src into dst at byte offset off (host to device).
	Upload(dst *Buffer, off int64, src []byte) error
	// Download copies len(dst) bytes from src at byte offset off.
	Download(dst []byte, src *Buffer, off int64) error
	// UploadAsync starts copying a staging buffer to dst on the backend's
	// copy stream; the returned wait func blocks until the copy is done
	// and the staging buffer may be reused.
	UploadAsync(dst *Buffer, off int64, src *HostBuffer) (wait func() error, err error)
	// HostAlloc returns a staging buffer, pinned when pin is true and the
	// backend can pin (CUDA); otherwise pageable. Pinned buffers must be
	// released with HostFree.
	HostAlloc(n int64, pin bool) (*HostBuffer, error)
	HostFree(h *HostBuffer)
	// Sync waits for all work queued on the device.
	Sync() error
	Stats() MemStats
	// ResetPeak sets the peak to the current usage.
	ResetPeak()
	// SetLimit makes Alloc fail when the tracked total would pass n bytes
	// (0 removes the limit): a simulated smaller device.
	SetLimit(n int64)
	// Close frees everything the backend holds.
	Close() error
}

// Binder is a backend whose kernels can be cancelled, and followed,
// within one call: the CPU backend, where one call on a big block runs
// for minutes (see CPUBackend.Bind). A CUDA launch cannot be interrupted
// but is short; pipelines check their context between launches.
type Binder interface {
	Bind(ctx context.Context, progress func(done, total int64)) (unbind func())
}

// Bind binds a job's ctx and progress to be's kernels when be is a
// Binder, and returns the function that unbinds them; on other backends
// it binds nothing. A pipeline calls it once per run:
//
//	defer gpu.Bind(ctx, be, report)()
func Bind(ctx context.Context, be Backend, progress func(done, total int64)) (unbind func()) {
	if b, ok := be.(Binder); ok {
		return b.Bind(ctx, progress)
	}
	return func() {}
}

// Buffer is a block of device memory. On the CPU backend it is host memory.
type Buffer struct {
	label string
	size  int64
	// host is the memory of a CPU-backend buffer.
	host []byte
	// dev is the device pointer of a CUDA buffer.
	dev   uintptr
	freed bool
}

// Len returns the buffer's size in bytes.
func (b *Buffer) Len() int64 { return b.size }

// Label returns the name the buffer was allocated with.
func (b *Buffer) Label() string { return b.label }

// HostBuffer is a host staging buffer for uploads.
type HostBuffer struct {
	// Bytes is the memory; fill it, then UploadAsync it.
	Bytes []byte
	// Pinned reports whether the memory is page-locked.
	Pinned bool
	// ptr is the C pointer of a pinned allocation.
	ptr uintptr
}

// ErrOutOfMemory is wrapped by Alloc errors when a buffer does not fit.
var ErrOutOfMemory = errors.New("out of device memory")

// OOMError says which buffer did not fit and why.
type OOMError struct {
	Backend, Label    string
	Want, Used, Limit int64
	Detail            string
}

func (e *OOMError) Error() string {
	msg := fmt.Sprintf("%s: cannot allocate %q (%d bytes): %d bytes in use", e.Backend, e.Label, e.Want, e.Used)
	if e.Limit > 0 {
		msg += fmt.Sprintf(" of a %d-byte limit", e.Limit)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *OOMError) Unwrap() error { return ErrOutOfMemory }

// Choice is a --backend value.
type Choice string

// The --backend values.
const (
	Auto Choice = "auto"
	CPU  Choice = "cpu"
	CUDA Choice = "cuda"
)

// ParseChoice parses a --backend flag value.
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(strings.ToLower(strings.TrimSpace(s))); c {
	case Auto, CPU, CUDA:
		return c, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("unknown backend %q: use auto, cpu or cuda", s)
}

// cudaOpener is set by the cuda build's init; nil in the default build.
var cudaOpener func(device int) (Backend, error)

// Open returns the backend for a --backend choice. Auto picks CUDA when the
// binary has it and a device answers, else the CPU; the returned note says
// which was chosen and why, for the log and the GUI.
func Open(c Choice) (b Backend, note string, err error) {
	switch c {
	case CPU:
		return NewCPU(), "backend: cpu (as asked)", nil
	case CUDA:
		if cudaOpener == nil {
			return nil, "", errors.New("backend cuda: this voxlab binary was built without CUDA; build it with `make build-cuda` or use --backend cpu")
		}
		b, err := cudaOpener(0)
		if err != nil {
			return nil, "", fmt.Errorf("backend cuda: %w", err)
		}
		return b, "backend: cuda on " + b.Info().Name, nil
	default:
		if cudaOpener != nil {
			b, err := cudaOpener(0)
			if err == nil {
				return b, "backend: cuda on " + b.Info().Name + " (auto)", nil
			}
			cpu := NewCPU()
			return cpu, fmt.Sprintf("backend: cpu (auto: CUDA device unavailable: %v)", err), nil
		}
		if why := os.Getenv("VOXLAB_CUDA_FALLBACK"); why != "" {
			// Set by the CUDA build's preflight when it handed over to
			// this CPU build (cuda_fallback.go).
			return NewCPU(), "backend: cpu (auto: the CUDA build found no usable device: " + why + ")", nil
		}
		return NewCPU(), "backend: cpu (auto: this build has no CUDA)", nil
	}
}
