package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pipelinePkg matches the pipelines' packages (the rooms
// processing/<pipeline> of docs/ARCHITECTURE.md).
var pipelinePkg = regexp.MustCompile(`^github\.com/voxlab/voxlab/processing/(dezing|reconstruct|detect|distance|classify|convert)(/|$)`)

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
// draws: the device knows no pipeline, the viewer no job or pipeline
// (and its model no Fyne and no widget: it is tested without a window),
// the panel and the spec package no pipeline's package, the shared
// widgets no voxlab package at all, no pipeline
// another's; a pipeline's tests link neither Fyne nor HDF5 (their CUDA
// binaries must start on a bare GPU machine, scripts/gpu-check.sh) nor
// gonum/plot and its fonts (they must stay small enough to carry).
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
		{"../viewer/model", true, regexp.MustCompile(`^(fyne\.io/|github\.com/voxlab/voxlab/(panel|widgets|processing/(job|dezing|detect|distance|classify|cluster|pipeline))\b)`)},
		{"../panel", false, pipelinePkg},
		{"../widgets", false, regexp.MustCompile(`^github\.com/voxlab/voxlab/(app|panel|viewer|processing|gpu|internal|resources)\b`)},
		{"../processing/pipeline", false, regexp.MustCompile(`^(github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|distance|classify))\b|fyne\.io/)`)},
		{"../processing/dezing", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(reconstruct|detect|distance|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/zinger", true, pipelinePkg},
		{"../processing/reconstruct", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|distance|classify|convert))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/detect", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|distance|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/convert", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|distance|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/distance", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|classify))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
		{"../processing/classify", true, regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|viewer|processing/(dezing|detect|distance))\b|^(fyne\.io/|gonum\.org/v1/(hdf5|plot))`)},
	} {
		for _, dep := range goList(t, tc.pkg, tc.test) {
			if tc.banned.MatchString(dep) {
				t.Errorf("%s depends on %s", tc.pkg, dep)
			}
		}
	}
}

// linknameDirective is the compiler directive that binds a declaration to
// another package's unexported symbol; spelled in two halves so that this
// file does not hold it.
var linknameDirective = []byte("go:" + "linkname")

// TestNoLinkname: no file of the repository reaches into another
// package's internals by name (issue 25). The linker checks only the
// symbol's name, so a Fyne upgrade that changed such a function's
// signature would be memory corruption, not a build error. It reads every
// file under the module root, as `grep -r` does, except git's own and
// the build outputs .gitignore names.
func TestNoLinkname(t *testing.T) {
	found, err := filesHolding("..", linknameDirective)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s holds %s", f, linknameDirective)
	}
}

// TestNoLinknameFinds: filesHolding finds the directive in a file at any
// depth, and skips git's folder and the build outputs.
func TestNoLinknameFinds(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	directive := "//" + string(linknameDirective) + " f fyne.io/fyne/v2/internal/cache.Renderer\n"
	write("viewer/internal/x/fyne.go", "package x\n\nimport _ \"unsafe\"\n\n"+directive+"func f()\n")
	write("README.md", "no directive here\n")
	write(".git/objects/ab/cd", directive)
	write("bin/voxlab", directive)
	write("app/app.test", directive)
	found, err := filesHolding(root, linknameDirective)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "viewer/internal/x/fyne.go")}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("found %q, want %q", found, want)
	}
}

// filesHolding returns the files under root that contain needle, skipping
// .git and the build outputs of .gitignore (bin, dist, demo-data, .cache,
// *.test, *.prof) that a clean clone does not have.
func filesHolding(root string, needle []byte) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch rel {
			case ".git", "bin", "dist", "demo-data", ".cache":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".test") || strings.HasSuffix(p, ".prof") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, needle) {
			found = append(found, p)
		}
		return nil
	})
	return found, err
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
