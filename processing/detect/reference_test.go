package detect

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// naiveBall is the ball filter written straight from its definition: for
// each voxel of each middle plane whose kernel fits in the plane, the sum
// of the weights over the thresholded voxels of the window.
func naiveBall(masks, tiles []byte, w []int32, p *BallParams) []byte {
	plane := p.H * p.W
	out := make([]byte, p.Count*plane)
	for i := 0; i < p.Count; i++ {
		for yc := p.OffY; yc+p.KY-1-p.OffY < p.H; yc++ {
			for xc := p.OffX; xc+p.KX-1-p.OffX < p.W; xc++ {
				var s int64
				for dz := 0; dz < p.KZ; dz++ {
					slot := (p.First + i + dz) % p.Ring
					for dy := 0; dy < p.KY; dy++ {
						for dx := 0; dx < p.KX; dx++ {
							if masks[slot*plane+(yc-p.OffY+dy)*p.W+xc-p.OffX+dx] != 0 {
								s += int64(w[(dz*p.KY+dy)*p.KX+dx])
							}
						}
					}
				}
				in := true
				if p.UseTiles {
					mid := (p.First + i + p.MidZ) % p.Ring
					in = tiles[mid*p.TilesY*p.TilesX+(yc/p.TileSize)*p.TilesX+xc/p.TileSize] != 0
				}
				if s > p.Threshold && in {
					out[i*plane+yc*p.W+xc] = 1
				}
			}
		}
	}
	return out
}

func TestBallFilterNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		h, w, xy, z, ring, first, count int
		density, overlap                float64
		tiles                           bool
	}{
		{40, 50, 3, 3, 6, 0, 4, 0.3, 0.6, true},
		{40, 50, 3, 3, 6, 4, 4, 0.5, 0.6, true}, // wraps round the ring
		{33, 47, 4, 5, 9, 2, 5, 0.5, 0.4, false},
		{20, 21, 5, 2, 3, 1, 2, 0.6, 0.5, true},
		{9, 9, 9, 1, 1, 0, 1, 0.7, 0.5, false}, // kernel as large as the plane
	} {
		t.Run(fmt.Sprintf("%dx%d k%d,%d ring%d", tc.h, tc.w, tc.xy, tc.z, tc.ring), func(t *testing.T) {
			k := BallKernel(tc.xy, tc.z)
			p := ballParams(Ball{XY: tc.xy, Z: tc.z, Overlap: tc.overlap}, k, tc.h, tc.w, tc.ring)
			p.First, p.Count = tc.first, tc.count
			if tc.tiles {
				p.UseTiles, p.TileSize, p.TilesY, p.TilesX = true, 8, (tc.h+7)/8, (tc.w+7)/8
			}
			plane := tc.h * tc.w
			masks := make([]byte, tc.ring*plane)
			for i := range masks {
				if rng.Float64() < tc.density {
					masks[i] = 1
				}
			}
			tiles := make([]byte, tc.ring*max(p.TilesY*p.TilesX, 1))
			for i := range tiles {
				tiles[i] = byte(rng.IntN(4) & 1)
			}
			be := gpu.NewCPUWorkers(3)
			up := func(b []byte) *gpu.Buffer {
				buf, _ := be.Alloc("t", int64(len(b)))
				copy(buf.HostBytes(), b)
				return buf
			}
			out := up(make([]byte, tc.count*plane))
			if err := (cpuOps{be}).Ball(out, up(masks), up(tiles), up(int32Bytes(k.W)), &p); err != nil {
				t.Fatal(err)
			}
			want := naiveBall(masks, tiles, k.W, &p)
			got := out.HostBytes()
			n := 0
			for i := range want {
				n += int(want[i])
				if got[i] != want[i] {
					t.Fatalf("voxel %d: %d, naive %d", i, got[i], want[i])
				}
			}
			if n == 0 || n == len(want) {
				t.Errorf("%d of %d centres: the case tests nothing", n, len(want))
			}
		})
	}
}

// TestBallKernel checks the fuzzy kernel against its definition's
// symmetries and known counts.
func TestBallKernel(t *testing.T) {
	k := BallKernel(3, 3)
	// A sphere of radius 10.5 in a 21³ grid centred at 10 holds every
	// integer point with x²+y²+z² ≤ 110.25.
	var n int64
	for x := -10; x <= 10; x++ {
		for y := -10; y <= 10; y++ {
			for z := -10; z <= 10; z++ {
				if x*x+y*y+z*z <= 110 {
					n++
				}
			}
		}
	}
	if k.Total != n {
		t.Errorf("total %d, want %d", k.Total, n)
	}
	if k.W[13] != 343 || k.W[0] != k.W[26] || k.W[0] != k.W[2] || k.W[1] != k.W[3] {
		t.Errorf("kernel not symmetric or centre not full: %v", k.W)
	}
	if th := k.Threshold(0.6); float64(th) > 0.6*float64(k.Total) || float64(th+1) <= 0.6*float64(k.Total) {
		t.Errorf("threshold %d for total %d", th, k.Total)
	}
	// Taller in z than the sphere: the end planes are empty.
	k = BallKernel(3, 5)
	for i := 0; i < 9; i++ {
		if k.W[i] != 0 || k.W[36+i] != 0 {
			t.Fatalf("z=5 kernel end planes not empty: %v", k.W)
		}
	}
}

// naiveComponents labels the 6-connected components of a binary volume by
// flood fill.
func naiveComponents(v []byte, nz, ny, nx int) [][]point {
	seen := make([]bool, len(v))
	var out [][]point
	for i := range v {
		if v[i] == 0 || seen[i] {
			continue
		}
		var comp []point
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			z, y, x := j/(ny*nx), j/nx%ny, j%nx
			comp = append(comp, point{int32(z), int32(y), int32(x)})
			for _, d := range [][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
				a, b, c := z+d[0], y+d[1], x+d[2]
				if a < 0 || b < 0 || c < 0 || a >= nz || b >= ny || c >= nx {
					continue
				}
				k := (a*ny+b)*nx + c
				if v[k] != 0 && !seen[k] {
					seen[k] = true
					stack = append(stack, k)
				}
			}
		}
		out = append(out, comp)
	}
	return out
}

func canon(structs [][]point) []string {
	var s []string
	for _, st := range structs {
		st = slices.Clone(st)
		slices.SortFunc(st, func(a, b point) int {
			return cmp.Or(cmp.Compare(a.z, b.z), cmp.Compare(a.y, b.y), cmp.Compare(a.x, b.x))
		})
		s = append(s, fmt.Sprint(st))
	}
	slices.Sort(s)
	return s
}

func TestStructuresNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, density := range []float64{0.05, 0.2, 0.35, 0.5} {
		nz, ny, nx := 9, 23, 31
		v := make([]byte, nz*ny*nx)
		for i := range v {
			if rng.Float64() < density {
				v[i] = 1
			}
		}
		d := newDetector(ny, nx, nil, "")
		var got [][]point
		handed := 0
		for z := 0; z < nz; z++ {
			done := d.plane(z, v[z*ny*nx:(z+1)*ny*nx])
			for _, s := range done {
				for _, p := range s {
					if int(p.z) >= z {
						t.Fatalf("structure handed out at plane %d has a voxel in plane %d", z, p.z)
					}
				}
			}
			handed += len(done)
			got = append(got, done...)
		}
		got = append(got, d.flush()...)
		want := naiveComponents(v, nz, ny, nx)
		if g, w := canon(got), canon(want); !slices.Equal(g, w) {
			t.Fatalf("density %g: %d structures, flood fill %d", density, len(g), len(w))
		}
		t.Logf("density %g: %d structures (%d handed out before the end)", density, len(want), handed)
	}
}

func TestCentreRoundsHalfToEven(t *testing.T) {
	for _, tc := range []struct {
		pts  []point
		want [3]int
	}{
		{[]point{{0, 0, 0}, {1, 1, 1}}, [3]int{0, 0, 0}},            // 0.5 → 0
		{[]point{{1, 1, 1}, {2, 2, 2}}, [3]int{2, 2, 2}},            // 1.5 → 2
		{[]point{{0, 0, 0}, {0, 0, 1}, {0, 0, 1}}, [3]int{0, 0, 1}}, // 2/3 → 1
	} {
		z, y, x := centre(tc.pts)
		if [3]int{z, y, x} != tc.want {
			t.Errorf("centre(%v) = %d,%d,%d, want %v", tc.pts, z, y, x, tc.want)
		}
	}
}
