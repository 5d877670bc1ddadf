package panel

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// The form follows the data: a pipeline's Suggest sees the open layers
// in the order they were opened (the first opened is the signal of a
// pair, the first image a detection suggests), with their voxel sizes
// and, for points, the image they were found in; a pipeline's Follow
// sees the runs that finished (train takes the cubes just exported);
// what the user typed, chose or browsed to stays theirs for the
// session, per pipeline, over switches to other pipelines and new
// suggestions.

// noteLayers numbers the layers the panel has not seen yet in the order
// it sees them: the viewer tells it of each layer as it is added, so
// this is the order they were opened, whatever the user did to the
// stack's order since. Layers already open when the panel was made are
// numbered from the bottom of the stack up (the order they were added).
func (p *Panel) noteLayers() {
	now := map[viewer.Layer]bool{}
	for _, l := range p.v.Layers() {
		now[l] = true
		if _, ok := p.order[l]; !ok {
			p.seq++
			p.order[l] = p.seq
		}
	}
	for l := range p.order {
		if !now[l] {
			delete(p.order, l)
		}
	}
}

// openLayers describes the layers opened from files, in the order they
// were opened (one per spec).
func (p *Panel) openLayers() []pipeline.Layer {
	p.noteLayers()
	layers := p.v.Layers()
	slices.SortStableFunc(layers, func(a, b viewer.Layer) int { return p.order[a] - p.order[b] })
	var out []pipeline.Layer
	seen := map[string]bool{}
	for _, l := range layers {
		spec := viewer.Spec(l)
		if spec == "" || seen[spec] {
			continue
		}
		seen[spec] = true
		d := pipeline.Layer{Spec: spec}
		switch x := l.(type) {
		case *viewer.ImageLayer:
			if vol := x.Volume(); vol != nil && vol.VoxelSize != ([3]float64{}) {
				vs := vol.VoxelSize // a copy: the layer's stays the layer's
				d.VoxelSize = vs[:]
			}
			d.Shape = x.Extent()
		case *viewer.PointsLayer:
			d.Points = true
		}
		out = append(out, d)
	}
	for i := range out {
		if out[i].Points {
			out[i].DetectedOn = p.detectedOn(out[i].Spec, out)
		}
	}
	return out
}

// detectedOn returns the image of open that points (a points file's
// spec) were found in: the input of the job of this session that wrote
// them, else the image they are named after (detect's ch0-cells.xml
// beside the folder ch0, OutputBeside), the longest such name; "" when
// neither says.
func (p *Panel) detectedOn(points string, open []pipeline.Layer) string {
	if src, ok := p.sources[stemKey(points)]; ok {
		for _, l := range open {
			if !l.Points && stemKey(l.Spec) == stemKey(src) {
				return l.Spec
			}
		}
	}
	best, n := "", 0
	pts := absPath(points)
	for _, l := range open {
		if l.Points {
			continue
		}
		img := absPath(l.Spec)
		stem, _ := splitExt(filepath.Base(img))
		prefix := filepath.Join(filepath.Dir(img), stem) + "-"
		if strings.HasPrefix(pts, prefix) && len(prefix) > n {
			best, n = l.Spec, len(prefix)
		}
	}
	return best
}

// noteSources records, for a submitted request, the input each of its
// outputs is named after (its first input argument), for detectedOn.
func (p *Panel) noteSources(pl *Pipeline, req Request) {
	in := ""
	for i, f := range pl.Spec.Args {
		switch {
		case i >= len(req.Args):
		case f.Kind == pipeline.Input && in == "":
			in = req.Args[i]
		case f.Kind == pipeline.Output && in != "" && req.Args[i] != "":
			p.sources[stemKey(req.Args[i])] = in
		}
	}
}

// absPath is a spec's path, absolute and clean, without its dataset.
func absPath(spec string) string {
	path, _ := volume.SplitSpec(strings.TrimSpace(spec))
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// stemKey is a spec's path without its extension: detect's CSV and the
// XML beside it are one result.
func stemKey(spec string) string {
	stem, _ := splitExt(absPath(spec))
	return stem
}

// suggest applies the pipeline's suggestions for the open layers to the
// fields the user has not given a value of their own: the inputs and
// parameters it proposes, and outputs named after the input
// (nameOutputs) unless it proposes its own.
func (p *Panel) suggest() {
	var args []string
	var params map[string]string
	open := p.openLayers()
	if p.cur.Spec.Suggest != nil {
		args, params = p.cur.Spec.Suggest(open)
	}
	if f := p.cur.Spec.Follow; f != nil && len(p.finished) > 0 {
		fa, fp := f(p.finished)
		args, params = overlay(args, params, fa, fp)
	}
	p.applying++
	defer func() { p.applying-- }()
	kept := p.kept[p.cur.Spec.Name]
	for i, f := range p.cur.Spec.Args {
		if _, mine := kept[f.Name]; i < len(args) && args[i] != "" && f.Kind == pipeline.Input && !mine {
			setIfNew(p.fields[f.Name], args[i])
		}
	}
	p.nameOutputs()
	for i, f := range p.cur.Spec.Args {
		if fe := p.fields[f.Name]; i < len(args) && args[i] != "" && f.Kind == pipeline.Output && !fe.edited() {
			p.setOutput(fe, args[i])
		}
	}
	for name, val := range params {
		if _, mine := kept[name]; val != "" && !mine && p.fields[name] != nil {
			setIfNew(p.fields[name], val)
		}
	}
	p.suggestVoxelSize(open, params, kept)
}

// suggestVoxelSize fills a z,y,x voxel-size parameter the spec's Suggest
// left out with the voxel size of the layer of the naming input (or of
// the other channel of its shape, pipeline.VoxelText), so that every form
// with one takes the voxel size the layers know.
func (p *Panel) suggestVoxelSize(open []pipeline.Layer, params, kept map[string]string) {
	const name = "voxel-size"
	fe, in := p.fields[name], p.namingInput()
	_, mine := kept[name]
	_, given := params[name]
	if fe == nil || in == nil || mine || given || fe.f.Kind != pipeline.Floats || fe.f.Len != 3 {
		return
	}
	if val := pipeline.VoxelText(open, in.get()); val != "" {
		setIfNew(fe, val)
	}
}

// overlay lays Follow's suggestions fa, fp over Suggest's args and
// params: its non-empty values win (the data just written over the
// layers open).
func overlay(args []string, params map[string]string, fa []string, fp map[string]string) ([]string, map[string]string) {
	out := slices.Clone(args)
	for i, a := range fa {
		for len(out) <= i {
			out = append(out, "")
		}
		if a != "" {
			out[i] = a
		}
	}
	merged := maps.Clone(params)
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range fp {
		if v != "" {
			merged[k] = v
		}
	}
	return out, merged
}

// setIfNew sets a field unless it already holds val (so that a
// suggestion made again replans nothing).
func setIfNew(fe *fieldEditor, val string) {
	if fe.get() != val {
		fe.set(val)
	}
}

// keep records a value the user gave a field of the current pipeline.
func (p *Panel) keep(fe *fieldEditor) {
	if p.applying > 0 || p.cur == nil {
		return
	}
	name := p.cur.Spec.Name
	if p.kept[name] == nil {
		p.kept[name] = map[string]string{}
	}
	p.kept[name][fe.f.Name] = fe.get()
}

// restore gives the fields of the current pipeline the values the user
// gave them before (an output numbered if its name is now taken, as
// freshOutputs does).
func (p *Panel) restore() {
	p.applying++
	defer func() { p.applying-- }()
	kept := p.kept[p.cur.Spec.Name]
	// Inputs first: a restored input renames the outputs that follow
	// it, which a restored output then overrides.
	for _, pass := range []bool{false, true} {
		for name, val := range kept {
			fe := p.fields[name]
			if fe == nil || (fe.f.Kind == pipeline.Output) != pass {
				continue
			}
			if pass && val != "" {
				fe.user, fe.base = true, val
				val = p.unclaimed(val)
				fe.auto = val
			}
			setIfNew(fe, val)
		}
	}
}

// resuggest follows a change of the open layers (opened, closed, a
// voxel size set): the suggestions are made again for the fields the
// user has not set.
func (p *Panel) resuggest() {
	if p.cur == nil || p.closed || p.selecting {
		return
	}
	p.suggest()
}

// showEnd puts a path entry's cursor at the end of its text, so that a
// path longer than the field shows its end (the file name, where two
// suggestions differ) rather than its start.
func showEnd(e *widget.Entry) {
	n := len([]rune(e.Text))
	if e.CursorRow == 0 && e.CursorColumn == n {
		return
	}
	e.CursorRow, e.CursorColumn = 0, n
	e.Refresh()
}
