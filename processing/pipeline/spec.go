package pipeline

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"sync"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// Spec describes a pipeline. Everything the application offers of it —
// the command `voxlab NAME` with its flags and --help, `voxlab plan`,
// `voxlab submit slurm` and `voxlab merge`, the keys of a YAML step, the
// processing panel's form and live results — is made from it.
type Spec struct {
	// Name is the command ("dezing"): lower case, digits and dashes.
	Name string
	// Title names the pipeline in the panel's chooser ("Dezing").
	Title string
	// Summary is the one-line description of `voxlab --help` and the
	// panel.
	Summary string
	// Usage is the synopsis after "voxlab NAME" in --help; Examples are
	// command lines shown under it.
	Usage    string
	Examples []string
	// ArgsHelp says what the positional arguments are, for the message
	// when their number is wrong: "want ArgsHelp, got 3 arguments".
	ArgsHelp string
	// Order places the pipeline in the panel's chooser (lowest first;
	// then by name).
	Order int
	// Args are the positional arguments, Inputs then Outputs, named as
	// YAML steps name them ("in", "out"). A plan may leave the Outputs
	// out.
	Args []Param
	// Params are the pipeline's own flags, in the panel's order: the
	// basic ones first.
	Params []Param
	// Batch is the block-size flag every pipeline has beside the shared
	// device flags.
	Batch Batch
	// Split: Open's jobs are Splitters; the pipeline runs as SLURM
	// tasks (--task, voxlab merge, voxlab submit slurm).
	Split bool
	// Live says what partial results a run emits and what the viewer
	// opens when it ends.
	Live Live
	// Suggest proposes the arguments and parameters (as form text) of a
	// run on the layers open in the viewer, given in the order they were
	// opened: inputs from them, and parameters they know (the voxel size
	// of the image an input names). Empty values are left as they are.
	// Optional.
	Suggest func(open []Layer) (args []string, params map[string]string)
	// Follow proposes, as Suggest does, arguments and parameters from
	// the runs that finished in this session (the panel's), the latest
	// last: train's form takes the training YAML the cubes run just
	// wrote. Its non-empty values win over Suggest's. Optional.
	Follow func(done []Finished) (args []string, params map[string]string)
	// PointsAction, when set, is offered on the viewer's points layers
	// as a button ("Export training cubes…"): it chooses the pipeline in
	// the panel with the layer's points as its input PointsArg.
	PointsAction, PointsArg string
	// Files says what a run of r reads and writes beyond what the Input
	// and Output arguments and parameters say by themselves (Paths adds
	// those): companion outputs (detect's XML beside its CSV), how an
	// output is written (a Zarr store or an output folder replaced as a
	// whole, a folder written into), and the names messages give them.
	// It only looks at r, opening nothing: the application checks the
	// paths (iocheck.Check) before Open. Optional.
	Files func(r Request) iocheck.Paths
	// Open checks a request and opens its inputs (headers only): the
	// Job plans, runs, splits and reports. Errors in how the pipeline was
	// called are UsageErrors.
	Open func(r Request) (Job, error)
	// Example writes a small input for the pipeline under dir and
	// returns the command line of a run on it after "voxlab NAME" (its
	// positional arguments, outputs in dir too, and any flags it needs):
	// what tests of the generic paths run every registered pipeline on.
	Example func(dir string) (args []string, err error)
}

// Finished is a run that finished, as Follow sees it: its command
// ("cubes"), positional arguments and parameters.
type Finished struct {
	Command string
	Args    []string
	Values  Values
}

// Batch is a pipeline's block-size flag: Flag ("batch-size",
// "chunk-size") counts Unit ("projections") per block; Label names it in
// the panel ("Projections per block"). Its value is a number or "auto".
type Batch struct {
	Flag, Unit, Label string
}

// Help is the block-size flag's usage.
func (b Batch) Help() string {
	return b.Unit + " per block: a number, or auto to let the planner choose"
}

// Request is one run of a pipeline, however it was asked for (flags, a
// YAML step, the panel).
type Request struct {
	// Args are the positional arguments in the order of Spec.Args. When
	// PlanOnly, the outputs may be "".
	Args []string
	// Values hold every parameter (Spec.Defaults for those not given).
	Values Values
	// Batch is the block size in Batch.Unit; 0 lets the planner choose.
	Batch int
	// Pin asks for page-locked staging buffers.
	Pin bool
	// PlanOnly: the job will only be planned; nothing is written, and
	// outputs need not be given.
	PlanOnly bool
	// Partials: someone shows partial results (the panel); pipelines
	// that copy them only on request (dezing's blocks) emit them.
	Partials bool
}

// Device is where a job runs: the backend and the memory budget the
// device settings give on it.
type Device struct {
	Backend gpu.Backend
	// Note says how the backend was chosen ("auto: no CUDA device, the
	// CPU backend").
	Note   string
	Budget plan.Budget
	// BudgetFor is the budget the same settings (--device-memory,
	// --host-memory) give on another device: Budget is
	// BudgetFor(Backend.Info()).
	BudgetFor func(gpu.DeviceInfo) (plan.Budget, error)
}

// Job is an opened run of a pipeline: its inputs are open (headers
// only), its parameters checked. The application plans it, then runs it
// inside a job.Run (progress, cancellation, sinks), and closes it.
type Job interface {
	// Plan plans the whole run on d, reading only metadata.
	Plan(d Device) (*plan.Plan, error)
	// Run runs the pipeline and writes its outputs (under temporary
	// names, renamed when complete: a failed or cancelled run leaves
	// none) and says what it did.
	Run(ctx context.Context, p *job.Progress, d Device) (*Report, error)
	// Close closes the inputs.
	Close() error
}

// Splitter is the Job of a pipeline that splits (Spec.Split): each of N
// tasks computes its share into a part file, and a merge joins the parts
// into the output a whole run writes.
type Splitter interface {
	Job
	// TaskPlan plans task t alone (EmptyTaskPlan when it has nothing to
	// do).
	TaskPlan(d Device, t task.Task) (*plan.Plan, error)
	// PartRun is what task t's part belongs to — the inputs as given,
	// their shapes, the parameters its result depends on, its range —
	// which the merge checks each part against (cluster.PartHeader.Run).
	PartRun(t task.Task) (any, error)
	// RunTask runs task t and writes its part's payload to w.
	RunTask(ctx context.Context, p *job.Progress, d Device, t task.Task, w io.Writer) (*TaskReport, error)
	// Merge joins the parts of every task, in task order, each checked
	// against its PartRun, and writes the outputs as Run would. The
	// parts stay open until Merge returns; the caller closes them.
	Merge(ctx context.Context, p *job.Progress, d Device, parts []*cluster.Part) (*Report, error)
}

// Report says what a run or a merge did.
type Report struct {
	// Summary is printed as JSON with --json.
	Summary any
	// Notes are the lines printed on stderr otherwise (unless --quiet).
	Notes []string
}

// TaskReport says what a task did: Fields go into its JSON line (with
// the task, its part and its seconds), What into its note ("dezing task
// 1/4: projections 10 to 20").
type TaskReport struct {
	Fields map[string]any
	What   string
}

// UsageError is an error in how a pipeline was called (exit status 2):
// a missing argument, a value its parameter refuses. Its message names
// parameters as the command line does (--voxel-size); Param, when set,
// is the parameter it is about, which the panel shows it beside (and
// names by its field's label there).
type UsageError struct {
	Msg   string
	Param string
}

func (e UsageError) Error() string { return e.Msg }

// flagRE finds the parameter a message starts with: "--kernel 4: …".
var flagRE = regexp.MustCompile(`^--([a-z][a-z0-9-]*)`)

// Usagef makes a UsageError; a message that starts with a flag
// ("--dtype: …") is about that parameter.
func Usagef(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	e := UsageError{Msg: msg}
	if m := flagRE.FindStringSubmatch(msg); m != nil {
		e.Param = m[1]
	}
	return e
}

// UsageFor makes a UsageError about parameter param.
func UsageFor(param, format string, a ...any) error {
	return UsageError{Msg: fmt.Sprintf(format, a...), Param: param}
}

// SharedFlags are the flags every pipeline command has beside its
// Params and its Batch flag: the device settings and the output and
// task switches. No Param may take these names.
var SharedFlags = []string{"backend", "pin-memory", "device-memory", "host-memory", "json", "quiet", "task"}

// Defaults returns every parameter's default.
func (s *Spec) Defaults() Values {
	v := Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Zero()
	}
	return v
}

// Param returns the parameter (or argument) name.
func (s *Spec) Param(name string) (Param, bool) {
	for _, ps := range [][]Param{s.Params, s.Args} {
		if i := slices.IndexFunc(ps, func(p Param) bool { return p.Name == name }); i >= 0 {
			return ps[i], true
		}
	}
	return Param{}, false
}

// Inputs returns the positional arguments that are inputs.
func (s *Spec) Inputs() []Param {
	var out []Param
	for _, a := range s.Args {
		if a.Kind == Input {
			out = append(out, a)
		}
	}
	return out
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks that a spec is whole: names that can be flags and YAML
// keys, none taken twice or by a shared flag, defaults of their kind's
// type, arguments that are inputs then outputs, and an Open.
func (s *Spec) Validate() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("pipeline name %q: want lower case letters, digits and dashes", s.Name)
	}
	if s.Open == nil || s.Summary == "" || s.Batch.Flag == "" || s.Batch.Unit == "" {
		return fmt.Errorf("pipeline %s: a spec needs Open, Summary and Batch", s.Name)
	}
	seen := map[string]bool{s.Batch.Flag: true}
	for _, n := range SharedFlags {
		seen[n] = true
	}
	outputs := false
	for _, a := range s.Args {
		switch {
		case a.Kind == Output:
			outputs = true
		case a.Kind != Input:
			return fmt.Errorf("pipeline %s: argument %s is a %s; arguments are inputs and outputs", s.Name, a.Name, a.Kind)
		case outputs:
			return fmt.Errorf("pipeline %s: input %s after an output", s.Name, a.Name)
		}
	}
	for _, ps := range [][]Param{s.Args, s.Params} {
		for _, p := range ps {
			if !nameRE.MatchString(p.Name) || seen[p.Name] {
				return fmt.Errorf("pipeline %s: parameter name %q is taken or not a flag name", s.Name, p.Name)
			}
			seen[p.Name] = true
			if err := p.checkDefault(); err != nil {
				return fmt.Errorf("pipeline %s: %w", s.Name, err)
			}
		}
	}
	return nil
}

// checkDefault checks the default's type and the kind's needs.
func (p Param) checkDefault() error {
	if p.Kind < Int || p.Kind > Output {
		return fmt.Errorf("parameter %s has no kind", p.Name)
	}
	if (p.Kind == Choice || p.Kind == Multi) && len(p.Options) == 0 {
		return fmt.Errorf("parameter %s: a %s needs Options", p.Name, p.Kind)
	}
	if p.Default == nil {
		return nil
	}
	want := fmt.Sprintf("%T", (Param{Kind: p.Kind}).Zero())
	if got := fmt.Sprintf("%T", p.Default); got != want {
		return fmt.Errorf("parameter %s: default %v is a %s, want a %s", p.Name, p.Default, got, want)
	}
	return nil
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Spec{}
)

// Register makes a pipeline available to the application; a pipeline's
// package calls it from init. It panics on an invalid spec or a name
// taken, as a programming error.
func Register(s *Spec) {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("pipeline %s registered twice", s.Name))
	}
	registry[s.Name] = s
}

// All returns the registered pipelines by Order, then name.
func All() []*Spec {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	Sort(out)
	return out
}

// Sort orders specs by Order, then name.
func Sort(specs []*Spec) {
	sort.SliceStable(specs, func(i, j int) bool {
		if specs[i].Order != specs[j].Order {
			return specs[i].Order < specs[j].Order
		}
		return specs[i].Name < specs[j].Name
	})
}
