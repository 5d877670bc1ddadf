package pipeline

import (
	"fmt"
	"slices"
)

// Values are a run's parameters by name, each of its kind's Go type
// (see Kind). A spec's Defaults hold every parameter; the accessors
// panic on a name the spec does not have or a value of another type,
// so that a misspelt name fails the first test that runs the pipeline
// instead of reading a zero.
type Values map[string]any

func (v Values) get(name string) any {
	x, ok := v[name]
	if !ok {
		panic(fmt.Sprintf("pipeline: no parameter %q", name))
	}
	return x
}

func value[T any](v Values, name string) T {
	x := v.get(name)
	t, ok := x.(T)
	if !ok {
		var zero T
		panic(fmt.Sprintf("pipeline: parameter %q holds %T, not %T", name, x, zero))
	}
	return t
}

// Int returns an Int parameter.
func (v Values) Int(name string) int { return value[int](v, name) }

// Float returns a Float parameter.
func (v Values) Float(name string) float64 { return value[float64](v, name) }

// Bool returns a Bool parameter.
func (v Values) Bool(name string) bool { return value[bool](v, name) }

// String returns a Text, Choice, Input or Output parameter.
func (v Values) String(name string) string { return value[string](v, name) }

// Strings returns a Multi parameter.
func (v Values) Strings(name string) []string { return slices.Clone(value[[]string](v, name)) }

// Floats returns a Floats parameter (nil when not given).
func (v Values) Floats(name string) []float64 { return slices.Clone(value[[]float64](v, name)) }

// Size returns a Size parameter in bytes.
func (v Values) Size(name string) int64 { return value[int64](v, name) }

// Clone returns a copy of v whose lists are its own.
func (v Values) Clone() Values {
	out := make(Values, len(v))
	for k, x := range v {
		switch l := x.(type) {
		case []string:
			x = slices.Clone(l)
		case []float64:
			x = slices.Clone(l)
		}
		out[k] = x
	}
	return out
}
