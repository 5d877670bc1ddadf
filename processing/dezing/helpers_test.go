package dezing

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// memOutput keeps what a run writes.
type memOutput struct {
	info       volume.Info
	data       []byte
	dark, flat []float32
	next       int
	frames     int
}

func newMemOutput(info volume.Info) *memOutput {
	return &memOutput{info: info, data: make([]byte, info.Bytes())}
}

func (m *memOutput) Frames(dark, flat []float32) error {
	m.dark, m.flat = slices.Clone(dark), slices.Clone(flat)
	m.frames++
	return nil
}

func (m *memOutput) Slab(z0 int, data []byte) error {
	if z0 != m.next {
		return &orderError{z0, m.next}
	}
	pb := m.info.PlaneBytes()
	copy(m.data[int64(z0)*pb:], data)
	m.next = z0 + int(int64(len(data))/pb)
	return nil
}

type orderError struct{ got, want int }

func (e *orderError) Error() string { return "slab out of order" }

// golden is testdata/golden.json.
type golden struct {
	Cases []goldenCase `json:"cases"`
}

type goldenArray struct {
	File  string `json:"file"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

type goldenCase struct {
	Kind     string                 `json:"kind"`
	Kernel   int                    `json:"kernel"`
	Dif      float64                `json:"dif"`
	Input    goldenArray            `json:"input"`
	Output   goldenArray            `json:"output"`
	Replaced int                    `json:"replaced"`
	Arrays   map[string]goldenArray `json:"-"`
}

func loadGolden(t testing.TB) []goldenCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	// The pipeline cases name their arrays by key.
	var all struct {
		Cases []map[string]json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	for i, c := range all.Cases {
		g.Cases[i].Arrays = map[string]goldenArray{}
		for k, v := range c {
			var a goldenArray
			if json.Unmarshal(v, &a) == nil && a.File != "" {
				g.Cases[i].Arrays[k] = a
			}
		}
	}
	return g.Cases
}

// read loads a golden array as a volume (2D arrays as one plane).
func (a goldenArray) read(t testing.TB) (*volume.Memory, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", a.File))
	if err != nil {
		t.Fatal(err)
	}
	dt, err := volume.ParseDType(a.DType)
	if err != nil {
		t.Fatal(err)
	}
	var info volume.Info
	info.DType = dt
	switch len(a.Shape) {
	case 3:
		info.Shape = [3]int{a.Shape[0], a.Shape[1], a.Shape[2]}
	case 2:
		info.Shape = [3]int{1, a.Shape[0], a.Shape[1]}
	default:
		t.Fatalf("%s: shape %v", a.File, a.Shape)
	}
	m, err := volume.NewMemory(info, data)
	if err != nil {
		t.Fatalf("%s: %v", a.File, err)
	}
	return m, data
}

// runAll runs the pipeline on in-memory inputs and returns the output.
func runAll(t testing.TB, be gpu.Backend, cfg Config, in Input) (*memOutput, *Result) {
	t.Helper()
	out := newMemOutput(OutInfo(in.Shapes(), cfg))
	res, err := Run(context.Background(), nil, be, cfg, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if out.frames != 1 || out.next != out.info.Shape[0] {
		t.Fatalf("output got %d frame calls and %d of %d projections", out.frames, out.next, out.info.Shape[0])
	}
	return out, res
}

// sameFloats compares float32 arrays bit for bit, NaN equal to NaN.
func sameFloats(a, b []float32) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return i, false
		}
	}
	return 0, true
}
