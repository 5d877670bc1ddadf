package viewer

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/volume"
)

// Feeds are what a job's goroutine may hold of a layer: each has only
// the methods that are safe from any goroutine (they write the layer's
// data under its own lock and post a redraw to the UI goroutine), so the
// compiler, not a comment, keeps a job's goroutine off the layer's
// setters and the widgets. The UI goroutine makes a layer and hands its
// Feed to the job; the viewer's Async (Do, Go) is the rest of that API.
type (
	// ImageFeed refreshes planes of an image layer whose volume a job is
	// still writing.
	ImageFeed struct{ l *ImageLayer }
	// PointsFeed appends a job's points (detections, classified
	// candidates) to a points layer.
	PointsFeed struct{ l *PointsLayer }
	// HeatmapFeed fills a heat map block by block.
	HeatmapFeed struct{ h *HeatmapLayer }
)

// Feed returns the layer's goroutine-safe side.
func (l *ImageLayer) Feed() ImageFeed { return ImageFeed{l} }

// Feed returns the layer's goroutine-safe side.
func (l *PointsLayer) Feed() PointsFeed { return PointsFeed{l} }

// Feed returns the layer's goroutine-safe side.
func (h *HeatmapLayer) Feed() HeatmapFeed { return HeatmapFeed{h} }

// RefreshPlanes drops the cached z planes [z0, z1) and redraws: call it
// after writing those planes of a volume that is still being written.
// Safe from any goroutine: it goes through the layer's loader, which is
// set before the layer is handed out and carries its own way to the
// viewer, and never reads l.v, which the UI goroutine clears when the
// layer is removed. After that it does nothing.
func (f ImageFeed) RefreshPlanes(z0, z1 int) {
	if l := f.l; l.ld != nil {
		l.ld.refresh(z0, z1)
	}
}

// Append adds points and redraws: detections arriving plane by plane.
// Appended points are not edits: they are not undone and do not mark the
// layer modified.
func (f PointsFeed) Append(pts ...Point) {
	f.l.Extend(pts...)
	f.l.redrawAnywhere()
}

// SetBlock fills the block of n rows from (r0, c0) with vals (row-major,
// len(vals)/n columns) and redraws: a chunk of a distance matrix as it
// finishes. Safe from any goroutine.
func (f HeatmapFeed) SetBlock(r0, c0, n int, vals []float64) error {
	h := f.h
	if n <= 0 || len(vals)%n != 0 {
		return fmt.Errorf("heat map %s: %d values do not make %d rows", h.name, len(vals), n)
	}
	w := len(vals) / n
	if r0 < 0 || c0 < 0 || r0+n > h.rows || c0+w > h.cols {
		return fmt.Errorf("heat map %s: block %dx%d at (%d,%d) outside %dx%d", h.name, n, w, r0, c0, h.rows, h.cols)
	}
	h.mu.Lock()
	// Copy on write: the plane being drawn is never modified.
	old := volume.Float64s(h.cur.data)
	nv := make([]float64, len(old))
	copy(nv, old)
	for r := range n {
		copy(nv[(r0+r)*h.cols+c0:], vals[r*w:(r+1)*w])
	}
	h.cur = &plane{dtype: volume.Float64, rows: h.rows, cols: h.cols, data: volume.Bytes(nv)}
	h.dirty = true
	h.mu.Unlock()
	h.redrawAnywhere()
	return nil
}
