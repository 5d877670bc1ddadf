package train

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/voxlab/voxlab/processing/points"
	"gopkg.in/yaml.v3"
)

// position is a cube's or a cell's voxel position, x, y, z, as
// brainglobe-utils' UntypedCell compares them (type aside).
type position [3]int

// Axis tags in a cube's file name, as brainglobe-utils'
// pos_from_file_name finds them: the last x, y and z followed by digits.
var (
	posX = regexp.MustCompile(`x\d+`)
	posY = regexp.MustCompile(`y\d+`)
	posZ = regexp.MustCompile(`z\d+`)
)

// positionFromName returns the position a file name carries
// (pCellz10y522x392Ch0.tif: x 392, y 522, z 10); ok is false when it
// lacks one of the three.
func positionFromName(name string) (position, bool) {
	name = strings.ToLower(name)
	var p position
	for i, re := range []*regexp.Regexp{posX, posY, posZ} {
		all := re.FindAllString(name, -1)
		if len(all) == 0 {
			return p, false
		}
		fmt.Sscan(all[len(all)-1][1:], &p[i])
	}
	return p, true
}

// keepDefined returns the cube file names of s at a position of its
// cell_def, as train_yaml.py's get_tiff_files filters a cube_dir through
// brainglobe-utils' find_relevant_tiffs: cell_def is a folder (each
// file's name gives a position) or a cells file (every point, whatever
// its type), and a cube is kept when its name's position is one of them.
func keepDefined(names []string, s Source) ([]string, error) {
	defined, err := cellDefPositions(s.CellDef)
	if err != nil {
		return nil, fmt.Errorf("training YAML %s: cell_def %s: %w", s.File, s.CellDef, err)
	}
	var out []string
	for _, n := range names {
		if p, ok := positionFromName(n); ok && defined[p] {
			out = append(out, n)
		}
	}
	return out, nil
}

// cellDefPositions reads the positions of a cell_def: a folder's file
// names (hidden files aside, as get_cells_dir), a cellfinder XML or
// voxlab CSV's points, or brainglobe-utils' cells YAML (candidate_cells).
func cellDefPositions(path string) (map[position]bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	out := map[position]bool{}
	if fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p, ok := positionFromName(e.Name())
			if !ok {
				return nil, fmt.Errorf("file %s has no x, y and z position in its name", e.Name())
			}
			out[p] = true
		}
		return out, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yml", ".yaml":
		return yamlCellPositions(path)
	}
	pts, err := points.Read(path)
	if err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("no cells in it")
	}
	for _, p := range pts {
		out[position{int(p.X), int(p.Y), int(p.Z)}] = true
	}
	return out, nil
}

// yamlCellPositions reads brainglobe-utils' cells YAML (cells_to_yml:
// candidate_cells, each with x, y, z).
func yamlCellPositions(path string) (map[position]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Cells []struct{ X, Y, Z float64 } `yaml:"candidate_cells"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Cells) == 0 {
		return nil, fmt.Errorf("no candidate_cells in it (brainglobe's cells YAML)")
	}
	out := map[position]bool{}
	for _, c := range doc.Cells {
		out[position{int(c.X), int(c.Y), int(c.Z)}] = true
	}
	return out, nil
}
