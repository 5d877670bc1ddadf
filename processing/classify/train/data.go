package train

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
	"gopkg.in/yaml.v3"
)

// Source is one entry of the `data:` section of cellfinder's training
// YAML (train_yaml.py's get_tiff_files): a folder of cubes of one type.
type Source struct {
	CubeDir       string `yaml:"cube_dir"`
	CellDef       string `yaml:"cell_def"`
	Type          string `yaml:"type"`
	SignalChannel int    `yaml:"signal_channel"`
	// BgChannel is the background's channel number; negative or absent:
	// signal only.
	BgChannel *int `yaml:"bg_channel"`
	// Channel statistics for --normalize-channels (signal_mean ...).
	SignalMean *float64 `yaml:"signal_mean"`
	SignalStd  *float64 `yaml:"signal_std"`
	BgMean     *float64 `yaml:"bg_mean"`
	BgStd      *float64 `yaml:"bg_std"`
	// File is the YAML the entry came from.
	File string `yaml:"-"`
}

// Channels returns the channel numbers of the entry's files: the
// signal's, then the background's when there is one.
func (s Source) Channels() []int {
	if s.BgChannel == nil || *s.BgChannel < 0 {
		return []int{s.SignalChannel}
	}
	return []int{s.SignalChannel, *s.BgChannel}
}

// Sample is one training cube: its files (one per channel) and its
// label (0 non-cell, 1 cell: cellfinder's Cell type − 1).
type Sample struct {
	Files []string
	Label int
	// Norm is the (mean, std) of each channel from the YAML (nil: none).
	Norm [][2]float64
}

// ReadYAML reads the `data:` entries of cellfinder's training YAML files
// (train_yaml.py's parse_yaml), relative cube_dir taken from the
// YAML's folder.
func ReadYAML(paths ...string) ([]Source, error) {
	var out []Source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("training YAML %s: %w", p, err)
		}
		var doc struct {
			Data []Source `yaml:"data"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("training YAML %s: %w", p, err)
		}
		if len(doc.Data) == 0 {
			return nil, fmt.Errorf("training YAML %s: no data: entries (cellfinder's training YAML lists cube folders under data:)", p)
		}
		for i, s := range doc.Data {
			s.File = p
			switch {
			case s.CubeDir == "":
				return nil, fmt.Errorf("training YAML %s: data entry %d has no cube_dir", p, i+1)
			case s.Type != "cell" && s.Type != "no_cell":
				return nil, fmt.Errorf("training YAML %s: data entry %d (%s) has type %q: cellfinder's types are cell and no_cell", p, i+1, s.CubeDir, s.Type)
			}
			if !filepath.IsAbs(s.CubeDir) {
				s.CubeDir = filepath.Join(filepath.Dir(p), s.CubeDir)
			}
			if s.CellDef != "" && !filepath.IsAbs(s.CellDef) {
				s.CellDef = filepath.Join(filepath.Dir(p), s.CellDef)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// ListSamples returns the cubes of the sources as cellfinder's TiffDir
// finds them: every file whose name ends (case aside) in
// Ch{signal}.tif, in natural order, with its other channels' files named
// alike; normalisation statistics when norm is set (an entry without
// them is an error, as in cellfinder's get_dataloader).
func ListSamples(sources []Source, norm bool) ([]Sample, error) {
	var out []Sample
	classes := map[int]bool{}
	for _, s := range sources {
		entries, err := os.ReadDir(s.CubeDir)
		if err != nil {
			return nil, fmt.Errorf("training YAML %s: cube_dir %s: %w", s.File, s.CubeDir, err)
		}
		ch := s.Channels()
		suffix := "ch" + strconv.Itoa(ch[0]) + ".tif"
		var names []string
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), suffix) {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("training YAML %s: cube_dir %s holds no cubes (no file ends in Ch%d.tif)", s.File, s.CubeDir, ch[0])
		}
		if s.CellDef != "" {
			if names, err = keepDefined(names, s); err != nil {
				return nil, err
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("training YAML %s: cube_dir %s holds no cube at a position of its cell_def %s", s.File, s.CubeDir, s.CellDef)
			}
		}
		volume.SortNatural(names)
		var nrm [][2]float64
		if norm {
			if s.SignalMean == nil || s.SignalStd == nil || (len(ch) == 2 && (s.BgMean == nil || s.BgStd == nil)) {
				return nil, fmt.Errorf("training YAML %s: cube_dir %s: normalising channels needs signal_mean and signal_std (and bg_mean, bg_std) in its entry", s.File, s.CubeDir)
			}
			nrm = [][2]float64{{*s.SignalMean, *s.SignalStd}}
			if len(ch) == 2 {
				nrm = append(nrm, [2]float64{*s.BgMean, *s.BgStd})
			}
		}
		label := 0
		if s.Type == "cell" {
			label = 1
		}
		classes[label] = true
		for _, n := range names {
			stem := n[:len(n)-len(suffix)]
			files := make([]string, len(ch))
			for i, c := range ch {
				files[i] = filepath.Join(s.CubeDir, stem+n[len(stem):len(stem)+2]+strconv.Itoa(c)+".tif")
			}
			out = append(out, Sample{Files: files, Label: label, Norm: nrm})
		}
	}
	if len(classes) < 2 {
		return nil, fmt.Errorf("training YAML %s: every cube is of one type (%s): training needs cells and non-cells", sources[0].File, map[bool]string{true: "cell", false: "no_cell"}[classes[1]])
	}
	return out, nil
}

// LoadCube reads sample s into dst (one cube of arch, channels last) as
// cellfinder's CachedTiffImage reads a cube: each channel's TIFF (z, y,
// x) through get_data_converter to float32, then (x − mean)/std when the
// sample carries statistics.
func LoadCube(dst []float32, s Sample, arch resnet.Arch) error {
	var r cubeReader
	return r.load(dst, s, arch)
}

// cubeReader is LoadCube with one buffer for a channel's stored voxels
// kept from cube to cube: a training step then allocates what opening a
// TIFF file takes (its directories), not a cube's bytes per channel,
// whose garbage would otherwise pile up to the runtime's soft limit
// between collections (issue 35: no allocation per step).
type cubeReader struct{ raw []byte }

func (r *cubeReader) load(dst []float32, s Sample, arch resnet.Arch) error {
	h, w, d, nc := arch.Input[0], arch.Input[1], arch.Input[2], arch.Input[3]
	if len(s.Files) != nc {
		return fmt.Errorf("cube %s: %d channel(s), the network takes %d", s.Files[0], len(s.Files), nc)
	}
	for c, f := range s.Files {
		v, err := volume.Open(f)
		if err != nil {
			return fmt.Errorf("cube %s: %w", f, err)
		}
		info := v.Info
		if info.Shape != [3]int{d, h, w} {
			v.Close()
			return fmt.Errorf("cube %s is %dx%dx%d (z, y, x); the network takes %dx%dx%d cubes", f, info.Shape[0], info.Shape[1], info.Shape[2], d, h, w)
		}
		n := int(v.Bytes())
		if cap(r.raw) < n {
			r.raw = make([]byte, n)
		}
		raw := r.raw[:n]
		err = v.ReadSlab(0, d, raw)
		v.Close()
		if err != nil {
			return fmt.Errorf("cube %s: %w", f, err)
		}
		conv, err := classify.Converter(info.DType)
		if err != nil {
			return fmt.Errorf("cube %s: %w", f, err)
		}
		var mean, std float32 = 0, 1
		if s.Norm != nil {
			mean, std = float32(s.Norm[c][0]), float32(s.Norm[c][1])
		}
		for z := range d {
			for y := range h {
				for x := range w {
					val := conv(raw, (z*h+y)*w+x)
					if s.Norm != nil {
						val = (val - mean) / std
					}
					dst[((y*w+x)*d+z)*nc+c] = val
				}
			}
		}
	}
	return nil
}
