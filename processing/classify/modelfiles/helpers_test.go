package modelfiles

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// The golden files and the synthetic crop are classify's own
// (processing/classify/testdata, made by its gen_golden.py); these
// helpers read them as the package's tests do.
const testdata = "../testdata"

var (
	cropShape = [3]int{30, 520, 680}
	cropSeed  = uint64(2024)
)

type netConfig struct {
	Tag    string     `json:"tag"`
	Depth  int        `json:"depth"`
	Input  [4]int     `json:"input"`
	Voxel  [3]float64 `json:"voxel"`
	Layout string     `json:"layout"`
	PCell  []float64  `json:"p_cell"`
	F32    float64    `json:"float32_max_diff"`
}

func netGolden(t testing.TB) []netConfig {
	t.Helper()
	var g struct {
		Configs []netConfig `json:"configs"`
	}
	b, err := os.ReadFile(filepath.Join(testdata, "net_golden.json"))
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g.Configs
}

func candidates(t testing.TB) []points.Point {
	t.Helper()
	pts, err := points.Read(filepath.Join(testdata, "candidates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

var cropOnce struct {
	sync.Once
	sig, bg []byte
}

func u16Bytes(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

// cropVolumes returns the synthetic crop's two channels (somata at the
// candidates marked cell) as volumes.
func cropVolumes(t testing.TB) (sig, bg *volume.Volume) {
	t.Helper()
	cropOnce.Do(func() {
		var somata [][3]int
		for _, p := range candidates(t) {
			if p.Type == "cell" {
				somata = append(somata, [3]int{int(p.Z), int(p.Y), int(p.X)})
			}
		}
		s, b := synth.Crop(cropShape, somata, cropSeed)
		cropOnce.sig, cropOnce.bg = u16Bytes(s), u16Bytes(b)
	})
	info := volume.Info{Shape: cropShape, DType: volume.Uint16, VoxelSize: [3]float64{5, 2, 2}}
	ms, err := volume.NewMemory(info, cropOnce.sig)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := volume.NewMemory(info, cropOnce.bg)
	if err != nil {
		t.Fatal(err)
	}
	return volume.New("signal", ms), volume.New("background", mb)
}

func configFor(c netConfig, model string) classify.Config {
	cfg := classify.DefaultConfig()
	cfg.Model = model
	cfg.VoxelSize = c.Voxel
	cfg.CubeSize = [3]int{c.Input[0], c.Input[1], c.Input[2]}
	cfg.NetworkDepth = c.Depth
	return cfg
}

// run classifies in with the model file cfg.Model (m nil) or m.
func run(t testing.TB, cfg classify.Config, in classify.Inputs, be gpu.Backend, m *keras.Model) *classify.Result {
	t.Helper()
	var s *classify.Session
	var err error
	if m != nil {
		s, err = classify.OpenModel(cfg, in, m)
	} else {
		s, err = classify.Open(cfg, in)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), job.NewProgress("classify"), be, plan.Budget{Shared: be.Name() == "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkGolden holds a result against the torch reference: p(cell)
// within 1e-3, the same class wherever the reference is not within 1e-3
// of 0.5, the same candidates classified (all: every candidate of the
// reference; else res holds only the first of them).
func checkGolden(t *testing.T, c netConfig, res *classify.Result, all bool) {
	t.Helper()
	k, worst := 0, 0.0
	for i, cl := range res.Candidates {
		if cl.Class == points.Unknown {
			continue
		}
		if k >= len(c.PCell) {
			t.Fatalf("more candidates classified than the reference's %d", len(c.PCell))
		}
		want := c.PCell[k]
		k++
		d := math.Abs(float64(cl.P) - want)
		worst = max(worst, d)
		if d > 1e-3 {
			t.Errorf("candidate %d: p(cell) %.6f, torch %.6f", i, cl.P, want)
		}
		if math.Abs(want-0.5) > 1e-3 && (cl.Class == points.Cell) != (want > 0.5) {
			t.Errorf("candidate %d: class %v, torch p(cell) %.6f", i, cl.Class, want)
		}
	}
	if k == 0 || (all && k != len(c.PCell)) {
		t.Errorf("%d candidates classified, the reference %d", k, len(c.PCell))
	}
	t.Logf("%s: %d classified (%d cells), %d unknown; largest difference from torch %.2g (torch float32 vs float64: %.2g)", c.Tag, k, res.Cells, res.Unknown, worst, c.F32)
}
