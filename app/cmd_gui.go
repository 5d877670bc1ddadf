package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/demo"
)

func init() {
	register(&command{
		name:    "gui",
		summary: "open the viewer (the default when no command is given)",
		usage:   "[FILE...] [--demo DIR]",
		examples: []string{
			"voxlab gui",
			"voxlab gui --demo demo-data",
			"voxlab gui scan.nxs cells.csv",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &viewOpts{slice: -1, axis: "z", size: "1280x800"}
			fs.StringVar(&o.demo, "demo", "", "open the demo datasets written by `voxlab demo DIR`")
			fs.StringVar(&o.screenshot, "screenshot", "", "render the window once into this PNG and exit")
			fs.StringVar(&o.size, "size", o.size, "window size WxH")
			fs.BoolVar(&o.grid, "grid", false, "show each layer in its own panel")
			return func(ctx context.Context, e *env, args []string) error {
				specs := append([]string(nil), args...)
				if o.demo != "" {
					specs = append(specs, demoSpecs(e, o.demo)...)
				}
				return runViewer(ctx, e, specs, o)
			}
		},
	})
}

// demoSpecs lists the demo datasets found in dir, saying which are
// missing: the tomography projections, the brain planes with their cells
// and the ground-truth maps.
func demoSpecs(e *env, dir string) []string {
	var specs []string
	for _, rel := range []string{demo.TomoScan, demo.BrainPlanes, demo.BrainCells, demo.MapsGT} {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(e.stderr, "voxlab gui: demo %s is missing; skipped (write it with `voxlab demo %s`)\n", p, dir)
			continue
		}
		specs = append(specs, p)
	}
	return specs
}
