package classify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"gopkg.in/yaml.v3"
)

// CubesResult reports what WriteCubes wrote.
type CubesResult struct {
	// Written cubes (each one file per channel), and candidates skipped:
	// Unknown (cube leaves the volume) and Duplicate (the same file name
	// as an earlier candidate: the same whole-voxel position).
	Written, Unknown, Duplicate int
	// Layout is "flat" (every cube in the folder) or "curation" (cells/
	// and non_cells/, as cellfinder's curation widget saves them).
	Layout string
	Norm   [2]Norm
}

// CubeFileName is cellfinder's name of a cube's channel file
// (brainglobe-utils' file_name_from_cell; Cell keeps int() of each
// coordinate).
func CubeFileName(p points.Point, channel int) string {
	return fmt.Sprintf("pCellz%dy%dx%dCh%d.tif", int(p.Z), int(p.Y), int(p.X), channel)
}

var cubeFile = regexp.MustCompile(`^pCellz-?\d+y-?\d+x-?\d+Ch\d+\.tif$`)

// ownedCubes names what WriteCubes writes into its folder (an earlier
// run's output may be replaced; nothing else is deleted).
func ownedCubes(name string) bool {
	return cubeFile.MatchString(name) || name == "cells" || name == "non_cells" || name == "training.yaml"
}

// WriteCubes writes the cube of every candidate inside the volume as
// cellfinder's training cubes: one multi-page float32 TIFF per channel
// (pages along z, each page y x at the network's size), named
// pCellz{z}y{y}x{x}Ch{c}.tif. Candidates of one class (or unclassified)
// go flat into dir; a curated set holding cells and non-cells goes into
// dir/cells and dir/non_cells as cellfinder's curation widget saves them
// (non-cells and unclassified candidates being type 1 alike). A
// training.yaml lists the folders with their type for cellfinder's
// training. The folder is filled under a temporary name and put in place
// when complete.
func (s *Session) WriteCubes(ctx context.Context, prog *job.Progress, dir string, workers, batch int) (*CubesResult, error) {
	res := &CubesResult{Layout: "flat", Unknown: s.Unknown()}
	var cells, others bool
	for _, p := range s.In.Points {
		if points.ClassOf(p.Type) == points.Cell {
			cells = true
		} else {
			others = true
		}
	}
	curated := cells && others
	if curated {
		res.Layout = "curation"
	}
	if err := s.Normalise(ctx, prog); err != nil {
		return nil, err
	}
	res.Norm = s.norm
	out, err := outfile.ReplaceDir(dir, ownedCubes)
	if err != nil {
		return nil, err
	}
	defer func() {
		if out != nil {
			os.RemoveAll(out.Path)
		}
	}()
	sub := func(p points.Point) string {
		if !curated {
			return ""
		}
		if points.ClassOf(p.Type) == points.Cell {
			return "cells"
		}
		return "non_cells"
	}
	if curated {
		for _, d := range []string{"cells", "non_cells"} {
			if err := os.Mkdir(filepath.Join(out.Path, d), 0o755); err != nil {
				return nil, err
			}
		}
	}
	g := s.Geo
	info := volume.Info{Shape: g.Net, DType: volume.Float32, VoxelSize: s.Cfg.NetworkVoxelSize}
	seen := map[string]bool{}
	plane := make([]float32, g.Net[1]*g.Net[2])
	if prog != nil {
		prog.Stage("cubes", int64(len(s.Order)), "cubes")
	}
	var adder interface{ Add(int64) }
	if prog != nil {
		adder = prog
	}
	err = s.EachCube(ctx, adder, workers, batch, func(idx []int, cubes []float32) error {
		n := s.cubeLen()
		for k, i := range idx {
			p := s.In.Points[i]
			name0 := filepath.Join(sub(p), CubeFileName(p, 0))
			if seen[name0] {
				res.Duplicate++
				continue
			}
			seen[name0] = true
			for ch := range g.Channels {
				path := filepath.Join(out.Path, sub(p), CubeFileName(p, ch))
				if err := writeCube(path, info, cubes[k*n:(k+1)*n], ch, g.Channels, plane); err != nil {
					return err
				}
			}
			res.Written++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.writeTrainingYAML(out.Path, dir, curated, cells); err != nil {
		return nil, err
	}
	d := out
	out = nil
	if err := d.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// writeCube writes channel ch of a cube (y, x, z, channel) as a TIFF of
// pages along z.
func writeCube(path string, info volume.Info, cube []float32, ch, nc int, plane []float32) error {
	w, err := volume.CreateTIFF(path, info)
	if err != nil {
		return err
	}
	nz, ny, nx := info.Shape[0], info.Shape[1], info.Shape[2]
	for z := range nz {
		for y := range ny {
			for x := range nx {
				plane[y*nx+x] = cube[((y*nx+x)*nz+z)*nc+ch]
			}
		}
		if err := w.WriteSlab(z, float32Bytes(plane)); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Commit()
}

// trainingSection is one entry of cellfinder's training YAML, as its
// curation widget writes it.
type trainingSection struct {
	CubeDir       string `yaml:"cube_dir"`
	CellDef       string `yaml:"cell_def"`
	Type          string `yaml:"type"`
	SignalChannel int    `yaml:"signal_channel"`
	// BgChannel is -1 for cubes of the signal only, as cellfinder's
	// curation writes it (NO_BACKGROUND_CHANNEL): train_yaml.py reads
	// d["bg_channel"] for every entry.
	BgChannel int `yaml:"bg_channel"`
}

// writeTrainingYAML writes training.yaml into tmp, naming the folders as
// they will be once dir is in place.
func (s *Session) writeTrainingYAML(tmp, dir string, curated, cells bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	bg := -1
	if s.Geo.Channels == 2 {
		bg = 1
	}
	var data []trainingSection
	if curated {
		data = []trainingSection{
			{CubeDir: filepath.Join(abs, "cells"), Type: "cell", BgChannel: bg},
			{CubeDir: filepath.Join(abs, "non_cells"), Type: "no_cell", BgChannel: bg},
		}
	} else {
		typ := "no_cell"
		if cells {
			typ = "cell"
		}
		data = []trainingSection{{CubeDir: abs, Type: typ, BgChannel: bg}}
	}
	b, err := yaml.Marshal(map[string]any{"data": data})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(tmp, "training.yaml"), b, 0o644)
}
