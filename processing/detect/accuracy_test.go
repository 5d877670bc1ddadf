package detect

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
)

// match pairs found candidates with true centres one to one, nearest first,
// within tol voxels, and returns the number of pairs.
func match(found []Candidate, truth [][3]int, tol float64) int {
	used := make([]bool, len(found))
	n := 0
	for _, t := range truth {
		best, bd := -1, tol*tol
		for i, c := range found {
			if used[i] || abs(c.Z-t[0]) > int(tol) || abs(c.Y-t[1]) > int(tol) || abs(c.X-t[2]) > int(tol) {
				continue
			}
			d := sq(float64(c.Z-t[0])) + sq(float64(c.Y-t[1])) + sq(float64(c.X-t[2]))
			if d <= bd {
				best, bd = i, d
			}
		}
		if best >= 0 {
			used[best] = true
			n++
		}
	}
	return n
}

func abs(a int) int { return max(a, -a) }

// TestDemoBrainRecallPrecision: with default parameters the demo brain's
// somata are found with recall and precision of at least 95% within 3
// voxels.
func TestDemoBrainRecallPrecision(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		b := lightsheet.New(lightsheet.SmallShape, seed)
		res := detectAll(t, gpu.NewCPU(), DefaultConfig(), b.Volume())
		truth := b.Cells()
		m := match(res.Candidates, truth, 3)
		exact := match(res.Candidates, truth, 0)
		recall, precision := float64(m)/float64(len(truth)), float64(m)/float64(len(res.Candidates))
		t.Logf("seed %d: %d somata, %d candidates, %d matched within 3 voxels (%d exactly): recall %.3f precision %.3f",
			seed, len(truth), len(res.Candidates), m, exact, recall, precision)
		if recall < 0.95 || precision < 0.95 {
			t.Errorf("seed %d: recall %.3f, precision %.3f: want both ≥ 0.95", seed, recall, precision)
		}
	}
}
