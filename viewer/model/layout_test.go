package model

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoFyne: the model links no Fyne package, directly or through
// another, so that its tests run without a display and the view is the
// only side that knows widgets.
func TestNoFyne(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go not on the PATH: %v", err)
	}
	out, err := exec.Command("go", "list", "-deps", "-test", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "fyne.io/") {
			t.Errorf("viewer/model depends on %s", dep)
		}
	}
}
