package gpu

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestCPUAllocTracking(t *testing.T) {
	be := NewCPU()
	want := func(step string, cur, peak int64, allocs int) {
		t.Helper()
		s := be.Stats()
		if s.Current != cur || s.Peak != peak || s.Allocs != allocs {
			t.Fatalf("%s: stats %+v, want current %d peak %d allocs %d", step, s, cur, peak, allocs)
		}
	}
	a, err := be.Alloc("a", 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := be.Alloc("b", 50)
	if err != nil {
		t.Fatal(err)
	}
	want("two allocs", 150, 150, 2)
	be.Free(a)
	want("free a", 50, 150, 2)
	be.Free(a)
	be.Free(nil)
	want("double free and nil", 50, 150, 2)
	be.ResetPeak()
	want("reset peak", 50, 50, 2)
	c, err := be.Alloc("c", 30)
	if err != nil {
		t.Fatal(err)
	}
	want("alloc c", 80, 80, 3)
	be.Free(b)
	be.Free(c)
	want("all freed", 0, 80, 3)
	if a.Label() != "a" || a.Len() != 100 {
		t.Errorf("label %q len %d, want a 100", a.Label(), a.Len())
	}
}

func TestCPUAllocZeroedAndSized(t *testing.T) {
	be := NewCPU()
	for _, n := range []int64{0, 1, 4097} {
		b, err := be.Alloc("z", n)
		if err != nil {
			t.Fatal(err)
		}
		host := b.HostBytes()
		if int64(len(host)) != n || bytes.Count(host, []byte{0}) != int(n) {
			t.Errorf("Alloc(%d): %d bytes, not all zero", n, len(host))
		}
		be.Free(b)
	}
	if _, err := be.Alloc("neg", -1); err == nil || !strings.Contains(err.Error(), `"neg"`) {
		t.Errorf("Alloc(-1): err %v, want an error naming the buffer", err)
	}
}

func TestCPULimitOOM(t *testing.T) {
	be := NewCPU()
	be.SetLimit(1000)
	a, err := be.Alloc("a", 500)
	if err != nil {
		t.Fatal(err)
	}
	_, err = be.Alloc("halo slices", 600)
	const text = `cpu: cannot allocate "halo slices" (600 bytes): 500 bytes in use of a 1000-byte limit`
	if err == nil || err.Error() != text {
		t.Fatalf("over the limit: err %v, want %q", err, text)
	}
	if !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("errors.Is(err, ErrOutOfMemory) = false")
	}
	var oom *OOMError
	if !errors.As(err, &oom) || oom.Want != 600 || oom.Used != 500 || oom.Limit != 1000 {
		t.Errorf("OOMError %+v", oom)
	}
	if s := be.Stats(); s.Current != 500 || s.Allocs != 1 || s.Limit != 1000 {
		t.Errorf("a failed Alloc changed the stats: %+v", s)
	}
	b, err := be.Alloc("exactly fits", 500)
	if err != nil {
		t.Fatalf("allocation up to the limit: %v", err)
	}
	be.Free(a)
	be.Free(b)
	be.SetLimit(0)
	c, err := be.Alloc("big", 5000)
	if err != nil {
		t.Fatalf("after SetLimit(0): %v", err)
	}
	be.Free(c)
}

func TestOOMErrorText(t *testing.T) {
	e := &OOMError{Backend: "cuda", Label: "block", Want: 10, Used: 3, Detail: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory"}
	const want = `cuda: cannot allocate "block" (10 bytes): 3 bytes in use: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory`
	if e.Error() != want {
		t.Errorf("got %q, want %q", e.Error(), want)
	}
}

func TestCPUUploadDownload(t *testing.T) {
	be := NewCPU()
	b, err := be.Alloc("slab", 16)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte{1, 2, 3, 4, 5}
	if err := be.Upload(b, 11, src); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if err := be.Download(got, b, 9); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 0, 1, 2, 3, 4, 5}; !bytes.Equal(got, want) {
		t.Errorf("round trip: got %v, want %v", got, want)
	}
	h, err := be.HostAlloc(4, true)
	if err != nil {
		t.Fatal(err)
	}
	if h.Pinned {
		t.Error("the CPU backend returned a pinned buffer")
	}
	copy(h.Bytes, []byte{9, 8, 7, 6})
	wait, err := be.UploadAsync(b, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	be.HostFree(h)
	if err := be.Download(got[:4], b, 0); err != nil || !bytes.Equal(got[:4], []byte{9, 8, 7, 6}) {
		t.Errorf("after UploadAsync: %v, %v", got[:4], err)
	}
	if _, err := be.HostAlloc(-1, false); err == nil {
		t.Error("HostAlloc(-1) succeeded")
	}
}

func TestCPUTransferBounds(t *testing.T) {
	be := NewCPU()
	b, err := be.Alloc("frame", 8)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		off  int64
		n    int
		want string // "" for success
	}{
		{0, 8, ""},
		{8, 0, ""},
		{7, 1, ""},
		{7, 2, `"frame": bytes [7,9) outside its 8 bytes`},
		{-1, 1, `"frame": bytes [-1,0) outside its 8 bytes`},
		{9, 0, `"frame": bytes [9,9) outside its 8 bytes`},
	}
	for _, tc := range tests {
		errUp := be.Upload(b, tc.off, make([]byte, tc.n))
		errDown := be.Download(make([]byte, tc.n), b, tc.off)
		for op, err := range map[string]error{"upload to": errUp, "download from": errDown} {
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s off %d n %d: %v", op, tc.off, tc.n, err)
			case tc.want != "" && (err == nil || err.Error() != op+" "+tc.want):
				t.Errorf("%s off %d n %d: err %v, want %q", op, tc.off, tc.n, err, op+" "+tc.want)
			}
		}
	}
	be.Free(b)
	if err := be.Upload(b, 0, []byte{1}); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("upload to a freed buffer: %v", err)
	}
	if err := be.Download(make([]byte, 1), b, 0); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("download from a freed buffer: %v", err)
	}
}

// TestCPUConcurrentAlloc checks the counters under concurrent use (run
// with -race by make test).
func TestCPUConcurrentAlloc(t *testing.T) {
	be := NewCPU()
	const workers, rounds = 8, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				b, err := be.Alloc("x", 10)
				if err != nil {
					t.Error(err)
					return
				}
				be.Free(b)
			}
		}()
	}
	wg.Wait()
	s := be.Stats()
	if s.Current != 0 || s.Allocs != workers*rounds || s.Peak < 10 || s.Peak > workers*10 {
		t.Errorf("stats after concurrent alloc/free: %+v", s)
	}
}

func TestCPUWorkersAndInfo(t *testing.T) {
	if n := NewCPUWorkers(3).Workers(); n != 3 {
		t.Errorf("NewCPUWorkers(3).Workers() = %d", n)
	}
	if n := NewCPUWorkers(0).Workers(); n < 1 {
		t.Errorf("NewCPUWorkers(0).Workers() = %d", n)
	}
	info := NewCPU().Info()
	if info.Backend != "cpu" || info.Name == "" || info.Cores < 1 {
		t.Errorf("Info() = %+v", info)
	}
	if total, _ := HostMemory(); total > 0 && (info.TotalBytes != total || info.FreeBytes <= 0 || info.FreeBytes > total) {
		t.Errorf("Info() memory %d free of %d, HostMemory total %d", info.FreeBytes, info.TotalBytes, total)
	}
}

func TestParseMeminfo(t *testing.T) {
	const modern = `MemTotal:       24576000 kB
MemFree:         1000000 kB
MemAvailable:   20000000 kB
Buffers:          100000 kB
Cached:          5000000 kB
HugePages_Total:       0
`
	total, avail := parseMeminfo(strings.NewReader(modern))
	if total != 24576000<<10 || avail != 20000000<<10 {
		t.Errorf("modern: total %d avail %d", total, avail)
	}
	// Linux < 3.14 has no MemAvailable.
	const old = "MemTotal: 2000 kB\nMemFree: 100 kB\nBuffers: 20 kB\nCached: 300 kB\n"
	total, avail = parseMeminfo(strings.NewReader(old))
	if total != 2000<<10 || avail != 420<<10 {
		t.Errorf("old kernel: total %d avail %d, want %d %d", total, avail, 2000<<10, 420<<10)
	}
	if total, avail := parseMeminfo(strings.NewReader("garbage\nMemTotal: x kB\n")); total != 0 || avail != 0 {
		t.Errorf("garbage: %d %d", total, avail)
	}
}

// TestProcessMemory: this process holds some resident memory, and its
// peak is at least what it holds now.
func TestProcessMemory(t *testing.T) {
	rss, peak := ProcessMemory()
	if rss == 0 {
		t.Skip("no /proc/self/status on this system")
	}
	if rss < 1<<20 || peak < rss {
		t.Errorf("resident %d bytes, peak %d", rss, peak)
	}
	const status = "Name:\tgo\nVmHWM:\t  123456 kB\nVmRSS:\t   65432 kB\nThreads:\t9\n"
	if m := procBytes(strings.NewReader(status)); m["VmRSS"] != 65432<<10 || m["VmHWM"] != 123456<<10 {
		t.Errorf("procBytes read %v", m)
	}
}

func TestHostMemoryAndPinnedCap(t *testing.T) {
	total, avail := HostMemory()
	if total == 0 {
		t.Skip("no /proc/meminfo on this system")
	}
	if avail <= 0 || avail > total {
		t.Errorf("HostMemory() = %d available of %d", avail, total)
	}
	if got := DefaultPinnedCap(); got != total/4 {
		t.Errorf("DefaultPinnedCap() = %d, want a quarter of %d", got, total)
	}
}

func TestParseChoice(t *testing.T) {
	for in, want := range map[string]Choice{"": Auto, "auto": Auto, " CPU ": CPU, "cuda": CUDA, "Cuda": CUDA} {
		if got, err := ParseChoice(in); err != nil || got != want {
			t.Errorf("ParseChoice(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseChoice("opencl"); err == nil || !strings.Contains(err.Error(), "auto, cpu or cuda") {
		t.Errorf("ParseChoice(opencl): %v", err)
	}
}
