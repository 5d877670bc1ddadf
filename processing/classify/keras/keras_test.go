package keras_test

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/internal/kerasw"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	. "github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// files caches the weight files the tests write (tens to hundreds of
// MB each), one per depth and layout, removed by TestMain.
var files struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

var testArch = func(depth int) resnet.Arch { return resnet.Arch{Depth: depth, Input: [4]int{20, 20, 8, 2}} }

func savedFile(t *testing.T, depth int, format Format) string {
	t.Helper()
	files.Lock()
	defer files.Unlock()
	if files.dir == "" {
		d, err := os.MkdirTemp("", "voxlab-keras-")
		if err != nil {
			t.Fatal(err)
		}
		files.dir, files.paths = d, map[string]string{}
	}
	key := fmt.Sprint(depth, format)
	if p, ok := files.paths[key]; ok {
		return p
	}
	ext := map[Format]string{Legacy: ".h5", Keras3Weights: ".weights.h5", Keras3Model: ".keras"}[format]
	p := filepath.Join(files.dir, fmt.Sprintf("m%d%s", depth, ext))
	if err := kerasw.Save(p, format, testArch(depth), synth.Weights(testArch(depth), nil)); err != nil {
		t.Fatal(err)
	}
	files.paths[key] = p
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if files.dir != "" {
		os.RemoveAll(files.dir)
	}
	os.Exit(code)
}

// TestRoundTrip writes a network's weights in each layout and reads them
// back by name, every value equal; a bare Keras 3 .weights.h5 names its
// layers by the depth found from its convolutions (a bottleneck network
// too).
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		depth  int
		format Format
	}{{18, Legacy}, {18, Keras3Weights}, {18, Keras3Model}, {50, Keras3Weights}} {
		depth := c.depth
		arch := testArch(depth)
		w := synth.Weights(arch, nil)
		for _, f := range []struct {
			format Format
		}{{c.format}} {
			p := savedFile(t, depth, f.format)
			m, err := Load(p, 0)
			if err != nil {
				t.Fatalf("%s: %v", f.format, err)
			}
			if m.Format != f.format || m.Depth != depth {
				t.Errorf("%s: read as %s of depth %d", f.format, m.Format, m.Depth)
			}
			if err := m.Weights.Check(arch); err != nil {
				t.Errorf("%s: %v", f.format, err)
			}
			for layer, vars := range w {
				for v, want := range vars {
					got := m.Weights[layer][v]
					if !slices.Equal(got.Shape, want.Shape) || !slices.Equal(got.Data, want.Data) {
						t.Fatalf("%s: %s %s differs", f.format, layer, v)
					}
				}
			}
			if f.format == Keras3Model && m.Input != arch.Input {
				t.Errorf("config input %v, want %v", m.Input, arch.Input)
			}
			if !strings.Contains(m.Describe(), string(f.format)) {
				t.Errorf("description %q", m.Describe())
			}
		}
	}
}

// TestH5pyFixtures reads the small files testdata/gen_golden.py wrote
// with h5py exactly as Keras lays them out (fixed-length string
// attributes, weightless layers' empty float weight_names, float64
// variables in the Keras 3 file).
func TestH5pyFixtures(t *testing.T) {
	for _, f := range []struct {
		name   string
		format Format
	}{{"fixture_legacy.h5", Legacy}, {"fixture_keras3.weights.h5", Keras3Weights}} {
		p := filepath.Join("..", "testdata", f.name)
		var m *Model
		var err error
		if f.format == Legacy {
			m, err = Load(p, 0)
		} else {
			// A fragment of a network: read it by a config's names.
			layers := []resnet.Layer{{Name: "input_layer", Class: resnet.ClassInput}, {Name: "conv1_padding", Class: resnet.ClassPadding},
				{Name: "conv1", Class: resnet.ClassConv}, {Name: "conv1_bn", Class: resnet.ClassBN}}
			m, err = ReadKeras3Layers(p, layers)
		}
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		k := m.Weights["conv1"]["kernel"]
		if !slices.Equal(k.Shape, []int{1, 1, 1, 2, 3}) || k.Data[5] != 5.0/8 {
			t.Errorf("%s: conv1 kernel %v %v", f.name, k.Shape, k.Data)
		}
		for i, v := range resnet.BNWeights {
			d := m.Weights["conv1_bn"][v].Data
			if len(d) != 3 || d[2] != float32(i)+0.5 {
				t.Errorf("%s: conv1_bn %s = %v", f.name, v, d)
			}
		}
		if len(m.Weights) != 2 {
			t.Errorf("%s: %d layers with weights, want 2", f.name, len(m.Weights))
		}
	}
}

// TestBadFiles: a missing file, a folder, a text file, a zip that is not
// a .keras model and an HDF5 file that holds no weights are refused with
// an error naming the file and saying what it is.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "model.h5")
	os.WriteFile(text, []byte("conv1 0.5 0.25\n"), 0o644)
	zipped := filepath.Join(dir, "notes.keras")
	zf, _ := os.Create(zipped)
	zw := zip.NewWriter(zf)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("hello"))
	zw.Close()
	zf.Close()
	plain := filepath.Join(dir, "data.h5")
	f, err := h5.Create(plain)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteFloat32s("data", []int{2}, []float32{1, 2})
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.h5"), "no such file"},
		{dir, "folder"},
		{text, "not a Keras weight file"},
		{zipped, "without model.weights.h5"},
		{plain, "not Keras weights"},
	} {
		_, err := Load(c.path, 50)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("Load(%s): %v; want an error naming it and saying %q", c.path, err, c.want)
		}
	}
}

// TestMismatch: a file of another depth, channel count or cube depth is
// refused naming the layer that does not fit and what it means.
func TestMismatch(t *testing.T) {
	arch := testArch(50)
	for _, f := range []struct {
		format Format
	}{{Legacy}, {Keras3Weights}} {
		p := savedFile(t, 50, f.format)
		m, err := Load(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.format == Keras3Weights {
			// Without names, the depth asked is checked on reading.
			if _, err := Load(p, 18); err == nil || !strings.Contains(err.Error(), "50-layer") {
				t.Errorf("a 50-layer .weights.h5 read as 18 layers: %v", err)
			}
		}
		for _, c := range []struct {
			arch resnet.Arch
			want []string
		}{
			{resnet.Arch{Depth: 18, Input: arch.Input}, []string{"50-layer", "network depth to 50"}},
			{resnet.Arch{Depth: 50, Input: [4]int{20, 20, 8, 1}}, []string{"conv1", "2 input channel", "1"}},
			{resnet.Arch{Depth: 50, Input: [4]int{20, 20, 20, 2}}, []string{"conv1_bn", "per z plane"}},
		} {
			_, err := resnet.Build(c.arch, m.Weights)
			if err == nil {
				t.Errorf("%s as %+v: accepted", f.format, c.arch)
				continue
			}
			for _, s := range c.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s as %+v: %v; want it to say %q", f.format, c.arch, err, s)
				}
			}
		}
	}
}
