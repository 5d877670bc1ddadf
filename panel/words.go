package panel

import (
	"errors"
	"strings"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// The window names what the user sees: a message about a parameter
// names its field by the field's label, never the command-line flag the
// pipelines' messages name it by ("give --voxel-size" reads "give
// “Voxel size z,y,x (µm)”"). The command line keeps its flags.

// deviceLabels are the labels of the device controls by the shared flags
// they set.
var deviceLabels = map[string]string{
	"backend":       "Backend",
	"pin-memory":    "pin_memory",
	"device-memory": "Device memory cap",
	"host-memory":   "Host memory cap",
}

// labels returns the label of each field of the form by its flag's name:
// the arguments, parameters, block size and device controls.
func (p *Pipeline) labels() map[string]string {
	out := map[string]string{}
	for k, v := range deviceLabels {
		out[k] = v
	}
	b := p.Spec.Batch
	if b.Label != "" {
		out[b.Flag] = b.Label
	} else {
		out[b.Flag] = "Block size (" + b.Unit + ")"
	}
	for _, ps := range [][]pipeline.Param{p.Spec.Args, p.Spec.Params} {
		for _, f := range ps {
			out[f.Name] = f.Title()
		}
	}
	return out
}

// Words rewrites a message for the window: each flag of the pipeline it
// names (--voxel-size) becomes its field's label in quotes.
func (p *Pipeline) Words(msg string) string {
	if !strings.Contains(msg, "--") {
		return msg
	}
	labels := p.labels()
	var b strings.Builder
	for {
		i := strings.Index(msg, "--")
		if i < 0 {
			break
		}
		end := i + 2
		for end < len(msg) && isFlagChar(msg[end]) {
			end++
		}
		// "--voxel-size," and "--mask-radius" end where the flag does;
		// a trailing dash is the sentence's.
		name := strings.TrimRight(msg[i+2:end], "-")
		end = i + 2 + len(name)
		b.WriteString(msg[:i])
		if l, ok := labels[name]; ok && (i == 0 || !isFlagChar(msg[i-1])) {
			b.WriteString("“" + l + "”")
		} else {
			b.WriteString(msg[i:end])
		}
		msg = msg[end:]
	}
	b.WriteString(msg)
	return b.String()
}

// wordPlan says a plan's warnings and where its budget came from
// ("--device-memory") in the window's words.
func (p *Pipeline) wordPlan(pp *plan.Plan) {
	if pp == nil {
		return
	}
	for i, w := range pp.Warnings {
		pp.Warnings[i] = p.Words(w)
	}
	b := &pp.Budget
	b.DeviceSource, b.HostSource = p.Words(b.DeviceSource), p.Words(b.HostSource)
}

// wordedError is an error whose message is said in the window's words
// (Words), about the field field ("" for none); it unwraps to the
// original, so that errors.Is and errors.As see through it.
type wordedError struct {
	msg, field string
	err        error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }

// worded says err in the window's words, and finds the field it is
// about before its flags are gone: a RequestError's or UsageError's, or
// the one its message names (fieldOf). Nil stays nil.
func (p *Pipeline) worded(err error) error {
	if err == nil {
		return nil
	}
	var we *wordedError
	if errors.As(err, &we) {
		return err
	}
	msg := err.Error()
	field := p.fieldOf(msg)
	var ue pipeline.UsageError
	var re *RequestError
	switch {
	case errors.As(err, &re):
		field = re.Field
	case errors.As(err, &ue) && ue.Param != "":
		field = ue.Param
	}
	return &wordedError{msg: p.Words(msg), field: field, err: err}
}

// fieldOfError returns the field err is about (worded's), "" for none.
func fieldOfError(err error) string {
	var we *wordedError
	if errors.As(err, &we) {
		return we.field
	}
	return ""
}
