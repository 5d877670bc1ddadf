//go:build cuda

package detect

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// detectPlaneInput is a light-sheet-like plane: a bright disc of tissue,
// bright blobs and noise, as uint8 or uint16.
func detectPlaneInput(rng *rand.Rand, h, w, eb int) []byte {
	out := make([]byte, h*w*eb)
	type blob struct{ y, x, r, a float64 }
	var blobs []blob
	for i := 0; i < h*w/400+1; i++ {
		blobs = append(blobs, blob{rng.Float64() * float64(h), rng.Float64() * float64(w), 2 + 3*rng.Float64(), 500 + 2000*rng.Float64()})
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := math.Hypot(float64(y)-float64(h)/2, float64(x)-float64(w)/2) - 0.4*float64(min(h, w))
			v := 100 + 300/(1+math.Exp(d/5))
			for _, b := range blobs {
				if dy, dx := float64(y)-b.y, float64(x)-b.x; dy*dy+dx*dx < 36*b.r*b.r {
					v += b.a * math.Exp(-(dy*dy+dx*dx)/(2*b.r*b.r))
				}
			}
			v += rng.NormFloat64() * 15
			if eb == 1 {
				out[y*w+x] = byte(min(max(v/12, 0), 255))
			} else {
				u := uint16(min(max(v, 0), 65535))
				out[2*(y*w+x)], out[2*(y*w+x)+1] = byte(u), byte(u>>8)
			}
		}
	}
	return out
}

// TestCUDADetectPlaneParity: the detect_* kernels give the CPU kernels'
// bits: median, negated Laplacian, row sums, statistics, local tile
// thresholds, mask and in-brain tiles, for uint8 and uint16, odd sizes,
// with and without the tiled threshold.
func TestCUDADetectPlaneParity(t *testing.T) {
	c := openCUDA(t)
	defer c.Close()
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		h, w, eb, tile int
		nsd            float64
	}{
		{53, 77, 2, 0, 3}, {70, 90, 1, 8, 2}, {256, 300, 2, 12, 4}, {1000, 1024, 2, 0, 10}, {9, 40, 2, 0, 1},
	} {
		t.Run(fmt.Sprintf("%dx%d u%d tile%d", tc.h, tc.w, 8*tc.eb, tc.tile), func(t *testing.T) {
			p := PlaneParams{H: tc.h, W: tc.w, ElemBytes: tc.eb, Clip: 65533, Sigma: 1.6, Radius: 6, NSD: tc.nsd,
				LocalTile: tc.tile, LocalNSD: 1, BrainTile: 16}
			if tc.eb == 1 {
				p.Clip = 253
			}
			raw := detectPlaneInput(rng, tc.h, tc.w, tc.eb)
			run := func(be gpu.Backend) (work, mask, tiles []byte) {
				lay := WorkLayout(&p)
				ty, tx := p.BrainTiles()
				// The plane sits at an offset, as in a batch.
				src := mustAlloc(t, be, int64(len(raw))*2)
				wk, mk, tl := mustAlloc(t, be, lay.Size), mustAlloc(t, be, int64(3*tc.h*tc.w)), mustAlloc(t, be, int64(2*ty*tx))
				if err := be.Upload(src, int64(len(raw)), raw); err != nil {
					t.Fatal(err)
				}
				if err := prepareWork(be, wk, &p); err != nil {
					t.Fatal(err)
				}
				if err := mustOps(t, be).Plane(src, int64(len(raw)), wk, mk, int64(tc.h*tc.w), tl, int64(ty*tx), &p); err != nil {
					t.Fatal(err)
				}
				if err := be.Sync(); err != nil {
					t.Fatal(err)
				}
				work, mask, tiles = make([]byte, lay.Size), make([]byte, 3*tc.h*tc.w), make([]byte, 2*ty*tx)
				for _, d := range []struct {
					dst []byte
					b   *gpu.Buffer
				}{{work, wk}, {mask, mk}, {tiles, tl}} {
					if err := be.Download(d.dst, d.b, 0); err != nil {
						t.Fatal(err)
					}
				}
				for _, b := range []*gpu.Buffer{src, wk, mk, tl} {
					be.Free(b)
				}
				return work, mask, tiles
			}
			wc, mc, tc2 := run(cpu)
			wg, mg, tg := run(c)
			lay := WorkLayout(&p)
			plane := int64(tc.h * tc.w * 4)
			for _, r := range []struct {
				name   string
				lo, hi int64
			}{
				{"median", lay.A, lay.A + plane}, {"negated Laplacian", lay.E, lay.E + plane},
				{"statistics", lay.Stats, lay.Stats + 6*8}, {"local thresholds", lay.LocalThr, lay.Size},
			} {
				if !bytes.Equal(wc[r.lo:r.hi], wg[r.lo:r.hi]) {
					t.Errorf("%s differs between CPU and CUDA", r.name)
				}
			}
			for y := 0; y < tc.h; y++ {
				e := lay.Rows + int64(y*rowBytes)
				if !bytes.Equal(wc[e+8:e+24], wg[e+8:e+24]) {
					t.Fatalf("row %d sums differ", y)
				}
			}
			if !bytes.Equal(mc, mg) {
				t.Error("masks differ")
			}
			if !bytes.Equal(tc2, tg) {
				t.Error("in-brain tiles differ")
			}
			if bytes.Count(mc, []byte{1}) == 0 {
				t.Error("empty mask: the case tests little")
			}
		})
	}
}

func mustAlloc(t *testing.T, be gpu.Backend, n int64) *gpu.Buffer {
	t.Helper()
	b, err := be.Alloc("test", n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustOps(t *testing.T, be gpu.Backend) Ops {
	t.Helper()
	ops, err := opsFor(be)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestCUDADetectBallParity: detect_ball gives the CPU's centres, with and
// without tiles, rings that wrap, several kernels.
func TestCUDADetectBallParity(t *testing.T) {
	c := openCUDA(t)
	defer c.Close()
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tc := range []struct {
		h, w, k, kz, ring, first, count int
		// frac sets the threshold as a fraction of the kernel's total
		// weight, so that with half the mask set some voxels pass and
		// some do not, whatever the kernel's size. (A 9x9 kernel on a
		// 9x9 plane has one valid centre: its threshold is low so that
		// it passes.)
		frac  float64
		tiles bool
	}{
		{40, 50, 3, 3, 6, 4, 4, 0.45, true}, {129, 70, 5, 2, 3, 1, 2, 0.5, false}, {300, 520, 3, 3, 11, 7, 9, 0.55, true}, {9, 9, 9, 1, 1, 0, 1, 0.3, false},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			p := BallParams{H: tc.h, W: tc.w, KZ: tc.kz, KY: tc.k, KX: tc.k, Ring: tc.ring, First: tc.first,
				Count: tc.count, MidZ: tc.kz / 2, OffY: (tc.k - 1) / 2, OffX: (tc.k - 1) / 2}
			if tc.tiles {
				p.UseTiles, p.TileSize, p.TilesY, p.TilesX = true, 16, (tc.h+15)/16, (tc.w+15)/16
			}
			masks := make([]byte, tc.ring*tc.h*tc.w)
			for i := range masks {
				masks[i] = byte(rng.IntN(2))
			}
			tiles := make([]byte, tc.ring*max(p.TilesY*p.TilesX, 1))
			for i := range tiles {
				tiles[i] = byte(rng.IntN(4) & 1)
			}
			w := make([]byte, 4*tc.kz*tc.k*tc.k)
			var total int64
			for i := 0; i < len(w); i += 4 {
				w[i] = byte(rng.IntN(250))
				total += int64(w[i])
			}
			p.Threshold = int64(tc.frac * float64(total))
			run := func(be gpu.Backend) []byte {
				up := func(b []byte) *gpu.Buffer {
					buf := mustAlloc(t, be, int64(len(b)))
					if err := be.Upload(buf, 0, b); err != nil {
						t.Fatal(err)
					}
					return buf
				}
				o, m, tl, wt := mustAlloc(t, be, int64(tc.count*tc.h*tc.w)), up(masks), up(tiles), up(w)
				if err := mustOps(t, be).Ball(o, m, tl, wt, &p); err != nil {
					t.Fatal(err)
				}
				out := make([]byte, tc.count*tc.h*tc.w)
				if err := be.Download(out, o, 0); err != nil {
					t.Fatal(err)
				}
				for _, b := range []*gpu.Buffer{o, m, tl, wt} {
					be.Free(b)
				}
				return out
			}
			a, b := run(cpu), run(c)
			if !bytes.Equal(a, b) {
				t.Error("centres differ between CPU and CUDA")
			}
			if n := bytes.Count(a, []byte{1}); n == 0 || n == len(a) {
				t.Errorf("%d of %d centres: the case tests little", n, len(a))
			}
		})
	}
}
