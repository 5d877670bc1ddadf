package render3d

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Mode is a rendering mode.
type Mode int

// The rendering modes (napari's names in brackets).
const (
	MIP        Mode = iota // maximum intensity projection [mip]
	Attenuated             // attenuated MIP [attenuated_mip]
	Min                    // minimum intensity projection [minip]
	Average                // mean of the samples [average]
	Iso                    // first crossing of a threshold, shaded [iso]
)

var modeNames = [...]string{"mip", "attenuated", "min", "average", "iso"}

// String returns the mode's command-line name.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// Modes returns the command-line names of the modes, in order.
func Modes() []string { return modeNames[:] }

// ParseMode parses a mode's command-line name.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("rendering mode %q: use mip, attenuated, min, average or iso", s)
}

// Params say what to draw.
type Params struct {
	Mode Mode
	// Lo and Hi are the contrast limits: attenuated MIP weighs samples
	// normalised by them, as napari does.
	Lo, Hi float64
	// Attenuation is attenuated MIP's a (napari's default is 0.05).
	Attenuation float64
	// Threshold is the iso-surface's value.
	Threshold float64
	// Step is the distance between samples along a ray, in voxels
	// along the ray's most-travelled axis; 0 means 1 (every voxel
	// plane crossed once).
	Step float64
	// Linear samples trilinearly instead of at the nearest voxel
	// (iso always does).
	Linear bool
	// Offset places the volume's centre in the world (x, y, z), which
	// is otherwise the origin: layers of different sizes drawn
	// together align their voxel (0, 0, 0), as the 2D view does.
	Offset Vec
}

// Frame is a rendered image: per pixel a value in the volume's units,
// for the viewer's lookup table, and for iso its depth and shading.
type Frame struct {
	W, H int
	// Val is NaN where a ray misses the volume (or, for iso, the
	// surface).
	Val []float32
	// Depth is, for iso, the distance of the hit from the plane
	// through the volume's centre along the view direction (world
	// units); +Inf where nothing was hit and in the other modes.
	Depth []float32
	// Shade is the iso-surface's lighting in [0, 1]; 1 in other modes.
	Shade []float32
}

// Resize makes f w x h, reusing its buffers.
func (f *Frame) Resize(w, h int) {
	n := w * h
	f.W, f.H = w, h
	if cap(f.Val) < n {
		f.Val, f.Depth, f.Shade = make([]float32, n), make([]float32, n), make([]float32, n)
	}
	f.Val, f.Depth, f.Shade = f.Val[:n], f.Depth[:n], f.Shade[:n]
}

// View places a w x h frame in the world: the camera's rotation, and
// a pixel size that fits a volume of the given physical extent (x, y,
// z) under the camera's zoom. The world's origin is the volume's
// centre.
type View struct {
	W, H int
	Cam  Camera
	// Pixel is the size of a pixel in world units.
	Pixel float64
	// Radius is half the volume's diagonal: rays start that far in
	// front of the centre.
	Radius float64
}

// fitFraction of the frame's shorter side is filled at zoom 1 by the
// diagonal of the volume's largest face, so that it stays in the frame
// as it turns about most axes.
const fitFraction = 0.95

// NewView returns the view of a volume of physical extent ext (x, y, z)
// in a w x h frame through cam.
func NewView(w, h int, cam Camera, ext Vec) View {
	e := []float64{ext[0], ext[1], ext[2]}
	slices.Sort(e)
	side := math.Hypot(e[1], e[2])
	z := cam.Zoom
	if z <= 0 {
		z = 1
	}
	return View{W: w, H: h, Cam: cam, Pixel: side / (fitFraction * float64(min(w, h)) * z), Radius: ext.norm() / 2}
}

// Project returns the frame position (pixels, x right, y down) and the
// depth (as Frame.Depth) of world point p.
func (v View) Project(p Vec) (sx, sy, depth float64) {
	r := v.Cam.Rot
	return r[0].dot(p)/v.Pixel + float64(v.W)/2, r[1].dot(p)/v.Pixel + float64(v.H)/2, r[2].dot(p)
}

// pixelWorld returns the world point of pixel (i, j)'s centre on the
// plane through the origin.
func (v View) pixelWorld(i, j float64) Vec {
	r := v.Cam.Rot
	return r[0].scale((i + 0.5 - float64(v.W)/2) * v.Pixel).add(r[1].scale((j + 0.5 - float64(v.H)/2) * v.Pixel))
}

// WorldOf returns the world position of voxel (z, y, x) of a volume of
// shape (z, y, x) and voxel size spacing (z, y, x), its centre at the
// origin.
func WorldOf(z, y, x float64, shape [3]int, spacing [3]float64) Vec {
	return Vec{
		(x + 0.5 - float64(shape[2])/2) * spacing[2],
		(y + 0.5 - float64(shape[1])/2) * spacing[1],
		(z + 0.5 - float64(shape[0])/2) * spacing[0],
	}
}

// ray is the march of one frame's rays through a grid, in voxel
// coordinates (x, y, z): pixel (i, j) starts at o + i di + j dj and
// steps by d.
type ray struct {
	o, di, dj, d Vec
	n            Vec // the grid's shape, x, y, z
	stepLen      float64
	// org is the world position of voxel (0, 0, 0), sp the voxel size
	// (x, y, z).
	org, sp Vec
}

// newRay sets up the rays of view v through grid g, whose voxel (0,0,0)
// centre lies at world position g.origin().
func newRay(g *Grid, v View, step float64, off Vec) ray {
	if step <= 0 {
		step = 1
	}
	sp := Vec{g.Spacing[2], g.Spacing[1], g.Spacing[0]}
	org := g.origin(off)
	toVox := func(p Vec) Vec {
		return Vec{(p[0] - org[0]) / sp[0], (p[1] - org[1]) / sp[1], (p[2] - org[2]) / sp[2]}
	}
	toVoxDir := func(p Vec) Vec { return Vec{p[0] / sp[0], p[1] / sp[1], p[2] / sp[2]} }
	r := v.Cam.Rot
	var rr ray
	rr.o = toVox(v.pixelWorld(0, 0).add(r[2].scale(-v.Radius - 1)))
	rr.di = toVoxDir(r[0].scale(v.Pixel))
	rr.dj = toVoxDir(r[1].scale(v.Pixel))
	d := toVoxDir(r[2])
	m := math.Max(math.Abs(d[0]), math.Max(math.Abs(d[1]), math.Abs(d[2])))
	rr.d = d.scale(step / m)
	rr.stepLen = step / m // world units per step
	rr.n = Vec{float64(g.Shape[2]), float64(g.Shape[1]), float64(g.Shape[0])}
	rr.org, rr.sp = org, sp
	return rr
}

// origin returns the world position of voxel (0, 0, 0)'s centre, the
// volume's centre being at off (Params.Offset). A
// grid downsampled by f has its voxel i over voxels [i f, (i+1) f) of
// the full volume, whose shape is recorded in full.
func (g *Grid) origin(off Vec) Vec {
	full := g.full()
	var o Vec
	for k := range 3 {
		s0 := g.Spacing[2-k] / float64(g.Factor)
		o[k] = (float64(g.Factor)/2-float64(full[2-k])/2)*s0 + off[k]
	}
	return o
}

// full returns the shape of the volume g was built from.
func (g *Grid) full() [3]int {
	if g.Full != [3]int{} {
		return g.Full
	}
	return g.Shape
}

// clip returns the position of the first sample of the ray from o and
// the number of samples inside the grid's box [-0.5, n-0.5].
func (r *ray) clip(o Vec) (start Vec, count int) {
	t0, t1 := math.Inf(-1), math.Inf(1)
	for k := range 3 {
		lo, hi := -0.5, r.n[k]-0.5
		if r.d[k] == 0 {
			if o[k] < lo || o[k] > hi {
				return o, 0
			}
			continue
		}
		a, b := (lo-o[k])/r.d[k], (hi-o[k])/r.d[k]
		if a > b {
			a, b = b, a
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, b)
	}
	if !(t1 > t0) {
		return o, 0
	}
	// Samples a step apart, centred in the ray's span, so that neither
	// end is left unsampled for more than half a step (a ray through a
	// corner gets one sample). A hair more than a whole number of
	// steps counts as that many: an axis-aligned ray spans exactly n
	// steps and samples each voxel's centre.
	span := t1 - t0
	count = max(int(math.Ceil(span-1e-9)), 1)
	t := t0 + (span-float64(count-1))/2
	return o.add(r.d.scale(t)), count
}

// workers is how many goroutines a frame is split across.
func workers() int { return runtime.GOMAXPROCS(0) }

// parallelRows calls f for each row in [0, n) from one goroutine per
// core, rows handed out one at a time so that cheap rows (missing the
// volume) and dear ones balance.
func parallelRows(n int, f func(row int)) {
	w := min(workers(), n)
	if w <= 1 {
		for j := range n {
			f(j)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= n {
					return
				}
				f(j)
			}
		})
	}
	wg.Wait()
}

// Render draws g into dst (resized to v's frame) through view v.
// Views along an axis in a mode other than iso, with nearest
// sampling, reduce the grid along that axis once and resample the
// result (the same values the rays would find); other views in MIP,
// minimum or average with nearest sampling go by shear-warp
// (shear.go); the rest are ray cast.
func Render(dst *Frame, g *Grid, v View, p Params) error {
	return RenderContext(context.Background(), dst, g, v, p)
}

// RenderContext is Render, abandoned (with ctx's error, dst partly
// drawn) once ctx is done: a frame at full resolution gives way to the
// next interactive one.
func RenderContext(ctx context.Context, dst *Frame, g *Grid, v View, p Params) error {
	if g.Len() == 0 {
		return errEmpty
	}
	dst.Resize(v.W, v.H)
	r := newRay(g, v, p.Step, p.Offset)
	if p.Mode != Iso && !p.Linear && (p.Step == 0 || p.Step == 1) {
		if axis, sign, ok := alongAxis(v.Cam.Rot[2]); ok {
			renderProjection(dst, g, &r, p, axis, sign)
			return ctx.Err()
		}
		if p.Mode != Attenuated {
			k := 0
			for q := range 3 {
				if math.Abs(r.d[q]) > math.Abs(r.d[k]) {
					k = q
				}
			}
			renderShear(dst, g, &r, p, k)
			return ctx.Err()
		}
	}
	renderRays(ctx, dst, g, &r, v, p)
	return ctx.Err()
}

// alongAxis reports whether direction d is along a grid axis (0 x, 1
// y, 2 z) and which way.
func alongAxis(d Vec) (axis int, sign float64, ok bool) {
	for k := range 3 {
		if math.Abs(d[k]) > 1-1e-12 {
			return k, math.Copysign(1, d[k]), true
		}
	}
	return 0, 0, false
}

// RenderRays is Render without the axis fast path, for tests and
// benchmarks that compare the two.
func RenderRays(dst *Frame, g *Grid, v View, p Params) error {
	if g.Len() == 0 {
		return errEmpty
	}
	dst.Resize(v.W, v.H)
	r := newRay(g, v, p.Step, p.Offset)
	renderRays(context.Background(), dst, g, &r, v, p)
	return nil
}

func renderRays(ctx context.Context, dst *Frame, g *Grid, r *ray, v View, p Params) {
	done := ctx.Done()
	parallelRows(v.H, func(j int) {
		select {
		case <-done:
			return
		default:
		}
		renderRow(dst, g, r, v, p, j, 0, v.W)
	})
}

// renderRow casts the rays of pixels [i0, i1) of row j.
func renderRow(dst *Frame, g *Grid, r *ray, v View, p Params, j, i0, i1 int) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	row := r.o.add(r.dj.scale(float64(j)))
	for i := i0; i < i1; i++ {
		k := j*v.W + i
		dst.Depth[k], dst.Shade[k] = inf, 1
		start, n := r.clip(row.add(r.di.scale(float64(i))))
		if n == 0 {
			dst.Val[k] = nan
			continue
		}
		if p.Mode == Iso {
			dst.Val[k], dst.Depth[k], dst.Shade[k] = iso(g, r, v, start, n, float32(p.Threshold))
			continue
		}
		if g.U16 != nil {
			dst.Val[k] = march(g.U16, g, r, start, n, p)
		} else {
			dst.Val[k] = march(g.F32, g, r, start, n, p)
		}
	}
}

// voxel is the element type of a grid.
type voxel interface{ ~uint16 | ~float32 }

// march reduces the n samples of one ray from start.
func march[T voxel](data []T, g *Grid, r *ray, start Vec, n int, p Params) float32 {
	nx, ny, nz := g.Shape[2], g.Shape[1], g.Shape[0]
	nxy := nx * ny
	x, y, z := start[0], start[1], start[2]
	dx, dy, dz := r.d[0], r.d[1], r.d[2]
	sample := func() float32 {
		if p.Linear {
			return trilinear(data, nx, ny, nz, x, y, z)
		}
		// x >= -0.5 inside the box, and int truncates towards zero:
		// int(x+0.5) is the nearest voxel, clamped at the far side.
		ix, iy, iz := min(int(x+0.5), nx-1), min(int(y+0.5), ny-1), min(int(z+0.5), nz-1)
		return float32(data[iz*nxy+iy*nx+ix])
	}
	switch p.Mode {
	case MIP:
		if !p.Linear {
			return marchMax(data, nx, ny, nz, start, r.d, n)
		}
		m := float32(math.Inf(-1))
		for ; n > 0; n-- {
			m = max(m, sample())
			x, y, z = x+dx, y+dy, z+dz
		}
		return m
	case Min:
		m := float32(math.Inf(1))
		for ; n > 0; n-- {
			m = min(m, sample())
			x, y, z = x+dx, y+dy, z+dz
		}
		return m
	case Average:
		var s float64
		for k := 0; k < n; k++ {
			s += float64(sample())
			x, y, z = x+dx, y+dy, z+dz
		}
		return float32(s / float64(n))
	case Attenuated:
		a := attenuator(p)
		for ; n > 0 && !a.done(); n-- {
			a.add(sample())
			x, y, z = x+dx, y+dy, z+dz
		}
		return a.result()
	}
	return float32(math.NaN())
}

// fixBits is the fraction of marchMax's fixed-point positions.
const fixBits = 24

// marchMax is the MIP of n nearest-voxel samples from start by d, the
// hot loop of full-resolution frames. Positions are fixed point (40.24
// bits) so that each sample costs additions and shifts instead of
// three float-to-int conversions; over the few thousand steps of a ray
// the rounding drifts by under 10^-4 voxel. The maximum is taken in
// the grid's own type (integer max for uint16).
func marchMax[T voxel](data []T, nx, ny, nz int, start, d Vec, n int) float32 {
	const one = 1 << fixBits
	fx, fy, fz := int64((start[0]+0.5)*one), int64((start[1]+0.5)*one), int64((start[2]+0.5)*one)
	dx, dy, dz := int64(math.Round(d[0]*one)), int64(math.Round(d[1]*one)), int64(math.Round(d[2]*one))
	// Inside the box x + 0.5 >= 0 (the clip), so a shift is the floor;
	// the far side is clamped.
	fx, fy, fz = max(fx, 0), max(fy, 0), max(fz, 0)
	mx, my, mz := int64(nx-1), int64(ny-1), int64(nz-1)
	nxy := int64(nx * ny)
	m := data[min(fz>>fixBits, mz)*nxy+min(fy>>fixBits, my)*int64(nx)+min(fx>>fixBits, mx)]
	for ; n > 1; n-- {
		fx, fy, fz = fx+dx, fy+dy, fz+dz
		m = max(m, data[min(max(fz, 0)>>fixBits, mz)*nxy+min(max(fy, 0)>>fixBits, my)*int64(nx)+min(max(fx, 0)>>fixBits, mx)])
	}
	return float32(m)
}

// attenuated is napari's attenuated MIP (vispy's volume shader): with
// samples s normalised by the contrast limits, the running sum S of
// them, and a relative step size h, it keeps the largest
// s exp(-a (S - 1) / h) and returns it in data units. The weight
// exp(-a (S - 1) / h) is kept as a running product; it only falls, so
// once it is no more than the best weighted sample (or that reached
// the upper limit, where the result is clamped) no later sample can
// win, and the ray stops: attenuation makes most rays short.
type attenuated struct {
	lo, span, k float64
	w, best     float64
}

func attenuator(p Params) attenuated {
	span := p.Hi - p.Lo
	if span <= 0 {
		span = 1
	}
	// napari's relative step size is the step in voxels.
	h := p.Step
	if h <= 0 {
		h = 1
	}
	k := p.Attenuation / h
	return attenuated{lo: p.Lo, span: span, k: k, w: math.Exp(k)}
}

func (a *attenuated) add(v float32) {
	s := math.Min(math.Max((float64(v)-a.lo)/a.span, 0), 1)
	if s > 0 {
		a.w *= math.Exp(-a.k * s)
	}
	a.best = math.Max(a.best, s*a.w)
}

// done reports whether no later sample can change the result.
func (a *attenuated) done() bool { return a.best >= 1 || a.w <= a.best }

// result is the largest weighted sample in data units, at most the
// upper limit (napari's colormap clamps it there: with few samples
// summed, exp(-a (S-1)) exceeds 1).
func (a *attenuated) result() float32 { return float32(a.lo + math.Min(a.best, 1)*a.span) }

// trilinear samples data at (x, y, z), clamping at the edges.
func trilinear[T voxel](data []T, nx, ny, nz int, x, y, z float64) float32 {
	x, y, z = clampf(x, nx), clampf(y, ny), clampf(z, nz)
	x0, y0, z0 := int(x), int(y), int(z)
	fx, fy, fz := float32(x-float64(x0)), float32(y-float64(y0)), float32(z-float64(z0))
	x1, y1, z1 := min(x0+1, nx-1), min(y0+1, ny-1), min(z0+1, nz-1)
	nxy := nx * ny
	at := func(z, y, x int) float32 { return float32(data[z*nxy+y*nx+x]) }
	c00 := at(z0, y0, x0)*(1-fx) + at(z0, y0, x1)*fx
	c01 := at(z0, y1, x0)*(1-fx) + at(z0, y1, x1)*fx
	c10 := at(z1, y0, x0)*(1-fx) + at(z1, y0, x1)*fx
	c11 := at(z1, y1, x0)*(1-fx) + at(z1, y1, x1)*fx
	c0 := c00*(1-fy) + c01*fy
	c1 := c10*(1-fy) + c11*fy
	return c0*(1-fz) + c1*fz
}

func clampf(x float64, n int) float64 { return math.Min(math.Max(x, 0), float64(n-1)) }

// sampleAt samples g trilinearly at voxel position (x, y, z).
func (g *Grid) sampleAt(x, y, z float64) float32 {
	if g.U16 != nil {
		return trilinear(g.U16, g.Shape[2], g.Shape[1], g.Shape[0], x, y, z)
	}
	return trilinear(g.F32, g.Shape[2], g.Shape[1], g.Shape[0], x, y, z)
}

// Blinn-Phong terms of the iso-surface's shading (a headlight, so the
// half vector is the view direction).
const (
	ambient   = 0.2
	diffuse   = 0.7
	specular  = 0.3
	shininess = 32
)

// iso finds the first sample at or above thr, places the crossing
// between it and the sample before by linear interpolation, and
// shades it.
func iso(g *Grid, r *ray, v View, start Vec, n int, thr float32) (val, depth, shade float32) {
	prev := float32(math.NaN())
	p := start
	bm := g.brickMax()
	bnx, bny := (g.Shape[2]+brick-1)/brick, (g.Shape[1]+brick-1)/brick
	nx, ny, nz := g.Shape[2]-1, g.Shape[1]-1, g.Shape[0]-1
	for k := 0; k < n; k++ {
		// Skip samples in bricks that never reach the threshold: no
		// trilinear sample there can.
		bx, by, bz := min(max(int(p[0]), 0), nx)/brick, min(max(int(p[1]), 0), ny)/brick, min(max(int(p[2]), 0), nz)/brick
		if bm[(bz*bny+by)*bnx+bx] < thr {
			prev = float32(math.NaN())
			p = p.add(r.d)
			continue
		}
		s := g.sampleAt(p[0], p[1], p[2])
		if s >= thr {
			if k > 0 && prev != prev {
				q := p.add(r.d.scale(-1))
				prev = g.sampleAt(q[0], q[1], q[2])
			}
			t := 0.0
			if k > 0 && s > prev {
				t = float64((thr - prev) / (s - prev)) // back from p towards the previous sample
				t = 1 - t
			}
			hit := p.add(r.d.scale(-t))
			return thr, float32(r.depthOf(hit, v)), g.shade(hit, v)
		}
		prev = s
		p = p.add(r.d)
	}
	return float32(math.NaN()), float32(math.Inf(1)), 1
}

// brick is the side of the bricks whose maxima let iso skip space.
const brick = 8

// brickMax returns, per brick of brick³ voxels (x fastest), the largest
// voxel over the brick and one voxel beyond it on the high side: every
// voxel a trilinear sample inside the brick can weigh. Made once per
// grid (a pass over it), cached.
func (g *Grid) brickMax() []float32 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.bricks != nil {
		return g.bricks
	}
	nz, ny, nx := g.Shape[0], g.Shape[1], g.Shape[2]
	bnz, bny, bnx := (nz+brick-1)/brick, (ny+brick-1)/brick, (nx+brick-1)/brick
	bm := make([]float32, bnz*bny*bnx)
	for i := range bm {
		bm[i] = float32(math.Inf(-1))
	}
	// Each voxel raises its own brick and, on a brick's low faces, the
	// brick below it (whose apron it is). A goroutine per z brick
	// writes only its own bricks.
	parallelRows(bnz, func(bz int) {
		row := make([]float32, nx)
		for z := bz * brick; z < min((bz+1)*brick+1, nz); z++ {
			for y := range ny {
				g.row(row, z, y)
				ylo, yhi := apron(y, bny)
				for by := ylo; by <= yhi; by++ {
					base := (bz*bny + by) * bnx
					for bx := range bnx {
						// Columns [8 bx, 8 bx + 9) of the row.
						m := bm[base+bx]
						for _, v := range row[bx*brick : min((bx+1)*brick+1, nx)] {
							m = max(m, v)
						}
						bm[base+bx] = m
					}
				}
			}
		}
	})
	g.bricks = bm
	return bm
}

// apron returns the bricks [lo, hi] along an axis of n bricks that
// coordinate c counts for: its own, and the one below when c is that
// brick's apron.
func apron(c, n int) (lo, hi int) {
	b := min(c/brick, n-1)
	if c%brick == 0 && b > 0 {
		return b - 1, b
	}
	return b, b
}

// row copies row (z, y) of g into dst as float32.
func (g *Grid) row(dst []float32, z, y int) {
	off := (z*g.Shape[1] + y) * g.Shape[2]
	if g.U16 != nil {
		for i, v := range g.U16[off : off+len(dst)] {
			dst[i] = float32(v)
		}
		return
	}
	copy(dst, g.F32[off:off+len(dst)])
}

// depthOf returns the depth (Frame.Depth) of voxel position p.
func (r *ray) depthOf(p Vec, v View) float64 {
	w := Vec{r.org[0] + p[0]*r.sp[0], r.org[1] + p[1]*r.sp[1], r.org[2] + p[2]*r.sp[2]}
	return v.Cam.Rot[2].dot(w)
}

// shade lights the surface at voxel position p: the normal is the
// gradient (central differences, in world units) pointing to lower
// values, out of the surface.
func (g *Grid) shade(p Vec, v View) float32 {
	var n Vec
	for k := range 3 {
		a, b := p, p
		a[k] -= 1
		b[k] += 1
		n[k] = -float64(g.sampleAt(b[0], b[1], b[2])-g.sampleAt(a[0], a[1], a[2])) / (2 * g.Spacing[2-k])
	}
	l := n.norm()
	if l == 0 {
		return ambient + diffuse
	}
	n = n.scale(1 / l)
	// The light comes from the viewer: -view direction.
	c := math.Max(-n.dot(v.Cam.Rot[2]), 0)
	s := ambient + diffuse*c + specular*math.Pow(c, shininess)
	return float32(math.Min(s, 1))
}

// Coarse returns the frame size at which grid g, seen through v, has
// about one pixel per voxel (never more than v's): rendering there and
// scaling up with Upscale costs a fraction of a full frame and loses
// nothing the grid holds. Interactive frames from a downsampled grid
// use it.
func Coarse(g *Grid, v View) (w, h int) {
	vox := math.Min(g.Spacing[0], math.Min(g.Spacing[1], g.Spacing[2]))
	f := vox / v.Pixel // pixels per voxel
	if f <= 1 {
		return v.W, v.H
	}
	return max(1, int(math.Ceil(float64(v.W)/f))), max(1, int(math.Ceil(float64(v.H)/f)))
}

// Scaled returns v for a w x h frame covering the same part of the
// world.
func (v View) Scaled(w, h int) View {
	s := v
	s.Pixel = v.Pixel * math.Max(float64(v.W)/float64(w), float64(v.H)/float64(h))
	s.W, s.H = w, h
	return s
}

// Upscale fills dst (sized already) from the smaller src, nearest
// pixel, both covering the same part of the world.
func Upscale(dst, src *Frame) {
	sx := float64(src.W) / float64(dst.W)
	sy := float64(src.H) / float64(dst.H)
	s := math.Max(sx, sy)
	ox := (float64(src.W) - s*float64(dst.W)) / 2
	oy := (float64(src.H) - s*float64(dst.H)) / 2
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	parallelRows(dst.H, func(j int) {
		y := int(math.Floor(oy + (float64(j)+0.5)*s))
		for i := range dst.W {
			k := j*dst.W + i
			x := int(math.Floor(ox + (float64(i)+0.5)*s))
			if x < 0 || y < 0 || x >= src.W || y >= src.H {
				dst.Val[k], dst.Depth[k], dst.Shade[k] = nan, inf, 1
				continue
			}
			m := y*src.W + x
			dst.Val[k], dst.Depth[k], dst.Shade[k] = src.Val[m], src.Depth[m], src.Shade[m]
		}
	})
}
