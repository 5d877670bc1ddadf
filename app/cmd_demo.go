package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/viewer"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "write the demo datasets (tomography scan, light-sheet brain, cryo-EM maps)",
		usage:   "DIR [--size small|large] [--seed N] [--headless]",
		examples: []string{
			"voxlab demo demo-data",
			"voxlab demo demo-data --headless",
			"voxlab demo /scratch/bench --size large --seed 7",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			size := fs.String("size", "small", "small (for tests and a first look) or large (for benchmarks)")
			seed := fs.Int64("seed", 1, "random seed: equal seeds write equal data")
			headless := fs.Bool("headless", false, "then run dezing, detect and distance on the data, writing DIR/results/")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
					return usagef("want one folder, got %d arguments", len(args))
				}
				sz, err := demo.ParseSize(*size)
				if err != nil {
					return usagef("%v", err)
				}
				if err := runDemo(e, args[0], sz, *seed, *headless); err != nil || !*headless {
					return err
				}
				return runDemoPipelines(ctx, e, args[0])
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
	return nil
}

// demoResults is where `voxlab demo DIR --headless` writes, inside DIR.
const demoResults = "results"

// runDemoPipelines runs the pipelines on the demo data through the
// same code as their commands (each step is `voxlab CMD ARGS`), writing
// into DIR/results/, and says where the results went and how to look at
// them.
func runDemoPipelines(ctx context.Context, e *env, dir string) error {
	res := filepath.Join(dir, demoResults)
	if err := os.MkdirAll(res, 0o755); err != nil {
		return fmt.Errorf("demo results: %w", err)
	}
	in := func(rel string) string { return filepath.Join(dir, rel) }
	steps := []struct {
		what string
		args []string
		out  string
	}{
		{"dezinged scan", []string{"dezing", in(demo.TomoScan), filepath.Join(res, "dezinged.h5")}, filepath.Join(res, "dezinged.h5")},
		{"reconstructed slices", []string{"reconstruct", in(demo.TomoScan), filepath.Join(res, "reconstructed.npy"), "--center", "auto", "--stripes", "sorting", "--dezing"},
			filepath.Join(res, "reconstructed.npy")},
		{"detected cells", []string{"detect", in(demo.BrainPlanes), filepath.Join(res, "cells.csv")}, filepath.Join(res, "cells.csv")},
		{"distance matrices", []string{"distance", in(demo.MapsGT), in(demo.MapsSubmitted), filepath.Join(res, "distances"), "--mask", in(demo.MapsMask)},
			filepath.Join(res, "distances") + string(filepath.Separator)},
	}
	start := time.Now()
	for i, st := range steps {
		fmt.Fprintf(e.stdout, "\n[%d/%d] voxlab %s\n", i+1, len(steps), strings.Join(st.args, " "))
		if code := run(ctx, st.args, e); code != 0 {
			if ctx.Err() != nil {
				return fmt.Errorf("cancelled in step %d (%s): it wrote nothing; the steps before it finished", i+1, st.args[0])
			}
			return fmt.Errorf("step %d (voxlab %s) failed with exit status %d", i+1, st.args[0], code)
		}
	}
	fmt.Fprintf(e.stdout, "\nThe %d pipelines ran on the demo data in %s; the results are in %s:\n", len(steps), time.Since(start).Round(time.Millisecond), res)
	for _, st := range steps {
		fmt.Fprintf(e.stdout, "  %-22s %s\n", st.what+":", st.out)
	}
	if found, truth, recall, err := demoRecall(filepath.Join(res, "cells.csv"), in(demo.BrainCells)); err == nil {
		fmt.Fprintf(e.stdout, "  detection found %d cells; %.0f%% of the demo's %d cells lie within 3 voxels of one\n", found, 100*recall, truth)
	}
	fmt.Fprintf(e.stdout, "Look at them with:\n  voxlab view %s %s:/data --grid\n  voxlab view %s\n  voxlab view %s %s\n  voxlab gui --demo %s\n",
		in(demo.TomoScan), steps[0].out, steps[1].out, in(demo.BrainPlanes), steps[2].out, dir)
	return nil
}

// demoRecall compares detected cells with the demo's truth: the share of
// true cells with a detection within 3 voxels.
func demoRecall(found, truth string) (nFound, nTruth int, recall float64, err error) {
	f, err := viewer.ReadPointsCSV(found)
	if err != nil {
		return 0, 0, 0, err
	}
	t, err := viewer.ReadPointsCSV(truth)
	if err != nil || len(t) == 0 {
		return 0, 0, 0, fmt.Errorf("no truth: %v", err)
	}
	hit := 0
	for _, c := range t {
		for _, d := range f {
			if dz, dy, dx := c.Z-d.Z, c.Y-d.Y, c.X-d.X; dz*dz+dy*dy+dx*dx <= 9 {
				hit++
				break
			}
		}
	}
	return len(f), len(t), float64(hit) / float64(len(t)), nil
}
