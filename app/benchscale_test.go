package main

import (
	"os"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// BenchmarkDezingKernelOnScan measures the CPU median kernel alone on 32
// projections from the middle of the NeXus scan that VOXLAB_BENCH_SCAN
// names (scripts/bench-scale/dezing.sh sets it), read into memory first:
// the figure the whole command is held against, on the same data.
// Without the variable there is nothing to measure and it is skipped.
func BenchmarkDezingKernelOnScan(b *testing.B) {
	path := os.Getenv("VOXLAB_BENCH_SCAN")
	if path == "" {
		b.Skip("VOXLAB_BENCH_SCAN names no scan (scripts/bench-scale/dezing.sh sets it)")
	}
	kernel := 3
	if strings.HasSuffix(os.Getenv("VOXLAB_BENCH_KERNEL"), "5") {
		kernel = 5
	}
	nx, err := h5.OpenNeXus(path)
	if err != nil {
		b.Fatal(err)
	}
	defer nx.Close()
	info := nx.Projections.Info
	n := min(32, info.Shape[0])
	z0 := (info.Shape[0] - n) / 2
	be := gpu.NewCPU()
	ops, err := dezing.OpsFor(be)
	if err != nil {
		b.Fatal(err)
	}
	p := dezing.MedianParams{Float32: info.DType == volume.Float32, Planes: n, Rows: info.Shape[1], Cols: info.Shape[2],
		N: n, Kernel: kernel, Dif: 1000}
	in, _ := be.Alloc("in", p.SrcBytes())
	if err := nx.Projections.ReadSlab(z0, z0+n, in.HostBytes()); err != nil {
		b.Fatal(err)
	}
	out, _ := be.Alloc("out", p.DstBytes())
	scr, _ := be.Alloc("scratch", ops.MedianScratch(p))
	b.SetBytes(p.SrcBytes())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ops.Median(out, in, scr, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(info.PlaneLen())*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvox/s")
}
