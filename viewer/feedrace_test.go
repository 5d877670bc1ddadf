package viewer

import (
	"sync"
	"testing"
)

// TestFeedWhileRemoved: a job goroutine appending points and filling a
// heat map while the UI goroutine removes both layers; run with -race,
// which flagged the feeders' read of the layer's viewer before.
func TestFeedWhileRemoved(t *testing.T) {
	h := newHarness(t)
	pts := h.v.AddPoints("cells", nil)
	hm, err := h.v.AddHeatmap("l2", 4, 4, make([]float64, 16))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			pts.Feed().Append(Point{Z: float64(i % 4), Y: 1, X: 1})
			if err := hm.Feed().SetBlock(i%4, 0, 1, []float64{1, 2, 3, 4}); err != nil {
				t.Error(err)
				return
			}
			if i == 0 {
				close(started)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	<-started
	h.v.RemoveLayer(pts)
	h.v.RemoveLayer(hm)
	close(stop)
	wg.Wait()
	if pts.Len() == 0 {
		t.Error("no point was appended")
	}
}
