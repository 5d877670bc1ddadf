package gpu

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
)

// CPUBackend computes on the host's cores. Its device buffers are host
// memory, tracked so that tests can compare the planner's prediction with
// what a run really held.
type CPUBackend struct {
	memCount
	workers int
	// host, when set, also counts every buffer and staging buffer: on
	// the CPU both are host RAM, so one counter sees a run's whole RAM.
	host HostCounter
	// ctl is the job bound with Bind (nil: none).
	ctl atomic.Pointer[control]
}

// HostCounter counts host bytes by label (plan.Tracker is one); a
// negative n releases them.
type HostCounter interface {
	Add(label string, n int64)
}

// CountHost makes the backend report its device buffers and staging
// buffers to c as well (nil stops it), so that a test can hold a run's
// whole RAM against its plan.
func (c *CPUBackend) CountHost(hc HostCounter) { c.host = hc }

func (c *CPUBackend) countHost(label string, n int64) {
	if c.host != nil {
		c.host.Add(label, n)
	}
}

// Bind makes the kernels called from now on stop between rows, planes
// or chunks once ctx is cancelled, returning ctx's error, and report how
// far each call has come to progress (nil: no reports): done of the
// call's total units (rows of a median, chunks of a reduction), from the
// call's worker goroutines, at most about ten times a second and never
// for a call that ends sooner. So a job planned as one block of minutes
// is cancelled within a row and shows its progress inside the block.
// Results do not change: a kernel that was not stopped computes exactly
// what it computes unbound. The returned function unbinds (restoring an
// earlier binding); call it before the backend serves another job.
func (c *CPUBackend) Bind(ctx context.Context, progress func(done, total int64)) (unbind func()) {
	ctl := newControl(ctx, progress)
	prev := c.ctl.Swap(ctl)
	return func() {
		if ctl.release != nil {
			ctl.release()
		}
		c.ctl.CompareAndSwap(ctl, prev)
	}
}

// Begin returns the Work of a kernel call of total units under the job
// bound with Bind (nil when none is bound): a pipeline's CPU kernels
// call it once per call and check Stop between units.
func (c *CPUBackend) Begin(total int64) *Work { return c.ctl.Load().begin(total) }

// NewCPU returns a CPU backend using all cores (GOMAXPROCS).
func NewCPU() *CPUBackend { return &CPUBackend{workers: runtime.GOMAXPROCS(0)} }

// NewCPUWorkers returns a CPU backend using n goroutines (n < 1: all cores),
// for measuring how kernels scale.
func NewCPUWorkers(n int) *CPUBackend {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return &CPUBackend{workers: n}
}

// Name returns "cpu".
func (c *CPUBackend) Name() string { return "cpu" }

// Info describes the host: RAM total and available from /proc/meminfo.
func (c *CPUBackend) Info() DeviceInfo {
	total, avail := HostMemory()
	return DeviceInfo{Backend: "cpu", Name: cpuModel(), TotalBytes: total, FreeBytes: avail, Cores: c.workers}
}

// Workers returns the number of goroutines kernels split work over.
func (c *CPUBackend) Workers() int { return c.workers }

// Alloc allocates n zeroed bytes of host memory and counts them.
func (c *CPUBackend) Alloc(label string, n int64) (*Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("cpu: allocate %q: negative size %d", label, n)
	}
	if err := c.reserve("cpu", label, n); err != nil {
		return nil, err
	}
	c.allocated()
	c.countHost(label, n)
	return &Buffer{label: label, size: n, host: make([]byte, n)}, nil
}

// Free releases b's bytes from the count.
func (c *CPUBackend) Free(b *Buffer) {
	if b == nil || b.freed {
		return
	}
	b.freed = true
	c.uncount(b.size)
	c.countHost(b.label, -b.size)
	b.host = nil
}

// Upload copies src into dst at off.
func (c *CPUBackend) Upload(dst *Buffer, off int64, src []byte) error {
	if err := checkRange("upload to", dst, off, len(src)); err != nil {
		return err
	}
	copy(dst.host[off:], src)
	return nil
}

// Download copies from src at off into dst.
func (c *CPUBackend) Download(dst []byte, src *Buffer, off int64) error {
	if err := checkRange("download from", src, off, len(dst)); err != nil {
		return err
	}
	copy(dst, src.host[off:])
	return nil
}

// UploadAsync copies at once (the CPU has no copy engine to overlap with).
func (c *CPUBackend) UploadAsync(dst *Buffer, off int64, src *HostBuffer) (func() error, error) {
	err := c.Upload(dst, off, src.Bytes)
	return func() error { return nil }, err
}

// HostAlloc returns pageable memory: there is nothing to pin for.
func (c *CPUBackend) HostAlloc(n int64, pin bool) (*HostBuffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("cpu: host buffer of negative size %d", n)
	}
	c.countHost("staging", n)
	return &HostBuffer{Bytes: make([]byte, n)}, nil
}

// HostFree uncounts h; the garbage collector frees pageable memory.
func (c *CPUBackend) HostFree(h *HostBuffer) {
	if h != nil && h.Bytes != nil {
		c.countHost("staging", -int64(len(h.Bytes)))
		h.Bytes = nil
	}
}

// Sync does nothing: CPU kernels finish before they return.
func (c *CPUBackend) Sync() error { return nil }

// Close forgets the backend's staging pool; its buffers are ordinary
// memory, which the garbage collector takes back.
func (c *CPUBackend) Close() error {
	forgetPool(c)
	return nil
}

func checkRange(op string, b *Buffer, off int64, n int) error {
	if b == nil || b.freed {
		return fmt.Errorf("%s a freed buffer", op)
	}
	if off < 0 || off+int64(n) > b.size {
		return fmt.Errorf("%s %q: bytes [%d,%d) outside its %d bytes", op, b.label, off, off+int64(n), b.size)
	}
	return nil
}

// HostMemory returns physical RAM and the RAM available now, from
// /proc/meminfo (0, 0 where that file is missing).
func HostMemory() (total, available int64) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	return parseMeminfo(f)
}

// parseMeminfo reads MemTotal and MemAvailable from a /proc/meminfo
// listing. Kernels before 3.14 have no MemAvailable; there MemFree +
// Buffers + Cached stands in for it.
func parseMeminfo(r io.Reader) (total, available int64) {
	m := procBytes(r)
	available, ok := m["MemAvailable"]
	if !ok {
		available = m["MemFree"] + m["Buffers"] + m["Cached"]
	}
	return m["MemTotal"], available
}

// ProcessMemory returns this process's resident memory and its peak in
// bytes (VmRSS and VmHWM of /proc/self/status), 0 where that is not
// available.
func ProcessMemory() (rss, peak int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	m := procBytes(f)
	return m["VmRSS"], m["VmHWM"]
}

// procBytes reads the "Name:   123 kB" lines of a /proc listing
// (meminfo, status) as bytes by name.
func procBytes(r io.Reader) map[string]int64 {
	m := map[string]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) == 0 {
			continue
		}
		if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			m[name] = kb << 10
		}
	}
	return m
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " CPU"
}

// CheckedHost returns the memory of a CPU-backend buffer of at least n
// bytes, or an error naming the buffer when it is nil, freed, not in host
// memory (a CUDA buffer) or smaller: a pipeline's CPU kernels check their
// buffers with it instead of meeting HostBytes' panic inside a kernel.
func CheckedHost(b *Buffer, n int64) ([]byte, error) {
	switch {
	case b == nil:
		return nil, fmt.Errorf("no buffer")
	case b.freed:
		return nil, fmt.Errorf("buffer %q was freed", b.label)
	case b.host == nil && b.size > 0:
		return nil, fmt.Errorf("buffer %q is not in host memory (another backend's)", b.label)
	case b.size < n:
		return nil, fmt.Errorf("buffer %q holds %d bytes, needs %d", b.label, b.size, n)
	}
	return b.host, nil
}

// HostBytes returns the memory of a CPU-backend buffer, for the
// pipelines' CPU kernels and for tests; it panics on a CUDA buffer.
func (b *Buffer) HostBytes() []byte {
	if b.host == nil && b.size > 0 {
		panic("gpu: HostBytes of a buffer that is not in host memory")
	}
	return b.host
}

var (
	_ Backend = (*CPUBackend)(nil)
	_ Binder  = (*CPUBackend)(nil)
)
