package quickselect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNth compares every rank of random slices (with many repeats, and
// sorted, reversed and constant ones) with the sorted slice.
func TestNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cases [][]uint16
	for _, n := range []int{1, 2, 3, 7, 27, 125, 1000} {
		r := make([]uint16, n)
		few := make([]uint16, n)
		for i := range r {
			r[i] = uint16(rng.IntN(65536))
			few[i] = uint16(rng.IntN(4))
		}
		sorted := slices.Sorted(slices.Values(r))
		rev := slices.Clone(sorted)
		slices.Reverse(rev)
		cases = append(cases, r, few, sorted, rev, make([]uint16, n))
	}
	for _, c := range cases {
		want := slices.Sorted(slices.Values(c))
		for k := range c {
			if got := Nth(slices.Clone(c), k); got != want[k] {
				t.Fatalf("Nth(%v, %d) = %d, want %d", c, k, got, want[k])
			}
		}
	}
	f := []float32{2.5, -1, 0, 7, -1}
	if got := Nth(f, 2); got != 0 {
		t.Errorf("float32 median %v, want 0", got)
	}
}

func ExampleNth() {
	v := []float32{5, 1, 4, 2, 3}
	fmt.Println(Nth(v, len(v)/2))
	// Output: 3
}
