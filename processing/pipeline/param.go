package pipeline

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/plan"
)

// Kind is the type of a parameter's value.
type Kind int

// The kinds of parameters, with the Go type of their values in Values.
const (
	// Int is a whole number (int).
	Int Kind = iota + 1
	// Float is a number (float64).
	Float
	// Bool is on or off (bool): a flag without a value on the command
	// line, a check box in the panel.
	Bool
	// Text is free text (string).
	Text
	// Choice is one of Options (string).
	Choice
	// Multi is any of Options ([]string), written comma-separated.
	Multi
	// Size is a number of bytes (int64), written "2GiB" or "512MiB".
	Size
	// Floats is a list of numbers ([]float64), written comma-separated
	// ("5,2,2"); Len fixes how many, Axes names them.
	Floats
	// Input names an existing file, folder or volume spec (string).
	Input
	// Output names a file or folder to write (string).
	Output
)

var kindNames = map[Kind]string{Int: "int", Float: "float", Bool: "bool", Text: "text", Choice: "choice",
	Multi: "multi", Size: "size", Floats: "floats", Input: "input", Output: "output"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Param is one parameter of a pipeline: a positional argument (an Input
// or Output in Spec.Args) or a flag (Spec.Params). Its Name is the flag
// (--kernel) and the YAML key (kernel: 5); Help is the flag's usage and
// the help under the panel's field, so that the command line, a YAML
// file and the panel describe a run in the same words.
type Param struct {
	Name string
	Kind Kind
	// Default is the value when none is given, of the kind's Go type
	// (nil: the zero value; for Floats, Input and Output: unset).
	Default any
	// Label names the field in the panel (default: the name,
	// capitalised, dashes as spaces); Unit, when set, follows it in
	// brackets: "Soma diameter (µm)".
	Label, Unit string
	Help        string
	// Options are the values of a Choice or Multi.
	Options []string
	// Len is how many numbers a Floats takes (0: any), Axes what they
	// are ("z,y,x"), for messages.
	Len  int
	Axes string
	// Folder: an Input or Output names a folder, not a file.
	Folder bool
	// Optional: an Input or Output may be empty.
	Optional bool
	// Advanced parameters sit under "More parameters" in the panel.
	Advanced bool
	// Check validates a parsed value beyond its kind (a kernel that must
	// be odd); nil when it is fine. Its error names the value, not the
	// parameter: callers add "--name: ".
	Check func(v any) error
}

// Title is the field's label in the panel: Label, or the name
// capitalised with dashes as spaces, and the unit in brackets.
func (p Param) Title() string {
	l := p.Label
	if l == "" {
		l = strings.ToUpper(p.Name[:1]) + strings.ReplaceAll(p.Name[1:], "-", " ")
	}
	if p.Unit != "" {
		l += " (" + p.Unit + ")"
	}
	return l
}

// Zero is the value of the parameter when it is not given: its Default,
// or the zero value of its kind.
func (p Param) Zero() any {
	if p.Default != nil {
		return p.Default
	}
	switch p.Kind {
	case Int:
		return 0
	case Float:
		return 0.0
	case Bool:
		return false
	case Size:
		return int64(0)
	case Multi:
		return []string(nil)
	case Floats:
		return []float64(nil)
	}
	return ""
}

// DefaultText is the default as the flag and the panel show it.
func (p Param) DefaultText() string { return p.Format(p.Zero()) }

// Format writes a value as its flag's text: "3", "1000", "true",
// "l2,corr", "5,2,2", "2GiB".
func (p Param) Format(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		if p.Kind == Size {
			if x == 0 {
				return ""
			}
			return plan.FormatBytes(x)
		}
		return strconv.FormatInt(x, 10)
	case []string:
		return strings.Join(x, ",")
	case []float64:
		s := make([]string, len(x))
		for i, f := range x {
			s[i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
		return strings.Join(s, ",")
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// numberWords spell small counts in messages ("want three numbers").
var numberWords = []string{"no", "one", "two", "three", "four", "five", "six"}

// Parse reads a value from its text (a flag's, a YAML key's, a form
// field's) and checks it: the kind's syntax, the options of a Choice or
// Multi (when it has no Check of its own) and Check. An empty text is
// the zero value of a Text, Input, Output, Size, Multi or Floats.
func (p Param) Parse(s string) (any, error) {
	v, err := p.parse(s)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(v); err != nil {
		return nil, err
	}
	return v, nil
}

func (p Param) parse(s string) (any, error) {
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 0, strconv.IntSize)
		if err != nil {
			return nil, fmt.Errorf("%q: want a whole number", s)
		}
		return int(n), nil
	case Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: want a number", s)
		}
		return f, nil
	case Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%q: want true or false", s)
		}
		return b, nil
	case Size:
		if strings.TrimSpace(s) == "" {
			return int64(0), nil
		}
		n, err := plan.ParseBytes(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		return n, nil
	case Multi:
		var out []string
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out, nil
	case Floats:
		return p.parseFloats(s)
	}
	return s, nil
}

// parseFloats reads "5,2,2".
func (p Param) parseFloats(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return []float64(nil), nil
	}
	parts := strings.Split(s, ",")
	if p.Len > 0 && len(parts) != p.Len {
		what := "numbers"
		if p.Len < len(numberWords) {
			what = numberWords[p.Len] + " numbers"
		}
		if p.Axes != "" {
			what += " " + p.Axes
		}
		if p.Unit != "" {
			what += " in " + p.Unit
		}
		return nil, fmt.Errorf("%q: want %s", s, what)
	}
	out := make([]float64, len(parts))
	for i, x := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a number", s, x)
		}
		out[i] = f
	}
	return out, nil
}

// Validate checks a value of the parameter's kind: the options of a
// Choice or Multi without a Check of its own, NaN, and Check.
func (p Param) Validate(v any) error {
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		return fmt.Errorf("%q: want a number", p.Format(v))
	}
	if p.Check != nil {
		return p.Check(v)
	}
	switch p.Kind {
	case Choice:
		s, _ := v.(string)
		if !contains(p.Options, s) {
			return fmt.Errorf("%q: want %s", s, orList(p.Options))
		}
	case Multi:
		xs, _ := v.([]string)
		for _, s := range xs {
			if !contains(p.Options, s) {
				return fmt.Errorf("%q: want any of %s", s, strings.Join(p.Options, ", "))
			}
		}
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// orList is "a, b or c".
func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
