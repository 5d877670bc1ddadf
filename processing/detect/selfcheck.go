package detect

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
)

// The self-check of detection's ops (gpu.RegisterSelfCheck): before a
// run trusts a backend other than the CPU, Plane (on a fixed 24 x 40
// uint16 plane, with the tiled threshold) and Ball (on a fixed ring of
// masks) run once and must give the CPU ops' bits, the tolerance of the
// CUDA parity tests (cuda_ops_test.go).

func init() { gpu.RegisterSelfCheck("detect", selfCheck) }

const checkH, checkW = 24, 40

// selfCheck compares be's detection ops (opsFor: the ops a run would
// get) with the CPU's.
func selfCheck(be gpu.Backend) error {
	ops, err := opsFor(be)
	if err != nil {
		return err
	}
	cpu := gpu.NewCPU()
	defer cpu.Close()
	ref := cpuOps{cpu}
	for _, c := range []struct {
		op  string
		run func(*gpu.CheckBuffers, gpu.Backend, Ops) [][]byte
	}{{"plane", selfCheckPlane}, {"ball", selfCheckBall}} {
		got, err := runSelfCheckOp(be, ops, c.run)
		if err != nil {
			return fmt.Errorf("%s: %w", c.op, err)
		}
		want, err := runSelfCheckOp(cpu, ref, c.run)
		if err != nil {
			return fmt.Errorf("%s on the CPU: %w", c.op, err)
		}
		for i, part := range selfCheckParts[c.op] {
			if err := gpu.CompareBits(c.op+" "+part, got[i], want[i], 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// selfCheckParts name the outputs each check compares.
var selfCheckParts = map[string][]string{
	"plane": {"median", "negated Laplacian", "statistics", "local thresholds", "mask", "in-brain tiles"},
	"ball":  {"centres"},
}

func runSelfCheckOp(be gpu.Backend, ops Ops, run func(*gpu.CheckBuffers, gpu.Backend, Ops) [][]byte) (out [][]byte, err error) {
	bufs := gpu.NewCheckBuffers(be)
	defer bufs.Free()
	err = gpu.Guard(func() error {
		out = run(bufs, be, ops)
		return bufs.Err()
	})
	return out, err
}

// selfCheckPlaneInput is a plane of tissue (a bright disc), two blobs and a
// fixed pseudo-random noise, as uint16 little-endian.
func selfCheckPlaneInput() []byte {
	out := make([]byte, 2*checkH*checkW)
	for y := 0; y < checkH; y++ {
		for x := 0; x < checkW; x++ {
			d := math.Hypot(float64(y)-checkH/2, float64(x)-checkW/2) - 10
			v := 100 + 300/(1+math.Exp(d/3))
			for _, b := range [][2]float64{{8, 14}, {15, 27}} {
				dy, dx := float64(y)-b[0], float64(x)-b[1]
				v += 1500 * math.Exp(-(dy*dy+dx*dx)/4)
			}
			v += float64((uint32(y*checkW+x)*2654435761)>>27) - 16
			u := uint16(v)
			out[2*(y*checkW+x)], out[2*(y*checkW+x)+1] = byte(u), byte(u>>8)
		}
	}
	return out
}

func selfCheckPlane(b *gpu.CheckBuffers, be gpu.Backend, ops Ops) [][]byte {
	p := PlaneParams{H: checkH, W: checkW, ElemBytes: 2, Clip: 65533, Sigma: 1.6, Radius: 6, NSD: 1,
		LocalTile: 8, LocalNSD: 1, BrainTile: 8}
	lay := WorkLayout(&p)
	ty, tx := p.BrainTiles()
	src := b.Upload("plane", selfCheckPlaneInput())
	work, mask, tiles := b.Zero("work", lay.Size), b.Zero("mask", checkH*checkW), b.Zero("tiles", int64(ty*tx))
	if b.Err() == nil {
		b.Fail(prepareWork(be, work, &p))
	}
	if b.Err() == nil {
		b.Fail(ops.Plane(src, 0, work, mask, 0, tiles, 0, &p))
	}
	w := b.Download(work)
	m, tl := b.Download(mask), b.Download(tiles)
	if b.Err() != nil {
		return nil
	}
	plane := int64(checkH * checkW * 4)
	return [][]byte{w[lay.A : lay.A+plane], w[lay.E : lay.E+plane], w[lay.Stats : lay.Stats+6*8], w[lay.LocalThr:lay.Size], m, tl}
}

func selfCheckBall(b *gpu.CheckBuffers, _ gpu.Backend, ops Ops) [][]byte {
	const k, kz, ring = 3, 3, 5
	p := BallParams{H: checkH, W: checkW, KZ: kz, KY: k, KX: k, Ring: ring, First: 3, Count: 3, MidZ: kz / 2, OffY: 1, OffX: 1,
		UseTiles: true, TileSize: 8, TilesY: 3, TilesX: 5}
	masks := make([]byte, ring*checkH*checkW)
	for i := range masks {
		masks[i] = byte((uint32(i)*2654435761)>>31) & 1
	}
	tiles := make([]byte, ring*p.TilesY*p.TilesX)
	for i := range tiles {
		tiles[i] = byte(i%4) & 1
	}
	weights := make([]byte, 4*kz*k*k)
	var total int64
	for i := 0; i < len(weights); i += 4 {
		weights[i] = byte(10 + 7*i%90)
		total += int64(weights[i])
	}
	p.Threshold = total / 2
	dst := b.Zero("centres", int64(p.Count*checkH*checkW))
	m, tl, wt := b.Upload("masks", masks), b.Upload("tiles", tiles), b.Upload("weights", weights)
	if b.Err() == nil {
		b.Fail(ops.Ball(dst, m, tl, wt, &p))
	}
	out := b.Download(dst)
	if b.Err() != nil {
		return nil
	}
	return [][]byte{out}
}
