//go:build cuda

package gpu

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// The device's own kernels, compiled to PTX by scripts/build-ptx.sh and loaded with
// cuModuleLoadData when the backend opens: the driver JIT-compiles them for
// the device, so users need only the driver.
//
//go:embed kernels/*.ptx
var ptxFS embed.FS

func init() {
	cudaOpener = func(device int) (Backend, error) {
		c, err := OpenCUDA(device)
		if err != nil {
			return nil, err // not a typed nil in a non-nil interface
		}
		return c, nil
	}
}

// CUDABackend computes on an NVIDIA GPU through the CUDA driver API
// (gorgonia.org/cu). Kernels run in order on a compute stream; UploadAsync
// copies on a second stream so that uploading the next batch overlaps
// computing the current one. Dependencies between the two streams are
// tracked per buffer with events: a kernel waits for the uploads into the
// buffers it is given, and an upload waits for the kernels still using its
// destination, so callers need no synchronisation of their own for
// correctness (the wait func of UploadAsync only says when the staging
// buffer may be refilled).
type CUDABackend struct {
	ordinal int
	dev     cu.Device
	ctx     cu.CUContext
	compute cu.Stream
	copy    cu.Stream
	modules []cu.Module
	kernels map[string]*kernel // guarded by mu
	loaded  map[string]bool    // module names; guarded by mu
	info    DeviceInfo

	memCount
	// load serialises LoadModule, so that two pipelines opening at once
	// compile a module once.
	load      sync.Mutex
	mu        sync.Mutex
	live      []*devBuf // sorted by device address
	byBuf     map[*Buffer]*devBuf
	pinned    int64
	pinnedCap int64
	hosts     map[*HostBuffer]struct{}
	events    []cu.Event // free list for UploadAsync
	closed    bool
}

// kernel is a function of a loaded module with its parameter sizes.
type kernel struct {
	fn     cu.Function
	params []int
	module string
}

// devBuf is the backend's record of a live device buffer: the events that
// order its uses on the two streams.
type devBuf struct {
	b *Buffer
	// use is recorded on the compute stream after each kernel (or memset)
	// that was given the buffer; copied after each async upload into it.
	use, copied cu.Event
	// used and hasCopies say whether use and copied were ever recorded;
	// guarded by the backend's mu, since uploads may be queued from
	// another goroutine than the kernels.
	used, hasCopies bool
}

// OpenCUDA opens device ordinal (0 is the first visible device; the
// environment variable VOXLAB_CUDA_DEVICE overrides it), retains its
// primary context, creates the compute and copy streams and loads every
// embedded kernel module.
func OpenCUDA(ordinal int) (c *CUDABackend, err error) {
	if s := os.Getenv("VOXLAB_CUDA_DEVICE"); s != "" {
		if ordinal, err = strconv.Atoi(s); err != nil {
			return nil, fmt.Errorf("VOXLAB_CUDA_DEVICE=%q: want a device number", s)
		}
	}
	n, err := cu.NumDevices()
	if err != nil {
		return nil, cudaErr("cuDeviceGetCount", err)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda: no device %d (%d visible)", ordinal, n)
	}
	c = &CUDABackend{
		ordinal:   ordinal,
		kernels:   map[string]*kernel{},
		loaded:    map[string]bool{},
		byBuf:     map[*Buffer]*devBuf{},
		hosts:     map[*HostBuffer]struct{}{},
		pinnedCap: DefaultPinnedCap(),
	}
	if c.dev, err = cu.GetDevice(ordinal); err != nil {
		return nil, cudaErr("cuDeviceGet", err)
	}
	if c.ctx, err = c.dev.RetainPrimaryCtx(); err != nil {
		return nil, cudaErr("cuDevicePrimaryCtxRetain", err)
	}
	defer func() {
		if err != nil {
			c.Close()
			c, err = nil, fmt.Errorf("cuda device %d: %w", ordinal, err)
		}
	}()
	err = c.do(func() error {
		if err := c.describe(); err != nil {
			return err
		}
		// Non-blocking streams: the synchronous copies of Upload and
		// Download (legacy default stream) then do not serialise against
		// them; the backend orders what must be ordered itself.
		var err error
		if c.compute, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return cudaErr("cuStreamCreate", err)
		}
		if c.copy, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return cudaErr("cuStreamCreate", err)
		}
		return c.loadModules()
	})
	return c, err
}

// describe fills the static device information.
func (c *CUDABackend) describe() error {
	name, err := c.dev.Name()
	if err != nil {
		return cudaErr("cuDeviceGetName", err)
	}
	total, err := c.dev.TotalMem()
	if err != nil {
		return cudaErr("cuDeviceTotalMem", err)
	}
	attr := func(a cu.DeviceAttribute) int {
		v, _ := c.dev.Attribute(a)
		return v
	}
	c.info = DeviceInfo{
		Backend:           "cuda",
		Name:              name,
		TotalBytes:        total,
		Cores:             attr(cu.MultiprocessorCount),
		ComputeCapability: fmt.Sprintf("%d.%d", attr(cu.ComputeCapabilityMajor), attr(cu.ComputeCapabilityMinor)),
	}
	return nil
}

// loadModules loads the backend's own embedded PTX modules (the
// pipelines load theirs with LoadModule). The context must be current.
func (c *CUDABackend) loadModules() error {
	files, err := fs.Glob(ptxFS, "kernels/*.ptx")
	if err != nil {
		return err
	}
	for _, f := range files {
		src, err := ptxFS.ReadFile(f)
		if err != nil {
			return err
		}
		if err := c.loadModule(path.Base(f), string(src)); err != nil {
			return err
		}
	}
	return nil
}

// loadModule JIT-compiles one PTX module and records its kernels under
// their names. The context must be current.
func (c *CUDABackend) loadModule(name, src string) error {
	entries, err := ptxEntries(src)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	logBuf := make([]byte, 8192)
	mod, err := cu.LoadDataEx(src, &cu.JITErrorLogBuffer{Buffer: logBuf})
	if err != nil {
		msg := strings.TrimRight(string(logBuf), "\x00 \n")
		return fmt.Errorf("load %s (compute capability %s): %w: %s", name, c.info.ComputeCapability, cudaErr("cuModuleLoadDataEx", err), msg)
	}
	ks := map[string]*kernel{}
	for _, e := range entries {
		fn, err := mod.Function(e.Name)
		if err != nil {
			mod.Unload()
			return fmt.Errorf("%s: %w", name, cudaErr("cuModuleGetFunction "+e.Name, err))
		}
		ks[e.Name] = &kernel{fn: fn, params: e.Params, module: name}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := range ks {
		if k, dup := c.kernels[n]; dup {
			mod.Unload()
			return fmt.Errorf("kernel %s is defined in both %s and %s", n, k.module, name)
		}
	}
	for n, k := range ks {
		c.kernels[n] = k
	}
	c.modules = append(c.modules, mod)
	c.loaded[name] = true
	return nil
}

// do runs f with the backend's context current on a locked OS thread:
// CUDA contexts are current per thread, and goroutines move between
// threads.
func (c *CUDABackend) do(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(c.ctx); err != nil {
		return cudaErr("cuCtxSetCurrent", err)
	}
	return f()
}

// ptr returns a buffer's device pointer.
func ptr(b *Buffer) cu.DevicePtr {
	if b == nil {
		return 0
	}
	return cu.DevicePtr(b.dev)
}

// launch runs kernel name on the compute stream. args are pointers to the
// argument values (as cuLaunchKernel wants): unsafe.Pointer(&x). Their
// number and sizes come from the kernel's PTX declaration; each argument
// that is the address of (or into) a live buffer makes the kernel wait for
// uploads into that buffer, and later uploads into it wait for the kernel.
// The launch is asynchronous: an error while the kernel runs is reported
// by the next Sync, Download or Upload.
func (c *CUDABackend) launch(name string, grid, block [3]int, sharedBytes int, args ...unsafe.Pointer) error {
	c.mu.Lock()
	k := c.kernels[name]
	c.mu.Unlock()
	if k == nil {
		return fmt.Errorf("cuda: launch %s: no such kernel in the loaded modules (LoadModule its PTX first; run go generate after changing a .cu file)", name)
	}
	if len(args) != len(k.params) {
		return fmt.Errorf("cuda: launch %s: %d arguments given, the kernel takes %d", name, len(args), len(k.params))
	}
	for i := range 3 {
		if grid[i] < 1 || block[i] < 1 {
			return fmt.Errorf("cuda: launch %s: grid %v and block %v must be at least 1 in every dimension", name, grid, block)
		}
	}
	// Copy each argument's bytes (no more: a 4-byte int must not be read
	// as 8) into 8-byte slots, which gorgonia.org/cu copies to C memory.
	slots := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		n := k.params[i]
		if n > 8 {
			return fmt.Errorf("cuda: launch %s: argument %d is %d bytes; pass structs by pointer", name, i, n)
		}
		if a == nil {
			return fmt.Errorf("cuda: launch %s: argument %d is a nil pointer (want unsafe.Pointer(&x))", name, i)
		}
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&slots[i])), 8), unsafe.Slice((*byte)(a), n))
		params[i] = unsafe.Pointer(&slots[i])
	}
	c.mu.Lock()
	var used []*devBuf
	for i, n := range k.params {
		if n == 8 {
			if d := c.bufferAt(uintptr(slots[i])); d != nil {
				used = append(used, d)
			}
		}
	}
	c.mu.Unlock()
	return c.do(func() error {
		for _, d := range used {
			if err := c.awaitCopies(d); err != nil {
				return err
			}
		}
		err := k.fn.Launch(grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes, c.compute, params)
		if err != nil {
			return fmt.Errorf("cuda: launch %s (grid %v, block %v, %d shared bytes): %w", name, grid, block, sharedBytes, cudaErr("cuLaunchKernel", err))
		}
		logLaunch(name)
		return c.markUsed(used)
	})
}

// launched holds the kernels this process has launched, for logLaunch.
var launched sync.Map

// logLaunch appends a kernel's name to the file VOXLAB_CUDA_KERNEL_LOG
// names the first time this process launches it: scripts/gpu-check.sh
// checks with it that the tests exercised every kernel.
func logLaunch(name string) {
	path := os.Getenv("VOXLAB_CUDA_KERNEL_LOG")
	if path == "" {
		return
	}
	if _, seen := launched.LoadOrStore(name, true); seen {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, name)
	f.Close()
}

// markUsed records that the work just queued on the compute stream uses
// the given buffers.
func (c *CUDABackend) markUsed(used []*devBuf) error {
	for _, d := range used {
		if err := d.use.Record(c.compute); err != nil {
			return cudaErr("cuEventRecord", err)
		}
		c.mu.Lock()
		d.used = true
		c.mu.Unlock()
	}
	return nil
}

// awaitCopies makes the compute stream wait for the uploads queued into
// d so far. The context must be current.
func (c *CUDABackend) awaitCopies(d *devBuf) error {
	c.mu.Lock()
	has := d.hasCopies
	c.mu.Unlock()
	if !has {
		return nil
	}
	return cudaErr("cuStreamWaitEvent", c.compute.Wait(d.copied, 0))
}

// bufferAt returns the live buffer holding device address p, or nil.
// c.mu must be held.
func (c *CUDABackend) bufferAt(p uintptr) *devBuf {
	i := sort.Search(len(c.live), func(i int) bool { return c.live[i].b.dev > p }) - 1
	if i < 0 {
		return nil
	}
	d := c.live[i]
	if p >= d.b.dev+uintptr(d.b.size) && !(d.b.size == 0 && p == d.b.dev) {
		return nil
	}
	return d
}

// Name returns "cuda".
func (c *CUDABackend) Name() string { return "cuda" }

// Info describes the device, with its free memory now.
func (c *CUDABackend) Info() DeviceInfo {
	info := c.info
	if free, _, err := c.MemInfo(); err == nil {
		info.FreeBytes = free
	}
	return info
}

// MemInfo returns the device's free and total memory (cuMemGetInfo).
func (c *CUDABackend) MemInfo() (free, total int64, err error) {
	err = c.do(func() error {
		var err error
		free, total, err = cu.MemInfo()
		return cudaErr("cuMemGetInfo", err)
	})
	return free, total, err
}

// Alloc allocates n zeroed bytes of device memory and counts them.
func (c *CUDABackend) Alloc(label string, n int64) (*Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("cuda: allocate %q: negative size %d", label, n)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("cuda: allocate %q: the backend is closed", label)
	}
	c.mu.Unlock()
	// Reserved now so that concurrent Allocs see it.
	if err := c.reserve("cuda", label, n); err != nil {
		return nil, err
	}

	d := &devBuf{b: &Buffer{label: label, size: n}}
	err := c.do(func() error {
		// cuMemAlloc rejects 0 bytes; an empty buffer still gets an
		// address of its own so that it can be told apart.
		p, err := cu.MemAlloc(max(n, 1))
		if err != nil {
			return cudaErr("cuMemAlloc", err)
		}
		d.b.dev = uintptr(p)
		if d.use, err = cu.MakeEvent(cu.DisableTiming); err != nil {
			return cudaErr("cuEventCreate", err)
		}
		if d.copied, err = cu.MakeEvent(cu.DisableTiming); err != nil {
			return cudaErr("cuEventCreate", err)
		}
		if err := cu.MemsetD8Async(p, 0, max(n, 1), c.compute); err != nil {
			return cudaErr("cuMemsetD8Async", err)
		}
		return c.markUsed([]*devBuf{d})
	})
	if err != nil {
		c.release(d)
		cur := c.uncount(n)
		var ce *CUDAError
		if errors.As(err, &ce) && ce.OutOfMemory() {
			free, total, _ := c.MemInfo()
			return nil, &OOMError{Backend: "cuda", Label: label, Want: n, Used: cur, Limit: c.Stats().Limit,
				Detail: fmt.Sprintf("%v (%s has %d of %d bytes free)", err, c.info.Name, free, total)}
		}
		return nil, fmt.Errorf("cuda: allocate %q (%d bytes): %w", label, n, err)
	}
	c.allocated()
	c.mu.Lock()
	i := sort.Search(len(c.live), func(i int) bool { return c.live[i].b.dev > d.b.dev })
	c.live = append(c.live, nil)
	copy(c.live[i+1:], c.live[i:])
	c.live[i] = d
	c.byBuf[d.b] = d
	c.mu.Unlock()
	return d.b, nil
}

// release frees a buffer's device memory and events once the work that
// uses it has finished. Errors are dropped: Free has no way to report
// them, and a failing context reports them on the next call anyway.
func (c *CUDABackend) release(d *devBuf) {
	_ = c.do(func() error {
		var zero cu.Event
		if d.use != zero {
			_ = d.use.Synchronize()
			_ = cu.DestroyEvent(&d.use)
		}
		if d.copied != zero {
			_ = d.copied.Synchronize()
			_ = cu.DestroyEvent(&d.copied)
		}
		if d.b.dev != 0 {
			_ = cu.MemFree(cu.DevicePtr(d.b.dev))
		}
		return nil
	})
	d.b.dev = 0
	d.b.freed = true
}

// Free releases b after the kernels and copies using it have finished.
func (c *CUDABackend) Free(b *Buffer) {
	if b == nil {
		return
	}
	c.mu.Lock()
	d := c.byBuf[b]
	if d == nil {
		c.mu.Unlock()
		return
	}
	delete(c.byBuf, b)
	for i, x := range c.live {
		if x == d {
			c.live = append(c.live[:i], c.live[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
	c.uncount(b.size)
	c.release(d)
}

// state returns the record of a live buffer, or an error naming op.
func (c *CUDABackend) state(op string, b *Buffer, off int64, n int) (*devBuf, error) {
	if err := checkRange(op, b, off, n); err != nil {
		return nil, err
	}
	c.mu.Lock()
	d := c.byBuf[b]
	c.mu.Unlock()
	if d == nil {
		return nil, fmt.Errorf("cuda: %s %q: not a buffer of this backend", op, b.label)
	}
	return d, nil
}

// syncCopy queues a copy on the compute stream, so that it comes after
// the kernels queued so far and after the uploads into d, and waits for
// it: src or dst may be Go memory, which the driver must not touch after
// the call returns (the Pinner keeps it in place meanwhile).
func (c *CUDABackend) syncCopy(d *devBuf, host []byte, queue func(p unsafe.Pointer) error) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	p := unsafe.Pointer(unsafe.SliceData(host))
	pin.Pin(p)
	return c.do(func() error {
		if err := c.awaitCopies(d); err != nil {
			return err
		}
		if err := queue(p); err != nil {
			return err
		}
		return cudaErr("cuStreamSynchronize", c.compute.Synchronize())
	})
}

// Upload copies src into dst at off, after the kernels queued so far.
func (c *CUDABackend) Upload(dst *Buffer, off int64, src []byte) error {
	d, err := c.state("upload to", dst, off, len(src))
	if err != nil || len(src) == 0 {
		return err
	}
	err = c.syncCopy(d, src, func(p unsafe.Pointer) error {
		return cudaErr("cuMemcpyHtoDAsync", cu.MemcpyHtoDAsync(cu.DevicePtr(dst.dev+uintptr(off)), p, int64(len(src)), c.compute))
	})
	if err != nil {
		return fmt.Errorf("cuda: upload %d bytes to %q: %w", len(src), dst.label, err)
	}
	return nil
}

// Download copies from src at off into dst after the kernels queued so
// far have finished, so it also reports their errors.
func (c *CUDABackend) Download(dst []byte, src *Buffer, off int64) error {
	d, err := c.state("download from", src, off, len(dst))
	if err != nil {
		return err
	}
	if len(dst) == 0 {
		return c.Sync()
	}
	err = c.syncCopy(d, dst, func(p unsafe.Pointer) error {
		return cudaErr("cuMemcpyDtoHAsync", cu.MemcpyDtoHAsync(p, cu.DevicePtr(src.dev+uintptr(off)), int64(len(dst)), c.compute))
	})
	if err != nil {
		return fmt.Errorf("cuda: download %d bytes from %q: %w", len(dst), src.label, err)
	}
	return nil
}

// UploadAsync queues a copy of src into dst at off on the copy stream,
// after the kernels already queued that use dst. The copy is truly
// asynchronous only from pinned memory; from pageable memory the driver
// stages it before returning.
func (c *CUDABackend) UploadAsync(dst *Buffer, off int64, src *HostBuffer) (func() error, error) {
	if src == nil {
		return nil, fmt.Errorf("cuda: upload to %q: nil staging buffer", dst.Label())
	}
	d, err := c.state("upload to", dst, off, len(src.Bytes))
	if err != nil {
		return nil, err
	}
	if len(src.Bytes) == 0 {
		return func() error { return nil }, nil
	}
	ev, err := c.event()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	used := d.used
	c.mu.Unlock()
	err = c.do(func() error {
		if used {
			if err := c.copy.Wait(d.use, 0); err != nil {
				return cudaErr("cuStreamWaitEvent", err)
			}
		}
		if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst.dev+uintptr(off)), unsafe.Pointer(&src.Bytes[0]), int64(len(src.Bytes)), c.copy); err != nil {
			return cudaErr("cuMemcpyHtoDAsync", err)
		}
		if err := ev.Record(c.copy); err != nil {
			return cudaErr("cuEventRecord", err)
		}
		if err := d.copied.Record(c.copy); err != nil {
			return cudaErr("cuEventRecord", err)
		}
		c.mu.Lock()
		d.hasCopies = true
		c.mu.Unlock()
		return nil
	})
	if err != nil {
		c.putEvent(ev)
		return nil, fmt.Errorf("cuda: upload %d bytes to %q: %w", len(src.Bytes), dst.label, err)
	}
	var once sync.Once
	var werr error
	return func() error {
		once.Do(func() {
			werr = c.do(func() error { return cudaErr("cuEventSynchronize", ev.Synchronize()) })
			c.putEvent(ev)
			if werr != nil {
				werr = fmt.Errorf("cuda: upload %d bytes to %q: %w", len(src.Bytes), dst.label, werr)
			}
		})
		return werr
	}, nil
}

// event takes an event from the free list or makes one.
func (c *CUDABackend) event() (cu.Event, error) {
	c.mu.Lock()
	if n := len(c.events); n > 0 {
		ev := c.events[n-1]
		c.events = c.events[:n-1]
		c.mu.Unlock()
		return ev, nil
	}
	c.mu.Unlock()
	var ev cu.Event
	err := c.do(func() error {
		var err error
		ev, err = cu.MakeEvent(cu.DisableTiming)
		return cudaErr("cuEventCreate", err)
	})
	return ev, err
}

func (c *CUDABackend) putEvent(ev cu.Event) {
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
}

// HostAlloc returns a staging buffer of n bytes: page-locked with
// cuMemHostAlloc when pin is true, else pageable Go memory. Pinning fails
// with an error, rather than falling back, when the pinned-memory cap
// would be passed or the driver refuses; NewStaging falls back and warns.
func (c *CUDABackend) HostAlloc(n int64, pin bool) (*HostBuffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("cuda: host buffer of negative size %d", n)
	}
	if !pin || n == 0 {
		return &HostBuffer{Bytes: make([]byte, n)}, nil
	}
	c.mu.Lock()
	if c.pinnedCap > 0 && c.pinned+n > c.pinnedCap {
		used, limit := c.pinned, c.pinnedCap
		c.mu.Unlock()
		return nil, fmt.Errorf("cuda: pin %d bytes: %d bytes already pinned of the %d-byte pinned-memory cap", n, used, limit)
	}
	c.pinned += n
	c.mu.Unlock()
	var p unsafe.Pointer
	err := c.do(func() error {
		var err error
		p, err = hostAllocPinned(n)
		return err
	})
	if err != nil {
		c.mu.Lock()
		c.pinned -= n
		c.mu.Unlock()
		return nil, fmt.Errorf("cuda: pin %d bytes: %w", n, err)
	}
	h := &HostBuffer{Bytes: unsafe.Slice((*byte)(p), n), Pinned: true, ptr: uintptr(p)}
	c.mu.Lock()
	c.hosts[h] = struct{}{}
	c.mu.Unlock()
	return h, nil
}

// HostFree releases a pinned buffer (pageable ones are garbage collected).
// Its uploads must have completed.
func (c *CUDABackend) HostFree(h *HostBuffer) {
	if h == nil || !h.Pinned {
		return
	}
	c.mu.Lock()
	_, ok := c.hosts[h]
	delete(c.hosts, h)
	if ok {
		c.pinned -= int64(len(h.Bytes))
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(h.Bytes))
	_ = c.do(func() error { return cu.MemFreeHost(p) })
	h.Bytes, h.ptr = nil, 0
}

// PinnedBytes returns the page-locked host memory held now.
func (c *CUDABackend) PinnedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pinned
}

// SetPinnedCap caps page-locked host memory at n bytes (0: no cap). It
// starts at DefaultPinnedCap.
func (c *CUDABackend) SetPinnedCap(n int64) {
	c.mu.Lock()
	c.pinnedCap = n
	c.mu.Unlock()
}

// Sync waits for all work queued on both streams and reports the first
// error, such as a kernel's illegal memory access.
func (c *CUDABackend) Sync() error {
	err := c.do(func() error {
		if err := c.compute.Synchronize(); err != nil {
			return cudaErr("cuStreamSynchronize (compute)", err)
		}
		return cudaErr("cuStreamSynchronize (copy)", c.copy.Synchronize())
	})
	if err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	return nil
}

// Close waits for queued work, frees every device buffer, pinned host
// buffer, event, stream and module, and releases the context. It returns
// the first error met, e.g. a kernel failure no one synchronised on.
func (c *CUDABackend) Close() error {
	// The pool's buffers are among c.hosts, freed below: forget them.
	forgetPool(c)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	live, hosts, events := c.live, c.hosts, c.events
	c.live, c.byBuf, c.hosts, c.events = nil, map[*Buffer]*devBuf{}, map[*HostBuffer]struct{}{}, nil
	c.pinned = 0
	c.mu.Unlock()
	c.resetCount()

	var first error
	keep := func(op string, err error) {
		if err != nil && first == nil {
			first = cudaErr(op, err)
		}
	}
	if c.ctx != (cu.CUContext{}) {
		keep("cuCtxSynchronize", c.do(cu.Synchronize))
	}
	for _, d := range live {
		c.release(d)
	}
	for h := range hosts {
		p := unsafe.Pointer(unsafe.SliceData(h.Bytes))
		keep("cuMemFreeHost", c.do(func() error { return cu.MemFreeHost(p) }))
		h.Bytes, h.ptr = nil, 0
	}
	if c.ctx != (cu.CUContext{}) {
		keep("destroy", c.do(func() error {
			for i := range events {
				keep("cuEventDestroy", cu.DestroyEvent(&events[i]))
			}
			var none cu.Stream
			if c.compute != none {
				keep("cuStreamDestroy", c.compute.Destroy())
			}
			if c.copy != none {
				keep("cuStreamDestroy", c.copy.Destroy())
			}
			for _, m := range c.modules {
				keep("cuModuleUnload", m.Unload())
			}
			return nil
		}))
		keep("cuDevicePrimaryCtxRelease", c.dev.ReleasePrimaryCtx())
	}
	if first != nil {
		return fmt.Errorf("cuda: close: %w", first)
	}
	return nil
}
