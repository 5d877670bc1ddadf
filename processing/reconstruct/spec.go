package reconstruct

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

// Spec is reconstruction as voxlab offers it: `voxlab reconstruct SCAN
// OUT`, its YAML step and its panel form. A run reads a NeXus scan
// (darks and flats by image_key, volume.OpenScan) or a plain volume of
// projections with darks and flats from files, and writes the slices
// (rows × columns × columns, float32) through the output format's
// writer (volume.ExporterFor: NPY, HDF5, TIFF, OME-Zarr). It splits
// into tasks of slices (parts.go) merged into the output a whole run
// writes.
var Spec = &pipeline.Spec{
	Name:    "reconstruct",
	Title:   "Reconstruct",
	Order:   15,
	Summary: "reconstruct slices from a tomography scan: flat-field, −log, stripe removal, centre, filtered back-projection",
	Usage: "SCAN OUT [--center C|auto] [--algorithm fbp|gridrec] [--filter ramp|shepp|cosine|hamming|hann] [--stripes none|sorting|all] [--dezing [--kernel K --dif D]]\n" +
		"       [--paganin --energy KEV --distance MM --pixel-size UM --ratio R] [--rows FROM:TO] [--center-sweep FROM:TO:STEP] [--darks F --flats F] [--angles FILE] [--batch-size N|auto] [--host-memory SIZE]",
	Examples: []string{
		"voxlab reconstruct scan.nxs slices.h5 --center auto --angles angles.txt",
		"voxlab reconstruct projections.npy slices.npy --darks darks.npy --flats flats.npy --center 1279.5",
		"voxlab reconstruct scan.nxs slices/ --rows 1000:1010 --filter shepp --stripes sorting",
		"voxlab reconstruct scan.nxs sweep.npy --rows 1080:1081 --center-sweep 1270:1290:0.5",
		"voxlab plan reconstruct scan.nxs --host-memory 8GiB",
	},
	ArgsHelp: "an input scan and an output volume",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Scan", Help: "NeXus scan (darks and flats by image_key), or a projections volume with --darks and --flats"},
		{Name: "out", Kind: pipeline.Output, Label: "Slices", Default: "reconstructed.h5",
			Help: "the slices, rows × columns × columns float32: .npy, .h5, .tif, a folder of TIFF planes (name/), .ome.zarr"},
	},
	Params: []pipeline.Param{
		{Name: "center", Kind: pipeline.Text, Label: "Centre of rotation", Unit: "column",
			Help:  "the rotation axis as a detector column (0-based, fractional), or auto (Vo's method); empty: columns/2, as tomopy",
			Check: func(v any) error { _, _, err := parseCenter(v.(string)); return err }},
		{Name: "algorithm", Kind: pipeline.Choice, Default: "fbp", Options: []string{"fbp", "gridrec"},
			Help: "reconstruction method: fbp, filtered back-projection (scikit-image's iradon), or gridrec (tomopy's Fourier gridding: faster, no interpolation blur)"},
		{Name: "filter", Kind: pipeline.Choice, Default: Ramp.String(), Options: FilterNames(),
			Help: "FBP's frequency filter: ramp, shepp (Shepp-Logan), cosine, hamming, hann"},
		{Name: "stripes", Kind: pipeline.Choice, Default: "none", Options: stripeChoices, Label: "Stripe removal",
			Help: "ring artefact removal before reconstruction: none, sorting (Vo's remove_stripe_based_sorting) or all (remove_all_stripe: dead, large and small stripes)"},
		{Name: "center-sweep", Kind: pipeline.Text, Label: "Centre sweep", Unit: "columns",
			Help:  "FROM:TO:STEP: reconstruct the middle row of --rows at each of these centres, one slice per centre, in place of the slices",
			Check: func(v any) error { _, err := parseSweep(v.(string)); return err }},
		{Name: "paganin", Kind: pipeline.Bool, Label: "Paganin phase retrieval",
			Help: "retrieve the phase of each flat-field corrected projection (httomolibgpu's paganin_filter, in place of −log); the rows reconstructed are held in memory"},
		{Name: "energy", Kind: pipeline.Float, Default: DefaultPaganin.Energy, Unit: "keV", Advanced: true, Help: "beam energy in keV, for --paganin"},
		{Name: "distance", Kind: pipeline.Float, Default: DefaultPaganin.Distance * 1000, Unit: "mm", Advanced: true,
			Help: "propagation distance from the sample to the detector in mm, for --paganin"},
		{Name: "pixel-size", Kind: pipeline.Float, Default: 0.0, Unit: "µm", Advanced: true,
			Help: "detector pixel size in µm, for --paganin and the output's voxel size; 0: the scan's, else 1 (and 1.28 µm for --paganin)"},
		{Name: "ratio", Kind: pipeline.Float, Default: DefaultPaganin.Ratio, Label: "δ/β ratio", Advanced: true, Help: "the material's δ/β, for --paganin"},
		{Name: "dezing", Kind: pipeline.Bool, Label: "Dezing",
			Help: "remove zingers from the projections, darks and flats first (remove_outlier, the 3D median filter of voxlab dezing), with no intermediate file"},
		{Name: "kernel", Kind: pipeline.Int, Default: 3, Advanced: true, Label: "Dezing kernel",
			Help: "side of the dezinging median cube: odd, 3 to 13, for --dezing"},
		{Name: "dif", Kind: pipeline.Float, Default: 1000.0, Advanced: true, Label: "Dezing threshold (dif)",
			Help: "dezinging threshold in the scan's units: a value with |x − median| ≥ dif becomes the median, for --dezing"},
		{Name: "rows", Kind: pipeline.Text, Label: "Detector rows", Help: "FROM:TO, the detector rows to reconstruct (TO exclusive); empty: all",
			Check: func(v any) error { _, _, err := parseRows(v.(string)); return err }},
		{Name: "angles", Kind: pipeline.Input, Optional: true,
			Help: "text file of the projections' rotation angles in degrees, one per projection; default: the scan's own (rotation_angle, or DIAD's gts_theta_value beside the frames), else evenly over [0°, 180°)"},
		{Name: "darks", Kind: pipeline.Input, Optional: true, Advanced: true, Help: "darks file (in place of the scan's own)"},
		{Name: "flats", Kind: pipeline.Input, Optional: true, Advanced: true, Help: "flats file (in place of the scan's own)"},
		{Name: "stripe-size", Kind: pipeline.Int, Default: 0, Advanced: true,
			Help: "window of the sorting method's median filter, in columns; 0: scaled to the detector, 11 per 2,560 columns (odd, at least 3)",
			Check: func(v any) error {
				if v.(int) < 0 {
					return fmt.Errorf("want 0 (scaled to the detector) or a window of at least 1 column")
				}
				return nil
			}},
		{Name: "pad", Kind: pipeline.Choice, Default: "diagonal", Options: padChoices, Advanced: true, Label: "Detector padding",
			Help: "diagonal: zeros to the slice's diagonal (scikit-image); edge: edge values (httomolibgpu's detector_pad); none"},
		{Name: "mask-radius", Kind: pipeline.Float, Default: 0.95, Advanced: true, Label: "Mask radius",
			Help: "zero the slice outside this fraction of its half-width (httomolibgpu's recon_mask_radius); 0: no mask"},
	},
	Batch:   pipeline.Batch{Flag: "batch-size", Unit: "detector rows", Label: "Detector rows per block"},
	Split:   true,
	Live:    pipeline.Live{Kind: pipeline.LiveVolume, Result: result, Sweep: sweepOf},
	Suggest: suggest,
	Files:   files,
	Open:    open,
	Example: example,
}

// result is what the viewer opens when a run ends: the slices.
func result(args []string) string {
	if len(args) < 2 {
		return ""
	}
	return args[1]
}

// sweepOf says that a run with --center-sweep writes a slice per centre,
// in the sweep's order (writeSweep), so that the window opens the slices
// as a stack labelled by centre and a chosen one fills --center (and
// empties --center-sweep: the next run reconstructs at that centre).
func sweepOf(_ []string, v pipeline.Values) *pipeline.Sweep {
	text, _ := v["center-sweep"].(string)
	centres, err := parseSweep(text)
	if err != nil || centres == nil {
		return nil
	}
	return &pipeline.Sweep{Param: "center", By: "center-sweep", Label: "centre",
		Values: centreTexts(centres), Recorded: recordedCentres}
}

// centreTexts are centres as the centre field takes them.
func centreTexts(centres []float64) []string {
	out := make([]string, len(centres))
	for i, c := range centres {
		out[i] = strconv.FormatFloat(c, 'g', 12, 64)
	}
	return out
}

// recordedCentres reads the centres a sweep's output records
// (reconstruct_center_sweep, attrs), where its format has metadata.
func recordedCentres(out string) ([]string, bool, error) {
	c, ok, err := volume.NumberAttr(out, "reconstruct_center_sweep")
	if err != nil || !ok {
		return nil, ok, err
	}
	return centreTexts(c), true, nil
}

// suggest proposes the first open NeXus scan, else any open volume.
func suggest(open []pipeline.Layer) ([]string, map[string]string) {
	in := pipeline.FirstSpec(open, ".nxs")
	if in == "" {
		in = pipeline.FirstVolume(open)
	}
	if in == "" {
		return nil, nil
	}
	return []string{in, ""}, nil
}

// files is what a run reads and writes: the scan, the darks, flats and
// angles files, and OUT (a folder of planes or a Zarr store replaced as a
// whole).
func files(r pipeline.Request) iocheck.Paths {
	p := iocheck.Paths{Inputs: []iocheck.Input{
		{Name: "scan", Path: r.Arg(0)},
		{Name: "darks (--darks)", Path: r.Values.String("darks")},
		{Name: "flats (--flats)", Path: r.Values.String("flats")},
		{Name: "angles (--angles)", Path: r.Values.String("angles")},
	}}
	out := r.Arg(1)
	kind := iocheck.File
	if strings.HasSuffix(out, "/") || strings.HasSuffix(strings.ToLower(strings.TrimRight(out, "/")), ".zarr") {
		kind = iocheck.Folder
	}
	p.Outputs = []iocheck.Output{{Name: "output", Path: out, Kind: kind}}
	return p
}

// config builds the run's settings from the request.
func config(r pipeline.Request) (Config, error) {
	v := r.Values
	var c Config
	var err error
	if c.Center, c.AutoCenter, err = parseCenter(v.String("center")); err != nil {
		return c, pipeline.Usagef("%v", err)
	}
	if c.Filter, err = ParseFilter(v.String("filter")); err != nil {
		return c, pipeline.Usagef("--filter: %v", err)
	}
	if c.From, c.To, err = parseRows(v.String("rows")); err != nil {
		return c, pipeline.Usagef("%v", err)
	}
	if c.Sweep, err = parseSweep(v.String("center-sweep")); err != nil {
		return c, pipeline.Usagef("%v", err)
	}
	if c.Sweep != nil && c.AutoCenter {
		return c, pipeline.Usagef("--center-sweep and --center auto: give one or the other")
	}
	c.Gridrec = v.String("algorithm") == "gridrec"
	if v.Bool("paganin") {
		pg := PaganinParams{Energy: v.Float("energy"), Distance: v.Float("distance") / 1000,
			PixelSize: v.Float("pixel-size"), Ratio: v.Float("ratio")}
		if !(pg.Energy > 0 && pg.Distance > 0 && pg.PixelSize >= 0 && pg.Ratio > 0) {
			return c, pipeline.Usagef("--paganin: --energy, --distance and --ratio must be positive, --pixel-size positive or 0 (the scan's)")
		}
		c.Paganin = &pg
	}
	if v.Bool("dezing") {
		dz := DezingParams{Kernel: v.Int("kernel"), Dif: v.Float("dif")}
		if dz.Kernel < 3 || dz.Kernel > 13 || dz.Kernel%2 == 0 {
			return c, pipeline.Usagef("--kernel %d: the dezinging median's side must be odd, from 3 to 13", dz.Kernel)
		}
		if !(dz.Dif > 0) {
			return c, pipeline.Usagef("--dif %g: the dezinging threshold must be positive", dz.Dif)
		}
		c.Dezing = &dz
	}
	if c.PixelSize = v.Float("pixel-size"); !(c.PixelSize >= 0) {
		return c, pipeline.Usagef("--pixel-size %g: want a size in µm, or 0 for the scan's", c.PixelSize)
	}
	c.Stripes, c.StripeSize, c.Pad = v.String("stripes"), v.Int("stripe-size"), v.String("pad")
	if c.MaskRadius = v.Float("mask-radius"); c.MaskRadius < 0 || math.IsNaN(c.MaskRadius) {
		return c, pipeline.Usagef("--mask-radius %g: want a fraction ≥ 0 of the slice's half-width", c.MaskRadius)
	}
	c.Block = r.Batch
	return c, nil
}

// open checks a request and opens its scan (headers only).
func open(r pipeline.Request) (pipeline.Job, error) {
	cfg, err := config(r)
	if err != nil {
		return nil, err
	}
	s, err := openScan(r.Args[0], r.Values.String("darks"), r.Values.String("flats"))
	if err != nil {
		return nil, err
	}
	j, err := newJob(r, cfg, s)
	if err != nil {
		s.Close()
		return nil, err
	}
	return j, nil
}

// newJob checks the scan against the settings: the rows, the angles and
// the centre.
func newJob(r pipeline.Request, cfg Config, s *scan) (*reconJob, error) {
	nproj, rows, cols := s.proj.Shape[0], s.proj.Shape[1], s.proj.Shape[2]
	j := &reconJob{cfg: cfg, s: s, out: r.Arg(1), nproj: nproj, rows: rows, cols: cols, centerArg: r.Values.String("center"), partials: r.Partials}
	var err error
	if j.from, j.to, err = cfg.rows(rows); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if j.cfg.StripeSize == 0 {
		j.cfg.StripeSize = ScaledStripeSize(cols)
	}
	switch a := r.Values.String("angles"); {
	case a != "":
		if j.angles, err = readAngles(a, nproj); err != nil {
			return nil, fmt.Errorf("%w (%s has %d projections)", err, s.name, nproj)
		}
		j.anglesFrom = a
	case s.angles != nil:
		if len(s.angles) != nproj {
			return nil, fmt.Errorf("%s: %d rotation angles for %d projections: give one per projection with --angles FILE", s.name, len(s.angles), nproj)
		}
		j.angles, j.anglesFrom = radiansOf(s.angles), s.name
	default:
		j.angles, j.evenAngles = evenAngles(nproj), true
	}
	j.voxel = voxelSize(cfg.PixelSize, s.proj.VoxelSize)
	if pg := j.cfg.Paganin; pg != nil && pg.PixelSize == 0 {
		p := *pg
		if p.PixelSize = DefaultPaganin.PixelSize; cfg.PixelSize > 0 || s.proj.VoxelSize[2] > 0 {
			p.PixelSize = j.voxel
		}
		j.cfg.Paganin = &p
	}
	j.center = cfg.Center
	if math.IsNaN(j.center) {
		j.center = float64(cols) / 2
	}
	if !cfg.AutoCenter {
		if err := cfg.geometry(j.angles, cols, j.center).Check(); err != nil {
			return nil, fmt.Errorf("%s: --center: %w", s.name, err)
		}
	}
	for _, c := range cfg.Sweep {
		if err := cfg.geometry(j.angles, cols, c).Check(); err != nil {
			return nil, fmt.Errorf("%s: --center-sweep: %w", s.name, err)
		}
	}
	if !r.PlanOnly {
		if err := checkOutput(j.out); err != nil {
			return nil, err
		}
	}
	if j.out != "" {
		if j.exp, _, err = volume.ExporterFor(j.out); err != nil {
			return nil, err
		}
	}
	if a, n := j.align(), j.outInfo().Shape[0]; cfg.Block > 0 && cfg.Block%a != 0 && cfg.Block < n {
		return nil, fmt.Errorf("batch size %d: %s is written in whole chunks of %d slices: give a multiple of %d, or auto", cfg.Block, j.out, a, a)
	}
	return j, nil
}

// checkOutput refuses an output in a missing folder.
func checkOutput(out string) error {
	dir := filepath.Dir(strings.TrimRight(out, "/"))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("output %s: the folder %s does not exist", out, dir)
	}
	return nil
}
