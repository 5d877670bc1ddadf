package pipeline

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestParseAndFormat: each kind reads its text and writes it back as the
// flag shows it; a wrong text names the value and what is wanted.
func TestParseAndFormat(t *testing.T) {
	for _, tc := range []struct {
		p       Param
		in      string
		want    any
		text    string
		errWant string
	}{
		{p: Param{Name: "n", Kind: Int}, in: "13", want: 13, text: "13"},
		{p: Param{Name: "n", Kind: Int}, in: " 0x10 ", want: 16, text: "16"},
		{p: Param{Name: "n", Kind: Int}, in: "1.5", errWant: `"1.5": want a whole number`},
		{p: Param{Name: "n", Kind: Int}, in: "", errWant: "whole number"},
		{p: Param{Name: "f", Kind: Float}, in: "1e12", want: 1e12, text: "1e+12"},
		{p: Param{Name: "f", Kind: Float}, in: "-0.25", want: -0.25, text: "-0.25"},
		{p: Param{Name: "f", Kind: Float}, in: "x", errWant: `"x": want a number`},
		{p: Param{Name: "f", Kind: Float}, in: "NaN", errWant: "want a number"},
		{p: Param{Name: "b", Kind: Bool}, in: "true", want: true, text: "true"},
		{p: Param{Name: "b", Kind: Bool}, in: "yes", errWant: "true or false"},
		{p: Param{Name: "s", Kind: Text}, in: "a b", want: "a b", text: "a b"},
		{p: Param{Name: "c", Kind: Choice, Options: []string{"mean", "median"}}, in: "median", want: "median", text: "median"},
		{p: Param{Name: "c", Kind: Choice, Options: []string{"mean", "median"}}, in: "mode", errWant: `"mode": want mean or median`},
		{p: Param{Name: "m", Kind: Multi, Options: []string{"l2", "corr", "fsc"}}, in: "l2, fsc", want: []string{"l2", "fsc"}, text: "l2,fsc"},
		{p: Param{Name: "m", Kind: Multi, Options: []string{"l2", "corr"}}, in: "l2,emd", errWant: `"emd": want any of l2, corr`},
		{p: Param{Name: "z", Kind: Size}, in: "2GiB", want: int64(2 << 30), text: "2 GiB"},
		{p: Param{Name: "z", Kind: Size}, in: "lots", errWant: `"lots"`},
		{p: Param{Name: "v", Kind: Floats, Len: 3, Axes: "z,y,x", Unit: "µm"}, in: "5,2,2.5", want: []float64{5, 2, 2.5}, text: "5,2,2.5"},
		{p: Param{Name: "v", Kind: Floats, Len: 3, Axes: "z,y,x", Unit: "µm"}, in: "", want: []float64(nil), text: ""},
		{p: Param{Name: "v", Kind: Floats, Len: 3, Axes: "z,y,x", Unit: "µm"}, in: "5,2", errWant: `"5,2": want three numbers z,y,x in µm`},
		{p: Param{Name: "v", Kind: Floats}, in: "5,a", errWant: `"a" is not a number`},
		{p: Param{Name: "i", Kind: Input}, in: "scan.nxs:/entry", want: "scan.nxs:/entry", text: "scan.nxs:/entry"},
	} {
		got, err := tc.p.Parse(tc.in)
		if tc.errWant != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWant) {
				t.Errorf("%s %s %q: error %v, want one saying %q", tc.p.Kind, tc.p.Name, tc.in, err, tc.errWant)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.p.Kind, tc.in, err)
			continue
		}
		if !equal(got, tc.want) {
			t.Errorf("%s %q = %#v, want %#v", tc.p.Kind, tc.in, got, tc.want)
		}
		if text := tc.p.Format(got); text != tc.text {
			t.Errorf("%s %q formats as %q, want %q", tc.p.Kind, tc.in, text, tc.text)
		}
	}
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case []string:
		y, ok := b.([]string)
		return ok && slices.Equal(x, y) && (x == nil) == (y == nil)
	case []float64:
		y, ok := b.([]float64)
		return ok && slices.Equal(x, y) && (x == nil) == (y == nil)
	}
	return a == b
}

// TestCheckOverridesOptions: a Check of its own takes over from the
// options (a choice that also accepts other spellings), and runs on
// every kind.
func TestCheckOverridesOptions(t *testing.T) {
	lenient := Param{Name: "c", Kind: Choice, Options: []string{"mean"}, Check: func(v any) error {
		if strings.EqualFold(v.(string), "mean") {
			return nil
		}
		return errors.New("use mean")
	}}
	if _, err := lenient.Parse("MEAN"); err != nil {
		t.Errorf("MEAN: %v", err)
	}
	if _, err := lenient.Parse("mode"); err == nil || err.Error() != "use mean" {
		t.Errorf("mode: %v", err)
	}
	odd := Param{Name: "k", Kind: Int, Check: func(v any) error {
		if v.(int)%2 == 0 {
			return errors.New("must be odd")
		}
		return nil
	}}
	if _, err := odd.Parse("4"); err == nil {
		t.Error("4 passed a check that wants odd numbers")
	}
	if err := odd.Validate(math.NaN()); err == nil {
		t.Error("NaN passed")
	}
}

// TestTitleAndDefaults: the panel's label and the default's text.
func TestTitleAndDefaults(t *testing.T) {
	for _, tc := range []struct {
		p           Param
		title, text string
	}{
		{Param{Name: "split-ball-xy", Kind: Float, Default: 6.0}, "Split ball xy", "6"},
		{Param{Name: "soma-diameter", Kind: Float, Default: 16.0, Label: "Soma diameter", Unit: "µm"}, "Soma diameter (µm)", "16"},
		{Param{Name: "xml", Kind: Bool, Label: "Also write cellfinder XML"}, "Also write cellfinder XML", "false"},
		{Param{Name: "metrics", Kind: Multi, Options: []string{"a", "b"}, Default: []string{"a", "b"}}, "Metrics", "a,b"},
		{Param{Name: "voxel-size", Kind: Floats}, "Voxel size", ""},
		{Param{Name: "end-plane", Kind: Int}, "End plane", "0"},
	} {
		if got := tc.p.Title(); got != tc.title {
			t.Errorf("%s: title %q, want %q", tc.p.Name, got, tc.title)
		}
		if got := tc.p.DefaultText(); got != tc.text {
			t.Errorf("%s: default %q, want %q", tc.p.Name, got, tc.text)
		}
	}
}

func validSpec() *Spec {
	return &Spec{
		Name: "test-pipe", Summary: "a test", Batch: Batch{Flag: "batch-size", Unit: "planes"},
		Args:   []Param{{Name: "in", Kind: Input}, {Name: "out", Kind: Output}},
		Params: []Param{{Name: "kernel", Kind: Int, Default: 3}, {Name: "mode", Kind: Choice, Options: []string{"a"}, Default: "a"}},
		Open:   func(Request) (Job, error) { return nil, errors.New("not here") },
	}
}

// TestSpecValidate: a spec whose names collide with a flag every
// pipeline has, whose default is of another type than its kind, or
// whose arguments are not inputs then outputs, is refused.
func TestSpecValidate(t *testing.T) {
	if err := validSpec().Validate(); err != nil {
		t.Fatalf("a valid spec: %v", err)
	}
	for name, change := range map[string]func(*Spec){
		"name":             func(s *Spec) { s.Name = "Bad Name" },
		"shared flag":      func(s *Spec) { s.Params[0].Name = "backend" },
		"batch flag":       func(s *Spec) { s.Params[0].Name = "batch-size" },
		"twice":            func(s *Spec) { s.Params[1].Name = "kernel" },
		"default type":     func(s *Spec) { s.Params[0].Default = 3.0 },
		"choice":           func(s *Spec) { s.Params[1].Options = nil },
		"argument kind":    func(s *Spec) { s.Args[0].Kind = Int },
		"input after":      func(s *Spec) { s.Args[0], s.Args[1] = s.Args[1], s.Args[0] },
		"no open":          func(s *Spec) { s.Open = nil },
		"no kind":          func(s *Spec) { s.Params[0].Kind = 0 },
		"argument is flag": func(s *Spec) { s.Params[0].Name = "in" },
	} {
		s := validSpec()
		s.Args = slices.Clone(s.Args)
		s.Params = slices.Clone(s.Params)
		change(s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestValuesAccessors: a value reads as its kind's type; a name the
// spec does not have, or a value of another type, panics at once.
func TestValuesAccessors(t *testing.T) {
	v := validSpec().Defaults()
	if v.Int("kernel") != 3 || v.String("mode") != "a" {
		t.Errorf("defaults %v", v)
	}
	for name, f := range map[string]func(){
		"misspelt": func() { v.Int("kernal") },
		"type":     func() { v.Float("kernel") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	l := Values{"m": []string{"a"}}
	c := l.Clone()
	c["m"].([]string)[0] = "b"
	if l.Strings("m")[0] != "a" {
		t.Error("Clone shares its lists")
	}
}
