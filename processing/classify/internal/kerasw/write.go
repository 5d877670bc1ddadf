// Package kerasw writes Keras weight files of cellfinder's network in
// the three layouts processing/classify/keras reads, laid out as Keras
// writes them: the tests build their weight files with it (no weights
// ship with voxlab; the pipeline's example writes one). It writes through
// volume.CreateTree, so it links no libhdf5 itself: a binary that links
// processing/volume/h5 (voxlab, the tests in processing/classify/
// modelfiles) can write, one that does not gets volume.ErrNoTreeOpener.
package kerasw

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
)

// Save writes weights for the network arch to path in format f, laid out
// as Keras writes that format (see processing/classify/keras), so that
// keras.Load — and Keras, and cellfinder — read it back.
func Save(path string, f keras.Format, arch resnet.Arch, w resnet.Weights) error {
	if err := w.Check(arch); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	switch f {
	case keras.Legacy:
		return saveLegacy(path, arch, w)
	case keras.Keras3Weights:
		return saveKeras3(path, arch, w)
	case keras.Keras3Model:
		return saveArchive(path, arch, w)
	}
	return fmt.Errorf("save %s: unknown format %q", path, f)
}

// legacyInputName is tf.keras 2's automatic name of the model's input.
const legacyInputName = "input_1"

func saveLegacy(path string, arch resnet.Arch, w resnet.Weights) error {
	f, err := volume.CreateTree(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	layers := arch.Layers()
	names := make([]string, len(layers))
	for i, l := range layers {
		names[i] = l.Name
		if l.Class == resnet.ClassInput {
			names[i] = legacyInputName
		}
	}
	if err := f.SetStrings("/", "layer_names", names); err != nil {
		return err
	}
	if err := f.SetAttrs("/", map[string]any{"backend": "tensorflow", "keras_version": "2.13.1"}); err != nil {
		return err
	}
	for i, l := range layers {
		var wn []string
		for _, v := range l.Weights {
			wn = append(wn, l.Name+"/"+v.Name+":0")
		}
		if err := f.SetStrings(names[i], "weight_names", wn); err != nil {
			return err
		}
		for j, v := range l.Weights {
			t := w[l.Name][v.Name]
			if err := f.WriteFloat32s(names[i]+"/"+wn[j], t.Shape, t.Data); err != nil {
				return err
			}
		}
	}
	return f.Commit()
}

// writeKeras3 fills an HDF5 file as Keras 3's saving_lib does for a
// functional model: the model's own (empty) vars, then a group per layer
// under layers/, named by class, with its variables as vars/0, vars/1...
func writeKeras3(f volume.TreeWriter, arch resnet.Arch, w resnet.Weights) error {
	if err := f.CreateGroup("vars"); err != nil {
		return err
	}
	layers := arch.Layers()
	paths := resnet.Keras3Paths(layers)
	for _, l := range layers {
		g := paths[l.Name] + "/vars"
		if err := f.CreateGroup(g); err != nil {
			return err
		}
		for i, v := range l.Weights {
			t := w[l.Name][v.Name]
			if err := f.WriteFloat32s(g+"/"+strconv.Itoa(i), t.Shape, t.Data); err != nil {
				return err
			}
		}
	}
	return nil
}

func saveKeras3(path string, arch resnet.Arch, w resnet.Weights) error {
	f, err := volume.CreateTree(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := writeKeras3(f, arch, w); err != nil {
		return err
	}
	return f.Commit()
}

// saveArchive writes a .keras zip: metadata.json, config.json (the
// functional model's layers with their classes, names and the input
// shape) and model.weights.h5.
func saveArchive(path string, arch resnet.Arch, w resnet.Weights) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".voxlab-weights-*.h5")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	tmp.Close()
	os.Remove(tmpName)
	defer os.Remove(tmpName)
	hf, err := volume.CreateTree(tmpName)
	if err != nil {
		return err
	}
	if err := writeKeras3(hf, arch, w); err != nil {
		hf.Abort()
		return err
	}
	if err := hf.Commit(); err != nil {
		return err
	}
	out, err := outfile.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(out)
	err = writeArchive(zw, arch, tmpName)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		out.Abort()
		return fmt.Errorf("save %s: %w", path, err)
	}
	return out.Commit()
}

func writeArchive(zw *zip.Writer, arch resnet.Arch, weights string) error {
	meta, _ := json.Marshal(map[string]string{"keras_version": "3.10.0", "date_saved": "2025-01-01@00:00:00"})
	if err := zipFile(zw, "metadata.json", meta); err != nil {
		return err
	}
	cfg, err := json.Marshal(config(arch))
	if err != nil {
		return err
	}
	if err := zipFile(zw, "config.json", cfg); err != nil {
		return err
	}
	hw, err := storeEntry(zw, "model.weights.h5")
	if err != nil {
		return err
	}
	src, err := os.Open(weights)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(hw, src)
	return err
}

// storeEntry starts an entry stored uncompressed, as Keras 3's
// saving_lib writes a .keras archive (zipfile.ZipFile(f, "w"): ZIP_STORED);
// deflating tens of MB of float weights gains little and costs seconds.
func storeEntry(zw *zip.Writer, name string) (io.Writer, error) {
	return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
}

func zipFile(zw *zip.Writer, name string, b []byte) error {
	w, err := storeEntry(zw, name)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// config is a functional model's config.json as Keras 3 serialises
// cellfinder's network, with what Load reads (layer classes, names, the
// input's batch shape) and the layers' main settings.
func config(arch resnet.Arch) map[string]any {
	var layers []map[string]any
	for _, l := range arch.Layers() {
		c := map[string]any{"name": l.Name, "trainable": true, "dtype": "float32"}
		switch l.Class {
		case resnet.ClassInput:
			c["batch_shape"] = []any{nil, arch.Input[0], arch.Input[1], arch.Input[2], arch.Input[3]}
		case resnet.ClassPadding:
			c["padding"] = [][2]int{{l.Pad[0], l.Pad[0]}, {l.Pad[1], l.Pad[1]}, {l.Pad[2], l.Pad[2]}}
		case resnet.ClassConv:
			c["filters"], c["kernel_size"], c["strides"] = l.Out[3], l.Kernel, l.Stride
			c["padding"], c["use_bias"] = "valid", false
		case resnet.ClassBN:
			c["axis"], c["epsilon"] = 3, resnet.Epsilon
		case resnet.ClassMaxPool:
			c["pool_size"], c["strides"], c["padding"] = l.Kernel, l.Stride, "valid"
		case resnet.ClassDense:
			c["units"], c["activation"] = resnet.Classes, "softmax"
		}
		layers = append(layers, map[string]any{"module": "keras.layers", "class_name": l.Class, "config": c, "name": l.Name})
	}
	return map[string]any{
		"module": "keras.src.models.functional", "class_name": "Functional",
		"config": map[string]any{"name": "functional", "trainable": true, "layers": layers},
	}
}
