package detect

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// cyclic is a Source of n planes that repeats a few rendered ones, so a
// benchmark of a 2048 x 2048 x 100 volume holds 16 planes in memory.
type cyclic struct {
	info   volume.Info
	planes [][]byte
}

func (c *cyclic) Info() volume.Info { return c.info }
func (c *cyclic) Close() error      { return nil }
func (c *cyclic) ReadSlab(z0, z1 int, dst []byte) error {
	pb := int(c.info.PlaneBytes())
	for z := z0; z < z1; z++ {
		copy(dst[(z-z0)*pb:], c.planes[z%len(c.planes)])
	}
	return nil
}

func benchVolume(b *testing.B, planes, keep int) *volume.Volume {
	b.Helper()
	br := lightsheet.New([3]int{keep, 2048, 2048}, 1)
	info := br.Info()
	c := &cyclic{info: info}
	c.info.Shape[0] = planes
	for z := 0; z < keep; z++ {
		p := make([]byte, info.PlaneBytes())
		if err := br.ReadSlab(z, z+1, p); err != nil {
			b.Fatal(err)
		}
		c.planes = append(c.planes, p)
	}
	return volume.New("benchmark brain", c)
}

// BenchmarkPlane2048 times the 2D stage (clip, tiles, median, Gaussian,
// Laplacian, threshold) on one 2048 x 2048 uint16 light-sheet plane.
func BenchmarkPlane2048(b *testing.B) {
	v := benchVolume(b, 1, 1)
	cfg := DefaultConfig()
	p, err := cfg.Params(volume.Info{Shape: [3]int{3, 2048, 2048}, DType: volume.Uint16})
	if err != nil {
		b.Fatal(err)
	}
	pp := p.PlaneParams()
	be := gpu.NewCPU()
	ops := cpuOps{be}
	src, _ := be.Alloc("src", v.PlaneBytes())
	v.ReadSlab(0, 1, src.HostBytes())
	work, _ := be.Alloc("work", WorkLayout(&pp).Size)
	prepareWork(be, work, &pp)
	mask, _ := be.Alloc("mask", 2048*2048)
	ty, tx := pp.BrainTiles()
	tiles, _ := be.Alloc("tiles", int64(ty*tx))
	b.SetBytes(v.PlaneBytes())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ops.Plane(src, 0, work, mask, 0, tiles, 0, &pp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "planes/s")
}

// BenchmarkPipeline2048x100 runs the whole pipeline on a 2048 x 2048 x
// 100 demo-brain volume on the CPU backend.
func BenchmarkPipeline2048x100(b *testing.B) {
	v := benchVolume(b, 100, 16)
	be := gpu.NewCPU()
	b.ResetTimer()
	var res *Result
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = Run(context.Background(), nil, be, DefaultConfig(), v, plan.Budget{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "planes/s")
	b.ReportMetric(float64(len(res.Candidates)), "cells")
}

// BenchmarkBall2048 times the ball filter of one middle plane.
func BenchmarkBall2048(b *testing.B) {
	v := benchVolume(b, 3, 3)
	cfg := DefaultConfig()
	p, _ := cfg.Params(v.Info)
	pp := p.PlaneParams()
	be := gpu.NewCPU()
	ops := cpuOps{be}
	k := BallKernel(p.Ball.XY, p.Ball.Z)
	hw := int64(2048 * 2048)
	ty, tx := pp.BrainTiles()
	src, _ := be.Alloc("src", v.PlaneBytes())
	work, _ := be.Alloc("work", WorkLayout(&pp).Size)
	prepareWork(be, work, &pp)
	masks, _ := be.Alloc("masks", 3*hw)
	tiles, _ := be.Alloc("tiles", int64(3*ty*tx))
	for z := 0; z < 3; z++ {
		v.ReadSlab(z, z+1, src.HostBytes())
		ops.Plane(src, 0, work, masks, int64(z)*hw, tiles, int64(z*ty*tx), &pp)
	}
	w, _ := be.Alloc("w", int64(4*len(k.W)))
	copy(w.HostBytes(), int32Bytes(k.W))
	out, _ := be.Alloc("out", hw)
	bp := ballParams(p.Ball, k, 2048, 2048, 3)
	bp.Count, bp.UseTiles, bp.TileSize, bp.TilesY, bp.TilesX = 1, true, p.BrainTile, ty, tx
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ops.Ball(out, masks, tiles, w, &bp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "planes/s")
}

// BenchmarkTIFFPlanes2048x100 runs what `voxlab detect DIR OUT.csv` runs
// on a folder of 100 TIFF planes of 2048 x 2048 uint16 (16 demo-brain
// planes repeated) on the CPU backend: open the folder, detect, write the
// CSV. The planes are read from the page cache, as in a second run.
func BenchmarkTIFFPlanes2048x100(b *testing.B) {
	src := benchVolume(b, 100, 16)
	dir := filepath.Join(b.TempDir(), "planes")
	w, err := volume.CreatePlaneDir(dir, src.Info)
	if err != nil {
		b.Fatal(err)
	}
	plane := make([]byte, src.PlaneBytes())
	for z := 0; z < src.Shape[0]; z++ {
		if err := src.ReadSlab(z, z+1, plane); err != nil {
			b.Fatal(err)
		}
		if err := w.WriteSlab(z, plane); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	be := gpu.NewCPU()
	b.ResetTimer()
	var res *Result
	for i := 0; i < b.N; i++ {
		v, err := volume.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if res, err = Run(context.Background(), nil, be, DefaultConfig(), v, plan.Budget{Shared: true}); err != nil {
			b.Fatal(err)
		}
		if err := WriteCSV(io.Discard, res.Candidates); err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
	b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "planes/s")
	b.ReportMetric(float64(len(res.Candidates)), "cells")
}
