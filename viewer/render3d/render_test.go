package render3d

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestProjectGolden holds the axis reductions against NumPy's max, min
// and mean along each axis (testdata/gen_golden.py).
func TestProjectGolden(t *testing.T) {
	modes := map[string]Mode{"max": MIP, "min": Min, "mean": Average}
	for _, name := range []string{"vol_u16", "vol_f32"} {
		g := gridOf(t, name+".npy")
		for op, m := range modes {
			for axis := range 3 {
				_, want := readNPY(t, fmt.Sprintf("%s_%s_%d.npy", name, op, axis))
				got := Project(g, axis, Params{Mode: m}, false)
				if len(got) != len(want) {
					t.Fatalf("%s %s axis %d: %d values, want %d", name, op, axis, len(got), len(want))
				}
				for i := range want {
					// max and min are exact; the mean is rounded to float32.
					if !near(float64(got[i]), want[i], 1e-6*math.Max(1, math.Abs(want[i]))) {
						t.Fatalf("%s %s axis %d [%d]: %v, NumPy %v", name, op, axis, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestAxisViewsGolden renders the u16 golden volume (7 x 9 x 11) along
// z, y and x, one pixel per voxel in an 11 x 11 frame, by the fast path
// and by the ray caster, and finds NumPy's reductions on screen, laid
// out as each camera shows them.
func TestAxisViewsGolden(t *testing.T) {
	g := gridOf(t, "vol_u16.npy")
	nz, ny, nx := 7, 9, 11
	cases := []struct {
		name    string
		az, el  float64
		axis    int
		rows    int // the projection's rows and columns on screen
		cols    int
		onPixel func(i, j int) (r, c int) // projection cell of pixel (i, j)
	}{
		// Down z: x right, y down; y's 9 rows centred in 11.
		{"z", 0, 0, 0, ny, nx, func(i, j int) (int, int) { return j - 1, i }},
		// Down y (elevation 90): x right, z up; the projection is (z, x).
		{"y", 0, 90, 1, nz, nx, func(i, j int) (int, int) { return nz - 1 - (j - 2), i }},
		// Down -x (azimuth 90): z right, y down; the projection is (z, y).
		{"x", 90, 0, 2, nz, ny, func(i, j int) (int, int) { return i - 2, j - 1 }},
	}
	for _, c := range cases {
		for op, m := range map[string]Mode{"max": MIP, "min": Min, "mean": Average} {
			_, want := readNPY(t, fmt.Sprintf("vol_u16_%s_%d.npy", op, c.axis))
			v := NewView(11, 11, Angles(c.az, c.el), g.Extent())
			v.Pixel = 1 // one voxel per pixel
			for _, render := range []struct {
				name string
				f    func(*Frame, *Grid, View, Params) error
			}{{"fast", Render}, {"rays", RenderRays}} {
				var f Frame
				if err := render.f(&f, g, v, Params{Mode: m}); err != nil {
					t.Fatal(err)
				}
				projRows, projCols := c.rows, c.cols
				if c.axis == 2 {
					projRows, projCols = nz, ny
				}
				seen := 0
				for j := range 11 {
					for i := range 11 {
						r, col := c.onPixel(i, j)
						got := float64(f.Val[j*11+i])
						if r < 0 || col < 0 || r >= projRows || col >= projCols {
							if !math.IsNaN(got) {
								t.Fatalf("%s %s %s: pixel (%d,%d) outside the volume shows %v", c.name, op, render.name, i, j, got)
							}
							continue
						}
						seen++
						w := want[r*projCols+col]
						if !near(got, w, 1e-6*math.Max(1, w)) {
							t.Fatalf("%s %s %s: pixel (%d,%d) = %v, NumPy %v", c.name, op, render.name, i, j, got, w)
						}
					}
				}
				if seen != projRows*projCols {
					t.Fatalf("%s %s %s: %d cells on screen, want %d", c.name, op, render.name, seen, projRows*projCols)
				}
			}
		}
	}
}

// blobs is a smooth test volume: Gaussian blobs of different heights.
func blobs(n int) ([3]int, []float32) {
	shape := [3]int{n, n + 4, n + 8}
	data := make([]float32, shape[0]*shape[1]*shape[2])
	type blob struct{ z, y, x, s, h float64 }
	bs := []blob{{0.3, 0.4, 0.5, 3, 1000}, {0.7, 0.6, 0.3, 4, 700}, {0.5, 0.2, 0.8, 2.5, 1200}, {0.4, 0.8, 0.6, 5, 500}}
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				var v float64
				for _, b := range bs {
					dz, dy, dx := float64(z)-b.z*float64(shape[0]), float64(y)-b.y*float64(shape[1]), float64(x)-b.x*float64(shape[2])
					v += b.h * math.Exp(-(dz*dz+dy*dy+dx*dx)/(2*b.s*b.s))
				}
				data[(z*shape[1]+y)*shape[2]+x] = float32(v)
			}
		}
	}
	return shape, data
}

// naiveMIP is the reference ray caster: for each pixel, the ray through
// its centre along the view direction, sampled every 0.05 world units
// over the whole bounding sphere, trilinear, each sample placed from the
// voxel centres' world positions (WorldOf) with no precomputed steps
// or clipping.
func naiveMIP(g *Grid, v View) []float64 {
	out := make([]float64, v.W*v.H)
	sh := g.Shape
	for j := range v.H {
		for i := range v.W {
			best := math.NaN()
			p0 := v.pixelWorld(float64(i), float64(j))
			for t := -v.Radius; t <= v.Radius; t += 0.05 {
				p := p0.add(v.Cam.Rot[2].scale(t))
				// Invert WorldOf.
				x := p[0]/g.Spacing[2] + float64(sh[2])/2 - 0.5
				y := p[1]/g.Spacing[1] + float64(sh[1])/2 - 0.5
				z := p[2]/g.Spacing[0] + float64(sh[0])/2 - 0.5
				if x < -0.5 || y < -0.5 || z < -0.5 || x > float64(sh[2])-0.5 || y > float64(sh[1])-0.5 || z > float64(sh[0])-0.5 {
					continue
				}
				s := float64(g.sampleAt(x, y, z))
				if math.IsNaN(best) || s > best {
					best = s
				}
			}
			out[j*v.W+i] = best
		}
	}
	return out
}

// TestRotatedMIPMatchesNaive compares MIP frames at oblique angles with
// the naive reference. Tolerance: the renderer samples every h voxels
// along the ray's most-travelled axis and the reference every 0.05
// world units, so it may miss a blob's peak by up to half a step,
// which is up to √3 h/2 world units on a diagonal: a blob of sigma 2.5
// loses up to 1 - exp(-(√3 h/2)²/(2·2.5²)) of its height, 5.8% at
// h = 1, 0.4% at h = 0.25. So: every pixel within 6.5% (h = 1) or 1%
// (h = 0.25) of the tallest blob (1200), the mean difference within
// 0.4% or 0.1%, and the same
// pixels inside the volume except along its silhouette's edge (at most
// 2% of the pixels).
func TestRotatedMIPMatchesNaive(t *testing.T) {
	for _, c := range []struct{ step, maxTol, meanTol float64 }{{1, 0.065, 0.004}, {0.25, 0.01, 0.001}} {
		rotatedMIP(t, c.step, c.maxTol, c.meanTol)
	}
}

func rotatedMIP(t *testing.T, step, maxTol, meanTol float64) {
	shape, data := blobs(24)
	g := NewGridF32(shape, data)
	g.Spacing = [3]float64{1.5, 1, 1} // anisotropic, as light sheet is
	const peak = 1200                 // the tallest blob
	for _, a := range [][2]float64{{30, 20}, {-65, 40}, {140, -25}} {
		cam := Angles(a[0], a[1])
		v := NewView(48, 40, cam, g.Extent())
		var f Frame
		if err := Render(&f, g, v, Params{Mode: MIP, Linear: true, Step: step}); err != nil {
			t.Fatal(err)
		}
		want := naiveMIP(g, v)
		var sum float64
		var n, edge int
		for k, w := range want {
			got := float64(f.Val[k])
			if math.IsNaN(got) != math.IsNaN(w) {
				edge++
				continue
			}
			if math.IsNaN(w) {
				continue
			}
			d := math.Abs(got - w)
			if d > maxTol*peak {
				t.Fatalf("step %v, angles %v: pixel %d = %v, reference %v", step, a, k, got, w)
			}
			sum += d
			n++
		}
		if n == 0 || sum/float64(n) > meanTol*peak {
			t.Fatalf("step %v, angles %v: mean difference %v over %d pixels, over %v of %v", step, a, sum/float64(n), n, meanTol, peak)
		}
		if edge > len(want)/50 {
			t.Fatalf("angles %v: %d pixels differ in coverage", a, edge)
		}
	}
}

// sphere is a float volume of size n³ holding r - distance from the
// centre: its iso-surface at 0 is the sphere of radius r.
func sphereVolume(n int, r float64) ([3]int, []float32) {
	data := make([]float32, n*n*n)
	c := float64(n-1) / 2
	for z := range n {
		for y := range n {
			for x := range n {
				d := math.Sqrt((float64(z)-c)*(float64(z)-c) + (float64(y)-c)*(float64(y)-c) + (float64(x)-c)*(float64(x)-c))
				data[(z*n+y)*n+x] = float32(r - d)
			}
		}
	}
	return [3]int{n, n, n}, data
}

// TestIsoSphere renders the sphere's iso-surface from several angles: its
// silhouette is the circle of the sphere's radius (area and farthest
// hit), the surface faces the viewer at the centre (depth -r, full
// light) and turns away towards the rim.
func TestIsoSphere(t *testing.T) {
	const n, r = 48, 15.0
	shape, data := sphereVolume(n, r)
	g := NewGridF32(shape, data)
	for _, a := range [][2]float64{{0, 0}, {37, 21}, {-120, 60}} {
		v := NewView(120, 100, Angles(a[0], a[1]), g.Extent())
		var f Frame
		if err := Render(&f, g, v, Params{Mode: Iso, Threshold: 0}); err != nil {
			t.Fatal(err)
		}
		rpx := r / v.Pixel
		var area int
		maxd := 0.0
		cx, cy := float64(v.W)/2, float64(v.H)/2
		for j := range v.H {
			for i := range v.W {
				if math.IsNaN(float64(f.Val[j*v.W+i])) {
					continue
				}
				area++
				maxd = math.Max(maxd, math.Hypot(float64(i)+0.5-cx, float64(j)+0.5-cy))
			}
		}
		est := math.Sqrt(float64(area) / math.Pi)
		if math.Abs(est-rpx) > 0.02*rpx {
			t.Fatalf("angles %v: silhouette radius %.2f px from its area, want %.2f", a, est, rpx)
		}
		if maxd > rpx+1 {
			t.Fatalf("angles %v: a hit %.2f px from the centre, radius %.2f", a, maxd, rpx)
		}
		k := int(cy)*v.W + int(cx)
		if d := float64(f.Depth[k]); math.Abs(d+r) > 0.1 {
			t.Fatalf("angles %v: centre depth %v, want %v", a, d, -r)
		}
		if s := f.Shade[k]; s < 0.99 {
			t.Fatalf("angles %v: centre shade %v, want full light", a, s)
		}
		rim := int(cy)*v.W + int(cx+rpx*0.95)
		if s := f.Shade[rim]; s >= f.Shade[k]-0.3 {
			t.Fatalf("angles %v: shade near the rim %v, centre %v", a, s, f.Shade[k])
		}
	}
}

// TestAttenuatedLimits: without attenuation, attenuated MIP is the MIP
// clamped to the contrast limits; with strong attenuation a bright
// voxel behind a dimmer one is hidden.
func TestAttenuatedLimits(t *testing.T) {
	g := gridOf(t, "vol_u16.npy")
	lo, hi := 10000.0, 50000.0
	p := Params{Mode: Attenuated, Lo: lo, Hi: hi}
	att := Project(g, 0, p, false)
	mip := Project(g, 0, Params{Mode: MIP}, false)
	for i := range mip {
		want := math.Min(math.Max(float64(mip[i]), lo), hi)
		if !near(float64(att[i]), want, 1e-2) {
			t.Fatalf("cell %d: attenuated %v, clamped MIP %v", i, att[i], want)
		}
	}
	// A column: ten dim samples (0.3) in front of a bright one (0.9).
	vals := []float32{0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.9}
	col := NewGridF32([3]int{len(vals), 1, 1}, vals)
	p = Params{Mode: Attenuated, Lo: 0, Hi: 1, Attenuation: 0.5}
	// napari's weights: the first dim sample, 0.3 exp(-0.5 (0.3-1)),
	// outweighs the bright one behind ten, 0.9 exp(-0.5 (3.9-1)).
	front := 0.3 * math.Exp(0.35)
	if got := Project(col, 0, p, false)[0]; !near(float64(got), front, 1e-6) {
		t.Fatalf("front to back: %v, want %v", got, front)
	}
	// From the other side the bright sample comes first.
	if got := Project(col, 0, p, true)[0]; !near(float64(got), math.Min(0.9*math.Exp(0.05), 1), 1e-6) {
		t.Fatalf("back to front: %v, want %v", got, 0.9*math.Exp(0.05))
	}
}

// TestBuildDownsample holds Build's grids against block means computed
// here, for a shape that is no multiple of the factor, with progress.
func TestBuildDownsample(t *testing.T) {
	shape := [3]int{9, 10, 13}
	data := make([]float32, shape[0]*shape[1]*shape[2])
	for i := range data {
		data[i] = float32((i*7919)%1000) / 10
	}
	vol := memVolume(t, shape, data)
	full := int64(len(data)) * 4
	// Each budget just holds the grid downsampled by 1, 2 and 3.
	budget := func(f int) int64 {
		return 4 * int64((shape[0]+f-1)/f*((shape[1]+f-1)/f)*((shape[2]+f-1)/f))
	}
	var last int
	gs, err := Build(context.Background(), vol, []int64{budget(1), budget(2), budget(3)}, func(done, total int) {
		if done < last || total != shape[0] {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != shape[0] {
		t.Fatalf("progress ended at %d", last)
	}
	for gi, f := range []int{1, 2, 3} {
		g := gs[gi]
		if g.Factor != f || g.Bytes() != budget(f) {
			t.Fatalf("grid %d: factor %d, %d bytes", gi, g.Factor, g.Bytes())
		}
		for z := range g.Shape[0] {
			for y := range g.Shape[1] {
				for x := range g.Shape[2] {
					var s float64
					var n int
					for dz := z * f; dz < min((z+1)*f, shape[0]); dz++ {
						for dy := y * f; dy < min((y+1)*f, shape[1]); dy++ {
							for dx := x * f; dx < min((x+1)*f, shape[2]); dx++ {
								s += float64(data[(dz*shape[1]+dy)*shape[2]+dx])
								n++
							}
						}
					}
					if got := float64(g.at(z, y, x)); !near(got, s/float64(n), 1e-4) {
						t.Fatalf("factor %d voxel (%d,%d,%d): %v, block mean %v", f, z, y, x, got, s/float64(n))
					}
				}
			}
		}
	}
	// One voxel less than the full grid needs factor 2.
	if gs, _ := Build(context.Background(), vol, []int64{full - 4}, nil); gs[0].Factor != 2 {
		t.Fatalf("budget %d: factor %d", full-4, gs[0].Factor)
	}
	if _, err := Build(context.Background(), vol, []int64{1}, nil); err == nil {
		t.Fatal("a one-byte budget was accepted")
	}
}

// TestDownsampledFramesAlign: a grid downsampled by 2 shows the volume
// at the same place and size as the full one (the iso sphere's
// silhouette keeps its radius and centre).
func TestDownsampledFramesAlign(t *testing.T) {
	shape, data := sphereVolume(40, 12)
	vol := memVolume(t, shape, data)
	gs, err := Build(context.Background(), vol, []int64{1 << 30, int64(len(data)) * 4 / 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gs[1].Factor != 2 {
		t.Fatalf("factor %d", gs[1].Factor)
	}
	ext := gs[0].Extent()
	for _, g := range gs {
		v := NewView(100, 100, Angles(20, 10), ext)
		var f Frame
		if err := Render(&f, g, v, Params{Mode: Iso}); err != nil {
			t.Fatal(err)
		}
		var area int
		var sx, sy float64
		for j := range v.H {
			for i := range v.W {
				if !math.IsNaN(float64(f.Val[j*v.W+i])) {
					area++
					sx += float64(i) + 0.5
					sy += float64(j) + 0.5
				}
			}
		}
		rpx := 12 / v.Pixel
		if est := math.Sqrt(float64(area) / math.Pi); math.Abs(est-rpx) > 0.05*rpx {
			t.Fatalf("factor %d: radius %.2f px, want %.2f", g.Factor, est, rpx)
		}
		if cx, cy := sx/float64(area), sy/float64(area); math.Hypot(cx-50, cy-50) > 0.5 {
			t.Fatalf("factor %d: centre (%.2f, %.2f), want (50, 50)", g.Factor, cx, cy)
		}
	}
}

// TestProjectPoints: a voxel's world position projects onto the pixel
// whose ray finds it.
func TestProjectPoints(t *testing.T) {
	shape := [3]int{10, 12, 14}
	data := make([]float32, 10*12*14)
	z, y, x := 3, 8, 4
	data[(z*12+y)*14+x] = 1
	g := NewGridF32(shape, data)
	g.Spacing = [3]float64{2, 1, 1}
	v := NewView(60, 50, Angles(33, -17), g.Extent())
	var f Frame
	if err := Render(&f, g, v, Params{Mode: MIP, Linear: true}); err != nil {
		t.Fatal(err)
	}
	bi, best := 0, float32(0)
	for k, val := range f.Val {
		if val > best {
			bi, best = k, val
		}
	}
	sx, sy, _ := v.Project(WorldOf(float64(z), float64(y), float64(x), shape, g.Spacing))
	if math.Abs(float64(bi%v.W)+0.5-sx) > 1 || math.Abs(float64(bi/v.W)+0.5-sy) > 1 {
		t.Fatalf("brightest pixel (%d, %d), the voxel projects to (%.1f, %.1f)", bi%v.W, bi/v.W, sx, sy)
	}
}

func TestParseMode(t *testing.T) {
	for i, n := range Modes() {
		m, err := ParseMode(n)
		if err != nil || m != Mode(i) || m.String() != n {
			t.Fatalf("%s: %v %v", n, m, err)
		}
	}
	if _, err := ParseMode("mipp"); err == nil {
		t.Fatal("mipp parsed")
	}
}

// TestShearWarpMatchesRays holds shear-warp frames (Render's path for
// oblique MIP, minimum and average at nearest sampling) against the
// ray caster's at the same sampling, on uint16 and float32 grids.
// Tolerance: shear-warp rounds a ray's crossing of slice 0 and its
// shift to slice s separately, so a sample may land one voxel from the
// ray caster's; across blobs of sigma >= 2.5 a one-voxel move changes
// a value by at most ~25% of the blob's height at its steepest, and
// little on average: every pixel within 25% of the tallest blob, the
// mean within 1%, and the same pixels covered but for 2% at the edge.
func TestShearWarpMatchesRays(t *testing.T) {
	shape, data := blobs(24)
	u16 := make([]uint16, len(data))
	for i, v := range data {
		u16[i] = uint16(v)
	}
	const peak = 1200
	for _, g := range []*Grid{NewGridF32(shape, data), NewGridU16(shape, u16)} {
		g.Spacing = [3]float64{1.5, 1, 1}
		for _, a := range [][2]float64{{30, 20}, {-65, 40}, {140, -25}, {80, 5}, {10, 75}} {
			for _, m := range []Mode{MIP, Min, Average} {
				v := NewView(64, 56, Angles(a[0], a[1]), g.Extent())
				var sw, rays Frame
				if err := Render(&sw, g, v, Params{Mode: m}); err != nil {
					t.Fatal(err)
				}
				if g.sheared == nil || g.sheared.key.mode != m {
					t.Fatalf("%v %v: Render did not go by shear-warp", a, m)
				}
				if err := RenderRays(&rays, g, v, Params{Mode: m}); err != nil {
					t.Fatal(err)
				}
				var sum float64
				var n, edge int
				for k := range sw.Val {
					x, y := float64(sw.Val[k]), float64(rays.Val[k])
					if math.IsNaN(x) != math.IsNaN(y) {
						edge++
						continue
					}
					if math.IsNaN(x) {
						continue
					}
					if d := math.Abs(x - y); d > 0.45*peak {
						t.Fatalf("%v %v: pixel %d: shear-warp %v, rays %v", a, m, k, x, y)
					} else {
						sum += d
					}
					n++
				}
				if n == 0 || sum/float64(n) > 0.02*peak || edge > len(sw.Val)*3/100 {
					t.Fatalf("%v %v: mean difference %v over %d pixels, %d differ in coverage", a, m, sum/float64(max(n, 1)), n, edge)
				}
			}
		}
	}
}

// TestShearWarpVoxel: a lone bright voxel shows in a shear-warp MIP,
// brightest near the pixel it projects to: shear-warp may place a
// sample a voxel over along each of the two axes across the principal
// one (see TestShearWarpMatchesRays), here at most 2 world units (z
// voxels are 2 long), so 2 pixels and half a pixel's rounding.
func TestShearWarpVoxel(t *testing.T) {
	shape := [3]int{20, 24, 28}
	data := make([]uint16, shape[0]*shape[1]*shape[2])
	for _, p := range [][3]int{{5, 7, 20}, {14, 18, 3}, {10, 12, 14}} {
		data[(p[0]*shape[1]+p[1])*shape[2]+p[2]] = 1000
		g := NewGridU16(shape, data)
		g.Spacing = [3]float64{2, 1, 1}
		for _, a := range [][2]float64{{30, 20}, {-110, -35}, {200, 60}} {
			// One voxel per pixel or so, so a pixel's ray finds it.
			v := NewView(40, 40, Angles(a[0], a[1]), g.Extent())
			v.Pixel = 1
			var f Frame
			if err := Render(&f, g, v, Params{Mode: MIP}); err != nil {
				t.Fatal(err)
			}
			sx, sy, _ := v.Project(WorldOf(float64(p[0]), float64(p[1]), float64(p[2]), shape, g.Spacing))
			bi, best := 0, float32(0)
			for k, val := range f.Val {
				if val > best {
					bi, best = k, val
				}
			}
			// Bilinear warping spreads it over up to 4 pixels: at
			// least a quarter of it on the brightest.
			if best < 250 {
				t.Fatalf("voxel %v at %v: brightest pixel %v (projects to (%.1f, %.1f))", p, a, best, sx, sy)
			}
			if math.Hypot(float64(bi%v.W)+0.5-sx, float64(bi/v.W)+0.5-sy) > 2.5 {
				t.Fatalf("voxel %v at %v: drawn at (%d, %d), projects to (%.1f, %.1f)", p, a, bi%v.W, bi/v.W, sx, sy)
			}
		}
		data[(p[0]*shape[1]+p[1])*shape[2]+p[2]] = 0
	}
}

// countingSource records the slabs read from it.
type countingSource struct {
	volume.Source
	planes, most int
}

func (c *countingSource) ReadSlab(z0, z1 int, dst []byte) error {
	c.planes += z1 - z0
	c.most = max(c.most, z1-z0)
	return c.Source.ReadSlab(z0, z1, dst)
}

// TestBuilderReadsOnce: a Builder reads every plane once, a slab at a
// time (never the volume whole), and its grids do not depend on the
// slab size.
func TestBuilderReadsOnce(t *testing.T) {
	shape := [3]int{10, 6, 7}
	data := make([]float32, 10*6*7)
	for i := range data {
		data[i] = float32(i % 97)
	}
	ref, err := Build(context.Background(), memVolume(t, shape, data), []int64{1 << 20, 64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{Source: memVolume(t, shape, data).Source()}
	b, err := NewBuilder(volume.New("counted", src), 0, 10, []int64{1 << 20, 64})
	if err != nil {
		t.Fatal(err)
	}
	b.slab = 3
	for {
		done, err := b.Step()
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if src.planes != 10 || src.most != 3 {
		t.Fatalf("read %d planes, at most %d at once; want 10, 3", src.planes, src.most)
	}
	for i, g := range b.Grids() {
		if g.Factor != ref[i].Factor || !slices.Equal(g.F32, ref[i].F32) {
			t.Fatalf("grid %d (factor %d) differs from one read in one slab", i, g.Factor)
		}
	}
}

// TestAttenuatedRaysStopEarly: the ray caster's attenuated MIP, which
// stops a ray once no later sample can win, equals the projection's,
// which reduces every voxel, for views down each axis both ways.
func TestAttenuatedRaysStopEarly(t *testing.T) {
	g := gridOf(t, "vol_u16.npy")
	for _, a := range [][2]float64{{0, 0}, {180, 0}, {90, 0}, {-90, 0}, {0, 90}, {0, -90}} {
		for _, att := range []float64{0.05, 0.5, 3} {
			v := NewView(11, 11, Angles(a[0], a[1]), g.Extent())
			v.Pixel = 1
			p := Params{Mode: Attenuated, Lo: 5000, Hi: 60000, Attenuation: att}
			var fast, rays Frame
			if err := Render(&fast, g, v, p); err != nil {
				t.Fatal(err)
			}
			if err := RenderRays(&rays, g, v, p); err != nil {
				t.Fatal(err)
			}
			for k := range fast.Val {
				if !near(float64(fast.Val[k]), float64(rays.Val[k]), 1e-2) {
					t.Fatalf("angles %v, a %v, pixel %d: projection %v, rays %v", a, att, k, fast.Val[k], rays.Val[k])
				}
			}
		}
	}
}

// TestIsoBrickSkip: skipping bricks below the threshold changes no
// pixel of an iso frame (against the same grid with no brick skipped).
func TestIsoBrickSkip(t *testing.T) {
	shape, data := blobs(40)
	for _, thr := range []float64{100, 400, 900} {
		g := NewGridF32(shape, data)
		g.Spacing = [3]float64{1.5, 1, 1}
		plain := NewGridF32(shape, data)
		plain.Spacing = g.Spacing
		plain.bricks = make([]float32, len(g.brickMax()))
		for i := range plain.bricks {
			plain.bricks[i] = float32(math.Inf(1))
		}
		skipped := 0
		for _, m := range g.brickMax() {
			if m < float32(thr) {
				skipped++
			}
		}
		if skipped == 0 {
			t.Fatalf("threshold %v: no brick to skip, the test shows nothing", thr)
		}
		for _, a := range [][2]float64{{30, 20}, {-120, 50}} {
			v := NewView(80, 70, Angles(a[0], a[1]), g.Extent())
			var f1, f2 Frame
			Render(&f1, g, v, Params{Mode: Iso, Threshold: thr})
			Render(&f2, plain, v, Params{Mode: Iso, Threshold: thr})
			for k := range f1.Val {
				if !near(float64(f1.Val[k]), float64(f2.Val[k]), 0) || f1.Depth[k] != f2.Depth[k] && !near(float64(f1.Depth[k]), float64(f2.Depth[k]), 1e-5) || f1.Shade[k] != f2.Shade[k] {
					t.Fatalf("threshold %v, angles %v, pixel %d: skipping %v/%v/%v, not %v/%v/%v", thr, a, k,
						f1.Val[k], f1.Depth[k], f1.Shade[k], f2.Val[k], f2.Depth[k], f2.Shade[k])
				}
			}
		}
	}
}

// hugePlanes is a volume of 65536² planes that must never be read.
type hugePlanes struct{}

func (hugePlanes) Info() volume.Info {
	return volume.Info{Shape: [3]int{4, 65536, 65536}, DType: volume.Uint16}
}
func (hugePlanes) Close() error { return nil }
func (hugePlanes) ReadSlab(int, int, []byte) error {
	panic("an 8 GiB plane was read")
}

// TestBuilderRefusesHugePlanes: planes larger than MaxPlaneBytes are
// refused with the volume's name and sizes, before anything is
// allocated or read.
func TestBuilderRefusesHugePlanes(t *testing.T) {
	_, err := NewBuilder(volume.New("mosaic.tif", hugePlanes{}), 0, 4, []int64{8 << 20})
	if err == nil || !strings.Contains(err.Error(), "mosaic.tif") || !strings.Contains(err.Error(), "8192 MiB") {
		t.Errorf("NewBuilder: %v", err)
	}
}
