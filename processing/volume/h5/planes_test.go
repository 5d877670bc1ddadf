package h5

import (
	"math/rand"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestPlaneSet compares planeSet with a bitmap over random writes.
func TestPlaneSet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		n := 1 + r.Intn(60)
		var s planeSet
		bits := make([]bool, n)
		for k := 0; k < r.Intn(12); k++ {
			z0 := r.Intn(n)
			z1 := z0 + r.Intn(n-z0+1)
			s.add(z0, z1)
			for z := z0; z < z1; z++ {
				bits[z] = true
			}
			want := n
			for z, ok := range bits {
				if !ok {
					want = z
					break
				}
			}
			if got := s.firstMissing(n); got != want {
				t.Fatalf("round %d: first missing %d, want %d (runs %v)", round, got, want, s.runs)
			}
			for i := 1; i < len(s.runs); i++ {
				if s.runs[i][0] <= s.runs[i-1][1] {
					t.Fatalf("runs %v overlap or touch", s.runs)
				}
			}
			covered := 0
			for _, run := range s.runs {
				covered += run[1] - run[0]
			}
			set := 0
			for _, ok := range bits {
				if ok {
					set++
				}
			}
			if covered != set {
				t.Fatalf("runs %v cover %d planes, bitmap %d", s.runs, covered, set)
			}
		}
	}
}

// TestWriterHugeFrameCount creates a dataset declaring 10^12 planes (as
// a pipeline does for a small input file declaring them): the writer's
// bookkeeping used to be one bool per plane, a 1 TiB allocation that
// ended the process. It now costs what is written, and Commit still
// refuses the planes never written.
func TestWriterHugeFrameCount(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.h5")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, err := f.CreateDataset("/data", volume.Uint16, []int{1e12, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	for z := 0; z < 3; z++ {
		if err := w.WriteSlab(z, make([]byte, 32)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("creating and writing 3 planes allocated %d bytes", d)
	}
	err = f.Commit()
	if err == nil || !strings.Contains(err.Error(), "plane 3 of 1000000000000 was never written") {
		t.Fatalf("commit: %v", err)
	}
}

// TestNeXusHugeFrameCount opens a small NeXus file declaring 10^12
// frames and image keys (no chunk written): an error saying so, where
// reading the keys used to allocate terabytes.
func TestNeXusHugeFrameCount(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.nxs")
	err := craftFile(p,
		rawSet{name: TomoData, dtype: volume.Uint16, shape: []int{1e12, 4, 4}, chunk: []int{1, 4, 4}},
		rawSet{name: TomoImageKey, dtype: volume.Int32, shape: []int{1e12}, chunk: []int{1 << 16}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenNeXus(p)
	if err == nil || !strings.Contains(err.Error(), "1000000000000 frames, more than the 268435456") {
		t.Fatalf("open: %v", err)
	}
}
