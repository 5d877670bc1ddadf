package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run the pipeline steps a YAML file describes, with the flags' own names",
		usage:   "PIPELINE.yaml [--plan] [--quiet]",
		examples: []string{
			"voxlab run pipeline.yaml",
			"voxlab run pipeline.yaml --plan",
			"# pipeline.yaml is a list of steps; each names its pipeline, its arguments (in/out, or gt/sub/out",
			"# for distance) and any flags by their names; relative paths are relative to the YAML file, and",
			"# the folders of the outputs are made (see docs/pipeline.yaml):",
			"#   - {pipeline: dezing, in: tomo/scan.nxs, out: results/dezinged.h5, kernel: 3, dif: 1000}",
			"#   - {pipeline: detect, in: brain/planes, out: results/cells.csv, voxel-size: [5, 2, 2]}",
			"#   - {pipeline: distance, gt: maps/gt.npy, sub: maps/submitted.npy, out: results/distances,",
			"#      mask: maps/mask.mrc, metrics: [l2, corr, fsc], low-memory: true}",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			planOnly := fs.Bool("plan", false, "print each step's memory plan instead of running it")
			quiet := fs.Bool("quiet", false, "print nothing but errors")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
					return usagef("want one YAML file, got %d arguments", len(args))
				}
				return runYAML(ctx, e, args[0], *planOnly, *quiet)
			}
		},
	})
}

// yamlStep is one step of a YAML pipeline file as a command line.
type yamlStep struct {
	n, line  int
	pipeline string
	argv     []string
	// out is the step's output (its "out" argument), whose folder is
	// made before the step runs.
	out string
}

func (s yamlStep) name() string { return fmt.Sprintf("step %d (%s, line %d)", s.n, s.pipeline, s.line) }

// runYAML checks every step of the file, then runs them in order through
// the commands themselves; it stops at the first that fails.
func runYAML(ctx context.Context, e *env, path string, planOnly, quiet bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	steps, err := parseSteps(path, data)
	if err != nil {
		return err
	}
	for i, st := range steps {
		argv := st.argv
		if quiet {
			argv = append(argv, "--quiet")
		}
		if planOnly {
			argv = append([]string{"plan"}, argv...)
		}
		if !quiet {
			fmt.Fprintf(e.stdout, "[%d/%d] voxlab %s\n", i+1, len(steps), strings.Join(quoteAll(argv), " "))
		}
		if st.out != "" && !planOnly {
			if err := os.MkdirAll(filepath.Dir(strings.TrimSuffix(st.out, string(filepath.Separator))), 0o755); err != nil {
				return fmt.Errorf("%s: %w", st.name(), err)
			}
		}
		if code := run(ctx, argv, e); code != 0 {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: cancelled: it wrote nothing; the steps before it finished", st.name())
			}
			return fmt.Errorf("%s failed with exit status %d", st.name(), code)
		}
	}
	return nil
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if w == "" || strings.ContainsAny(w, " \t'\"\\$`") {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return out
}

// parseSteps reads the steps of a YAML pipeline file: a list of mappings
// (or a mapping with a "steps" list), each with a "pipeline" key, its
// positional arguments by name and its flags by their names.
func parseSteps(path string, data []byte) ([]yamlStep, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: no steps: the file is empty", path)
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var steps *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			if k := list.Content[i]; k.Value == "steps" {
				steps = list.Content[i+1]
			} else {
				return nil, fmt.Errorf("%s: line %d: unknown key %q: the file holds a list of steps, or steps: [...]", path, k.Line, k.Value)
			}
		}
		if steps == nil {
			return nil, fmt.Errorf("%s: no steps", path)
		}
		list = steps
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: line %d: want a list of steps, e.g. - {pipeline: dezing, in: scan.nxs, out: out.h5}", path, list.Line)
	}
	if len(list.Content) == 0 {
		return nil, fmt.Errorf("%s: the list of steps is empty", path)
	}
	dir := filepath.Dir(path)
	var steps []yamlStep
	for i, item := range list.Content {
		st, err := parseStep(dir, i+1, item)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// parseStep turns one step's mapping into a command line.
func parseStep(dir string, n int, item *yaml.Node) (yamlStep, error) {
	st := yamlStep{n: n, line: item.Line}
	where := fmt.Sprintf("step %d (line %d)", n, item.Line)
	if item.Kind != yaml.MappingNode {
		return st, fmt.Errorf("%s: want a mapping such as {pipeline: dezing, in: scan.nxs, out: out.h5}", where)
	}
	vals := map[string]*yaml.Node{}
	var order []string
	for i := 0; i+1 < len(item.Content); i += 2 {
		k := item.Content[i].Value
		if _, dup := vals[k]; dup {
			return st, fmt.Errorf("%s: key %q is given twice", where, k)
		}
		vals[k] = item.Content[i+1]
		order = append(order, k)
	}
	pn, ok := vals["pipeline"]
	if !ok {
		return st, fmt.Errorf("%s: no pipeline: add pipeline: one of %s", where, pipelineNames())
	}
	st.pipeline = pn.Value
	p, ok := pipelines[st.pipeline]
	if !ok {
		return st, fmt.Errorf("%s: unknown pipeline %q: one of %s", where, st.pipeline, pipelineNames())
	}
	where = st.name()
	spec := specFor(p)
	fs, _, _, _ := newFlags(p)
	st.argv = []string{st.pipeline}
	for _, a := range spec.args {
		v, ok := vals[a]
		if !ok {
			return st, fmt.Errorf("%s: no %s: %s takes %s", where, a, st.pipeline, argNames(spec))
		}
		s, err := scalar(v)
		if err != nil {
			return st, fmt.Errorf("%s: %s: %v", where, a, err)
		}
		s = resolve(dir, s)
		if a == "out" {
			st.out = s
		}
		st.argv = append(st.argv, s)
	}
	for _, k := range order {
		if k == "pipeline" || slices.Contains(spec.args, k) {
			continue
		}
		f := fs.Lookup(k)
		if f == nil || k == "task" {
			return st, fmt.Errorf("%s: unknown key %q%s; %s takes %s and the flags %s", where, k, didYouMean(k, fs, spec), st.pipeline, argNames(spec), flagNames(fs))
		}
		s, err := scalar(vals[k])
		if err != nil {
			return st, fmt.Errorf("%s: %s: %v", where, k, err)
		}
		if spec.inputs[k] && s != "" {
			s = resolve(dir, s)
		}
		if err := fs.Set(k, s); err != nil {
			return st, fmt.Errorf("%s: %s: %q is not a valid value: %v", where, k, s, err)
		}
		st.argv = append(st.argv, "--"+k+"="+s)
	}
	return st, nil
}

// yamlSpec is a pipeline's positional arguments and input-file flags.
type yamlSpec struct {
	args   []string
	inputs map[string]bool
}

// specFor returns the positional arguments of a pipeline and which of
// its flags name input files (resolved relative to the YAML file), from
// its spec.
func specFor(s *pipeline.Spec) yamlSpec {
	ys := yamlSpec{inputs: map[string]bool{}}
	for _, a := range s.Args {
		ys.args = append(ys.args, a.Name)
	}
	for _, p := range s.Params {
		if p.Kind == pipeline.Input {
			ys.inputs[p.Name] = true
		}
	}
	return ys
}

func argNames(s yamlSpec) string { return strings.Join(s.args, ", ") }

func flagNames(fs *flag.FlagSet) string {
	var n []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "task" {
			n = append(n, f.Name)
		}
	})
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// scalar returns a value as a flag's text: a scalar as it is, a list of
// scalars joined by commas (metrics: [l2, corr]; voxel-size: [5, 2, 2]).
func scalar(n *yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "", errors.New("no value")
		}
		return n.Value, nil
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return "", fmt.Errorf("line %d: a list of plain values is allowed, not nested lists or mappings", c.Line)
			}
			parts = append(parts, c.Value)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("line %d: want a value or a list of values, not a mapping", n.Line)
}

// resolve makes a relative path (or file spec with a dataset) relative
// to the YAML file's folder.
func resolve(dir, spec string) string {
	p, ds := volume.SplitSpec(spec)
	if p == "" || filepath.IsAbs(p) {
		return spec
	}
	p = filepath.Join(dir, p)
	if ds != "" {
		return p + ":" + ds
	}
	return p
}

// didYouMean suggests the flag nearest to a misspelt key.
func didYouMean(key string, fs *flag.FlagSet, s yamlSpec) string {
	best, bestD := "", 3
	try := func(name string) {
		if d := editDistance(key, name); d < bestD {
			best, bestD = name, d
		}
	}
	fs.VisitAll(func(f *flag.Flag) { try(f.Name) })
	for _, a := range s.args {
		try(a)
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
