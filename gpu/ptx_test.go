package gpu

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPTXEntriesCore(t *testing.T) {
	src, err := os.ReadFile("kernels/core.ptx")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ptxEntries(string(src))
	if err != nil {
		t.Fatal(err)
	}
	// Sizes from the C signatures in kernels/core.cu.
	want := []ptxEntry{
		{"core_fill_u32", []int{8, 4, 8}},
		{"core_axpy_f32", []int{4, 8, 8, 8}},
		{"core_args", []int{1, 2, 4, 4, 8, 8, 8}},
		{"core_spin", []int{8, 8}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPTXEntriesForms(t *testing.T) {
	src := `
.visible .entry none(
)
{ ret; }
.entry packed(.param .align 8 .b8 packed_param_0[24], .param .f64 packed_param_1,
	.param .s16 packed_param_2)
{ ret; }
.func (.param .b32 func_retval0) helper(.param .b32 helper_param_0) { ret; }
`
	got, err := ptxEntries(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []ptxEntry{{"none", nil}, {"packed", []int{24, 8, 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := ptxEntries(".entry bad(.param .texref bad_param_0)"); err == nil || !strings.Contains(err.Error(), "kernel bad") {
		t.Errorf("unsupported parameter: %v", err)
	}
}

// TestCommittedPTX checks every committed module as the CUDA backend will
// when it opens, so a bad .ptx is caught on machines without a GPU: each
// parses, each kernel name carries its pipeline's prefix, and no name is
// defined twice.
func TestCommittedPTX(t *testing.T) {
	files, _ := filepath.Glob("kernels/*.ptx")
	if len(files) == 0 {
		t.Fatal("no kernels/*.ptx: run scripts/build-ptx.sh")
	}
	prefixes := []string{"core_"}
	seen := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), ".target sm_70") {
			t.Errorf("%s: not built for compute_70 (run scripts/build-ptx.sh)", f)
		}
		entries, err := ptxEntries(string(src))
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for _, e := range entries {
			ok := false
			for _, p := range prefixes {
				ok = ok || strings.HasPrefix(e.Name, p)
			}
			if !ok {
				t.Errorf("%s: kernel %s lacks a pipeline prefix %v", f, e.Name, prefixes)
			}
			if prev, dup := seen[e.Name]; dup {
				t.Errorf("kernel %s in both %s and %s", e.Name, prev, f)
			}
			seen[e.Name] = f
			for i, n := range e.Params {
				if n > 8 {
					t.Errorf("%s: kernel %s parameter %d is %d bytes; launch takes at most 8", f, e.Name, i, n)
				}
			}
		}
	}
}
