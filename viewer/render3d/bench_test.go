package render3d

import (
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user and system CPU time: on a shared
// machine a benchmark's CPU time per frame says what the work costs
// when its wall time says how busy the others were.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports its CPU milliseconds per frame.
func loop(b *testing.B, f func()) {
	t0 := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-t0)/float64(b.N)/1e6, "cpu-ms/op")
}

// bench512 is a 512³ uint16 grid (256 MiB) of structured noise, made
// once.
var bench512 *Grid

func grid512(b *testing.B) *Grid {
	if bench512 == nil {
		const n = 512
		data := make([]uint16, n*n*n)
		s := uint32(1)
		for i := range data {
			s = s*1664525 + 1013904223
			data[i] = uint16(s >> 20)
		}
		bench512 = NewGridU16([3]int{n, n, n}, data)
	}
	return bench512
}

// downsample4 is the 128³ grid the viewer's interactive frames of a
// 512³ volume come from (a 4 MiB budget).
func downsample4(g *Grid) *Grid {
	n := g.Shape[0] / 4
	d := make([]uint16, n*n*n)
	for z := range n {
		for y := range n {
			for x := range n {
				d[(z*n+y)*n+x] = g.U16[((4*z)*512+4*y)*512+4*x]
			}
		}
	}
	c := NewGridU16([3]int{n, n, n}, d)
	c.Spacing, c.Factor, c.Full = [3]float64{4, 4, 4}, 4, g.Shape
	return c
}

// BenchmarkMIP512Axis: a full-resolution MIP frame (800 x 800) of a
// 512³ uint16 volume seen along z, the projection made afresh each time.
func BenchmarkMIP512Axis(b *testing.B) {
	g := grid512(b)
	v := NewView(800, 800, DefaultCamera(), g.Extent())
	var f Frame
	loop(b, func() {
		g.proj = nil
		if err := Render(&f, g, v, Params{Mode: MIP}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkMIP512Rotated: the same at azimuth 30, elevation 20, by
// shear-warp (its intermediate image made afresh each time) and by the
// ray caster.
func BenchmarkMIP512Rotated(b *testing.B) {
	b.Run("shear", func(b *testing.B) { rotated(b, Render) })
	b.Run("rays", func(b *testing.B) { rotated(b, RenderRays) })
}

func rotated(b *testing.B, render func(*Frame, *Grid, View, Params) error) {
	g := grid512(b)
	v := NewView(800, 800, Angles(30, 20), g.Extent())
	var f Frame
	loop(b, func() {
		g.sheared = nil
		if err := render(&f, g, v, Params{Mode: MIP}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkInteractive: an interactive MIP frame of the 512³ volume at
// 800 x 800: its 128³ copy rendered at one pixel per voxel (Coarse)
// and scaled up.
func BenchmarkInteractive(b *testing.B) {
	for _, m := range []Mode{MIP, Iso} {
		b.Run(m.String(), func(b *testing.B) {
			c := downsample4(grid512(b))
			v := NewView(800, 800, Angles(30, 20), grid512(b).Extent())
			w, h := Coarse(c, v)
			sv := v.Scaled(w, h)
			var small, f Frame
			f.Resize(800, 800)
			loop(b, func() {
				c.sheared = nil // each interactive frame is a new angle
				if err := Render(&small, c, sv, Params{Mode: m, Threshold: 3000}); err != nil {
					b.Fatal(err)
				}
				Upscale(&f, &small)
			})
			b.ReportMetric(float64(w), "px-wide")
		})
	}
}

// BenchmarkFull512: still frames at full resolution by the ray caster
// (800 x 800, azimuth 30, elevation 20): attenuated MIP, and iso at a
// threshold that 2% of the noise exceeds (rays march far before a hit).
func BenchmarkFull512(b *testing.B) {
	for _, m := range []Mode{Attenuated, Iso} {
		b.Run(m.String(), func(b *testing.B) {
			g := grid512(b)
			v := NewView(800, 800, Angles(30, 20), g.Extent())
			var f Frame
			loop(b, func() {
				if err := Render(&f, g, v, Params{Mode: m, Lo: 0, Hi: 4095, Attenuation: 0.05, Threshold: 4014}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkIsoSparse: a still iso frame (800 x 800, rays) of a 256³
// volume that is empty but for a ball of radius 60, with and without
// skipping empty bricks.
func BenchmarkIsoSparse(b *testing.B) {
	const n = 256
	data := make([]uint16, n*n*n)
	for z := range n {
		for y := range n {
			for x := range n {
				if dz, dy, dx := z-90, y-128, x-150; dz*dz+dy*dy+dx*dx < 60*60 {
					data[(z*n+y)*n+x] = 1000
				}
			}
		}
	}
	for _, skip := range []bool{true, false} {
		b.Run(fmt.Sprint("skip=", skip), func(b *testing.B) {
			g := NewGridU16([3]int{n, n, n}, data)
			if !skip {
				g.bricks = make([]float32, len(g.brickMax()))
				for i := range g.bricks {
					g.bricks[i] = float32(math.Inf(1))
				}
			}
			v := NewView(800, 800, Angles(30, 20), g.Extent())
			var f Frame
			loop(b, func() {
				if err := Render(&f, g, v, Params{Mode: Iso, Threshold: 500}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
