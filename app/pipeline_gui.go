package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer"
)

// The processing panel runs the registered pipelines through the same
// path as the command line (invocation), from their specs: the form is
// the spec's parameters, typed, and a request's values go to the spec as
// they are, with no command line in between.

// guiPipelines returns the panel's pipelines: those whose spec has a
// Title, in their Order.
func guiPipelines() []*panel.Pipeline {
	var out []*panel.Pipeline
	for _, s := range sortedPipelines(true) {
		out = append(out, guiPipeline(s))
	}
	return out
}

// guiPipeline is the panel's description of s.
func guiPipeline(s *pipeline.Spec) *panel.Pipeline {
	return &panel.Pipeline{
		Spec: s,
		Plan: func(ctx context.Context, r panel.Request) (*plan.Plan, error) {
			iv, err := guiInvocation(s, r, &env{stdout: io.Discard, stderr: io.Discard, inGUI: true})
			if err != nil {
				return nil, err
			}
			pl, err := iv.plan(ctx, nil)
			var c *iocheck.Clash
			if errors.As(err, &c) {
				// Shown beside the output, and run nowhere, on a
				// cluster neither.
				return nil, &panel.RequestError{Field: clashField(s, r, c), Err: err}
			}
			return pl, plainError(err)
		},
		Run: func(ctx context.Context, r panel.Request, prog *job.Progress) error {
			return runRequest(ctx, s, r, prog)
		},
		RunCluster: clusterRunner(s),
	}
}

// clashField names the form field of the output c is about: the output
// argument or parameter that holds its path, or the first output
// argument (a companion output, a task's part, go beside it).
func clashField(s *pipeline.Spec, r panel.Request, c *iocheck.Clash) string {
	first := ""
	for i, a := range s.Args {
		if a.Kind != pipeline.Output {
			continue
		}
		if first == "" {
			first = a.Name
		}
		if i < len(r.Args) && r.Args[i] == c.Output.Path {
			return a.Name
		}
	}
	for _, p := range s.Params {
		if v, ok := r.Values[p.Name].(string); ok && p.Kind == pipeline.Output && v == c.Output.Path {
			return p.Name
		}
	}
	return first
}

// guiInvocation is the run a panel request describes: its arguments,
// its values (each checked as the command line checks its flags) and
// its device settings.
func guiInvocation(s *pipeline.Spec, r panel.Request, e *env) (*invocation, error) {
	vals := s.Defaults()
	for _, p := range s.Params {
		v, ok := r.Values[p.Name]
		if !ok {
			continue
		}
		if err := p.Validate(v); err != nil {
			return nil, fmt.Errorf("--%s: %w", p.Name, err)
		}
		vals[p.Name] = v
	}
	for name := range r.Values {
		if _, ok := vals[name]; !ok {
			return nil, fmt.Errorf("%s has no parameter %q", s.Name, name)
		}
	}
	d := r.Device
	dev := &deviceFlags{backend: d.Backend, pin: d.Pin, deviceMem: d.DeviceMemory, hostMem: d.HostMemory, batch: d.Batch}
	if dev.backend == "" {
		dev.backend = "auto"
	}
	// --json keeps the terminal progress bar away; the summary goes to
	// the env's stdout, which nobody reads.
	return &invocation{spec: s, req: pipeline.Request{Args: r.Args, Values: vals}, dev: dev, out: &outputFlags{json: true}, e: e}, nil
}

// runRequest runs a request through the path `voxlab NAME` runs, with
// its job's events relayed to prog (the panel's queued job) and partial
// results asked for.
func runRequest(ctx context.Context, s *pipeline.Spec, r panel.Request, prog *job.Progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &sinkGuard{sink: relay(prog), cancel: cancel, job: s.Name}
	// The report's notes (what the run did: counts, what it left out)
	// go to the panel's job, which shows them when it ends.
	e := &env{stdout: io.Discard, stderr: io.Discard, sinks: []job.Sink{g.handle}, partials: true, inGUI: true, notes: prog.Note}
	iv, err := guiInvocation(s, r, e)
	if err != nil {
		return err
	}
	err = iv.run(ctx)
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
// no command line to show the usage of. One about a parameter is a
// panel.RequestError about its field, which the panel shows it beside.
func plainError(err error) error {
	var ue usageError
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Param != "" {
		return &panel.RequestError{Field: ue.Param, Err: errors.New(ue.Msg)}
	}
	return errors.New(ue.Msg)
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

// addPointsActions offers, on the viewer's points layers, the pipelines
// whose spec has a PointsAction: the panel chooses the pipeline with the
// layer's points as its PointsArg — the layer's file, or a copy of its
// points when it has unsaved edits (the viewer imports no pipeline).
func addPointsActions(v *viewer.Viewer, pn *panel.Panel) {
	for _, s := range sortedPipelines(true) {
		if s.PointsAction == "" {
			continue
		}
		v.Actions().AddPoints(s.PointsAction, func(l *viewer.PointsLayer) {
			path := l.Path()
			if path == "" || l.Modified() {
				f, err := os.CreateTemp("", "voxlab-points-*.csv")
				if err == nil {
					path = f.Name()
					f.Close()
					err = points.Save(path, l.Points())
				}
				if err != nil {
					v.Dialogs().ShowError(fmt.Errorf("%s: %w", s.PointsAction, err))
					return
				}
			}
			if err := pn.Select(s.Name); err != nil {
				v.Dialogs().ShowError(err)
				return
			}
			if err := pn.Set(s.PointsArg, path); err != nil {
				v.Dialogs().ShowError(err)
			}
		})
	}
}
