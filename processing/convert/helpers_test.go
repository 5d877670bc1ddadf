package convert

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// run converts in to out with flags (parameter name to value) and a
// block of batch planes (0: planned), as `voxlab convert` does.
func run(ctx context.Context, in, out string, batch int, flags map[string]any, sinks ...job.Sink) (*pipeline.Report, error) {
	v := Spec.Defaults()
	for k, x := range flags {
		if _, ok := v[k]; !ok {
			panic("no parameter " + k)
		}
		v[k] = x
	}
	j, err := Spec.Open(pipeline.Request{Args: []string{in, out}, Values: v, Batch: batch})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	d := pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}
	return j.Run(ctx, job.NewProgress("convert", sinks...), d)
}

// ramp fills a volume of dt with values that span the type: its
// extremes, zero, and a pattern between.
func ramp(info volume.Info) []byte {
	buf := make([]byte, info.Bytes())
	n := int(info.Len())
	vals := make([]float64, n)
	lo, hi := info.DType.MinValue(), info.DType.MaxValue()
	if info.DType.IsFloat() {
		lo, hi = -1e30, 1e30
		if info.DType == volume.Float64 {
			lo, hi = -1e300, 1e300
		}
	}
	for i := range vals {
		switch i % 7 {
		case 0:
			vals[i] = lo
		case 1:
			vals[i] = hi
		case 2:
			vals[i] = 0
		default:
			vals[i] = math.Round(lo + (hi-lo)*float64((i*2654435761)%1000)/1000)
		}
		if info.DType.IsFloat() && i%7 == 3 {
			vals[i] = float64(i) + 0.25
		}
	}
	if i, _ := castInto(buf, info.DType, volume.Bytes(vals), volume.Float64); i >= 0 {
		panic(fmt.Sprintf("ramp: value %d does not fit %s", i, info.DType))
	}
	return buf
}

// write writes data of info at path with volume.Create.
func write(t testing.TB, path string, info volume.Info, data []byte) {
	t.Helper()
	w, err := volume.Create(path, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, data); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// readAll opens spec and reads it whole.
func readAll(t testing.TB, spec string) (volume.Info, []byte) {
	t.Helper()
	v, err := volume.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return v.Info, b
}

// memFormat is a format of the tests, ".levels", whose exporter keeps
// every level's planes in memory, so that the pyramid can be checked
// without any file format; its levels align to 3 planes (level 0) and 2.
var memFormat = struct {
	sync.Mutex
	levels map[string][][]byte
	infos  map[string][]volume.Info
}{levels: map[string][][]byte{}, infos: map[string][]volume.Info{}}

type memWriter struct {
	path   string
	infos  []volume.Info
	levels [][]byte
	next   []int
}

func (m *memWriter) Align(l int) int { return min(3-min(l, 1), m.infos[l].Shape[0]) }

func (m *memWriter) WriteLevel(l, z0 int, src []byte) error {
	info := m.infos[l]
	pb := int(info.PlaneBytes())
	z1 := z0 + len(src)/pb
	if z0 != m.next[l] || z1 > info.Shape[0] || (z1-z0)%m.Align(l) != 0 && z1 != info.Shape[0] {
		return fmt.Errorf("level %d: slab %d-%d out of order or unaligned (next %d)", l, z0, z1, m.next[l])
	}
	copy(m.levels[l][z0*pb:], src)
	m.next[l] = z1
	return nil
}

func (m *memWriter) Commit() error {
	memFormat.Lock()
	defer memFormat.Unlock()
	memFormat.levels[m.path], memFormat.infos[m.path] = m.levels, m.infos
	return nil
}
func (m *memWriter) Abort() error { return nil }

func init() {
	volume.RegisterFormat(&volume.Format{Name: "levels-test", Extensions: []string{".levels"},
		Create: func(string, string, volume.Info) (volume.Writer, error) { return nil, fmt.Errorf("unused") }})
	volume.RegisterExporter("levels-test", &volume.Exporter{
		Pyramids: true, Compressions: []string{"none"},
		Create: func(path, _ string, info volume.Info, o volume.ExportOptions) (volume.LevelWriter, error) {
			infos := o.Levels
			if len(infos) == 0 {
				infos = []volume.Info{info}
			}
			m := &memWriter{path: path, infos: infos, next: make([]int, len(infos))}
			for _, li := range infos {
				m.levels = append(m.levels, make([]byte, li.Bytes()))
			}
			return m, nil
		},
		Align: func(info volume.Info, o volume.ExportOptions) []int {
			a := []int{min(3, info.Shape[0])}
			for _, li := range o.Levels[min(1, len(o.Levels)):] {
				a = append(a, min(2, li.Shape[0]))
			}
			return a
		},
	})
}

func memLevels(path string) ([][]byte, []volume.Info) {
	memFormat.Lock()
	defer memFormat.Unlock()
	return memFormat.levels[path], memFormat.infos[path]
}

func tmp(t *testing.T, name string) string { return filepath.Join(t.TempDir(), name) }

func mustContain(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}
