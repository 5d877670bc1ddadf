package panel

import (
	"context"
	"fmt"
	"strings"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
)

// Request is one run of a pipeline as the panel describes it.
type Request struct {
	// Command is the pipeline's name ("dezing").
	Command string
	// Args are the positional arguments in the order of the spec's Args.
	Args []string
	// Values are the pipeline's parameters, typed (every one of the
	// spec's Params: those the form shows, and the defaults).
	Values pipeline.Values
	Device Device
	// Cluster, when set, runs the request on a SLURM cluster
	// (Pipeline.RunCluster) instead of this machine.
	Cluster *ClusterOptions
}

// Device is the device controls' part of a request: the flags every
// pipeline shares.
type Device struct {
	// Backend is auto, cpu or cuda.
	Backend string
	// Pin page-locks the host staging buffers (CUDA only).
	Pin bool
	// Batch is the block, batch or chunk size: "auto" or a number.
	Batch string
	// DeviceMemory and HostMemory cap what the plan may use ("2GiB");
	// empty: what is free.
	DeviceMemory, HostMemory string
}

// Flags returns the request's flags as command-line arguments; params
// equal to their defaults are left out, so the line shows what was
// chosen.
func (r Request) Flags(p *Pipeline) []string {
	var out []string
	for _, f := range p.Spec.Params {
		v, ok := r.Values[f.Name]
		if !ok {
			continue
		}
		text := f.Format(v)
		if text == f.DefaultText() {
			continue
		}
		if f.Kind == pipeline.Bool {
			if text == "true" {
				out = append(out, "--"+f.Name)
			} else {
				out = append(out, "--"+f.Name+"=false")
			}
			continue
		}
		out = append(out, "--"+f.Name, text)
	}
	d := r.Device
	if d.Backend != "" && d.Backend != "auto" {
		out = append(out, "--backend", d.Backend)
	}
	if d.Pin {
		out = append(out, "--pin-memory")
	}
	if d.Batch != "" && d.Batch != "auto" {
		out = append(out, "--"+p.Spec.Batch.Flag, d.Batch)
	}
	if d.DeviceMemory != "" {
		out = append(out, "--device-memory", d.DeviceMemory)
	}
	if d.HostMemory != "" {
		out = append(out, "--host-memory", d.HostMemory)
	}
	return out
}

// CommandLine returns the voxlab command that runs the request headless:
// `voxlab submit slurm …` for a cluster run.
func (r Request) CommandLine(p *Pipeline) string {
	words := []string{"voxlab", r.Command}
	if r.Cluster != nil {
		words = []string{"voxlab", "submit", "slurm", r.Command}
	}
	words = append(append(words, r.Args...), r.Flags(p)...)
	if c := r.Cluster; c != nil {
		words = append(words, "--tasks", fmt.Sprint(c.Tasks))
		for _, kv := range [][2]string{{"partition", c.Partition}, {"gres", c.Gres}, {"time", c.Time}} {
			if kv[1] != "" {
				words = append(words, "--"+kv[0], kv[1])
			}
		}
	}
	for i, w := range words {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// shellWord quotes w for a POSIX shell when it needs quoting.
func shellWord(w string) string {
	if w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=+@%", r))
	}) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Pipeline is a processing pipeline the panel can run: its spec, from
// which the form is built (the same parameter names, defaults, help and
// checks as the command line's), and how the application plans and runs
// a request.
type Pipeline struct {
	Spec *pipeline.Spec
	// Plan plans r reading only metadata. Called off the UI goroutine.
	Plan func(ctx context.Context, r Request) (*plan.Plan, error)
	// Run runs r, reporting to p. Called on the job's goroutine.
	Run func(ctx context.Context, r Request, p *job.Progress) error
	// RunCluster runs r on a SLURM cluster (r.Cluster says how) and
	// follows it to its end, reporting to p; nil where the pipeline
	// cannot (no sbatch on the PATH, or it does not split): the panel
	// then offers only this machine. Called on the job's goroutine.
	RunCluster func(ctx context.Context, r Request, p *job.Progress) error
	// Live returns what shows r's partial and final results in v; nil
	// for the view of the spec's kind of live results (NewLive). Called
	// on the UI goroutine when r is submitted.
	Live func(v *viewer.Viewer, r Request) Live
}

// RequestError is a Plan error about the request itself rather than this
// machine (an output that would write over an input): the panel shows it
// beside the field Field names, and runs the request nowhere, on a
// cluster neither.
type RequestError struct {
	Field string
	Err   error
}

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Name is the pipeline's name in the chooser ("Dezing").
func (p *Pipeline) Name() string {
	if p.Spec.Title != "" {
		return p.Spec.Title
	}
	return p.Spec.Name
}

// Live shows a job's results in the viewer while it runs and when it ends.
type Live interface {
	// Partial receives each partial result (e.Partial, with the job's
	// progress at that moment: stage, totals) on the job's goroutine. It
	// must return quickly and touch the UI only through viewer.Async.Do
	// or the layers' Feeds (PointsFeed.Append, HeatmapFeed.SetBlock,
	// ImageFeed.RefreshPlanes).
	Partial(e job.Event)
	// Done is called on the UI goroutine once the job has ended, with
	// its error (nil on success, context.Canceled when cancelled), after
	// every Partial: add the result layers, open the plots.
	Done(err error)
}

// fieldOf returns the name of the field an error message is about: one
// that starts with a field's name ("kernel 4: must be odd") or names its
// flag ("--voxel-size …"), or "" when it is about none in particular.
func (p *Pipeline) fieldOf(msg string) string {
	best, at := "", len(msg)+1
	names := []string{}
	for _, f := range p.Spec.Params {
		names = append(names, f.Name)
	}
	names = append(names, p.Spec.Batch.Flag)
	for _, f := range p.Spec.Args {
		names = append(names, f.Name)
	}
	for _, name := range names {
		if strings.HasPrefix(msg, name+" ") || strings.HasPrefix(msg, name+":") {
			return name
		}
		if i := strings.Index(msg, "--"+name); i >= 0 && i < at {
			// "--mask" must not match "--mask-radius".
			if end := i + 2 + len(name); end == len(msg) || !isFlagChar(msg[end]) {
				best, at = name, i
			}
		}
	}
	return best
}

func isFlagChar(c byte) bool {
	return c == '-' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
