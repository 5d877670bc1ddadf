package dezing

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

// Spec is dezinging as voxlab offers it: `voxlab dezing IN OUT`, its
// YAML step and its panel form. A run reads a NeXus scan (darks and
// flats by image_key, volume.OpenScan) or a plain volume with darks and
// flats from their own files, and writes an HDF5 file or an OME-Zarr
// store (output.go); it splits into tasks of projections (parts.go).
var Spec = &pipeline.Spec{
	Name:    "dezing",
	Title:   "Dezing",
	Order:   10,
	Summary: "remove zingers from a tomography scan: projections, darks and flats (remove_outlier)",
	Usage: "IN OUT.h5|OUT.zarr [--kernel 3] [--dif 1000] [--darks-flats mean|median] [--flat-field] [--minus-log] " +
		"[--darks FILE --flats FILE] [--backend auto|cpu|cuda] [--pin-memory] [--batch-size N|auto] [--device-memory SIZE]",
	Examples: []string{
		"voxlab dezing demo-data/tomo/scan.nxs dezinged.h5",
		"voxlab dezing demo-data/tomo/scan.nxs dezinged.ome.zarr",
		"voxlab dezing scan.nxs out.h5 --kernel 5 --dif 500 --darks-flats median --flat-field --minus-log",
		"voxlab dezing projections.npy out.h5 --darks darks.tif --flats flats.tif",
		"voxlab dezing scan.nxs out.h5 --backend cuda --pin-memory --device-memory 2GiB",
		"voxlab plan dezing scan.nxs --device-memory 2GiB --json",
	},
	ArgsHelp: "an input scan and an output .h5 file",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Scan", Help: "NeXus scan (darks and flats by image_key), or a projections volume with darks and flats below"},
		{Name: "out", Kind: pipeline.Output, Label: "Output", Default: "dezinged.h5",
			Help: "HDF5 file: /data, and /dark and /flat unless flat-field corrected; or an OME-Zarr store when the name ends in .zarr"},
	},
	Params: []pipeline.Param{
		{Name: "kernel", Kind: pipeline.Int, Default: DefaultKernel, Help: "side of the median cube: odd, 3 to 13"},
		{Name: "dif", Kind: pipeline.Float, Default: float64(DefaultDif), Label: "Threshold (dif)",
			Help: "outlier threshold in data units: a voxel with |x − median| ≥ dif becomes the median"},
		{Name: "darks-flats", Kind: pipeline.Choice, Default: Mean.String(), Options: []string{Mean.String(), Median.String()},
			Label: "Darks and flats reduction", Help: "reduce the dezinged darks and flats to one frame by mean or median",
			Check: func(v any) error { _, err := ParseReduction(v.(string)); return err }},
		{Name: "flat-field", Kind: pipeline.Bool, Label: "Flat-field correction",
			Help: "write (I − D) / max(F − D, 1e-7) as float32 instead of the dezinged counts"},
		{Name: "minus-log", Kind: pipeline.Bool, Label: "−log after the flat-field", Help: "take −log of the flat-field result (needs --flat-field)"},
		{Name: "clip-high", Kind: pipeline.Float, Default: DefaultClip, Advanced: true, Help: "upper clipping bound of the flat-field result"},
		{Name: "clip-low", Kind: pipeline.Float, Default: -DefaultClip, Advanced: true, Help: "lower clipping bound of the flat-field result"},
		{Name: "darks", Kind: pipeline.Input, Optional: true, Advanced: true, Help: "darks of a plain volume IN (a NeXus scan has its own)"},
		{Name: "flats", Kind: pipeline.Input, Optional: true, Advanced: true, Help: "flats of a plain volume IN (a NeXus scan has its own)"},
	},
	Batch: pipeline.Batch{Flag: "batch-size", Unit: "projections", Label: "Projections per block"},
	Split: true,
	Live: pipeline.Live{Kind: pipeline.LiveVolume, Result: func(args []string) string {
		if len(args) < 2 {
			return ""
		}
		return ResultSpec(args[1])
	}},
	Suggest: suggest,
	Files:   files,
	Open:    open,
	Example: example,
}

// suggest proposes the first open NeXus scan, else HDF5 file, else any
// open volume (`voxlab gui scan.npy --run dezing` dezings scan.npy). The
// panel names the output after it (scan-dezinged.h5, free).
func suggest(open []pipeline.Layer) ([]string, map[string]string) {
	in := pipeline.FirstSpec(open, ".nxs")
	if in == "" {
		in = pipeline.FirstSpec(open, ".h5", ".hdf5")
	}
	if in == "" {
		in = pipeline.FirstVolume(open)
	}
	if in == "" {
		return nil, nil
	}
	return []string{in, ""}, nil
}

// scanJob is an opened dezinging run.
type scanJob struct {
	cfg    Config
	s      *scan
	shapes Shapes
	out    string
	start  time.Time
}

// config builds the run's configuration from the request.
func config(r pipeline.Request) (Config, error) {
	v := r.Values
	cfg := DefaultConfig()
	cfg.Kernel, cfg.Dif = v.Int("kernel"), v.Float("dif")
	red, err := ParseReduction(v.String("darks-flats"))
	if err != nil {
		return cfg, pipeline.Usagef("--darks-flats: %v", err)
	}
	cfg.Reduce = red
	cfg.FlatField, cfg.MinusLog = v.Bool("flat-field"), v.Bool("minus-log")
	cfg.ClipLow, cfg.ClipHigh = float32(v.Float("clip-low")), float32(v.Float("clip-high"))
	cfg.Block, cfg.Pin, cfg.Partials = r.Batch, r.Pin, r.Partials
	if err := cfg.Validate(); err != nil {
		return cfg, pipeline.Usagef("%v", err)
	}
	return cfg, nil
}

// open checks a request and opens its scan (headers only); OUT is
// checked unless the run is only planned.
func open(r pipeline.Request) (pipeline.Job, error) {
	cfg, err := config(r)
	if err != nil {
		return nil, err
	}
	s, err := openScan(r.Args[0], r.Values.String("darks"), r.Values.String("flats"))
	if err != nil {
		return nil, err
	}
	j := &scanJob{cfg: cfg, s: s, shapes: s.in.Shapes(), out: r.Args[1], start: time.Now()}
	if err := j.shapes.Check(cfg); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if !r.PlanOnly {
		if err := checkOutput(j.out); err != nil {
			s.Close()
			return nil, err
		}
	}
	j.cfg.WriterBytes = writerBytes(j.out, OutInfo(j.shapes, cfg).PlaneBytes())
	// The plan bounds the output's size on disk and refuses one the free
	// space cannot hold, before anything is written.
	j.cfg.Output = j.out
	return j, nil
}

func (j *scanJob) Close() error {
	j.s.Close()
	return nil
}

// Plan plans the whole run on d.
func (j *scanJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	c := j.cfg
	c.Budget = d.Budget
	return Plan(d.Backend, j.shapes, c)
}

// scan is an opened input: its sources and what to close.
type scan struct {
	name   string
	in     Input
	closer []func() error
	// darks and flats name where they came from, for the attributes;
	// files are the inputs given as flags.
	darks, flats string
	files        []string
}

func (s *scan) Close() {
	for _, c := range s.closer {
		c()
	}
}

// volSource reads a volume through volume.Volume's checks and messages.
type volSource struct{ v *volume.Volume }

func (s volSource) Info() volume.Info                     { return s.v.Info }
func (s volSource) ReadSlab(z0, z1 int, dst []byte) error { return s.v.ReadSlab(z0, z1, dst) }
func (s volSource) Close() error                          { return s.v.Close() }

// Source is the volume's reader, which the plan sizes (volume.ChunkedOf).
func (s volSource) Source() volume.Source { return s.v.Source() }

// openScan opens a tomography scan with its own darks and flats (a
// NeXus file, split by image_key) or a plain volume, and darks and
// flats from files when given (volume.OpenScanInputs).
func openScan(in, darks, flats string) (*scan, error) {
	in2, err := volume.OpenScanInputs(in, darks, flats)
	if err != nil {
		return nil, err
	}
	s := &scan{name: in, closer: []func() error{in2.Close}, darks: in2.DarksFrom, flats: in2.FlatsFrom, files: in2.Files}
	s.in.Projections = volSource{in2.Projections}
	if in2.Darks != nil {
		s.in.Darks = volSource{in2.Darks}
	}
	if in2.Flats != nil {
		s.in.Flats = volSource{in2.Flats}
	}
	return s, nil
}

// checkOutput refuses an output that is a folder or lies in a missing
// folder. (One that would write over an input was refused before Open:
// Spec.Paths.)
func checkOutput(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() && !isStore(out) {
		return fmt.Errorf("output %s is a folder: give an .h5 file name, or a .zarr one for OME-Zarr", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	if _, err := containerOf(out); err != nil {
		return err
	}
	return nil
}
