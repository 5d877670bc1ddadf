package distance

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCommittedPTX checks distance.ptx as the CUDA backend will read it
// when cuda_ops.go loads it, so that a bad module is caught on machines
// without a GPU: it parses, is built for compute_70 and declares the two
// kernels cuda_ops.go launches, under the pipeline's prefix.
func TestCommittedPTX(t *testing.T) {
	src, err := os.ReadFile("distance.ptx")
	if err != nil {
		t.Fatalf("%v (run scripts/build-ptx.sh)", err)
	}
	names, err := gpu.CheckPTX(string(src), "dist_")
	if err != nil {
		t.Fatalf("distance.ptx: %v", err)
	}
	if want := []string{"dist_gram", "dist_metric"}; !reflect.DeepEqual(names, want) {
		t.Errorf("distance.ptx declares %v, want %v", names, want)
	}
}

// TestKernelKinds: the metric numbers distance.cu switches on are the
// Kind values Metric passes, and its BioEM clamp is BioEMTiny.
func TestKernelKinds(t *testing.T) {
	src, err := os.ReadFile("distance.cu")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, line := range strings.Split(string(src), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "#define" {
			defs[f[1]] = f[2]
		}
	}
	for name, k := range map[string]Kind{"DIST_L2": KindL2, "DIST_L2SQ": KindL2Sq, "DIST_CORR": KindCorr,
		"DIST_CORRDIST": KindCorrDist, "DIST_BIOEM": KindBioEM, "DIST_FSC": KindFSC, "DIST_RES": KindRes} {
		if got := defs[name]; got != strconv.Itoa(int(k)) {
			t.Errorf("distance.cu: #define %s %q, Kind %d", name, got, k)
		}
	}
	if tiny, err := strconv.ParseFloat(defs["DIST_BIOEM_TINY"], 64); err != nil || tiny != BioEMTiny {
		t.Errorf("distance.cu: DIST_BIOEM_TINY %q, want %g", defs["DIST_BIOEM_TINY"], BioEMTiny)
	}
}
