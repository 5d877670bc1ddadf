package train

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStateRoundTrip: ReadState gives back what WriteState wrote (the
// header through gob, the moments as raw float32s, bit for bit, one
// array over two whole chunks of the buffer and a partial one), and a
// file cut short or with data past the moments is refused, naming it.
func TestStateRoundTrip(t *testing.T) {
	st := &State{NextEpoch: 3, LearningRate: 5e-5, Shuffle: []byte{1, 2, 3}, AdamSteps: 17,
		M:    [][]float32{{1, -2.5, float32(math.Inf(1))}, {math.SmallestNonzeroFloat32}},
		V:    [][]float32{{0, 1e-30, 7}, {3}},
		Logs: []Epoch{{Epoch: 0, Loss: 0.5, ValLoss: 0.25, LearningRate: 1e-4, TrainCubes: 8, ValidCubes: 2}}}
	// An array longer than the buffer the moments pass through, so that
	// a second, partial chunk follows a whole one.
	long := make([]float32, 2*momentChunk+3)
	for i := range long {
		long[i] = float32(i) - 0.5
	}
	st.V = append(st.V, long)
	dir := t.TempDir()
	p := filepath.Join(dir, "s"+StateSuffix)
	if err := WriteState(p, st); err != nil {
		t.Fatal(err)
	}
	got, err := ReadState(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("read back %+v, wrote %+v", got, st)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"short": b[:len(b)-2], "long": append(b, 0)} {
		q := filepath.Join(dir, name+StateSuffix)
		if err := os.WriteFile(q, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadState(q); err == nil || !strings.Contains(err.Error(), q) {
			t.Errorf("%s file: err %v, want one naming %s", name, err, q)
		}
	}
}
