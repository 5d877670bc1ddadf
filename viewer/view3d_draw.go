package viewer

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/render3d"
)

// The 3D view's requests and render goroutine: request snapshots what
// is on show, and the goroutine renders a coarse frame while the camera
// moves and a still one after, composited layer over layer with the
// points on top.

// request asks for a frame of the current state, unless it is the
// state of the last request. It starts building the grids of layers
// that have none. UI goroutine; nothing for a view not built (nil).
func (w *view3D) request() {
	if !w.on() || w.v.frozen > 0 {
		return
	}
	v := w.v
	sz := w.Size()
	ps := 1.0
	if c := fyne.CurrentApp().Driver().CanvasForObject(w); c != nil && c.Scale() > 0 {
		ps = float64(c.Scale())
	}
	pw, ph := int(math.Ceil(float64(sz.Width)*ps)), int(math.Ceil(float64(sz.Height)*ps))
	if pw < 2 || ph < 2 {
		return
	}
	// A removed layer's grids (up to the budget each) go with it.
	for il := range w.grids {
		if v.stack.IndexOf(il) < 0 {
			delete(w.grids, il)
		}
	}
	ext := frame3D(v.stack.All(), v.Dims().Extent())
	// The signature of what the frame shows comes first, from cheap
	// fields: redraw calls this on every repaint, and the snapshots
	// (each layer's colour table, every point in world coordinates) are
	// made only when it changed.
	var sig strings.Builder
	fmt.Fprintf(&sig, "%d %d %v %v %v %v %v|", pw, ph, w.cam, w.mode, w.threshold(), w.atten, ext)
	var building []string
	type shown struct {
		il *ImageLayer
		lg *layerGrids
	}
	var images []shown
	for _, l := range v.stack.All() {
		il, ok := imageLayer(l)
		if !ok || !l.Visible() || il.fixed != nil {
			continue
		}
		m := 0
		if il.maps > 1 {
			if v.at.Map() >= il.maps {
				continue
			}
			m = v.at.Map()
		}
		lg := w.grids[il]
		if lg == nil || lg.m != m {
			lg = w.build(il, m)
		}
		if lg.err != nil {
			continue
		}
		if lg.fine == nil {
			building = append(building, fmt.Sprintf("building the 3D copy of %s: %d%%", il.name, lg.done*100/max(lg.total, 1)))
			continue
		}
		images = append(images, shown{il, lg})
		lo, hi := il.ContrastLimits()
		fmt.Fprintf(&sig, "%p %v %v %v %v %s %v|", lg.fine, lo, hi, il.Gamma(), il.Opacity(), il.Colormap(), il.Blending())
	}
	var pointLayers []*PointsLayer
	for _, l := range v.stack.All() {
		if pl, ok := pointsLayer(l); ok && l.Visible() {
			pointLayers = append(pointLayers, pl)
			fmt.Fprintf(&sig, "pts %d %v %v %v %v|", pl.Version(), pl.size, pl.Opacity(), pl.style, pointsSpacing(v.stack.All(), pl))
		}
	}
	w.setStatus(strings.Join(building, "   "))
	if w.mode == render3d.Iso {
		w.syncThreshold()
	}
	if sig.String() == w.lastSig {
		return
	}

	req := &renderReq{w: pw, h: ph, view: render3d.NewView(pw, ph, w.cam, ext), final: true}
	for _, im := range images {
		il, lg := im.il, im.lg
		lt := il.lookup(il.vol.DType)
		s := layerSnap{coarse: lg.coarse, fine: lg.fine, tab: slices.Clone(lt.tab), lutLo: lt.lo, scale: lt.scale,
			direct: lutDirect(il.vol.DType), opacity: il.Opacity(), blend: il.Blending()}
		lo, hi := il.ContrastLimits()
		s.p = render3d.Params{Mode: w.mode, Lo: lo, Hi: hi, Attenuation: w.atten, Threshold: w.threshold()}
		// Centre each layer so that its voxel (0, 0, 0) meets the others'
		// at the frame's corner, each at its own voxel size.
		sh, sp := il.extent(), layerSpacing(il)
		for k := range 3 {
			s.p.Offset[2-k] = float64(sh[k])*sp[k]/2 - ext[2-k]/2
		}
		if s.coarse != s.fine {
			req.final = false
		}
		req.layers = append(req.layers, s)
	}
	for _, pl := range pointLayers {
		sp := pointsSpacing(v.stack.All(), pl)
		ps := pointsSnap{diam: pl.size * math.Min(sp[1], sp[2]), opacity: pl.Opacity(), style: pl.style}
		ps.pts = make([]render3d.Vec, 0, pl.Len())
		ps.cls = make([]points.Class, 0, pl.Len())
		pl.EachLive(func(p Point, c points.Class) {
			ps.pts = append(ps.pts, worldOf(p.Z, p.Y, p.X, sp, ext))
			ps.cls = append(ps.cls, c)
		})
		req.points = append(req.points, ps)
	}
	w.lastSig = sig.String()
	w.view = req.view
	w.gen++
	req.gen = w.gen
	w.mu.Lock()
	w.req = req
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run is the render goroutine: the newest request's coarse frame at
// once, its fine frame once no newer request came for stillDelay.
func (w *view3D) run() {
	defer close(w.done)
	var f, small render3d.Frame
	for {
		select {
		case <-w.quit:
			return
		case <-w.wake:
		}
		w.mu.Lock()
		req := w.req
		w.req = nil
		ctx, cancel := context.WithCancel(context.Background())
		w.cancel = cancel
		w.mu.Unlock()
		if req == nil {
			cancel()
			continue
		}
		img := w.draw(ctx, req, false, &f, &small)
		w.post(req.gen, img, req.final)
		if req.final {
			cancel()
			continue
		}
		if !w.still(cancel) {
			continue
		}
		if img := w.draw(ctx, req, true, &f, &small); img != nil && ctx.Err() == nil {
			w.post(req.gen, img, true)
		}
		cancel()
	}
}

// still waits stillDelay for the view to stay still and reports whether
// it did; a newer request (or quit) ends the wait, cancelling the
// current one, and the newer request is handled next round. A wake
// whose request was already taken (request can fill the one-slot
// channel again between the receive and the take) does not count: it
// would leave the fine frame of the request in hand undrawn.
func (w *view3D) still(cancel context.CancelFunc) bool {
	t := time.NewTimer(stillDelay)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			cancel()
			return false
		case <-w.wake:
			w.mu.Lock()
			newer := w.req != nil
			w.mu.Unlock()
			if !newer {
				continue
			}
			cancel()
			// Not a blocking send: this goroutine is the only reader.
			select {
			case w.wake <- struct{}{}:
			default:
			}
			return false
		case <-t.C:
			return true
		}
	}
}

// post shows img on the UI goroutine.
func (w *view3D) post(gen uint64, img *image.RGBA, final bool) {
	if img == nil {
		return
	}
	w.v.post(func() {
		if gen < w.finalGen {
			return
		}
		w.shown = img
		if final && gen == w.gen {
			w.finalGen = gen
		}
		w.Refresh()
	})
}

// draw renders req: from the fine grids at full size, or from the
// coarse ones at about one pixel per voxel (render3d.Coarse), scaled up.
// It returns nil when ctx was cancelled.
func (w *view3D) draw(ctx context.Context, req *renderReq, fine bool, f, small *render3d.Frame) *image.RGBA {
	var res frame
	res.resize(req.w, req.h)
	res.fill(0, 0, res.w, res.h)
	depth := make([]float32, req.w*req.h)
	for i := range depth {
		depth[i] = float32(math.Inf(1))
	}
	f.Resize(req.w, req.h)
	for i, l := range req.layers {
		g := l.coarse
		if fine || req.final {
			g = l.fine
		}
		if fine || req.final || g == l.fine {
			if err := render3d.RenderContext(ctx, f, g, req.view, l.p); err != nil {
				return nil
			}
		} else {
			cw, ch := render3d.Coarse(g, req.view)
			if err := render3d.RenderContext(ctx, small, g, req.view.Scaled(cw, ch), l.p); err != nil {
				return nil
			}
			render3d.Upscale(f, small)
		}
		composite(&res, f, &l, i == 0, depth)
	}
	for _, ps := range req.points {
		drawPoints3D(&res, req.view, ps, depth)
	}
	return res.img
}

// colour returns the layer's colour of value x.
func (l *layerSnap) colour(x float64) uint32 {
	n := len(l.tab)
	var i int
	if l.direct {
		i = int(math.Min(math.Max(math.Round(x), 0), float64(n-1)))
	} else {
		t := (x - l.lutLo) * l.scale
		switch {
		case math.IsInf(l.scale, 1):
			if x >= l.lutLo {
				i = n - 1
			}
		default:
			i = int(math.Min(math.Max(t+0.5, 0), float64(n-1)))
		}
	}
	return l.tab[i]
}

// composite blends one layer's frame into dst: its colour by the
// layer's table (an iso-surface: the colormap's colour at the upper
// contrast limit, lit), over the layers below by its opacity and
// blending; pixels whose rays missed stay as they are. Iso hits lower
// depth, which hides points behind them.
func composite(dst *frame, f *render3d.Frame, l *layerSnap, base bool, depth []float32) {
	a := uint32(l.opacity*256 + 0.5)
	iso := l.p.Mode == render3d.Iso
	top := l.colour(l.p.Hi)
	for k, x := range f.Val {
		if x != x {
			continue
		}
		var c uint32
		if iso {
			s := uint32(f.Shade[k]*256 + 0.5)
			c = 0xff000000 | ((top&0xff)*s>>8)&0xff | ((top>>8&0xff)*s>>8)<<8 | ((top>>16&0xff)*s>>8)<<16
			depth[k] = min(depth[k], f.Depth[k])
		} else {
			c = l.colour(float64(x))
		}
		if base && a >= 256 && l.blend == Translucent {
			dst.px[k] = c
			continue
		}
		dst.px[k] = blendPixel(dst.px[k], c, a, l.blend)
	}
}

// blendPixel mixes c over d with alpha a/256: translucent or additive.
func blendPixel(d, c, a uint32, mode Blending) uint32 {
	var out uint32 = 0xff000000
	for sh := uint32(0); sh < 24; sh += 8 {
		dc, cc := d>>sh&0xff, c>>sh&0xff
		var v uint32
		if mode == Additive {
			v = min(dc+(cc*a>>8), 255)
		} else {
			v = (cc*a + dc*(256-a)) >> 8
		}
		out |= v << sh
	}
	return out
}

// drawPoints3D draws markers at the points' projections, nearest last,
// skipping those behind an iso-surface at their centre.
func drawPoints3D(dst *frame, v render3d.View, ps pointsSnap, depth []float32) {
	diam := math.Max(ps.diam/v.Pixel, 3)
	for i, p := range ps.pts {
		x, y, d := v.Project(p)
		xi, yi := int(x), int(y)
		if xi < 0 || yi < 0 || xi >= dst.w || yi >= dst.h {
			continue
		}
		if float64(depth[yi*dst.w+xi]) < d-ps.diam/2 {
			continue
		}
		drawMarker(dst, x, y, diam, ps.style.Symbols[ps.cls[i]], ps.style.Face, ps.style.Edge, ps.opacity)
	}
}
