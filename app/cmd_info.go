package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/h5" // registers HDF5 and NeXus
)

func init() {
	register(&command{
		name:    "info",
		volumes: true,
		summary: "check a file and print its shape, dtype, voxel size and layout",
		usage:   "FILE... [--json]",
		examples: []string{
			"voxlab info brain.ome.zarr:/2,c=1",
			"voxlab info demo/tomo/scan.nxs",
			"voxlab info brain/planes",
			"voxlab info maps/gt.npy --json",
			"voxlab info scan.h5:/entry/data",
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
	var descs []*volume.Description
	var errs []error
	for _, spec := range specs {
		d, err := volume.Inspect(spec)
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
