package panel

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
)

// FieldKind says how the processing panel edits a field.
type FieldKind int

// The kinds of fields.
const (
	// TextField is free text: a number, a list, a size.
	TextField FieldKind = iota
	// BoolField is a check box ("true" or "false").
	BoolField
	// ChoiceField is one of Options.
	ChoiceField
	// MultiField is any of Options, written comma-separated.
	MultiField
	// InputField names an existing file or folder: the open layers are
	// offered, and a Browse button.
	InputField
	// OutputField names a file or folder to write.
	OutputField
)

// Field is one parameter of a pipeline: a positional argument ("in",
// "out") or a flag, under the flag's own name, so that a run in the panel,
// on the command line and in a YAML file is described by the same words.
type Field struct {
	Name    string
	Label   string
	Help    string
	Default string
	Kind    FieldKind
	Options []string
	// Folder: an InputField or OutputField names a folder, not a file.
	Folder bool
	// Optional: an empty value is allowed (an optional file).
	Optional bool
	// Advanced fields are shown under "More parameters".
	Advanced bool
}

// Request is one run of a pipeline as the panel describes it.
type Request struct {
	// Command is the pipeline's command name ("dezing").
	Command string
	// Args are the positional arguments in the order of Pipeline.Args.
	Args []string
	// Params are the flag values by flag name (only those the panel
	// shows; each pipeline's other flags keep their defaults).
	Params map[string]string
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

// Flags returns the request's flags as command-line arguments, with
// batchFlag naming the pipeline's block-size flag; params equal to the
// field defaults are left out, so the line shows what was chosen.
func (r Request) Flags(p *Pipeline) []string {
	var out []string
	for _, f := range p.Params {
		v, ok := r.Params[f.Name]
		if !ok || v == f.Default {
			continue
		}
		if f.Kind == BoolField {
			if v == "true" {
				out = append(out, "--"+f.Name)
			} else {
				out = append(out, "--"+f.Name+"=false")
			}
			continue
		}
		out = append(out, "--"+f.Name, v)
	}
	d := r.Device
	if d.Backend != "" && d.Backend != "auto" {
		out = append(out, "--backend", d.Backend)
	}
	if d.Pin {
		out = append(out, "--pin-memory")
	}
	if d.Batch != "" && d.Batch != "auto" && p.Batch.Name != "" {
		out = append(out, "--"+p.Batch.Name, d.Batch)
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

// Pipeline is a processing pipeline the panel can run. The application
// fills it from the pipeline's command, so that the panel runs the same
// code, with the same parameter names and defaults, as the command line.
type Pipeline struct {
	// Name is shown in the pipeline chooser ("Dezing").
	Name string
	// Command is the command's name ("dezing").
	Command string
	Summary string
	// Args are the positional arguments: inputs, then outputs.
	Args []Field
	// Params are the pipeline's own flags.
	Params []Field
	// Batch is the block-size flag ("batch-size", "chunk-size") with its
	// label ("Projections per block").
	Batch Field
	// Check validates one field's value on its own (a number where one
	// is wanted); nil when it is fine. Called on the UI goroutine.
	Check func(name, value string) error
	// Suggest proposes arguments and parameters from the specs of the
	// open layers (the demo's scan and a free output name). Called on the
	// UI goroutine; nil values are left as they are.
	Suggest func(open []string) (args []string, params map[string]string)
	// Plan plans r reading only metadata. Called off the UI goroutine.
	Plan func(ctx context.Context, r Request) (*plan.Plan, error)
	// Run runs r, reporting to p. Called on the job's goroutine.
	Run func(ctx context.Context, r Request, p *job.Progress) error
	// RunCluster runs r on a SLURM cluster (r.Cluster says how) and
	// follows it to its end, reporting to p; nil where the pipeline
	// cannot (no sbatch on the PATH): the panel then offers only this
	// machine. Called on the job's goroutine.
	RunCluster func(ctx context.Context, r Request, p *job.Progress) error
	// Live returns what shows r's partial and final results in v; nil
	// for none. Called on the UI goroutine when r is submitted.
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

// Live shows a job's results in the viewer while it runs and when it ends.
type Live interface {
	// Partial receives each partial result (e.Partial, with the job's
	// progress at that moment: stage, totals) on the job's goroutine. It
	// must return quickly and touch the UI only through viewer.Viewer.Do
	// or the viewer's live-update methods (PointsLayer.Append,
	// HeatmapLayer.SetBlock, ImageLayer.RefreshPlanes).
	Partial(e job.Event)
	// Done is called on the UI goroutine once the job has ended, with
	// its error (nil on success, context.Canceled when cancelled), after
	// every Partial: add the result layers, open the plots.
	Done(err error)
}

// field returns the pipeline's field (argument, parameter or batch) by
// name.
func (p *Pipeline) field(name string) (Field, bool) {
	for _, fs := range [][]Field{p.Args, p.Params, {p.Batch}} {
		if i := slices.IndexFunc(fs, func(f Field) bool { return f.Name == name }); i >= 0 {
			return fs[i], true
		}
	}
	return Field{}, false
}

// fieldOf returns the name of the field an error message is about: one
// that starts with a field's name ("kernel 4: must be odd") or names its
// flag ("--voxel-size …"), or "" when it is about none in particular.
func (p *Pipeline) fieldOf(msg string) string {
	best, at := "", len(msg)+1
	for _, fs := range [][]Field{p.Params, {p.Batch}, p.Args} {
		for _, f := range fs {
			if f.Name == "" {
				continue
			}
			if strings.HasPrefix(msg, f.Name+" ") || strings.HasPrefix(msg, f.Name+":") {
				return f.Name
			}
			if i := strings.Index(msg, "--"+f.Name); i >= 0 && i < at {
				// "--mask" must not match "--mask-radius".
				if end := i + 2 + len(f.Name); end == len(msg) || !isFlagChar(msg[end]) {
					best, at = f.Name, i
				}
			}
		}
	}
	return best
}

func isFlagChar(c byte) bool {
	return c == '-' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
