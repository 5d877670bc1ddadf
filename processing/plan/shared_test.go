package plan

import (
	"sync"
	"testing"
)

// TestSharedBudget: with a shared budget (the CPU backend) device buffers
// count against the host budget with the host arrays, once; without it
// each kind fits its own budget.
func TestSharedBudget(t *testing.T) {
	ph := Phase{Name: "p", Units: 100, Arrays: []Array{
		{Name: "in", Where: Device, PerUnit: 100},
		{Name: "stage", Where: Host, PerUnit: 100},
	}}
	p, err := Make("x", []Phase{ph}, Budget{Host: 10000, Margin: 1, Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Block() != 50 || p.PeakRAM != 10000 {
		t.Errorf("shared: block %d, RAM %d; want 50 and 10000", p.Block(), p.PeakRAM)
	}
	p, err = Make("x", []Phase{ph}, Budget{Host: 10000, Margin: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Block() != 100 || p.PeakRAM != 10000 {
		t.Errorf("separate: block %d, RAM %d; want 100 and 10000 (the host arrays only)", p.Block(), p.PeakRAM)
	}
	_, err = Make("x", []Phase{ph}, Budget{Host: 150, Margin: 1, Shared: true})
	if ts, ok := err.(*TooSmallError); !ok || ts.Need != 200 || ts.Where != Host || ts.Smallest() != 200 {
		t.Errorf("too small: %v", err)
	}
	ph.MaxBlock = 7
	if p, _ := Make("x", []Phase{ph}, Budget{Host: 10000, Shared: true}); p.Block() != 7 {
		t.Errorf("MaxBlock 7: block %d", p.Block())
	}
}

func TestDefaultHostBudget(t *testing.T) {
	for _, c := range []struct {
		total, avail, want int64
	}{
		{24 << 30, 23 << 30, 12 << 30},
		{24 << 30, 10 << 30, 8 << 30},
		{0, 10 << 30, 8 << 30},
		{0, 0, 0},
	} {
		got, src := DefaultHostBudget(c.total, c.avail)
		if got != c.want || src == "" {
			t.Errorf("DefaultHostBudget(%d, %d) = %d %q, want %d", c.total, c.avail, got, src, c.want)
		}
	}
}

func TestTracker(t *testing.T) {
	tr := NewTracker()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := tr.Bytes("a", 10)
			tr.Free("a", b)
		}()
	}
	wg.Wait()
	big := tr.Bytes("b", 1000)
	if tr.Current() != 1000 || tr.Peak() < 1000 || tr.Peak() > 1080 || tr.PeakBreakdown()["b"] != 1000 {
		t.Errorf("current %d, peak %d, breakdown %v", tr.Current(), tr.Peak(), tr.PeakBreakdown())
	}
	tr.Free("b", big)
	var none *Tracker
	if len(none.Bytes("x", 5)) != 5 || none.Peak() != 0 {
		t.Error("a nil tracker should allocate without counting")
	}
}
