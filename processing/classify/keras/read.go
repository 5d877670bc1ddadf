package keras

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
)

// Format names a weight file layout.
type Format string

// The layouts Load reads and Save writes.
const (
	// Legacy is tf.keras 2's HDF5 save_weights layout (cellfinder's
	// pretrained resnet50_tv.h5).
	Legacy Format = "Keras 2 HDF5 weights"
	// Keras3Weights is a Keras 3 .weights.h5.
	Keras3Weights Format = "Keras 3 .weights.h5"
	// Keras3Model is a Keras 3 .keras archive.
	Keras3Model Format = "Keras 3 .keras model"
)

// Model is a loaded weight file.
type Model struct {
	Path    string
	Format  Format
	Weights resnet.Weights
	// Depth is the network depth the file's layers say (0: unknown).
	Depth int
	// Input is the input shape a .keras config gives (height, width,
	// depth, channels; zero when the file does not say).
	Input [4]int
	// KerasVersion as the file records it ("" when it does not).
	KerasVersion string
}

var (
	hdf5Signature = []byte("\x89HDF\r\n\x1a\n")
	zipSignature  = []byte("PK\x03\x04")
)

// Load reads the weight file at path. depth is the network depth asked
// for, used to name the layers of a bare Keras 3 .weights.h5 (0: found
// from the file); the weights are not checked against a network here
// (resnet.Build does).
func Load(path string, depth int) (*Model, error) {
	fail := func(err error) (*Model, error) { return nil, fmt.Errorf("model %s: %w", path, err) }
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fail(errors.New("no such file: give the path of a cellfinder model (.h5, .weights.h5 or .keras)"))
		}
		return fail(err)
	}
	if st.IsDir() {
		return fail(errors.New("is a folder, not a weight file"))
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, zipSignature):
		return loadArchive(path, depth)
	case bytes.HasPrefix(head, hdf5Signature):
		m, err := loadH5(path, path, depth, nil)
		if err != nil {
			return fail(err)
		}
		return m, nil
	}
	return fail(errors.New("not a Keras weight file: it is neither HDF5 (.h5, .weights.h5) nor a .keras zip archive"))
}

// loadH5 reads an HDF5 weight file at file (named name in errors), in
// either layout; layers (from a .keras config) names Keras 3 groups.
func loadH5(name, file string, depth int, layers []resnet.Layer) (*Model, error) {
	t, err := volume.OpenTree(file)
	if errors.Is(err, volume.ErrNoTreeOpener) {
		return nil, err
	}
	if err != nil {
		return nil, errors.New("not a readable HDF5 file: it is damaged or truncated")
	}
	defer t.Close()
	m := &Model{Path: name, Weights: resnet.Weights{}}
	if v, err := t.Strings("/", "keras_version"); err == nil && len(v) == 1 {
		m.KerasVersion = v[0]
	}
	for _, root := range []string{"/", "/model_weights"} {
		if t.Kind(root) == "group" && hasChunked(t, root, "layer_names") {
			m.Format = Legacy
			if err := readLegacy(t, root, m); err != nil {
				return nil, err
			}
			m.Depth = m.Weights.DetectDepth()
			return m, nil
		}
	}
	base := ""
	for _, b := range []string{"layers", "_layer_checkpoint_dependencies"} {
		if t.Kind(b) == "group" {
			base = b
			break
		}
	}
	if base == "" {
		return nil, errors.New("an HDF5 file, but not Keras weights: it has neither a layer_names attribute (Keras 2 weights) nor a layers group (Keras 3 weights)")
	}
	m.Format = Keras3Weights
	if err := readKeras3(t, base, depth, layers, m); err != nil {
		return nil, err
	}
	return m, nil
}

// hasChunked reports whether object has attribute name, whole or split
// into name0, name1, ... (Keras's save_attributes_to_hdf5_group).
func hasChunked(t volume.Tree, object, name string) bool {
	return t.HasAttr(object, name) || t.HasAttr(object, name+"0")
}

// readChunked reads a string attribute, whole or split into chunks.
func readChunked(t volume.Tree, object, name string) ([]string, error) {
	if t.HasAttr(object, name) {
		return t.Strings(object, name)
	}
	var out []string
	for i := 0; t.HasAttr(object, name+strconv.Itoa(i)); i++ {
		v, err := t.Strings(object, name+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return out, nil
}

// readLegacy reads every layer with weights of a tf.keras 2 file.
func readLegacy(t volume.Tree, root string, m *Model) error {
	names, err := readChunked(t, root, "layer_names")
	if err != nil {
		return err
	}
	for _, layer := range names {
		g := strings.TrimSuffix(root, "/") + "/" + layer
		if t.Kind(g) != "group" {
			return fmt.Errorf("layer %s is listed in layer_names but has no group", layer)
		}
		if !hasChunked(t, g, "weight_names") {
			continue
		}
		wn, err := readChunked(t, g, "weight_names")
		if err != nil {
			// An empty list is written as an empty numeric array.
			continue
		}
		for _, w := range wn {
			ds := g + "/" + w
			if err := readVar(t, ds, layer, varName(w), m); err != nil {
				return err
			}
		}
	}
	return nil
}

// varName turns a tf.keras weight name ("conv1_bn/moving_mean:0") into
// the variable's name ("moving_mean").
func varName(w string) string {
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	if i := strings.LastIndexByte(w, ':'); i >= 0 {
		w = w[:i]
	}
	return w
}

func readVar(t volume.Tree, ds, layer, name string, m *Model) error {
	if t.HasAttr(ds, "dtype") {
		if v, err := t.Strings(ds, "dtype"); err == nil && len(v) == 1 && v[0] == "bfloat16" {
			return fmt.Errorf("layer %s: %s is stored as bfloat16; voxlab reads float32 and float64 weights", layer, name)
		}
	}
	data, shape, err := t.Float32s(ds)
	if err != nil {
		return fmt.Errorf("layer %s: %s: %w", layer, name, err)
	}
	m.Weights.Set(layer, name, resnet.Tensor{Shape: shape, Data: data})
	return nil
}

// readKeras3 reads the variables of a Keras 3 file under base, naming
// the layers by layers (a .keras config's order) or, without one, by
// cellfinder's network of the depth asked (or found from the number of
// convolutions).
func readKeras3(t volume.Tree, base string, depth int, layers []resnet.Layer, m *Model) error {
	groups, err := t.Members(base)
	if err != nil {
		return err
	}
	if layers == nil {
		convs := 0
		for _, g := range groups {
			if g == "conv3d" || strings.HasPrefix(g, "conv3d_") {
				convs++
			}
		}
		found := 0
		for _, d := range resnet.Depths {
			if countConvs(d) == convs {
				found = d
			}
		}
		switch {
		case found == 0:
			return fmt.Errorf("a Keras 3 weight file with %d 3D convolutions: cellfinder's ResNets have %s", convs, convCounts())
		case depth != 0 && depth != found:
			return fmt.Errorf("layers/conv3d_%d: the file holds a %d-layer network (%d convolutions), not %d (set the network depth to %d)", convs-1, found, convs, depth, found)
		}
		m.Depth = found
		layers = resnet.Arch{Depth: found, Input: resnet.DefaultInput}.Layers()
	}
	paths := resnet.Keras3Paths(layers)
	for _, l := range layers {
		names := resnet.WeightNames(l.Class)
		if len(names) == 0 {
			continue
		}
		g := base + strings.TrimPrefix(paths[l.Name], "layers")
		if t.Kind(g+"/vars") != "group" {
			return fmt.Errorf("layer %s: no variables at %s/vars", l.Name, g)
		}
		vars, err := t.Members(g + "/vars")
		if err != nil {
			return err
		}
		if len(vars) != len(names) {
			return fmt.Errorf("layer %s (%s): %d variables, a %s has %d", l.Name, g, len(vars), l.Class, len(names))
		}
		for i, n := range names {
			if err := readVar(t, fmt.Sprintf("%s/vars/%d", g, i), l.Name, n, m); err != nil {
				return err
			}
		}
	}
	if m.Depth == 0 {
		m.Depth = m.Weights.DetectDepth()
	}
	return nil
}

// countConvs returns the number of 3D convolutions of a depth.
func countConvs(depth int) int {
	n := 0
	for _, l := range (resnet.Arch{Depth: depth, Input: resnet.DefaultInput}).Layers() {
		if l.Class == resnet.ClassConv {
			n++
		}
	}
	return n
}

func convCounts() string {
	var parts []string
	for _, d := range resnet.Depths {
		parts = append(parts, fmt.Sprintf("%d (%d layers)", countConvs(d), d))
	}
	return strings.Join(parts, ", ")
}

// kerasConfig is what Load reads of a .keras archive's config.json.
type kerasConfig struct {
	ClassName string `json:"class_name"`
	Config    struct {
		Layers []struct {
			ClassName string `json:"class_name"`
			Config    struct {
				Name       string `json:"name"`
				BatchShape []any  `json:"batch_shape"`
				// Keras 2.x configs say batch_input_shape.
				BatchInputShape []any `json:"batch_input_shape"`
			} `json:"config"`
		} `json:"layers"`
	} `json:"config"`
}

// loadArchive reads a .keras zip: its config names the layers of its
// model.weights.h5, which is copied to a temporary file for libhdf5.
func loadArchive(path string, depth int) (*Model, error) {
	fail := func(err error) (*Model, error) { return nil, fmt.Errorf("model %s: %w", path, err) }
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fail(fmt.Errorf("a zip file that cannot be read (%v): is it a whole .keras file?", err))
	}
	defer zr.Close()
	var cfgFile, weights, meta *zip.File
	for _, f := range zr.File {
		switch f.Name {
		case "config.json":
			cfgFile = f
		case "model.weights.h5":
			weights = f
		case "metadata.json":
			meta = f
		}
	}
	if weights == nil {
		return fail(errors.New("a zip archive without model.weights.h5: not a Keras 3 .keras model"))
	}
	var layers []resnet.Layer
	var input [4]int
	if cfgFile != nil {
		if layers, input, err = readConfig(cfgFile); err != nil {
			return fail(fmt.Errorf("config.json: %w", err))
		}
	}
	tmp, err := os.CreateTemp("", "voxlab-keras-*.weights.h5")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	rc, err := weights.Open()
	if err == nil {
		_, err = io.Copy(tmp, rc)
		rc.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(fmt.Errorf("model.weights.h5: %w", err))
	}
	m, err := loadH5(path, tmp.Name(), depth, layers)
	if err != nil {
		return fail(fmt.Errorf("model.weights.h5: %w", err))
	}
	m.Format, m.Input = Keras3Model, input
	if meta != nil {
		if v := readVersion(meta); v != "" {
			m.KerasVersion = v
		}
	}
	return m, nil
}

// readConfig returns the layers of a functional model's config, in
// order, with their class and name, and its input shape.
func readConfig(f *zip.File) ([]resnet.Layer, [4]int, error) {
	var input [4]int
	rc, err := f.Open()
	if err != nil {
		return nil, input, err
	}
	defer rc.Close()
	var c kerasConfig
	if err := json.NewDecoder(io.LimitReader(rc, 64<<20)).Decode(&c); err != nil {
		return nil, input, err
	}
	if len(c.Config.Layers) == 0 {
		return nil, input, fmt.Errorf("a %q model without layers: not cellfinder's network", c.ClassName)
	}
	var layers []resnet.Layer
	for _, l := range c.Config.Layers {
		layers = append(layers, resnet.Layer{Name: l.Config.Name, Class: l.ClassName})
		if l.ClassName == resnet.ClassInput {
			shape := l.Config.BatchShape
			if shape == nil {
				shape = l.Config.BatchInputShape
			}
			if len(shape) == 5 {
				for i := range 4 {
					if v, ok := shape[i+1].(float64); ok {
						input[i] = int(v)
					}
				}
			}
		}
	}
	return layers, input, nil
}

func readVersion(f *zip.File) string {
	rc, err := f.Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	var meta struct {
		KerasVersion string `json:"keras_version"`
	}
	if json.NewDecoder(io.LimitReader(rc, 1<<20)).Decode(&meta) != nil {
		return ""
	}
	return meta.KerasVersion
}

// Describe returns a line about the model for logs.
func (m *Model) Describe() string {
	depth := "unknown depth"
	if m.Depth > 0 {
		depth = fmt.Sprintf("ResNet-%d", m.Depth)
	}
	s := fmt.Sprintf("%s (%s, %s", filepath.Base(m.Path), m.Format, depth)
	if m.KerasVersion != "" {
		s += ", Keras " + m.KerasVersion
	}
	return s + ")"
}
