package main

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pipelinePkg matches the pipelines' packages (the rooms
// processing/<pipeline> of docs/ARCHITECTURE.md).
var pipelinePkg = regexp.MustCompile(`^github\.com/voxlab/voxlab/processing/(dezing|detect|distance|classify)(/|$)`)

// goList returns the packages pkg depends on (with its tests' when
// test is set).
func goList(t *testing.T, pkg string, test bool) []string {
	t.Helper()
	args := []string{"list", "-deps"}
	if test {
		args = append(args, "-test")
	}
	out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// TestPackageLayout holds the rooms to the arrows docs/ARCHITECTURE.md
// draws: the device knows no pipeline, the viewer no job or pipeline,
// the panel and the spec package no pipeline's package, no pipeline
// another's; a pipeline's tests link neither Fyne nor HDF5 (their CUDA
// binaries must start on a bare GPU machine, scripts/gpu-check.sh) nor
// gonum/plot and its fonts (they must stay small enough to carry); and
// the binary links no test package of Fyne.
func TestPackageLayout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go not on the PATH: %v", err)
	}
	for _, tc := range []struct {
		pkg    string
		test   bool
		banned *regexp.Regexp
	}{
		{"../gpu", false, regexp.MustCompile(`^github\.com/voxlab/voxlab/(processing|viewer|panel)\b`)},
		{"../viewer", false, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|processing/(job|dezing|detect|distance|classify|cluster|pipeline))\b`)},
		{"../panel", false, pipelinePkg},
		{"../processing/pipeline", false, regexp.MustCompile(`^(github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|distance|classify))\b|fyne\.io/)`)},
		{"../processing/dezing", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(detect|distance|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/detect", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|distance|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/distance", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{".", false, regexp.MustCompile(`^fyne\.io/fyne/v2/test$`)},
	} {
		for _, dep := range goList(t, tc.pkg, tc.test) {
			if tc.banned.MatchString(dep) {
				t.Errorf("%s depends on %s", tc.pkg, dep)
			}
		}
	}
}

// TestAppImportsPipelinesOnce: app/ is generic; it reaches the
// pipelines' packages only through pipelines.go's blank imports, which
// register their specs (docs/ARCHITECTURE.md).
func TestAppImportsPipelinesOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if !pipelinePkg.MatchString(path) {
				continue
			}
			if f != "pipelines.go" || im.Name == nil || im.Name.Name != "_" {
				t.Errorf("%s imports %s: only pipelines.go imports a pipeline, blank", f, path)
			}
			found++
		}
	}
	if found == 0 {
		t.Error("pipelines.go imports no pipeline")
	}
}
