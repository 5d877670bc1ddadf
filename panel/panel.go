package panel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// PanelOptions tune a processing panel; zero values take the defaults.
type PanelOptions struct {
	// Probe describes the device a backend choice opens (default: open
	// it with gpu.Open and read its Info).
	Probe DeviceProbe
	// BandwidthBytes is the size of the Measure button's copies (0:
	// gpu.DefaultBandwidthBytes).
	BandwidthBytes int64
	// PlanDelay is how long edits must pause before the plan is
	// recomputed (default 300 ms).
	PlanDelay time.Duration
}

// progressInterval spaces the job list's updates: at most 20 a second
// (docs/ARCHITECTURE.md, Rules), however often a pipeline reports.
const progressInterval = 50 * time.Millisecond

// Panel is the processing panel, docked right of the canvas: choose a
// pipeline, its inputs (open layers or files) and parameters, the device
// settings; see the plan; run. Jobs queue (one at a time per device) and
// are listed with live progress; their partial results appear in the
// viewer while they run. Its methods run on the UI goroutine.
type Panel struct {
	v         *viewer.Viewer
	opts      PanelOptions
	pipelines []*Pipeline
	cur       *Pipeline

	choose   *widget.Select
	summary  *widget.Label
	args     *fyne.Container
	params   *fyne.Container
	advanced *fyne.Container
	fields   map[string]*fieldEditor
	dev      *deviceControls
	cl       *clusterControls
	pv       *planView
	runBtn   *widget.Button
	// cancelBtn cancels the newest job not ended; with Run it sits in a
	// bar under the form that never scrolls away.
	cancelBtn *widget.Button
	jobs      *JobList
	form      *fyne.Container
	scroll    *container.Scroll
	root      fyne.CanvasObject

	ctx    context.Context
	cancel context.CancelFunc
	queue  *job.Queue
	async  sync.WaitGroup

	// offset is where the user scrolled the form; relayingOut is set
	// while relayout moves it back there.
	offset      fyne.Position
	relayingOut bool

	planGen   int
	planTimer *time.Timer
	// planning: edits are waiting for a plan, or one is computing.
	planning bool
	planErr  error
	closed   bool
	// closeOnce runs Close once; a second call waits for the first to
	// end. After a signal Fyne ends the event loop itself and runs
	// queued callbacks on their callers' goroutines, so the app's Close
	// after the loop may race the one its quit handler started.
	closeOnce sync.Once
	// clusterRuns numbers the runs submitted to a cluster.
	clusterRuns int

	// order numbers the layers in the order they were opened, seq the
	// last number given (noteLayers); sources maps the outputs of this
	// session's jobs (stemKey) to the input each was named after.
	order   map[viewer.Layer]int
	seq     int
	sources map[string]string
	// kept holds, per pipeline (its command), the values the user gave
	// its fields this session; applying counts the panel's own settings
	// of fields in progress (defaults, suggestions), which are not the
	// user's; selecting is set while Select builds a form.
	kept      map[string]map[string]string
	applying  int
	selecting bool
	// resuggestPosted: layersChanged has posted its second look.
	resuggestPosted bool
	// sweep is the box of the last sweep opened (sweep.go).
	sweep *sweepBox
	// finished are the runs of this session that finished, in the
	// order they ended, for the specs' Follow.
	finished []pipeline.Finished
}

// NewPanel builds a processing panel for pipelines and docks it in v as
// the "Process" tab.
func NewPanel(v *viewer.Viewer, opts PanelOptions, pipelines ...*Pipeline) *Panel {
	if opts.Probe == nil {
		opts.Probe = probeDevice
	}
	if opts.PlanDelay <= 0 {
		opts.PlanDelay = 300 * time.Millisecond
	}
	p := &Panel{v: v, opts: opts, pipelines: pipelines, fields: map[string]*fieldEditor{},
		order: map[viewer.Layer]int{}, sources: map[string]string{}, kept: map[string]map[string]string{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.queue = job.NewQueue(p.ctx, func(e job.Entry) { v.Async().Do(func() { p.jobs.changed(e) }) })
	var names []string
	for _, pl := range pipelines {
		names = append(names, pl.Name())
	}
	p.summary = widgets.WrapLabel("", widget.LowImportance)
	p.args = container.NewVBox()
	p.params = container.NewVBox()
	p.advanced = container.NewVBox()
	p.pv = newPlanView()
	p.jobs = newJobList(p)
	p.runBtn = widgets.NewButton(v.Window(), "Run", theme.MediaPlayIcon(), func() {
		if _, err := p.Run(); err != nil {
			p.v.Dialogs().ShowError(err)
		}
	})
	p.runBtn.Importance = widget.HighImportance
	p.dev = newDeviceControls(p)
	p.cl = newClusterControls(p)
	p.sweep = newSweepBox(p)
	p.choose = widget.NewSelect(names, func(name string) {
		p.Select(name)
		widgets.Refocus(v.Window(), false)
	})

	p.cancelBtn = widgets.NewButton(v.Window(), "Cancel", theme.CancelIcon(), p.cancelNewest)
	p.cancelBtn.Disable()
	more := widget.NewAccordion(widget.NewAccordionItem("More parameters", p.advanced))
	p.form = container.NewVBox(
		heading("Pipeline"), p.choose, p.summary, p.sweep.box,
		heading("Inputs and outputs"), p.args,
		heading("Parameters"), p.params, more,
		heading("Device"), p.dev.box,
		p.cl.box,
		heading("Plan"), p.pv.box,
	)
	p.scroll = widgets.PanelScroll(container.NewPadded(p.form))
	p.scroll.OnScrolled = func(off fyne.Position) {
		if !p.relayingOut {
			p.offset = off
		}
	}
	// Run and Cancel stay in view whatever the form's length or scroll
	// (at 1280 x 800 the form is several screens long).
	actions := container.NewPadded(container.NewBorder(widget.NewSeparator(), nil, nil, p.cancelBtn, p.runBtn))
	split := container.NewVSplit(container.NewBorder(nil, actions, nil, nil, p.scroll), p.jobs.box)
	split.Offset = 0.7
	p.root = split
	v.OnLayersChanged(func(edited bool) {
		if edited {
			p.resuggest()
		} else {
			p.layersChanged()
		}
	})
	if len(pipelines) > 0 {
		p.choose.SetSelected(pipelines[0].Name())
	}
	v.Dock().AddPanel("Process", p.root)
	return p
}

func heading(s string) fyne.CanvasObject {
	return container.NewVBox(widget.NewSeparator(), widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
}

// relayout lays the form out again: Fyne does not tell a container when
// a child is shown or hidden (messages appear and go beside fields). The
// form stays where the user scrolled it: a part that shrinks for a
// moment (the plan while it is computed) would otherwise pull the
// scroll back for good.
func (p *Panel) relayout() {
	p.relayingOut = true
	p.form.Refresh()
	p.scroll.Refresh()
	if p.scroll.Offset != p.offset {
		p.scroll.ScrollToOffset(p.offset)
	}
	p.relayingOut = false
}

// cancelNewest cancels the job submitted last that has not ended (the
// Cancel button beside Run).
func (p *Panel) cancelNewest() {
	if id := p.jobs.newestActive(); id > 0 {
		p.jobs.Cancel(id)
	}
	p.updateCancel()
}

// updateCancel enables Cancel while a job is queued or running (the
// newest, listed at the top of Jobs; its name is not on the button, which
// would widen the dock under the user).
func (p *Panel) updateCancel() {
	id := p.jobs.newestActive()
	if id == 0 {
		p.cancelBtn.Disable()
		return
	}
	if r := p.jobs.rows[id]; r.cancelling {
		p.cancelBtn.Disable()
	} else {
		p.cancelBtn.Enable()
	}
}

// CancelButton returns the Cancel button beside Run.
func (p *Panel) CancelButton() *widget.Button { return p.cancelBtn }

// ShowPlan scrolls the form to the plan preview.
func (p *Panel) ShowPlan() {
	d := fyne.CurrentApp().Driver()
	p.relayout()
	y := d.AbsolutePositionForObject(p.pv.box).Y - d.AbsolutePositionForObject(p.form).Y
	p.scroll.ScrollToOffset(fyne.NewPos(0, max(y-50, 0)))
	p.offset = p.scroll.Offset
}

// Object returns the panel's root object.
func (p *Panel) Object() fyne.CanvasObject { return p.root }

// Jobs returns the job list.
func (p *Panel) Jobs() *JobList { return p.jobs }

// Pipeline returns the chosen pipeline.
func (p *Panel) Pipeline() *Pipeline { return p.cur }

// Select chooses a pipeline by its name or command and shows its form,
// with its defaults, the suggestions for the open layers and the values
// the user gave its fields before.
func (p *Panel) Select(name string) error {
	var pl *Pipeline
	for _, x := range p.pipelines {
		if x.Name() == name || x.Spec.Name == name {
			pl = x
		}
	}
	if pl == nil {
		return fmt.Errorf("no pipeline %q", name)
	}
	if pl == p.cur {
		return nil
	}
	p.cur = pl
	p.selecting = true
	defer func() { p.selecting = false }()
	if p.choose.Selected != pl.Name() {
		p.choose.SetSelected(pl.Name())
	}
	p.summary.SetText(pl.Spec.Summary)
	p.fields = map[string]*fieldEditor{}
	p.args.Objects, p.params.Objects, p.advanced.Objects = nil, nil, nil
	for _, f := range pl.Spec.Args {
		fe := p.newFieldEditor(f, true)
		p.fields[f.Name] = fe
		p.args.Add(fe.box)
	}
	for _, f := range pl.Spec.Params {
		fe := p.newFieldEditor(f, false)
		p.fields[f.Name] = fe
		if f.Advanced {
			p.advanced.Add(fe.box)
		} else {
			p.params.Add(fe.box)
		}
	}
	p.dev.setBatchField(pl.Spec.Batch)
	p.cl.show(pl)
	p.offerLayers()
	p.suggest()
	p.restore()
	for _, fe := range p.fields {
		fe.checkErr = p.check(fe)
		fe.render()
	}
	p.args.Refresh()
	p.params.Refresh()
	p.advanced.Refresh()
	p.changed()
	return nil
}

// layersChanged offers the open layers as inputs, in the order they
// were opened, and suggests again.
func (p *Panel) layersChanged() {
	p.sweepLayersChanged()
	p.offerLayers()
	// The viewer tells of a layer as it adds it, before it records the
	// file the layer was opened from: look again once that is done.
	if !p.resuggestPosted {
		p.resuggestPosted = true
		p.v.Async().Do(func() {
			p.resuggestPosted = false
			if p.closed {
				return
			}
			p.offerLayers()
			p.resuggest()
		})
	}
}

// offerLayers offers the files of the open layers on every input.
func (p *Panel) offerLayers() {
	var specs []string
	for _, l := range p.openLayers() {
		specs = append(specs, l.Spec)
	}
	for _, fe := range p.fields {
		if fe.options != nil {
			fe.options(specs)
		}
	}
}

// OutputBeside names the output of a run on input: beside it, in the
// same folder (made absolute, so that a run never writes a bare name
// into whatever folder voxlab was started in), its stem joined to name
// ("scan.nxs" and "dezinged.h5" give "scan-dezinged.h5", a folder of
// planes and "cells.csv" "planes-cells.csv", "gt.npy" and "distances"
// "gt-distances"). An HDF5 dataset in the spec is left out; "" for no
// input.
func OutputBeside(input, name string) string {
	path, _ := volume.SplitSpec(strings.TrimSpace(input))
	path = strings.TrimRight(path, string(filepath.Separator))
	if path == "" || name == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	stem, _ := splitExt(filepath.Base(path))
	return filepath.Join(filepath.Dir(path), stem+"-"+name)
}

// splitExt splits path before its extension. OME's double extensions
// name the format, not the data, and count as one: x.ome.zarr and
// x.ome.tif give x-dezinged.h5, not x.ome-dezinged.h5, and the name
// after out.ome.zarr is out-2.ome.zarr, not out.ome-2.zarr.
func splitExt(path string) (stem, ext string) {
	ext = filepath.Ext(path)
	stem = strings.TrimSuffix(path, ext)
	if n := len(stem) - len(".ome"); n > 0 && !os.IsPathSeparator(stem[n-1]) && strings.EqualFold(stem[n:], ".ome") {
		stem, ext = stem[:n], stem[n:]+ext
	}
	return stem, ext
}

// namingInput returns the field outputs are named after: the first
// input argument (the scan, the volume, the ground truth), or nil.
func (p *Panel) namingInput() *fieldEditor {
	for _, f := range p.cur.Spec.Args {
		if f.Kind == pipeline.Input {
			return p.fields[f.Name]
		}
	}
	return nil
}

// nameOutputs names each output the user has not edited after the
// naming input (OutputBeside with the field's default name), numbered
// if that is taken; with no input, such outputs are left empty.
func (p *Panel) nameOutputs() {
	in := p.namingInput()
	for _, f := range p.cur.Spec.Args {
		fe := p.fields[f.Name]
		if f.Kind != pipeline.Output || fe.edited() {
			continue
		}
		base := ""
		if in != nil {
			base = OutputBeside(in.get(), f.DefaultText())
		}
		p.setOutput(fe, base)
	}
}

// setOutput sets an output field to the first free name numbered from
// base, as the panel's own name (it follows the input).
func (p *Panel) setOutput(fe *fieldEditor, base string) {
	p.applying++
	defer func() { p.applying-- }()
	fe.user, fe.base = false, base
	v := ""
	if base != "" {
		v = p.unclaimed(base)
	}
	fe.auto = v
	fe.set(v)
}

// freshOutputs gives each output a free name after a run was submitted
// or ended (its output claimed or on disk), numbered from the name it was
// last given, by the panel or the user, so that names never pile up
// suffixes ("scan-dezinged-3.h5", not "scan-dezinged-2-2.h5"). A user's
// name numbered stays the user's.
func (p *Panel) freshOutputs() {
	p.applying++
	defer func() { p.applying-- }()
	for _, f := range p.cur.Spec.Args {
		fe := p.fields[f.Name]
		if f.Kind != pipeline.Output || fe.get() == "" || fe.base == "" {
			continue
		}
		if v := p.unclaimed(fe.base); v != fe.get() {
			fe.auto = v
			fe.set(v)
		}
	}
}

// unclaimed returns path, or path numbered -2, -3, … before its
// extension, so that it is neither on disk nor the output of a job that
// has not ended: two queued runs never write the same file.
func (p *Panel) unclaimed(path string) string {
	stem, ext := splitExt(path)
	for i := 1; ; i++ {
		c := path
		if i > 1 {
			c = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		if _, err := os.Lstat(c); os.IsNotExist(err) && !p.jobs.claims(c) {
			return c
		}
	}
}

// Set sets a field as the user would: an argument or parameter by its
// name, a device control ("backend", "pin-memory", the block-size
// flag, "device-memory", "host-memory"), or where it runs ("run-on":
// RunHere or RunCluster, "tasks", "partition", "gres", "time").
func (p *Panel) Set(name, value string) error {
	if fe, ok := p.fields[name]; ok {
		fe.set(value)
		if fe.get() != value && fe.f.Kind != pipeline.Multi {
			return fmt.Errorf("%s: %q is not one of its choices", name, value)
		}
		return nil
	}
	if ok, err := p.cl.set(name, value); ok {
		return err
	}
	d := p.dev
	switch name {
	case "backend":
		d.backend.SetSelected(value)
	case "pin-memory":
		d.pin.SetChecked(value == "true")
	case p.cur.Spec.Batch.Flag, "batch":
		d.batch.SetText(value)
	case "device-memory":
		d.devMem.SetText(value)
	case "host-memory":
		d.hostMem.SetText(value)
	default:
		return fmt.Errorf("%s has no field %q", p.cur.Name(), name)
	}
	return nil
}

// Field returns the widget editing a field (an Entry, Select, Check,
// CheckGroup or SelectEntry), or nil.
func (p *Panel) Field(name string) fyne.CanvasObject {
	if fe, ok := p.fields[name]; ok {
		return fe.widget
	}
	return nil
}

// FieldError returns the message shown beside a field ("" when none).
func (p *Panel) FieldError(name string) string {
	if fe, ok := p.fields[name]; ok && !fe.msg.Hidden {
		return fe.msg.Text
	}
	return ""
}

// RunButton returns the Run button.
func (p *Panel) RunButton() *widget.Button { return p.runBtn }

// Request returns the run the panel describes, or the first thing wrong
// with it.
func (p *Panel) Request() (Request, error) {
	if p.cur == nil {
		return Request{}, errors.New("no pipeline chosen")
	}
	r := Request{Command: p.cur.Spec.Name, Values: p.cur.Spec.Defaults(), Device: p.dev.device()}
	var first error
	note := func(name string, err error) {
		if err != nil && first == nil {
			first = fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, f := range p.cur.Spec.Args {
		fe := p.fields[f.Name]
		note(f.Title(), fe.checkErr)
		r.Args = append(r.Args, fe.get())
	}
	for _, f := range p.cur.Spec.Params {
		fe := p.fields[f.Name]
		note(f.Title(), fe.checkErr)
		if v, err := f.Parse(fe.get()); err == nil {
			r.Values[f.Name] = v
		} else {
			note(f.Title(), err)
		}
	}
	if err := p.dev.check(); err != nil {
		note("device", err)
	}
	var err error
	r.Cluster, err = p.cl.options()
	note("cluster", err)
	return r, first
}

// changed schedules a new plan once edits pause.
func (p *Panel) changed() {
	if p.cur == nil || p.closed {
		return
	}
	p.planGen++
	p.planning = true
	p.updateRun()
	p.relayout()
	gen := p.planGen
	if p.planTimer != nil {
		p.planTimer.Stop()
	}
	p.planTimer = time.AfterFunc(p.opts.PlanDelay, func() { p.v.Async().Do(func() { p.startPlan(gen) }) })
}

// startPlan plans the current request off the UI goroutine.
func (p *Panel) startPlan(gen int) {
	if gen != p.planGen || p.closed {
		return
	}
	req, err := p.Request()
	p.pv.cmd.SetText(req.CommandLine(p.cur))
	if err != nil {
		p.planDone(gen, nil, err)
		return
	}
	if p.dev.dev.Backend == "" && p.dev.probeErr == nil {
		// The device probe replans when it answers.
		p.pv.clear("Looking for the device…")
		p.relayout()
		return
	}
	if p.dev.probeErr != nil {
		p.planDone(gen, nil, p.dev.probeErr)
		return
	}
	pl := p.cur
	p.pv.clear("Planning…")
	p.relayout()
	p.goAsync(func() {
		pp, err := pl.Plan(p.ctx, req)
		err = pl.worded(err)
		pl.wordPlan(pp)
		p.v.Async().Do(func() { p.planDone(gen, pp, err) })
	})
}

// planDone shows a finished plan, or its error beside the field it is
// about.
func (p *Panel) planDone(gen int, pp *plan.Plan, err error) {
	if gen != p.planGen || p.closed {
		return
	}
	p.planning = false
	p.planErr = err
	for _, fe := range p.fields {
		if fe.planErr != nil {
			fe.planErr = nil
			fe.render()
		}
	}
	if err != nil {
		p.pv.fail(err)
		name := fieldOfError(err)
		if name == "" {
			name = p.cur.fieldOf(err.Error())
		}
		if fe, ok := p.fields[name]; ok && fe.checkErr == nil {
			fe.planErr = err
			fe.render()
		}
	} else {
		p.pv.show(pp)
		p.dev.warnBatch(pp.Warnings)
	}
	p.updateRun()
	p.relayout()
}

// Planning reports whether a plan is pending or computing.
func (p *Panel) Planning() bool { return p.planning }

// Plan returns the plan on show, or nil.
func (p *Panel) Plan() *plan.Plan { return p.pv.last }

// PlanError returns why there is no plan (nil when there is one, or one
// is still computing).
func (p *Panel) PlanError() error { return p.planErr }

// updateRun enables Run when the request is valid and planned.
func (p *Panel) updateRun() {
	switch {
	case p.planning:
		p.runBtn.SetText("Run (planning…)")
		p.runBtn.Disable()
	case p.planErr != nil && !p.clusterReady():
		p.runBtn.SetText("Run")
		p.runBtn.Disable()
	default:
		p.runBtn.SetText("Run")
		p.runBtn.Enable()
	}
}

// clusterReady reports whether a run on the cluster is chosen and its
// request is valid: the plan on show is this machine's, so failing to
// plan here (no GPU on this machine) does not stop a cluster run, whose
// tasks plan on their nodes; a plan error about the request itself
// (RequestError: an output over an input) does.
func (p *Panel) clusterReady() bool {
	var re *RequestError
	if !p.cl.onCluster() || errors.As(p.planErr, &re) {
		return false
	}
	_, err := p.Request()
	return err == nil
}

// jobRef names a submitted job for its sinks; id is set (on the UI
// goroutine) before any of their posted callbacks run there.
type jobRef struct{ id int }

// Run submits the panel's request to the queue and lists it; it returns
// the job's id. Partial results go to the pipeline's Live as they come.
func (p *Panel) Run() (int, error) {
	if p.planning {
		return 0, errors.New("the plan is not ready yet")
	}
	req, err := p.Request()
	if p.planErr != nil && !p.clusterReady() {
		return 0, fmt.Errorf("cannot run: %w", p.planErr)
	}
	if err != nil {
		return 0, err
	}
	return p.Submit(req)
}

// Submit queues a request as it is (without the panel's plan check).
func (p *Panel) Submit(req Request) (int, error) {
	var pl *Pipeline
	for _, x := range p.pipelines {
		if x.Spec.Name == req.Command {
			pl = x
		}
	}
	if pl == nil {
		return 0, fmt.Errorf("no pipeline %q", req.Command)
	}
	var live Live
	switch {
	case pl.Live != nil:
		live = pl.Live(p.v, req)
	default:
		if live = newSweepLive(p, pl.Spec, req); live == nil {
			live = NewLive(p.v, pl.Spec, req.Args)
		}
		if ml, ok := live.(*metricsLive); ok {
			ml.offerNext(p, pl.Spec.Live.Next, req)
		}
	}
	name := pl.Spec.Name
	if len(req.Args) > 0 {
		name += " " + filepath.Base(req.Args[0])
	}
	ref := &jobRef{}
	ui := job.Throttle(func(e job.Event) {
		if e.Kind == job.Warning {
			e.Message = pl.Words(e.Message)
		}
		if e.Kind != job.Partial {
			p.v.Async().Do(func() { p.event(ref.id, e) })
		}
	}, progressInterval)
	var once sync.Once
	partial := func(e job.Event) {
		if e.Kind != job.Partial || live == nil {
			return
		}
		defer func() {
			if x := recover(); x != nil {
				once.Do(func() {
					p.v.Async().Do(func() { p.v.Dialogs().ShowError(fmt.Errorf("showing partial results of %s: %v", name, x)) })
				})
			}
		}()
		live.Partial(e)
	}
	var outs []string
	for i, f := range pl.Spec.Args {
		if f.Kind == pipeline.Output && i < len(req.Args) {
			outs = append(outs, req.Args[i])
		}
	}
	device, run := p.dev.key(), pl.Run
	if req.Cluster != nil {
		if pl.RunCluster == nil {
			return 0, fmt.Errorf("%s cannot run on a cluster", pl.Name())
		}
		// SLURM queues the tasks: each cluster run gets its own key, so
		// none waits in this queue for another, or for a local job.
		p.clusterRuns++
		device, run = fmt.Sprintf("slurm #%d", p.clusterRuns), pl.RunCluster
		name = "slurm: " + name
	}
	t := p.queue.Submit(name, device, func(ctx context.Context, pr *job.Progress) error {
		return pl.worded(run(ctx, req, pr))
	}, partial, ui)
	ref.id = t.ID
	p.noteSources(pl, req)
	p.jobs.add(t.ID, name, device, outs, live).req = req
	if pl == p.cur {
		p.freshOutputs()
	}
	return t.ID, nil
}

// event applies a job's (throttled) event on the UI goroutine.
func (p *Panel) event(id int, e job.Event) {
	switch {
	case e.Kind == job.Warning:
		p.jobs.warning(id, e.Message)
	case e.Kind == job.Note:
		p.jobs.note(id, e.Message)
	case e.Kind.Terminal():
		if r, ok := p.jobs.rows[id]; ok {
			p.jobs.end(r, e)
		}
	default:
		p.jobs.progress(id, e)
	}
}

// Cancel cancels job id (a queued one leaves the queue).
func (p *Panel) Cancel(id int) bool { return p.queue.Cancel(id) }

// Busy reports whether a job is queued or running.
func (p *Panel) Busy() bool {
	for _, st := range p.jobs.Statuses() {
		if !st.State.Ended() {
			return true
		}
	}
	return false
}

// Close cancels every job and waits for them to stop (their outputs are
// removed) and for the panel's background work. Calls after the first
// wait for it to end.
func (p *Panel) Close() {
	p.closeOnce.Do(func() {
		p.closed = true
		if p.planTimer != nil {
			p.planTimer.Stop()
		}
		p.queue.CancelAll()
		p.cancel()
		p.async.Wait()
	})
}

// goAsync runs f on its own goroutine; Close waits for it.
func (p *Panel) goAsync(f func()) {
	p.async.Add(1)
	go func() {
		defer p.async.Done()
		f()
	}()
}

// showInfo shows a help text in a dialog that wraps it and closes on
// Enter, Escape or Space.
func (p *Panel) showInfo(title, text string) {
	p.v.Dialogs().Show("info", title, theme.InfoIcon(), text, []viewer.DialogButton{{Label: "Close", Importance: widget.HighImportance}}, 0, 0)
}
