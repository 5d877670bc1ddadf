package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/pipeline"
)

// The user-facing descriptions of the pipelines — every command's
// --help, the processing panel's forms and the keys a YAML step takes —
// are held to golden files under testdata/ui, captured from the code
// before the pipelines moved into their specs (issue 25), so that the
// move is checked to change nothing a user sees. Regenerate them with
// `go test ./app -run TestUIGolden -update` only for a deliberate change,
// and review the diff.

var update = flag.Bool("update", false, "rewrite the golden files of TestUIGolden")

// goldenPipelines are the pipelines whose forms and YAML keys are held.
var goldenPipelines = []string{"dezing", "detect", "distance"}

// helpLines are the --help invocations held: every command, and plan,
// merge and submit of each pipeline.
func helpLines() [][]string {
	var out [][]string
	out = append(out, []string{"--help"})
	for _, c := range []string{"demo", "detect", "dezing", "distance", "gui", "info", "merge", "plan", "run", "status", "submit", "view"} {
		out = append(out, []string{c, "--help"})
	}
	for _, p := range goldenPipelines {
		out = append(out, []string{"plan", p, "--help"}, []string{"merge", p, "--help"}, []string{"submit", "slurm", p, "--help"})
	}
	return out
}

// checkGolden compares got with testdata/ui/name, or writes it there
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "ui", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want and got that differ, by line number.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			fmt.Fprintf(&sb, "line %d:\n  want %q\n  got  %q\n", i+1, x, y)
		}
	}
	return sb.String()
}

// withoutTestPipelines drops the test binary's own pipelines
// (fakepipe_test.go) from the command list of voxlab --help.
func withoutTestPipelines(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  fakepipe ") || strings.HasPrefix(l, "  fakewhole ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func TestUIGolden(t *testing.T) {
	for _, args := range helpLines() {
		code, stdout, stderr := runCmd(args...)
		if code != 0 {
			t.Errorf("voxlab %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			continue
		}
		name := "help-" + strings.Join(args, "_") + ".txt"
		name = strings.ReplaceAll(name, "--help", "")
		name = strings.ReplaceAll(name, "_.txt", ".txt")
		name = strings.ReplaceAll(name, "-.txt", ".txt")
		checkGolden(t, name, withoutTestPipelines(stdout))
	}
	for _, p := range goldenPipelines {
		checkGolden(t, "form-"+p+".txt", formDump(t, p))
		checkGolden(t, "yaml-"+p+".txt", yamlDump(t, p))
	}
}

// widgetKinds name how the panel edits each kind of parameter, as the
// golden files (written before parameters were typed) name them.
var widgetKinds = map[pipeline.Kind]string{
	pipeline.Bool: "bool", pipeline.Choice: "choice", pipeline.Multi: "multi", pipeline.Input: "input", pipeline.Output: "output",
}

func fieldLine(f pipeline.Param) string {
	kind := widgetKinds[f.Kind]
	if kind == "" {
		kind = "text"
	}
	def := f.DefaultText()
	if f.Kind == pipeline.Bool {
		def = strconv.FormatBool(f.Zero().(bool))
	}
	return fmt.Sprintf("%s | label %q | kind %s | default %q | options %q | folder %v | optional %v | advanced %v | help %q",
		f.Name, f.Title(), kind, def, f.Options, f.Folder, f.Optional, f.Advanced, f.Help)
}
