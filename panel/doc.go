// Package panel is voxlab's processing panel: the "Process" tab docked
// beside the viewer's canvas, which runs pipelines on the open layers or
// on files and shows their jobs and results.
//
// It sits above package viewer and below the application: it uses the
// viewer (its layers, tabs, dock and UI goroutine), processing/pipeline
// (the specs' types, never a pipeline's package), the processing packages
// (job, plan, cluster, matrix) and gpu, and the viewer knows nothing of
// it. The live views map the kinds of partial results a spec declares to
// layers (live.go) without knowing the pipeline.
//
// # Using it from the application
//
//	v := viewer.New(win)
//	p := panel.NewPanel(v, panel.PanelOptions{}, pipelines...) // "Process"
//	id, err := p.Run()                 // as the Run button does
//	q := panel.NewQuitter(p, app.Quit) // asks about running jobs
//	win.SetCloseIntercept(q.Close)
//
// ExampleNewPanel is this usage drawn offscreen, its form filled and its
// plan on show; its picture is a golden image (testdata/example_panel.png,
// TestExamplesGolden).
//
// # What it holds
//
// NewPanel docks a "Process" tab that runs Pipelines (a pipeline's spec,
// processing/pipeline, and the application's Plan and Run for it): a form
// built from the spec's typed parameters — a field per argument and
// parameter, its widget by the parameter's kind, its default, help and
// checks the command line's own — with messages beside wrong fields, device controls (backend, pin_memory, block size, memory
// caps, a bandwidth probe), where it runs (this machine or a SLURM
// cluster, where the pipeline has RunCluster), a plan preview with
// MemBars, Run and Cancel in a bar under the form that never scrolls
// away, and a JobList of queued, running and finished jobs (job.Queue,
// one job at a time per device; progress through job.Throttle and the UI
// goroutine). Live views show partial results with the viewer's
// LiveVolume (an image filled block by block), the layers' Feeds
// (PointsFeed.Append, HeatmapFeed.SetBlock), Plots (gonum/plot heat maps with colour bars
// and histograms in a tab beside the view) and a run's metrics as curves
// per epoch (curves.go: train's loss and accuracy, training and
// validation), with the spec's Next once it finished ("Classify with
// this model"). A Quitter decides what closing the window does while
// jobs run.
//
// The form follows the data (suggest.go): a spec's Suggest gets the open
// layers in the order they were opened, with their voxel sizes and the
// image points were found in, and its Follow the runs that finished
// (train takes the training cubes just exported); what the user typed,
// chose or browsed to is kept per pipeline for the session. Messages in the window name
// fields by their labels, not by the command line's flags (words.go).
//
// Its methods run on the UI goroutine, as the viewer's do; tests drive it
// on a viewer.Headless.
package panel
