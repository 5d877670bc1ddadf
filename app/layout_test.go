package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPackageLayout holds the rooms of DESIGN.md's layout to their
// arrows (issue 16): the device knows no pipeline, the viewer no job or
// pipeline.
func TestPackageLayout(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go not on the PATH: %v", err)
	}
	for _, tc := range []struct {
		pkg    string
		banned *regexp.Regexp
	}{
		{"../gpu", regexp.MustCompile(`^github\.com/voxlab/voxlab/(processing|viewer|panel)\b`)},
		{"../viewer", regexp.MustCompile(`^github\.com/voxlab/voxlab/(panel|processing/(job|dezing|detect|distance|cluster))\b`)},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
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
