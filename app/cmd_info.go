package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	pointsio "github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/h5" // registers HDF5 and NeXus
)

func init() {
	register(&command{
		name:    "info",
		volumes: true,
		summary: "check a file and print its shape, dtype, voxel size and layout",
		usage:   "FILE... [--json]   (points files: cells.csv, cells.xml)",
		examples: []string{
			"voxlab info brain.ome.zarr:/2,c=1",
			"voxlab info demo/tomo/scan.nxs",
			"voxlab info brain/planes",
			"voxlab info maps/gt.npy --json",
			"voxlab info scan.h5:/entry/data",
			"voxlab info cells.xml",
			"voxlab info brain/planes cells.xml   # also counts the points outside the volume",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			asJSON := fs.Bool("json", false, "print a JSON array, one object per file")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("no file given")
				}
				return runInfo(e, args, *asJSON)
			}
		},
	})
}

// runInfo describes each file. A file that fails validation is reported
// on stderr and makes the command fail, after the others were described.
func runInfo(e *env, specs []string, asJSON bool) error {
	var descs []any
	var errs []error
	// The last volume described: a points file after it is checked
	// against its shape.
	var volName string
	var volShape [3]int
	for _, spec := range specs {
		if pointsio.IsPointsFile(spec) {
			d, err := describePoints(spec, volName, volShape)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			descs = append(descs, d)
			if !asJSON {
				if err := d.WriteText(e.stdout); err != nil {
					return err
				}
			}
			continue
		}
		d, err := volume.Inspect(spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		descs = append(descs, d)
		if d.Volume && len(d.Shape) == 3 {
			volName, volShape = spec, [3]int{d.Shape[0], d.Shape[1], d.Shape[2]}
		}
		if !asJSON {
			if err := d.WriteText(e.stdout); err != nil {
				return err
			}
		}
	}
	if asJSON {
		out, err := json.MarshalIndent(descs, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", out)
	}
	if len(errs) > 1 {
		return fmt.Errorf("%d of %d files are not valid:\n%w", len(errs), len(specs), errors.Join(errs...))
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return nil
}
