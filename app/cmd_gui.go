package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/viewer"
)

func init() {
	register(&command{
		name:    "gui",
		volumes: true,
		summary: "open the viewer with the processing panel (the default when no command is given)",
		usage:   "[FILE...] [--demo DIR] [--run PIPELINE [--set NAME=VALUE]...] [--slice N] [--map N] [--screenshot OUT.png] [--size WxH] [--grid]",
		examples: []string{
			"voxlab gui",
			"voxlab gui --demo demo-data",
			"voxlab gui scan.nxs cells.csv",
			"voxlab gui --demo demo-data --run dezing --set kernel=5",
			"voxlab gui --demo demo-data --run distance --screenshot docs/distance.png --size 1400x900",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &viewOpts{slice: -1, axis: "z", size: "1280x800"}
			g := &guiOpts{}
			fs.StringVar(&o.demo, "demo", "", "open the demo datasets written by `voxlab demo DIR`")
			fs.StringVar(&o.screenshot, "screenshot", "", "render the window once into this PNG and exit (after the --run job ends)")
			fs.StringVar(&o.size, "size", o.size, "window size WxH")
			fs.BoolVar(&o.grid, "grid", false, "show each layer in its own panel")
			fs.IntVar(&o.slice, "slice", -1, "slice to show (default: the middle one)")
			fs.IntVar(&o.mapIdx, "map", 0, "map to show of a stack of maps")
			fs.StringVar(&g.run, "run", "", "start this pipeline ("+guiNames()+") in the processing panel on the open files")
			fs.Var(&g.set, "set", "NAME=VALUE: a parameter of the --run pipeline, by its flag name (repeatable)")
			return func(ctx context.Context, e *env, args []string) error {
				specs := append([]string(nil), args...)
				if o.demo != "" {
					specs = append(specs, demoSpecs(e, o.demo)...)
				}
				return runGUI(ctx, e, specs, o, g)
			}
		},
	})
}

// guiNames lists the panel's pipelines in its order.
func guiNames() string {
	var n []string
	for _, s := range sortedPipelines(true) {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// guiOpts are gui's own flags.
type guiOpts struct {
	run string
	set setFlag
}

// setFlag collects --set NAME=VALUE pairs.
type setFlag []string

func (s *setFlag) String() string { return strings.Join(*s, " ") }

func (s *setFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("%q: want NAME=VALUE", v)
	}
	*s = append(*s, v)
	return nil
}

// demoSpecs lists the demo datasets found in dir, saying which are
// missing: the tomography projections, the brain planes with their cells
// and the ground-truth maps.
func demoSpecs(e *env, dir string) []string {
	var specs []string
	for _, rel := range []string{demo.TomoScan, demo.BrainPlanes, demo.BrainCells, demo.MapsGT} {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(e.stderr, "voxlab gui: demo %s is missing; skipped (write it with `voxlab demo %s`)\n", p, dir)
			continue
		}
		specs = append(specs, p)
	}
	return specs
}

// guiJobTimeout bounds how long --screenshot waits for its --run job.
const guiJobTimeout = 10 * time.Minute

// runGUI opens the viewer with the processing panel docked beside it,
// optionally starts a pipeline, and runs the window (or renders it once
// offscreen for --screenshot).
func runGUI(ctx context.Context, e *env, specs []string, o *viewOpts, g *guiOpts) error {
	axis, w, h, err := o.check(specs)
	if err != nil {
		return err
	}
	if g.run != "" {
		if _, ok := pipelines[g.run]; !ok {
			return usagef("--run %q: one of %s", g.run, pipelineNames())
		}
	} else if len(g.set) > 0 {
		return usagef("--set needs --run")
	}
	open := func(v *viewer.Viewer) (err error) {
		v.Batch(func() { err = openAll(e, v, specs, o, axis) })
		return err
	}
	if o.screenshot != "" {
		return guiScreenshot(e, o.screenshot, w, h, open, g)
	}

	a, win, err := newWindow()
	if err != nil {
		return err
	}
	v := viewer.New(win)
	if err := open(v); err != nil {
		v.Close()
		return err
	}
	pn := panel.NewPanel(v, panel.PanelOptions{}, guiPipelines()...)
	addPointsActions(v, pn)
	v.Actions().SetExport(func(r viewer.ExportRequest) { pn.ExportLayer(r) }) // File ▸ Export layer…
	if g.run != "" {
		if _, err := startRun(pn, g); err != nil {
			pn.Close()
			v.Close()
			return err
		}
	}
	// Closing the window with jobs queued or running asks whether to
	// cancel them; they stop (removing their partial outputs) while the
	// window stays responsive, and the app quits once they have.
	q := panel.NewQuitter(pn, a.Quit)
	win.SetCloseIntercept(func() { v.ConfirmUnsaved(q.Close) }) // unsaved points edits first
	win.Resize(fyne.NewSize(float32(w), float32(h)))
	stop := interruptJobs(ctx, pn, func() { fyne.Do(a.Quit) })
	defer stop()
	win.ShowAndRun()
	// The loop also ends without Quitter: Fyne ends it itself on SIGINT
	// and SIGTERM (and from its Quit menu item). Cancel whatever still
	// runs and wait for it, so that no job is writing, and no partial
	// output is left, when the process exits.
	shutdownGUI(pn, v)
	return nil
}

// interruptJobs cancels the panel's jobs as soon as ctx is done (Ctrl-C,
// SIGTERM, SIGHUP: stopSignals), from a goroutine of its own rather than through the UI
// goroutine: Fyne ends its event loop on the same signal and drops the
// callbacks still queued for it, a cancel among them. Once the jobs have
// ended it calls quit, for a signal that came before Fyne listened. The
// returned function stops watching.
func interruptJobs(ctx context.Context, pn *panel.Panel, quit func()) (stop func()) {
	unwatch := context.AfterFunc(ctx, func() {
		<-pn.StopJobs()
		quit()
	})
	return func() { unwatch() }
}

// shutdownGUI is what runGUI does once the event loop has ended: it
// cancels every job and waits until they have ended and removed their
// partial outputs (the kernels stop within a row of a block, so this is
// about a second), then closes the panel and the viewer.
func shutdownGUI(pn *panel.Panel, v *viewer.Viewer) {
	<-pn.StopJobs()
	pn.Close()
	v.Async().Wait()
	v.Close()
}

// startRun chooses the --run pipeline in the panel, applies --set and
// submits it on the panel's suggestions for the open files.
func startRun(p *panel.Panel, g *guiOpts) (int, error) {
	if err := p.Select(g.run); err != nil {
		return 0, usagef("--run: %v", err)
	}
	for _, kv := range g.set {
		name, val, _ := strings.Cut(kv, "=")
		if err := p.Set(name, val); err != nil {
			return 0, usagef("--set %s: %v", kv, err)
		}
	}
	req, err := p.Request()
	if err != nil {
		return 0, fmt.Errorf("--run %s: %w", g.run, err)
	}
	return p.Submit(req)
}

// guiScreenshot renders the viewer and panel offscreen, after the --run
// job (if any) has ended and its results are on screen, into path
// through a temporary file: no partial PNG.
func guiScreenshot(e *env, path string, w, h int, open func(*viewer.Viewer) error, g *guiOpts) error {
	type result struct {
		img image.Image
		err error
	}
	ch := make(chan result)
	// The offscreen viewer is driven from a goroutine of its own, off
	// the main one (see viewer.NewOffscreen).
	go func() {
		img, err := renderGUI(w, h, open, g)
		ch <- result{img, err}
	}()
	r := <-ch
	if r.err != nil {
		return fmt.Errorf("screenshot %s: %w", path, r.err)
	}
	return writeScreenshot(e, path, r.img)
}

// renderGUI builds the window offscreen, runs the --run job to its end
// with its live results, and captures the window.
func renderGUI(w, h int, open func(*viewer.Viewer) error, g *guiOpts) (image.Image, error) {
	hl := viewer.NewOffscreen(w, h)
	defer hl.Close()
	if err := open(hl.Viewer); err != nil {
		return nil, err
	}
	pn := panel.NewPanel(hl.Viewer, panel.PanelOptions{}, guiPipelines()...)
	defer pn.Close()
	if err := fits(hl.Viewer, w, h); err != nil {
		return nil, err
	}
	if g.run != "" {
		id, err := startRun(pn, g)
		if err != nil {
			return nil, err
		}
		if err := hl.Until(guiJobTimeout, func() bool { return !pn.Busy() }); err != nil {
			return nil, fmt.Errorf("--run %s: %w", g.run, err)
		}
		if st, _ := pn.Jobs().Status(id); st.Err != nil {
			return nil, fmt.Errorf("--run %s: %w", g.run, st.Err)
		}
	}
	// Let the plan preview, plots and slices settle, then show the plan
	// above the job list.
	if err := hl.Until(screenshotTimeout, func() bool { return !pn.Planning() && hl.Idle() }); err != nil {
		return nil, err
	}
	if g.run != "" {
		pn.ShowPlan()
	}
	if err := hl.Settle(screenshotStall); err != nil {
		return nil, err
	}
	return hl.Capture(), nil
}
