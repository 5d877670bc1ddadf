package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestPackageLayout holds the rooms of DESIGN.md's layout to their
// arrows (issue 16): the device knows no pipeline, the viewer no job or
// pipeline, and the binary links no test package of Fyne (offscreen
// rendering has its own driver).
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
		{".", regexp.MustCompile(`^fyne\.io/fyne/v2/test$`)},
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
