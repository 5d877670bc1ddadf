package h5

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTreeRoundTrip writes groups, string-array attributes and datasets
// of rank 1 to 5 with the writer and reads them back with Tree.
func TestTreeRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.h5")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetStrings("/", "layer_names", []string{"conv1", "conv1_bn", "a_much_longer_name"}))
	must(f.SetAttrs("/", map[string]any{"backend": "tensorflow"}))
	must(f.SetStrings("conv1", "weight_names", []string{"conv1/kernel:0"}))
	must(f.SetStrings("empty", "weight_names", nil))
	k := make([]float32, 2*3*1*2*4)
	for i := range k {
		k[i] = float32(i) / 7
	}
	must(f.WriteFloat32s("conv1/conv1/kernel:0", []int{2, 3, 1, 2, 4}, k))
	must(f.WriteFloat32s("b/vars/0", []int{3}, []float32{1, 2, 3}))
	must(f.Commit())

	tr, err := OpenTree(p)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	names, err := tr.Strings("/", "layer_names")
	if err != nil || !slices.Equal(names, []string{"conv1", "conv1_bn", "a_much_longer_name"}) {
		t.Fatalf("layer_names %q, %v", names, err)
	}
	if v, err := tr.Strings("/", "backend"); err != nil || !slices.Equal(v, []string{"tensorflow"}) {
		t.Errorf("backend %q, %v (a variable-length scalar)", v, err)
	}
	if v, err := tr.Strings("empty", "weight_names"); err != nil || len(v) != 0 {
		t.Errorf("empty weight_names %q, %v", v, err)
	}
	if !tr.HasAttr("conv1", "weight_names") || tr.HasAttr("conv1", "nothing") || tr.HasAttr("missing", "x") {
		t.Error("HasAttr")
	}
	if tr.Kind("conv1") != "group" || tr.Kind("conv1/conv1/kernel:0") != "dataset" || tr.Kind("nope/x") != "" {
		t.Error("Kind")
	}
	m, err := tr.Members("/")
	if err != nil || !slices.Equal(m, []string{"b", "conv1", "empty"}) {
		t.Errorf("members %q, %v", m, err)
	}
	got, shape, err := tr.Float32s("conv1/conv1/kernel:0")
	if err != nil || !slices.Equal(shape, []int{2, 3, 1, 2, 4}) || !slices.Equal(got, k) {
		t.Errorf("kernel %v %v", shape, err)
	}
	if _, _, err := tr.Float32s("conv1"); err == nil {
		t.Error("a group read as a dataset")
	}
	if _, err := tr.Strings("conv1/conv1/kernel:0", "x"); err == nil {
		t.Error("a missing attribute read")
	}
}

// TestTreeRefusesText: a text file is not opened as a tree.
func TestTreeRefusesText(t *testing.T) {
	p := filepath.Join(t.TempDir(), "model.h5")
	if err := writeText(p, "not hdf5\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTree(p); err == nil {
		t.Fatal("a text file opened")
	}
}

func writeText(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
