package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/demo"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "write the demo datasets (tomography scan, light-sheet brain, cryo-EM maps)",
		usage:   "DIR [--size small|large] [--seed N]",
		examples: []string{
			"voxlab demo demo-data",
			"voxlab demo /scratch/bench --size large --seed 7",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			size := fs.String("size", "small", "small (for tests and a first look) or large (for benchmarks)")
			seed := fs.Int64("seed", 1, "random seed: equal seeds write equal data")
			headless := fs.Bool("headless", false, "then run the three pipelines on the data (not wired in yet)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
					return usagef("want one folder, got %d arguments", len(args))
				}
				sz, err := demo.ParseSize(*size)
				if err != nil {
					return usagef("%v", err)
				}
				return runDemo(e, args[0], sz, *seed, *headless)
			}
		},
	})
}

func runDemo(e *env, dir string, size demo.Size, seed int64, headless bool) error {
	if _, err := os.Stat(filepath.Join(dir, demo.CompleteMark)); err == nil {
		fmt.Fprintf(e.stdout, "%s already holds the demo data (remove %s to write it again)\n", dir, demo.CompleteMark)
	} else {
		start := time.Now()
		fmt.Fprintf(e.stdout, "writing the %s demo data (seed %d) to %s ...\n", size, seed, dir)
		if err := demo.Write(dir, size, seed); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "done in %s:\n", time.Since(start).Round(time.Millisecond))
		for _, p := range []string{demo.TomoScan, demo.TomoZingers, demo.BrainPlanes, demo.BrainCells, demo.MapsGT, demo.MapsSubmitted, demo.MapsMask} {
			fmt.Fprintf(e.stdout, "  %s\n", filepath.Join(dir, p))
		}
	}
	if headless {
		fmt.Fprintln(e.stderr, "voxlab demo: --headless: running the pipelines on the demo data is not wired in yet; only the data were written")
	}
	return nil
}
