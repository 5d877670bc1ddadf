//go:build cuda

package gpu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// A cuda test binary only gets here with a device: without one the C
// preflight (cuda_fallback.go) exits 77 before any test runs. openTestCUDA
// still skips, with the reason, when the device does not open.
func openTestCUDA(t testing.TB) *CUDABackend {
	t.Helper()
	c, err := OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

func TestCUDAOpen(t *testing.T) {
	c := openTestCUDA(t)
	info := c.Info()
	if info.Backend != "cuda" || info.Name == "" || info.Cores < 1 || info.TotalBytes <= 0 ||
		info.FreeBytes <= 0 || info.FreeBytes > info.TotalBytes || ccMajor(info.ComputeCapability) < 7 {
		t.Errorf("Info() = %+v", info)
	}
	t.Logf("device: %s, compute capability %s, %d SMs, %d of %d MiB free, %d kernels loaded",
		info.Name, info.ComputeCapability, info.Cores, info.FreeBytes>>20, info.TotalBytes>>20, len(c.kernels))
	for _, k := range []string{"core_fill_u32", "core_axpy_f32", "core_args", "core_spin"} {
		if c.kernels[k] == nil {
			t.Errorf("kernel %s not loaded", k)
		}
	}
	for _, choice := range []Choice{Auto, CUDA} {
		be, note, err := Open(choice)
		if err != nil || be.Name() != "cuda" || !strings.Contains(note, info.Name) {
			t.Errorf("Open(%s) = %v, %q, %v", choice, be, note, err)
		}
		if be != nil {
			be.Close()
		}
	}
}

func ccMajor(cc string) int {
	major, _, _ := strings.Cut(cc, ".")
	n, _ := strconv.Atoi(major)
	return n
}

func TestCUDAAllocTracking(t *testing.T) {
	c := openTestCUDA(t)
	a, err := c.Alloc("a", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Alloc("b", 3)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := c.Alloc("empty", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Current != 1<<20+3 || s.Peak != 1<<20+3 || s.Allocs != 3 {
		t.Errorf("after allocs: %+v", s)
	}
	zeros := make([]byte, 1<<20)
	for i := range zeros {
		zeros[i] = 0xff
	}
	if err := c.Download(zeros, a, 0); err != nil || bytes.Count(zeros, []byte{0}) != len(zeros) {
		t.Errorf("Alloc did not zero the buffer (err %v)", err)
	}
	c.Free(a)
	c.Free(a)
	c.Free(nil)
	if s := c.Stats(); s.Current != 3 || s.Peak != 1<<20+3 {
		t.Errorf("after free: %+v", s)
	}
	c.ResetPeak()
	c.SetLimit(100)
	_, err = c.Alloc("halo slices", 98)
	const text = `cuda: cannot allocate "halo slices" (98 bytes): 3 bytes in use of a 100-byte limit`
	if err == nil || err.Error() != text || !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("over the limit: %v, want %q", err, text)
	}
	c.SetLimit(0)
	c.Free(b)
	c.Free(empty)
	if s := c.Stats(); s.Current != 0 || s.Peak != 3 || s.Allocs != 3 {
		t.Errorf("at the end: %+v", s)
	}
}

func TestCUDAOOMText(t *testing.T) {
	c := openTestCUDA(t)
	before := c.Stats()
	_, err := c.Alloc("whole stack", c.info.TotalBytes+1<<30)
	var oom *OOMError
	if !errors.Is(err, ErrOutOfMemory) || !errors.As(err, &oom) {
		t.Fatalf("allocating more than the device has: %v", err)
	}
	for _, want := range []string{`"whole stack"`, "CUDA_ERROR_OUT_OF_MEMORY", "bytes free", c.info.Name} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("OOM text %q lacks %q", err, want)
		}
	}
	if s := c.Stats(); s != before {
		t.Errorf("a failed Alloc changed the stats: %+v -> %+v", before, s)
	}
	t.Log(err)
}

func TestCUDARoundTrip(t *testing.T) {
	c := openTestCUDA(t)
	const n = 1<<20 + 3
	b, err := c.Alloc("slab", n+10)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	if err := c.Upload(b, 5, src); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n+10)
	if err := c.Download(got, b, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[5:n+5], src) || bytes.Count(got[:5], []byte{0}) != 5 || bytes.Count(got[n+5:], []byte{0}) != 5 {
		t.Error("upload/download round trip differs")
	}
	for _, pin := range []bool{false, true} {
		h, err := c.HostAlloc(n, pin)
		if err != nil {
			t.Fatal(err)
		}
		if h.Pinned != pin {
			t.Errorf("HostAlloc(pin %v) gave Pinned %v", pin, h.Pinned)
		}
		for i := range h.Bytes {
			h.Bytes[i] = ^src[i]
		}
		wait, err := c.UploadAsync(b, 10, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		if err := wait(); err != nil {
			t.Errorf("second wait: %v", err)
		}
		if err := c.Download(got[:n], b, 10); err != nil || !bytes.Equal(got[:n], h.Bytes) {
			t.Errorf("UploadAsync (pinned %v) round trip differs (err %v)", pin, err)
		}
		c.HostFree(h)
	}
	if err := c.Upload(b, n+9, []byte{1, 2}); err == nil || !strings.Contains(err.Error(), "outside its") {
		t.Errorf("upload past the end: %v", err)
	}
	if err := c.Download(make([]byte, 2), b, -1); err == nil || !strings.Contains(err.Error(), "outside its") {
		t.Errorf("download before the start: %v", err)
	}
	c.Free(b)
	if err := c.Upload(b, 0, []byte{1}); err == nil {
		t.Error("upload to a freed buffer succeeded")
	}
}

func TestCUDALaunchArgs(t *testing.T) {
	c := openTestCUDA(t)
	out, err := c.Alloc("out", 6*8)
	if err != nil {
		t.Fatal(err)
	}
	var (
		i8  int8    = -5
		i16 int16   = -1234
		i32 int32   = 123456789
		f32 float32 = 1.5
		i64 int64   = -(1 << 40) - 3
		f64         = math.Pi
		p           = ptr(out)
	)
	err = c.launch("core_args", [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0,
		unsafe.Pointer(&i8), unsafe.Pointer(&i16), unsafe.Pointer(&i32), unsafe.Pointer(&f32),
		unsafe.Pointer(&i64), unsafe.Pointer(&f64), unsafe.Pointer(&p))
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 6*8)
	if err := c.Download(raw, out, 0); err != nil {
		t.Fatal(err)
	}
	want := []float64{-5, -1234, 123456789, 1.5, -(1 << 40) - 3, math.Pi}
	for k, w := range want {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8*k:])); got != w {
			t.Errorf("argument %d reached the kernel as %v, want %v", k, got, w)
		}
	}

	bad := []struct {
		name string
		err  func() error
		want string
	}{
		{"unknown kernel", func() error { return c.launch("dezing_nothing", [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0) }, "no such kernel"},
		{"too few args", func() error {
			return c.launch("core_args", [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0, unsafe.Pointer(&i8))
		}, "1 arguments given, the kernel takes 7"},
		{"empty grid", func() error {
			return c.launch("core_fill_u32", [3]int{0, 1, 1}, [3]int{1, 1, 1}, 0, unsafe.Pointer(&p), unsafe.Pointer(&i32), unsafe.Pointer(&i64))
		}, "at least 1"},
		{"block too large", func() error {
			n := int64(0)
			return c.launch("core_fill_u32", [3]int{1, 1, 1}, [3]int{4096, 1, 1}, 0, unsafe.Pointer(&p), unsafe.Pointer(&i32), unsafe.Pointer(&n))
		}, "CUDA_ERROR_INVALID_VALUE"},
	}
	for _, tc := range bad {
		if err := tc.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if err := c.Sync(); err != nil {
		t.Errorf("a refused launch left an error behind: %v", err)
	}
}

// TestCUDAAxpyParity compares a kernel with the same arithmetic in Go,
// through an interior pointer (offset into a buffer).
func TestCUDAAxpyParity(t *testing.T) {
	c := openTestCUDA(t)
	const n = 1<<20 + 7
	r := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = r.Float32()*200-100, r.Float32()*200-100
	}
	a := float32(0.75)
	xb, _ := c.Alloc("x", 4*n)
	yb, _ := c.Alloc("y", 4*(n+16))
	if err := c.Upload(xb, 0, f32bytes(x)); err != nil {
		t.Fatal(err)
	}
	if err := c.Upload(yb, 64, f32bytes(y)); err != nil {
		t.Fatal(err)
	}
	xp, yp, count := ptr(xb), ptr(yb)+64, int64(n)
	if err := c.launch("core_axpy_f32", [3]int{256, 1, 1}, [3]int{256, 1, 1}, 0,
		unsafe.Pointer(&a), unsafe.Pointer(&xp), unsafe.Pointer(&yp), unsafe.Pointer(&count)); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := c.Download(f32bytes(got), yb, 64); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		// The GPU fuses a*x+y into one rounding; Go may round twice:
		// allow one unit in the last place.
		want := float32(math.FMA(float64(a), float64(x[i]), float64(y[i])))
		if got[i] != want && math.Nextafter32(want, got[i]) != got[i] {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func f32bytes(s []float32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s)) }

// spinCycles returns the clock ticks core_spin needs to run about d.
func spinCycles(t *testing.T, c *CUDABackend, d time.Duration) int64 {
	khz, err := c.dev.Attribute(cu.ClockRate)
	if err != nil || khz <= 0 {
		t.Fatalf("clock rate: %v", err)
	}
	return int64(khz) * d.Milliseconds()
}

// TestCUDAUploadAsyncOverlap: an upload from pinned memory on the copy
// stream completes while a kernel on the compute stream still runs.
func TestCUDAUploadAsyncOverlap(t *testing.T) {
	c := openTestCUDA(t)
	const n = 64 << 20
	done, _ := c.Alloc("done", 4)
	dst, _ := c.Alloc("dst", n)
	h, err := c.HostAlloc(n, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.HostFree(h)
	for i := range h.Bytes {
		h.Bytes[i] = byte(i * 7)
	}
	cycles, dp := spinCycles(t, c, 300*time.Millisecond), ptr(done)
	start := time.Now()
	if err := c.launch("core_spin", [3]int{1, 1, 1}, [3]int{32, 1, 1}, 0, unsafe.Pointer(&cycles), unsafe.Pointer(&dp)); err != nil {
		t.Fatal(err)
	}
	wait, err := c.UploadAsync(dst, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	copied := time.Since(start)
	running := c.do(func() error { return c.compute.Query() }) != nil
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if !running {
		t.Errorf("the kernel had finished when the upload did (upload %v, kernel %v): no overlap", copied, total)
	}
	t.Logf("64 MiB pinned upload done after %v while a %v kernel ran", copied, total)
	got := make([]byte, n)
	if err := c.Download(got, dst, 0); err != nil || !bytes.Equal(got, h.Bytes) {
		t.Errorf("overlapped upload corrupted (err %v)", err)
	}
}

// TestCUDAStreamOrdering: the per-buffer events make an upload wait for a
// kernel still using its destination, and a kernel wait for an upload
// into its input, without the caller synchronising.
func TestCUDAStreamOrdering(t *testing.T) {
	c := openTestCUDA(t)
	// Write after read: core_spin increments done at its end; the upload
	// into done queued after it must land after that increment.
	done, _ := c.Alloc("done", 4)
	h, _ := c.HostAlloc(4, true)
	defer c.HostFree(h)
	binary.LittleEndian.PutUint32(h.Bytes, 0xdeadbeef)
	cycles, dp := spinCycles(t, c, 200*time.Millisecond), ptr(done)
	if err := c.launch("core_spin", [3]int{1, 1, 1}, [3]int{32, 1, 1}, 0, unsafe.Pointer(&cycles), unsafe.Pointer(&dp)); err != nil {
		t.Fatal(err)
	}
	wait, err := c.UploadAsync(done, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if c.do(func() error { return c.compute.Query() }) != nil {
		t.Error("the upload into a buffer a running kernel uses finished before the kernel")
	}
	got := make([]byte, 4)
	if err := c.Download(got, done, 0); err != nil || binary.LittleEndian.Uint32(got) != 0xdeadbeef {
		t.Errorf("done = %#x, want the uploaded 0xdeadbeef (err %v)", binary.LittleEndian.Uint32(got), err)
	}

	// Read after write: a kernel launched right after a large async
	// upload into its input, without waiting, must see all of it.
	const n = 64 << 20
	xb, _ := c.Alloc("x", 4*n)
	yb, _ := c.Alloc("y", 4*n)
	hx, err := c.HostAlloc(4*n, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.HostFree(hx)
	xs := unsafe.Slice((*float32)(unsafe.Pointer(&hx.Bytes[0])), n)
	for i := range xs {
		xs[i] = 1
	}
	wait, err = c.UploadAsync(xb, 0, hx)
	if err != nil {
		t.Fatal(err)
	}
	a, xp, yp, count := float32(2), ptr(xb), ptr(yb), int64(n)
	if err := c.launch("core_axpy_f32", [3]int{1024, 1, 1}, [3]int{256, 1, 1}, 0,
		unsafe.Pointer(&a), unsafe.Pointer(&xp), unsafe.Pointer(&yp), unsafe.Pointer(&count)); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	ys := make([]float32, n)
	if err := c.Download(f32bytes(ys), yb, 0); err != nil {
		t.Fatal(err)
	}
	for i, v := range ys {
		if v != 2 {
			t.Fatalf("y[%d] = %v, want 2: the kernel read x before its upload finished", i, v)
		}
	}
}

func TestCUDABufferAt(t *testing.T) {
	c := openTestCUDA(t)
	a, _ := c.Alloc("a", 1000)
	b, _ := c.Alloc("b", 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tc := range []struct {
		p    uintptr
		want *Buffer
	}{{a.dev, a}, {a.dev + 999, a}, {b.dev, b}, {1, nil}} {
		d := c.bufferAt(tc.p)
		if (d == nil) != (tc.want == nil) || d != nil && d.b != tc.want {
			t.Errorf("bufferAt(%#x) = %v, want %v", tc.p, d, tc.want)
		}
	}
	if d := c.bufferAt(a.dev + 1000); d != nil && d.b == a {
		t.Error("bufferAt one past the end of a returned a")
	}
}

func TestCUDAPinned(t *testing.T) {
	c := openTestCUDA(t)
	h, err := c.HostAlloc(1<<20, true)
	if err != nil || !h.Pinned || c.PinnedBytes() != 1<<20 {
		t.Fatalf("HostAlloc pinned: %v, %v, %d bytes pinned", h, err, c.PinnedBytes())
	}
	c.HostFree(h)
	c.HostFree(h)
	if c.PinnedBytes() != 0 {
		t.Errorf("%d bytes pinned after HostFree", c.PinnedBytes())
	}
	c.SetPinnedCap(3 << 20)
	if _, err := c.HostAlloc(4<<20, true); err == nil || !strings.Contains(err.Error(), "pinned-memory cap") {
		t.Errorf("pinning past the cap: %v", err)
	}
	// A pool that does not fit under the backend's cap falls back whole.
	s, err := NewStaging(c, 4, 1<<20, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pinned() || !strings.Contains(s.Warning(), "pinned-memory cap") || c.PinnedBytes() != 0 {
		t.Errorf("staging over the backend cap: pinned %v, warning %q, %d bytes pinned", s.Pinned(), s.Warning(), c.PinnedBytes())
	}
	s.Close()
	c.SetPinnedCap(DefaultPinnedCap())
	s, err = NewStaging(c, 2, 1<<20, true, 0)
	if err != nil || !s.Pinned() || s.Warning() != "" || c.PinnedBytes() != 2<<20 {
		t.Fatalf("staging pinned: %v, %q, %d bytes pinned", err, s.Warning(), c.PinnedBytes())
	}
	s.Close()
	if c.PinnedBytes() != 0 {
		t.Errorf("%d bytes pinned after the pool closed", c.PinnedBytes())
	}
}

// TestCUDACloseFreesAll: Close gives back every buffer's device memory.
func TestCUDACloseFreesAll(t *testing.T) {
	c := openTestCUDA(t)
	free0, _, err := c.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := OpenCUDA(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := c2.Alloc("block", 256<<20); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c2.HostAlloc(64<<20, true); err != nil {
		t.Fatal(err)
	}
	free1, _, _ := c.MemInfo()
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	free2, _, _ := c.MemInfo()
	if free0-free1 < 1<<30 || free0-free2 > 64<<20 {
		t.Errorf("free memory %d MiB before, %d with 1 GiB allocated, %d after Close", free0>>20, free1>>20, free2>>20)
	}
	if s := c2.Stats(); s.Current != 0 || c2.PinnedBytes() != 0 {
		t.Errorf("after Close: %+v, %d bytes pinned", s, c2.PinnedBytes())
	}
	if _, err := c2.Alloc("late", 1); err == nil {
		t.Error("Alloc after Close succeeded")
	}
}

// TestCUDAKernelFault: a kernel's illegal access fails the job with the
// CUDA error text, and Close still frees everything. A fault spoils the
// context for the whole process, so it runs in a child process.
func TestCUDAKernelFault(t *testing.T) {
	if os.Getenv("VOXLAB_CUDA_FAULT_CHILD") == "1" {
		c, err := OpenCUDA(0)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			c.Alloc("block", 1<<20)
		}
		bogus, v, n := cu.DevicePtr(1<<46), uint32(1), uint64(1<<20)
		if err := c.launch("core_fill_u32", [3]int{64, 1, 1}, [3]int{256, 1, 1}, 0, unsafe.Pointer(&bogus), unsafe.Pointer(&v), unsafe.Pointer(&n)); err != nil {
			t.Logf("LAUNCH: %v", err)
		}
		t.Logf("SYNC: %v", c.Sync())
		t.Logf("CLOSE: %v", c.Close())
		t.Logf("CURRENT: %d", c.Stats().Current)
		return
	}
	openTestCUDA(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCUDAKernelFault$", "-test.v")
	cmd.Env = append(os.Environ(), "VOXLAB_CUDA_FAULT_CHILD=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	// Expected: CUDA_ERROR_ILLEGAL_ADDRESS; any CUDA error text will do.
	if err != nil || !strings.Contains(text, "SYNC: cuda: cuStreamSynchronize (compute): CUDA_ERROR_") || !strings.Contains(text, "CURRENT: 0") {
		t.Errorf("child (err %v):\n%s", err, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "SYNC:") || strings.Contains(line, "CLOSE:") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func TestCUDABandwidth(t *testing.T) {
	c := openTestCUDA(t)
	r, err := Bandwidth(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pageable < 0.5 || r.Pinned < 0.5 || r.PinnedNote != "" {
		t.Errorf("implausible result %+v", r)
	}
	if s := c.Stats(); s.Current != 0 || c.PinnedBytes() != 0 {
		t.Errorf("probe left %d device and %d pinned bytes", s.Current, c.PinnedBytes())
	}
	t.Logf("bandwidth: %s", r)
}

// BenchmarkCUDAUpload measures UploadAsync of 64 MiB from pageable and
// from pinned memory: the transfer figures of pin_memory off and on.
func BenchmarkCUDAUpload(b *testing.B) {
	c := openTestCUDA(b)
	const n = 64 << 20
	dst, err := c.Alloc("dst", n)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		pin  bool
	}{{"pin_memory=off", false}, {"pin_memory=on", true}} {
		b.Run(mode.name, func(b *testing.B) {
			h, err := c.HostAlloc(n, mode.pin)
			if err != nil {
				b.Fatal(err)
			}
			defer c.HostFree(h)
			b.SetBytes(n)
			for b.Loop() {
				wait, err := c.UploadAsync(dst, 0, h)
				if err != nil {
					b.Fatal(err)
				}
				if err := wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
