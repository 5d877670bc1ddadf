package gpu

import (
	"errors"
	"strings"
	"testing"
)

func TestBandwidthCPU(t *testing.T) {
	be := NewCPU()
	r, err := Bandwidth(be, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "cpu" || r.Bytes != 8<<20 || r.Pageable <= 0 || r.Pinned != 0 || r.Speedup() != 0 {
		t.Errorf("result %+v", r)
	}
	if !strings.Contains(r.PinnedNote, "pinning does not apply to the cpu backend") {
		t.Errorf("PinnedNote %q", r.PinnedNote)
	}
	if s := r.String(); !strings.Contains(s, "memcpy") || !strings.Contains(s, "GB/s") {
		t.Errorf("String() = %q", s)
	}
	if s := be.Stats(); s.Current != 0 || s.Peak != 8<<20 {
		t.Errorf("probe left %d bytes allocated (peak %d)", s.Current, s.Peak)
	}
	t.Log(r)
}

func TestBandwidthPinned(t *testing.T) {
	be := &pinningCPU{CPUBackend: NewCPU(), okPins: 1}
	r, err := Bandwidth(be, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pinned <= 0 || r.PinnedNote != "" || r.Speedup() <= 0 || !strings.Contains(r.String(), "pinned") {
		t.Errorf("result %+v: %s", r, r)
	}
	if be.pinned != 0 {
		t.Errorf("%d pinned buffers left", be.pinned)
	}

	refused := &pinningCPU{CPUBackend: NewCPU(), refusal: errors.New("cap reached")}
	r, err = Bandwidth(refused, 1<<20)
	if err != nil || r.Pinned != 0 || !strings.Contains(r.PinnedNote, "not measured: cap reached") {
		t.Errorf("pinning refused: %+v, %v", r, err)
	}
}

func TestBandwidthErrors(t *testing.T) {
	be := NewCPU()
	be.SetLimit(1 << 20)
	if _, err := Bandwidth(be, 2<<20); !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "bandwidth probe") {
		t.Errorf("probe over the device limit: %v", err)
	}
}

func TestBandwidthAdvice(t *testing.T) {
	slow := BandwidthResult{Backend: "cuda", Device: "X", Bytes: 256 << 20, Pageable: 10, Pinned: 11}
	fast := BandwidthResult{Backend: "cuda", Device: "X", Bytes: 256 << 20, Pageable: 10, Pinned: 25}
	if !strings.Contains(slow.String(), "leave it off") || !strings.Contains(fast.String(), "2.5x faster") {
		t.Errorf("advice: %q / %q", slow, fast)
	}
}

func BenchmarkUploadCPU(b *testing.B) {
	be := NewCPU()
	const n = 16 << 20
	dst, _ := be.Alloc("dst", n)
	src, _ := be.HostAlloc(n, false)
	b.SetBytes(n)
	for b.Loop() {
		if err := be.Upload(dst, 0, src.Bytes); err != nil {
			b.Fatal(err)
		}
	}
}
