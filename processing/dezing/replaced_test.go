package dezing

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// naiveReplaced counts the voxels of src that the naive median (naive,
// a full sort of every neighbourhood) changes.
func naiveReplaced(src volume.Source, kernel int, dif float64) int64 {
	m := src.(*volume.Memory)
	in := m.Data()
	out := naive(in, m.Info(), kernel, dif)
	return countReplaced(in, out, m.Info().DType.Size())
}

// TestReplacedCountsAreNaive: the counts of replaced voxels per kind are
// those of a naive comparison of the input with the naive median's
// output, whatever the block size, with and without the flat-field (which
// hides the median's output from the written projections), and the
// tasks of a split run add up to them.
func TestReplacedCountsAreNaive(t *testing.T) {
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		in := testScan(3, dt, 13, 5, 6, 9, 11)
		for _, kernel := range []int{3, 5} {
			want := Replaced{
				Projections: naiveReplaced(in.Projections, kernel, 1000),
				Darks:       naiveReplaced(in.Darks, kernel, 1000),
				Flats:       naiveReplaced(in.Flats, kernel, 1000),
			}
			if want.Projections == 0 || want.Darks == 0 || want.Flats == 0 {
				t.Fatalf("%s kernel %d: the scan has nothing to replace (%+v): the test proves nothing", dt, kernel, want)
			}
			for _, ff := range []bool{false, true} {
				for _, block := range []int{1, 4, 13} {
					cfg := DefaultConfig()
					cfg.Kernel, cfg.FlatField = kernel, ff
					cfg.Block, cfg.FrameBlock = block, block
					name := fmt.Sprintf("%s kernel %d flat-field %v block %d", dt, kernel, ff, block)
					_, res := runAll(t, gpu.NewCPU(), cfg, in)
					if res.Replaced != want {
						t.Errorf("%s: replaced %+v, the naive count %+v", name, res.Replaced, want)
					}
					if v := (Replaced{13 * 9 * 11, 5 * 9 * 11, 6 * 9 * 11}); res.Voxels != v {
						t.Errorf("%s: dezinged voxels %+v, want %+v", name, res.Voxels, v)
					}
				}
			}
			cfg := DefaultConfig()
			cfg.Kernel = kernel
			var sum int64
			for i := range 3 {
				res, err := RunTask(context.Background(), nil, gpu.NewCPU(), cfg, in, task.Task{Index: i, Count: 3}, newMemOutput(TaskInfo(in.Shapes(), cfg, task.Task{Index: i, Count: 3})))
				if err != nil {
					t.Fatal(err)
				}
				sum += res.Replaced.Projections
			}
			if sum != want.Projections {
				t.Errorf("%s kernel %d: 3 tasks replaced %d projection voxels, the naive count %d", dt, kernel, sum, want.Projections)
			}
		}
	}
}

// TestReplacedWarning: a run that replaces more than 1% of a kind warns,
// naming the count and a --dif from the data's noise; that --dif, on the
// same scan, replaces its zingers only (below 1%, no warning), and a high
// --dif gives no warning either.
func TestReplacedWarning(t *testing.T) {
	// Counts about 1000 with Gaussian noise of σ 30 and a zinger every
	// 211 voxels (0.47%): --dif 50 is inside the noise.
	info := volume.Info{Shape: [3]int{12, 30, 40}, DType: volume.Uint16}
	rng := rand.New(rand.NewPCG(9, 10))
	data := make([]uint16, info.Len())
	zingers := int64(0)
	for i := range data {
		data[i] = uint16(1000 + 30*rng.NormFloat64())
		if i%211 == 0 {
			data[i], zingers = 30000, zingers+1
		}
	}
	m, err := volume.NewMemory(info, volume.Bytes(data))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Projections: m}
	run := func(dif float64) ([]string, *Result) {
		cfg := DefaultConfig()
		cfg.Dif = dif
		var warnings []string
		p := job.NewProgress("dezing", func(e job.Event) {
			if e.Kind == job.Warning {
				warnings = append(warnings, e.Message)
			}
		})
		res, err := Run(context.Background(), p, gpu.NewCPU(), cfg, in, newMemOutput(OutInfo(in.Shapes(), cfg)))
		if err != nil {
			t.Fatal(err)
		}
		return warnings, res
	}
	warnings, res := run(50)
	if len(warnings) != 1 || !strings.Contains(warnings[0], fmt.Sprintf("replaced %d of 14400 projection voxels", res.Replaced.Projections)) ||
		!strings.Contains(warnings[0], "median absolute deviation") {
		t.Fatalf("--dif 50: warnings %q", warnings)
	}
	var suggested float64
	if _, err := fmt.Sscanf(warnings[0][strings.Index(warnings[0], "suggests --dif ")+len("suggests --dif "):], "%g", &suggested); err != nil {
		t.Fatalf("no suggested --dif in %q: %v", warnings[0], err)
	}
	// 6σ of the noise, within the estimate's spread (x − the median of
	// 27 noisy values, of which x is one).
	if suggested < 6*30*0.8 || suggested > 6*30*1.5 {
		t.Errorf("suggested --dif %g, want about 6 x 30", suggested)
	}
	warnings, res2 := run(suggested)
	if got := res2.Replaced.Projections; len(warnings) != 0 || got < zingers || got > zingers+info.Len()/1000 {
		t.Errorf("the suggested --dif %g replaced %d voxels, warnings %q: want the %d zingers (and hardly any noise), no warning", suggested, got, warnings, zingers)
	}
	if warnings, _ := run(1e6); len(warnings) != 0 {
		t.Errorf("--dif 1e6: warnings %q", warnings)
	}
}

// TestMergedReplacedIsTheWholeRuns: tasks run through the spec's
// Splitter into real part files, and the merge reports the replaced
// counts and the warning (with its suggested --dif, from the samples the
// parts carry) of the whole run; a part whose trailer is not where its
// planes end is refused as damaged.
func TestMergedReplacedIsTheWholeRuns(t *testing.T) {
	dir := t.TempDir()
	args, err := Spec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	vals := Spec.Defaults()
	vals["dif"] = 20.0 // inside the example's noise: a warning with a suggestion
	open := func(out string) *scanJob {
		j, err := Spec.Open(pipeline.Request{Args: []string{args[0], filepath.Join(dir, out)}, Values: vals})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j.(*scanJob)
	}
	warnings := func() (*job.Progress, *[]string) {
		var w []string
		return job.NewProgress("dezing", func(e job.Event) {
			if e.Kind == job.Warning {
				w = append(w, e.Message)
			}
		}), &w
	}
	p, wholeWarnings := warnings()
	rep, err := open("whole.h5").Run(context.Background(), p, cpuDevice(t))
	if err != nil {
		t.Fatal(err)
	}
	whole := rep.Summary.(Summary)
	if len(*wholeWarnings) != 1 || !strings.Contains((*wholeWarnings)[0], "suggests --dif") {
		t.Fatalf("the whole run's warnings %q: want one with a suggested --dif", *wholeWarnings)
	}

	j := open("merged.h5")
	const tasks = 3
	h := func(i int) cluster.PartHeader {
		run, err := j.PartRun(task.Task{Index: i, Count: tasks})
		if err != nil {
			t.Fatal(err)
		}
		hd, err := cluster.NewPartHeader("dezing", task.Task{Index: i, Count: tasks}, run)
		if err != nil {
			t.Fatal(err)
		}
		return hd
	}
	var paths []string
	for i := range tasks {
		path := filepath.Join(dir, fmt.Sprintf("part-%d", i))
		w, err := cluster.CreatePart(path, h(i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.RunTask(context.Background(), nil, cpuDevice(t), task.Task{Index: i, Count: tasks}, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	openParts := func() []*cluster.Part {
		var parts []*cluster.Part
		for i, path := range paths {
			part, err := cluster.OpenPart(path, h(i))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { part.Close() })
			parts = append(parts, part)
		}
		return parts
	}
	p, mergedWarnings := warnings()
	rep, err = j.Merge(context.Background(), p, cpuDevice(t), openParts())
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Summary.(Summary); got.Replaced != whole.Replaced || got.Dezinged != whole.Dezinged {
		t.Errorf("merged: replaced %+v of %+v, the whole run %+v of %+v", got.Replaced, got.Dezinged, whole.Replaced, whole.Dezinged)
	}
	if strings.Join(*mergedWarnings, "\n") != strings.Join(*wholeWarnings, "\n") {
		t.Errorf("merged warnings %q, the whole run's %q", *mergedWarnings, *wholeWarnings)
	}

	// A part whose payload lost its last bytes (its counts) is refused.
	parts := openParts()
	lo, hi := TaskRange(j.shapes, j.cfg, task.Task{Index: 0, Count: tasks})
	if _, err := newPartStack(parts[:1], []int{hi - lo}, j.shapes.Projections); err != nil {
		t.Fatalf("the part as it is: %v", err)
	}
	// Read as holding one plane more, its trailer is not what follows.
	if _, err := newPartStack(parts[:1], []int{hi - lo + 1}, j.shapes.Projections); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a part read as one plane longer: %v, want it refused as damaged", err)
	}
}
