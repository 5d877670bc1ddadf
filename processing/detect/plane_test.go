package detect

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// golden is one case written by testdata/make_golden.py with SciPy.
type golden struct {
	H, W        int
	DType       string  `json:"dtype"`
	SomaPx      int     `json:"soma_px"`
	Sigma       float64 `json:"sigma"`
	Radius      int     `json:"radius"`
	NSD         float64 `json:"nsd"`
	LocalTilePx int     `json:"local_tile_px"`
	LocalNSD    float64 `json:"local_nsd"`
	Clip        int     `json:"clip"`
	Threshold   float64 `json:"threshold"`
	MaskPixels  int     `json:"mask_pixels"`
	name        string
}

func readGolden(t *testing.T, name string) golden {
	t.Helper()
	var g golden
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	g.name = name
	return g
}

func (g golden) file(t *testing.T, ext string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", g.name+ext))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (g golden) f32(t *testing.T, ext string) []float32 {
	b := g.file(t, ext)
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func (g golden) params() PlaneParams {
	eb := 2
	if g.DType == "uint8" {
		eb = 1
	}
	return PlaneParams{H: g.H, W: g.W, ElemBytes: eb, Clip: g.Clip, Sigma: g.Sigma,
		Radius: g.Radius, NSD: g.NSD, LocalTile: g.LocalTilePx, LocalNSD: g.LocalNSD, BrainTile: 2 * g.SomaPx}
}

// runPlane runs the 2D stage of one plane on be and returns the work
// buffer, the mask and the tiles.
func runPlane(t *testing.T, be gpu.Backend, raw []byte, p PlaneParams) (work, mask, tiles []byte) {
	t.Helper()
	ops, err := opsFor(be)
	if err != nil {
		t.Fatal(err)
	}
	lay := WorkLayout(&p)
	ty, tx := p.BrainTiles()
	src, _ := be.Alloc("src", int64(len(raw)))
	wk, _ := be.Alloc("work", lay.Size)
	mk, _ := be.Alloc("mask", int64(p.H*p.W))
	tl, _ := be.Alloc("tiles", int64(ty*tx))
	defer func() { be.Free(src); be.Free(wk); be.Free(mk); be.Free(tl) }()
	if err := be.Upload(src, 0, raw); err != nil {
		t.Fatal(err)
	}
	if err := prepareWork(be, wk, &p); err != nil {
		t.Fatal(err)
	}
	if err := ops.Plane(src, 0, wk, mk, 0, tl, 0, &p); err != nil {
		t.Fatal(err)
	}
	work, mask, tiles = make([]byte, lay.Size), make([]byte, p.H*p.W), make([]byte, ty*tx)
	for _, d := range []struct {
		dst []byte
		b   *gpu.Buffer
	}{{work, wk}, {mask, mk}, {tiles, tl}} {
		if err := be.Download(d.dst, d.b, 0); err != nil {
			t.Fatal(err)
		}
	}
	return work, mask, tiles
}

func f32At(b []byte, off int64, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[off+4*int64(i):]))
	}
	return out
}

var goldenCases = []string{"plane16", "plane8", "tiled16", "odd16"}

// TestPlaneGolden compares the 2D stage with SciPy step by step: the
// median exactly, the negated Laplacian of the Gaussian to float32
// rounding, the rescaled enhanced plane, the mask (pixels within rounding of
// the threshold may differ) and the in-brain tiles exactly.
func TestPlaneGolden(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			g := readGolden(t, name)
			p := g.params()
			work, mask, tiles := runPlane(t, gpu.NewCPU(), g.file(t, ".raw"), p)
			lay := WorkLayout(&p)
			n := g.H * g.W
			med := f32At(work, lay.A, n)
			for i, want := range g.f32(t, ".median.f32") {
				if med[i] != want {
					t.Fatalf("median[%d,%d] = %g, SciPy %g", i/g.W, i%g.W, med[i], want)
				}
			}
			e := f32At(work, lay.E, n)
			wantE := g.f32(t, ".e.f32")
			scale := 0.0
			for _, v := range wantE {
				scale = max(scale, math.Abs(float64(v)))
			}
			worst := 0.0
			for i := range e {
				worst = max(worst, math.Abs(float64(e[i]-wantE[i]))/scale)
			}
			// SciPy accumulates in float64, Ops.Plane in float32 (as cellfinder's
			// torch path): the Laplacian's cancellation magnifies the difference.
			if worst > 5e-5 {
				t.Errorf("negated Laplacian differs from SciPy by %.3g of its range", worst)
			}
			enh := Enhance(make([]float32, n), e, g.Clip)
			wantEnh := g.f32(t, ".enhanced.f32")
			for i := range enh {
				if d := math.Abs(float64(enh[i] - wantEnh[i])); d > 2e-5*float64(g.Clip) {
					t.Fatalf("enhanced[%d] = %g, SciPy %g", i, enh[i], wantEnh[i])
				}
			}
			wantMask := g.file(t, ".mask.u8")
			set, differ := 0, 0
			for i := range mask {
				set += int(mask[i])
				if mask[i] != wantMask[i] {
					differ++
					// Only a pixel within rounding of the threshold may differ.
					if d := math.Abs(float64(wantEnh[i]) - g.Threshold); d > 1e-4*float64(g.Clip) && g.LocalTilePx == 0 {
						t.Errorf("mask[%d,%d] = %d, SciPy %d, %g from the threshold", i/g.W, i%g.W, mask[i], wantMask[i], d)
					}
				}
			}
			if set == 0 || differ > max(1, g.MaskPixels/100) {
				t.Errorf("%d mask pixels (SciPy %d), %d differ", set, g.MaskPixels, differ)
			}
			wantTiles := g.file(t, ".tiles.u8")
			inside := 0
			for i := range tiles {
				inside += int(tiles[i])
				if tiles[i] != wantTiles[i] {
					t.Errorf("tile %d = %d, want %d", i, tiles[i], wantTiles[i])
				}
			}
			if inside == 0 || inside == len(tiles) {
				t.Errorf("%d of %d tiles in the brain: the case does not test the tiles", inside, len(tiles))
			}
			t.Logf("%s: %d mask pixels (SciPy %d, %d differ), E within %.2g, %d/%d tiles in", name, set, g.MaskPixels, differ, worst, inside, len(tiles))
		})
	}
}

// TestUnpreparedWorkBuffer: a work buffer without the Gaussian weights is
// refused, not filtered with zeros.
func TestUnpreparedWorkBuffer(t *testing.T) {
	g := readGolden(t, "plane16")
	p := g.params()
	be := gpu.NewCPU()
	src, _ := be.Alloc("src", int64(2*g.H*g.W))
	wk, _ := be.Alloc("work", WorkLayout(&p).Size)
	mk, _ := be.Alloc("mask", int64(g.H*g.W))
	ty, tx := p.BrainTiles()
	tl, _ := be.Alloc("tiles", int64(ty*tx))
	err := cpuOps{be}.Plane(src, 0, wk, mk, 0, tl, 0, &p)
	if err == nil || !strings.Contains(err.Error(), "prepareWork") {
		t.Errorf("got %v", err)
	}
}
