package panel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2/canvas"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer"
)

// The live views of the kinds of partial results a pipeline's spec
// declares (pipeline.Live): a volume filled block by block over the
// input, points found plane by plane over it, matrices filled chunk by
// chunk as heat maps and plots, metrics step by step as curves
// (curves.go). They know no pipeline: the spec says
// the kind and which output to open when the run ends.

// NewLive returns the live view of a run of spec with arguments args
// (nil when the spec emits no partial results).
func NewLive(v *viewer.Viewer, spec *pipeline.Spec, args []string) Live {
	in, out := "", ""
	for i, a := range spec.Args {
		if i >= len(args) {
			break
		}
		if a.Kind == pipeline.Input && in == "" {
			in = args[i]
		}
		if a.Kind == pipeline.Output && out == "" {
			out = args[i]
		}
	}
	result := ""
	if spec.Live.Result != nil {
		result = spec.Live.Result(args)
	}
	switch spec.Live.Kind {
	case pipeline.LiveVolume:
		return &volumeLive{v: v, in: v.LayerFor(in), out: out, result: result}
	case pipeline.LivePoints:
		return &pointsLive{v: v, in: v.LayerFor(in), out: out, result: result}
	case pipeline.LiveMatrices:
		var inputs []string
		for i, a := range spec.Args {
			if a.Kind == pipeline.Input && i < len(args) {
				inputs = append(inputs, args[i])
			}
		}
		l := newMatrixLive(v, spec.Live.Title, inputs, out)
		if spec.Live.Figures != nil {
			l.figures = spec.Live.Figures(args)
		}
		return l
	case pipeline.LiveMetrics:
		return newMetricsLive(v, spec.Live.Title, out)
	}
	return nil
}

// volumeLive shows each finished block of an output volume in an image
// layer added over the others as it arrives, and the output when the
// run ends. The user's view is left as it was (other layers keep their
// visibility, grid mode its state); showing the result beside the input
// is offered (viewer.Offer.Compare), not imposed.
type volumeLive struct {
	v           *viewer.Viewer
	in          viewer.Layer
	out, result string
	mu          sync.Mutex
	vol         *viewer.LiveVolume
	layer       atomic.Pointer[viewer.ImageLayer]
	err         error
}

// Partial stores a *pipeline.VolumeBlock and refreshes its planes.
func (l *volumeLive) Partial(e job.Event) {
	b, ok := e.Partial.(*pipeline.VolumeBlock)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if l.vol == nil {
		n := b.Depth
		if n < b.Z0+b.Shape[0] {
			n = b.Z0 + b.Shape[0]
		}
		vol, err := viewer.NewLiveVolume(volume.Info{Shape: [3]int{n, b.Shape[1], b.Shape[2]}, DType: b.DType}, viewer.LiveOptions{})
		if err != nil {
			l.err = err
			return
		}
		l.vol = vol
		if err := vol.Write(b.Z0, b.Data); err != nil {
			l.err = err
			return
		}
		l.v.Async().Do(l.addLayer)
		return
	}
	if err := l.vol.Write(b.Z0, b.Data); err != nil {
		l.err = err
		return
	}
	if il := l.layer.Load(); il != nil {
		il.Feed().RefreshPlanes(b.Z0, b.Z0+b.Shape[0])
	}
}

// addLayer shows the live volume beside the input (UI goroutine).
func (l *volumeLive) addLayer() {
	l.mu.Lock()
	vol := l.vol
	l.mu.Unlock()
	name := filepath.Base(l.out) + " (running)"
	il, err := l.v.AddImage(name, volume.New(name, vol), l.options(vol.Info().DType))
	if err != nil {
		l.v.Dialogs().ShowError(err)
		return
	}
	l.layer.Store(il)
	l.v.Offer().Compare(l.in, il)
}

// options gives the result the input's contrast when both have one
// type (counts and counts).
func (l *volumeLive) options(dt volume.DType) viewer.ImageOptions {
	var o viewer.ImageOptions
	if in, ok := l.in.(*viewer.ImageLayer); ok && in.Volume().DType == dt {
		lo, hi := in.ContrastLimits()
		if hi > lo {
			o.Contrast = [2]float64{lo, hi}
		}
	}
	return o
}

// Done replaces the live layer with the output (hidden if the user hid
// the live layer), or removes it when the run failed or was cancelled
// (it left no output).
func (l *volumeLive) Done(err error) {
	hidden := false
	if il := l.layer.Load(); il != nil {
		hidden = !il.Visible()
		l.v.RemoveLayer(il)
	}
	if err != nil || l.result == "" {
		return
	}
	var res viewer.Layer
	l.v.Batch(func() {
		var oerr error
		if res, oerr = l.v.Open(l.result); oerr != nil {
			err = oerr
			return
		}
		if il, ok := res.(*viewer.ImageLayer); ok {
			if o := l.options(il.Volume().DType); o.Contrast[1] > o.Contrast[0] {
				il.SetContrastLimits(o.Contrast[0], o.Contrast[1])
			}
		}
		if hidden {
			res.SetVisible(false)
		}
		l.v.Offer().Compare(l.in, res)
	})
	if err != nil {
		l.v.Dialogs().ShowError(fmt.Errorf("open the result %s: %w", l.result, err))
	}
}

// pointsLive shows the points found so far as a points layer just above
// the input (in its grid panel), then the output. Other layers keep
// their visibility.
type pointsLive struct {
	v           *viewer.Viewer
	in          viewer.Layer
	out, result string
	mu          sync.Mutex
	pending     []viewer.Point
	layer       *viewer.PointsLayer
	posted      bool
	count       int
	// scores holds a classifier's cell probability of each point it
	// sent, by position: the output may not hold them (cellfinder's XML),
	// and the review needs them.
	scores map[[3]float64]float64
}

// Partial appends the points of a pipeline.Points.
func (l *pointsLive) Partial(e job.Event) {
	c, ok := e.Partial.(pipeline.Points)
	if !ok || len(c) == 0 {
		return
	}
	pts := make([]viewer.Point, len(c))
	for i, x := range c {
		pts[i] = viewer.Point{Z: x.Z, Y: x.Y, X: x.X, Type: x.Type}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range c {
		if x.Scored {
			if l.scores == nil {
				l.scores = map[[3]float64]float64{}
			}
			l.scores[voxelOf(x.Z, x.Y, x.X)] = x.Probability
		}
	}
	l.count += len(pts)
	if l.layer != nil {
		l.layer.Feed().Append(pts...)
		return
	}
	l.pending = append(l.pending, pts...)
	if !l.posted {
		l.posted = true
		l.v.Async().Do(l.addLayer)
	}
}

// addLayer makes the points layer over the input (UI goroutine).
func (l *pointsLive) addLayer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.layer = l.v.AddPoints(filepath.Base(l.out)+" (running)", l.pending)
	l.pending = nil
	l.place(l.layer)
}

// place puts the points just above the volume they were found in, so
// that grid mode draws them in its panel; they stay selected.
func (l *pointsLive) place(pts viewer.Layer) {
	if l.in != nil {
		l.v.PlaceAbove(pts, l.in)
	}
	l.v.Select(pts)
}

// Done replaces the live points with the output's (hidden if the user
// hid the live layer).
func (l *pointsLive) Done(err error) {
	hidden := false
	l.mu.Lock()
	if l.layer != nil {
		hidden = !l.layer.Visible()
		l.v.RemoveLayer(l.layer)
		l.layer = nil
	}
	scores := l.scores
	l.mu.Unlock()
	if err != nil || l.result == "" {
		return
	}
	res, oerr := l.open(scores)
	if oerr != nil {
		l.v.Dialogs().ShowError(fmt.Errorf("open the result %s: %w", l.result, oerr))
		return
	}
	if hidden {
		res.SetVisible(false)
	}
	l.place(res)
}

// open opens the output, with the classifier's probabilities when the
// run sent them and the output is cellfinder's XML, which has no room
// for them (the points it did not classify show as unknown; a CSV
// output holds its own).
func (l *pointsLive) open(scores map[[3]float64]float64) (viewer.Layer, error) {
	if scores == nil || !strings.EqualFold(filepath.Ext(l.result), ".xml") {
		return l.v.Open(l.result)
	}
	return l.v.OpenScored(l.result, func(z, y, x float64) (float64, bool) {
		p, ok := scores[voxelOf(z, y, x)]
		return p, ok
	})
}

// voxelOf keys a point by its voxel, as cellfinder's XML writes it
// (whole voxels, rounded).
func voxelOf(z, y, x float64) [3]float64 {
	return [3]float64{math.Round(z), math.Round(y), math.Round(x)}
}

// matrixLive shows matrices as they fill: a heat-map layer per matrix
// and a plots tab (heat map with colour bar, histogram) chunk by chunk.
type matrixLive struct {
	v      *viewer.Viewer
	inputs []string
	out    string
	plots  *Plots
	// figures are the PNG plots shown in tabs when the run ends.
	figures []string

	mu     sync.Mutex
	rows   int
	mats   map[string][]float64
	order  []string
	labels map[string]pipeline.MatrixChunk
	layers map[string]*viewer.HeatmapLayer
	first  *viewer.HeatmapLayer
	err    error
	shown  bool
}

func newMatrixLive(v *viewer.Viewer, title string, inputs []string, out string) *matrixLive {
	if title == "" {
		title = "Matrices"
	}
	l := &matrixLive{v: v, inputs: inputs, out: out, mats: map[string][]float64{},
		labels: map[string]pipeline.MatrixChunk{}, layers: map[string]*viewer.HeatmapLayer{}}
	l.plots = NewPlots(v, title+": "+filepath.Base(out))
	l.plots.SetNote(fmt.Sprintf("%s: waiting for the first chunk…", strings.Join(inputs, " vs ")))
	return l
}

// Partial stores a pipeline.MatrixChunk, fills its heat-map layer and
// replots.
func (l *matrixLive) Partial(e job.Event) {
	ch, ok := e.Partial.(pipeline.MatrixChunk)
	if !ok || ch.Rows <= 0 || ch.Cols <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if l.rows == 0 {
		l.rows = max(ch.TotalRows, ch.Row0+ch.Rows)
	}
	m, ok := l.mats[ch.Name]
	if !ok {
		m = make([]float64, l.rows*ch.Cols)
		for i := range m {
			m[i] = math.NaN()
		}
		l.mats[ch.Name] = m
		l.labels[ch.Name] = ch
		l.order = append(l.order, ch.Name)
		first := len(l.order) == 1
		name, r, c := ch.Name, l.rows, ch.Cols
		l.v.Async().Do(func() { l.addLayer(name, r, c, first) })
	}
	if ch.Row0+ch.Rows > l.rows || len(m) != l.rows*ch.Cols {
		l.err = fmt.Errorf("chunk of %s rows %d-%d outside the %d x %d matrix", ch.Name, ch.Row0, ch.Row0+ch.Rows, l.rows, ch.Cols)
		return
	}
	copy(m[ch.Row0*ch.Cols:], ch.Values)
	if hl := l.layers[ch.Name]; hl != nil {
		hl.Feed().SetBlock(ch.Row0, 0, ch.Rows, ch.Values)
	}
	l.plots.Set(l.matrix(ch.Name, ch.Cols))
}

func (l *matrixLive) matrix(name string, cols int) Matrix {
	lb := l.labels[name]
	unit := lb.Unit
	if unit == "" {
		unit = name
	}
	return Matrix{Name: name, Unit: unit, XLabel: lb.ColLabel, YLabel: lb.RowLabel, Rows: l.rows, Cols: cols, Values: l.mats[name]}
}

// addLayer adds a matrix's heat-map layer with what is known of it; only
// the first matrix's is visible (UI goroutine).
func (l *matrixLive) addLayer(name string, rows, cols int, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hl, err := l.v.AddHeatmap(name, rows, cols, l.mats[name], viewer.ImageOptions{Colormap: resources.Inferno, Hidden: !first})
	if err != nil {
		l.v.Dialogs().ShowError(err)
		return
	}
	l.layers[name] = hl
	if first {
		l.first = hl
	} else if l.first != nil {
		// Keep the visible (first) matrix selected, not the last added.
		l.v.Select(l.first)
	}
	if !l.shown {
		l.shown = true
		lb := l.labels[name]
		what := fmt.Sprintf("%d x %d", rows, cols)
		if lb.RowLabel != "" && lb.ColLabel != "" {
			what = pipeline.Plural(rows, lb.RowLabel) + " × " + pipeline.Plural(cols, lb.ColLabel)
		}
		src := ""
		if len(l.inputs) > 0 {
			src = filepath.Base(l.inputs[0]) + ": "
		}
		l.plots.SetNote(fmt.Sprintf("%s%s; grey cells are not computed yet.", src, what))
		l.v.Dock().ShowTab(l.plots.Tab())
	}
}

// Done says how the run ended above the plots.
func (l *matrixLive) Done(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		l.plots.SetNote("Cancelled: no output was written; the plots show the chunks computed before.")
	case err != nil:
		l.plots.SetNote("Failed: " + err.Error())
	case l.err != nil:
		l.plots.SetNote("Finished, but the live plots could not follow: " + l.err.Error())
	default:
		what := "1 matrix"
		if len(l.order) != 1 {
			what = fmt.Sprintf("%d matrices", len(l.order))
		}
		l.plots.SetNote(fmt.Sprintf("Finished: %s of %d rows; the results are in %s.", what, l.rows, l.out))
		if len(l.figures) > 0 {
			figs := l.figures
			l.v.Async().Do(func() { showFigures(l.v, figs) })
		}
	}
}

// showFigures adds a tab for each figure file that exists, its image
// fitted to the tab (UI goroutine).
func showFigures(v *viewer.Viewer, paths []string) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		img := canvas.NewImageFromFile(p)
		img.FillMode = canvas.ImageFillContain
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		v.Dock().AddTab(strings.ReplaceAll(name, "_", " "), img)
	}
}
