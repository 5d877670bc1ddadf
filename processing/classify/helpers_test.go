package classify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// The synthetic crop of testdata/gen_golden.py: somata at cellfinder's
// test cells, 30 planes of 520 x 680.
var (
	cropShape = [3]int{30, 520, 680}
	cropSeed  = uint64(2024)
)

type goldenCube struct {
	Status  string    `json:"status"`
	SHA256  string    `json:"sha256"`
	Sum     float64   `json:"sum"`
	SumSq   float64   `json:"sumsq"`
	Samples []float64 `json:"samples"`
}

type goldenExtract struct {
	Name         string       `json:"name"`
	Voxel        [3]float64   `json:"voxel"`
	NormSampling int          `json:"normalization_n_sampling_planes"`
	Crop         [3]int       `json:"crop"`
	Norm         [][2]float64 `json:"norm"`
	Cubes        []goldenCube `json:"cubes"`
}

type extractGolden struct {
	Shape     [3]int          `json:"shape"`
	Seed      uint64          `json:"seed"`
	SignalSHA string          `json:"signal_sha256"`
	BackSHA   string          `json:"background_sha256"`
	Extract   []goldenExtract `json:"extract"`
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// candidates reads testdata/candidates.csv.
func candidates(t testing.TB) []points.Point {
	t.Helper()
	pts, err := points.Read(filepath.Join("testdata", "candidates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

var cropOnce struct {
	sync.Once
	sig, bg []byte
}

// cropVolumes returns the synthetic crop's two channels as volumes.
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

func u16Bytes(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// samplesOf returns the cube's values at the generator's n sample
// positions (SplitMix64(k) mod the cube's length, k < n).
func samplesOf(cube []float32, n int) []float64 {
	out := make([]float64, n)
	for k := range out {
		out[k] = float64(cube[synth.SplitMix64(uint64(k))%uint64(len(cube))])
	}
	return out
}

func sums(cube []float32) (s, s2 float64) {
	for _, v := range cube {
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	return
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// raceShort reports whether the tests run under -race -short (make
// test's race pass), where the heavy numeric cases run in a smaller form
// through the same goroutines; each says which of its checks only the
// plain pass, which runs it whole, makes.
func raceShort() bool { return raceEnabled && testing.Short() }
