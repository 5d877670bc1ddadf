package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
)

// guiSpec is what the processing panel and `voxlab run` need of a
// pipeline beyond its flags: a display name, its positional arguments,
// which flags come first and their choices, and how its results show.
// Parameters keep their flag names and defaults, read from the command's
// own flag set, so the panel, the command line and YAML files agree.
type guiSpec struct {
	name    string
	command string
	// args are the positional arguments, named as YAML steps name them.
	args []panel.Field
	// basic flags are shown first, in this order; the others go under
	// "More parameters".
	basic []string
	// choices and multi give the values of flags with a fixed set;
	// inputs names flags that are input files.
	choices, multi map[string][]string
	inputs         map[string]bool
	labels         map[string]string
	batchLabel     string
	suggest        func(open []string) ([]string, map[string]string)
	live           func(v *viewer.Viewer, r panel.Request) panel.Live
}

// guiSpecs are the pipelines the panel offers, in its order; the
// gui_<pipeline>.go files add theirs from init.
var guiSpecs []*guiSpec

func registerGUI(s *guiSpec) { guiSpecs = append(guiSpecs, s) }

// sharedFlags are set by the panel's device controls or mean nothing in
// it: they are not pipeline parameters.
var sharedFlags = map[string]bool{
	"backend": true, "pin-memory": true, "device-memory": true, "host-memory": true,
	"batch-size": true, "chunk-size": true, "quiet": true, "json": true, "task": true,
}

// newFlags declares a pipeline's flags on a fresh set and returns its
// planner and runner bound to them.
func newFlags(p *pipelineCmd) (*flag.FlagSet, *outputFlags, planFunc, runFunc) {
	fs := flag.NewFlagSet("voxlab "+p.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := addOutputFlags(fs)
	planFn, runFn := p.bind(fs, out)
	return fs, out, planFn, runFn
}

// batchFlag returns the name of the pipeline's block-size flag.
func batchFlag(fs *flag.FlagSet) string {
	for _, n := range []string{"batch-size", "chunk-size"} {
		if fs.Lookup(n) != nil {
			return n
		}
	}
	return ""
}

// guiOrder is the order of the panel's pipeline chooser: the data flows
// of the demo, raw scan first.
var guiOrder = []string{"dezing", "detect", "distance"}

// guiPipelines returns the panel's pipelines in guiOrder (others after),
// skipping specs whose command is not registered.
func guiPipelines() []*panel.Pipeline {
	specs := slices.Clone(guiSpecs)
	rank := func(s *guiSpec) int {
		if i := slices.Index(guiOrder, s.command); i >= 0 {
			return i
		}
		return len(guiOrder)
	}
	sort.SliceStable(specs, func(i, j int) bool { return rank(specs[i]) < rank(specs[j]) })
	var out []*panel.Pipeline
	for _, s := range specs {
		if p, ok := pipelines[s.command]; ok {
			out = append(out, s.pipeline(p))
		}
	}
	return out
}

// pipeline builds the panel's description of p from its flags.
func (s *guiSpec) pipeline(p *pipelineCmd) *panel.Pipeline {
	fs, _, _, _ := newFlags(p)
	vp := &panel.Pipeline{
		Name: s.name, Command: p.name, Summary: p.summary, Args: s.args,
		Batch:   panel.Field{Name: batchFlag(fs), Label: s.batchLabel, Default: "auto"},
		Suggest: s.suggest,
	}
	rank := map[string]int{}
	for i, n := range s.basic {
		rank[n] = i + 1
	}
	fs.VisitAll(func(f *flag.Flag) {
		if sharedFlags[f.Name] {
			return
		}
		vp.Params = append(vp.Params, s.field(f, rank[f.Name] == 0))
	})
	sort.SliceStable(vp.Params, func(i, j int) bool {
		ri, rj := rank[vp.Params[i].Name], rank[vp.Params[j].Name]
		switch {
		case ri == 0 || rj == 0:
			return ri != 0 && rj == 0
		}
		return ri < rj
	})
	vp.Check = func(name, value string) error { return checkFlag(p, name, value) }
	vp.Plan = func(ctx context.Context, r panel.Request) (*plan.Plan, error) {
		fs, _, planFn, _ := newFlags(p)
		if err := applyRequest(fs, vp, r); err != nil {
			return nil, err
		}
		pl, err := planFn(ctx, &env{stdout: io.Discard, stderr: io.Discard}, r.Args)
		if iocheck.IsClash(err) {
			// Shown beside the output, and no cluster run either.
			return nil, &panel.RequestError{Field: outputField(vp), Err: err}
		}
		return pl, plainError(err)
	}
	vp.Run = func(ctx context.Context, r panel.Request, prog *job.Progress) error {
		return runRequest(ctx, p, vp, r, prog)
	}
	vp.RunCluster = clusterRunner(p, vp)
	if s.live != nil {
		vp.Live = s.live
	}
	return vp
}

// outputField names the pipeline's (first) output argument.
func outputField(vp *panel.Pipeline) string {
	for _, f := range vp.Args {
		if f.Kind == panel.OutputField {
			return f.Name
		}
	}
	return ""
}

// field describes flag f for the panel.
func (s *guiSpec) field(f *flag.Flag, advanced bool) panel.Field {
	fd := panel.Field{Name: f.Name, Label: s.labels[f.Name], Help: f.Usage, Default: f.DefValue, Advanced: advanced}
	if fd.Label == "" {
		fd.Label = strings.ToUpper(f.Name[:1]) + strings.ReplaceAll(f.Name[1:], "-", " ")
	}
	switch {
	case isBoolFlag(f):
		fd.Kind = panel.BoolField
	case s.choices[f.Name] != nil:
		fd.Kind, fd.Options = panel.ChoiceField, s.choices[f.Name]
	case s.multi[f.Name] != nil:
		fd.Kind, fd.Options = panel.MultiField, s.multi[f.Name]
	case s.inputs[f.Name]:
		fd.Kind, fd.Optional = panel.InputField, true
	}
	return fd
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// checkFlag checks one flag value the way the command's parser would,
// saying what it wants instead of flag's "parse error".
func checkFlag(p *pipelineCmd, name, value string) error {
	fs, _, _, _ := newFlags(p)
	f := fs.Lookup(name)
	if f == nil {
		return nil
	}
	if err := fs.Set(name, value); err != nil {
		switch fmt.Sprintf("%T", f.Value) {
		case "*flag.intValue", "*flag.int64Value", "*flag.uintValue":
			return fmt.Errorf("%q: want a whole number", value)
		case "*flag.float64Value":
			return fmt.Errorf("%q: want a number", value)
		}
		return fmt.Errorf("%q: %v", value, err)
	}
	return nil
}

// applyRequest sets a request's parameters and device settings on the
// pipeline's flags.
func applyRequest(fs *flag.FlagSet, vp *panel.Pipeline, r panel.Request) error {
	set := func(name, value string) error {
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("--%s %q: %v", name, value, err)
		}
		return nil
	}
	for name, v := range r.Params {
		if fs.Lookup(name) == nil {
			return fmt.Errorf("%s has no parameter %q", vp.Command, name)
		}
		if err := set(name, v); err != nil {
			return err
		}
	}
	d := r.Device
	pairs := [][2]string{{"backend", d.Backend}, {"pin-memory", fmt.Sprint(d.Pin)}, {"device-memory", d.DeviceMemory}, {"host-memory", d.HostMemory}}
	if vp.Batch.Name != "" {
		pairs = append(pairs, [2]string{vp.Batch.Name, d.Batch})
	}
	for _, kv := range pairs {
		if kv[1] == "" {
			continue
		}
		if err := set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// runRequest runs a request through the pipeline's command, exactly as
// `voxlab CMD` would, with its job's events relayed to prog (the panel's
// queued job) and partial results asked for.
func runRequest(ctx context.Context, p *pipelineCmd, vp *panel.Pipeline, r panel.Request, prog *job.Progress) error {
	fs, out, _, runFn := newFlags(p)
	if err := applyRequest(fs, vp, r); err != nil {
		return err
	}
	// --json keeps the terminal progress bar away; the summary goes to a
	// buffer nobody reads.
	out.json = true
	var stderr strings.Builder
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &sinkGuard{sink: relay(prog), cancel: cancel, job: p.name}
	e := &env{stdout: io.Discard, stderr: &stderr, sinks: []job.Sink{g.handle}, partials: true, inGUI: true}
	err := runFn(ctx, e, r.Args)
	if perr := g.panicked(); perr != nil {
		return perr
	}
	return plainError(err)
}

// sinkGuard runs the panel's sinks inside the command's job so that a
// panic in one (UI code, run in place on the job's goroutine once Fyne's
// event loop has ended) cannot unwind through the pipeline and skip its
// abort path, which removes the temporary output: the panic cancels the
// run instead, which then cleans up and ends, and the job fails with it.
type sinkGuard struct {
	sink   job.Sink
	cancel context.CancelFunc
	job    string

	mu  sync.Mutex
	err *job.PanicError
}

func (g *sinkGuard) handle(e job.Event) {
	if g.panicked() != nil {
		return
	}
	defer func() {
		if x := recover(); x != nil {
			g.mu.Lock()
			g.err = &job.PanicError{Job: g.job, Value: x, Stack: debug.Stack()}
			g.mu.Unlock()
			g.cancel()
		}
	}()
	g.sink(e)
}

// panicked returns the panic a sink raised, as the job's error (nil if
// none did).
func (g *sinkGuard) panicked() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		return nil
	}
	return g.err
}

// plainError turns a usage error into a plain one: in the panel there is
// no command line to show the usage of.
func plainError(err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		return errors.New(ue.msg)
	}
	return err
}

// relay returns a sink that replays a job's events on p, the progress of
// the job that runs it: stages, counts, transfers, peak memory, partial
// results and warnings. The inner job's terminal event is left to the
// outer job, which ends with the same error.
func relay(p *job.Progress) job.Sink {
	var (
		started         bool
		stage, unit     string
		total, done     int64
		partway         float64
		toDev, fromDev  int64
		peakDev, peakHo int64
	)
	return func(e job.Event) {
		if d, f := e.BytesToDevice-toDev, e.BytesFromDevice-fromDev; d != 0 || f != 0 {
			p.Transfer(d, f)
			toDev, fromDev = e.BytesToDevice, e.BytesFromDevice
		}
		if e.PeakDevice > peakDev || e.PeakHost > peakHo {
			p.Memory(e.PeakDevice, e.PeakHost)
			peakDev, peakHo = max(peakDev, e.PeakDevice), max(peakHo, e.PeakHost)
		}
		if e.Stage != "" && (!started || e.Stage != stage || e.Total != total || e.Unit != unit || e.Done < done) {
			p.Stage(e.Stage, e.Total, e.Unit)
			started, stage, total, unit, done, partway = true, e.Stage, e.Total, e.Unit, 0, 0
		}
		if started && e.Done > done {
			p.Add(e.Done - done)
			done, partway = e.Done, 0
		}
		// The block in progress (Progress.Partway): a job of one big
		// block moves its bar too.
		if started && e.Partway > partway {
			p.Partway(e.Partway)
			partway = e.Partway
		}
		switch e.Kind {
		case job.Partial:
			p.Partial(e.Partial)
		case job.Warning:
			p.Warn(e.Message)
		}
	}
}
