package convert

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

// Spec is `voxlab convert IN OUT`.
var Spec = &pipeline.Spec{
	Name:    "convert",
	Title:   "Convert",
	Order:   90,
	Summary: "write a volume (a level, channel, dataset or crop of one) as NPY, TIFF, HDF5 or an OME-Zarr pyramid",
	Usage: "IN OUT [--box z0:z1,y0:y1,x0:x1] [--dtype TYPE] [--levels N] [--downsample mean|nearest] " +
		"[--chunks z,y,x] [--shards z,y,x] [--compression auto|none|zstd|blosc|gzip|lz4] [--ome-version 0.4|0.5] [--voxel-size z,y,x]",
	Examples: []string{
		"voxlab convert scan.nxs scan.ome.zarr --levels 4",
		"voxlab convert brain.ome.zarr:/2,c=1 brain-c1.tif",
		"voxlab convert data.h5:/entry/data crop.npy --box 100:200,0:512,0:512",
		"voxlab convert scan.tif planes/",
		"voxlab convert scan.npy scan.h5:/data --compression blosc --chunks 16,256,256",
		"voxlab convert scan.tif scan.zarr --ome-version 0.5 --chunks 64,128,128 --shards 64,1024,1024 --levels 5",
		"voxlab convert floats.npy counts.tif --dtype uint16",
		"voxlab convert planes/ brain.ome.zarr --voxel-size 5,2,2",
		"voxlab plan convert scan.nxs scan.ome.zarr --levels 4 --host-memory 2GiB",
	},
	ArgsHelp: "an input volume and an output file or folder",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Input", Help: "any volume voxlab reads: FILE, FILE.h5:/dataset, STORE.zarr:/LEVEL,c=N,t=N, FILE.ome.tif:/channel/N, a folder of planes"},
		{Name: "out", Kind: pipeline.Output, Label: "Output", Default: "converted.ome.zarr",
			Help: "the format comes from the name: .npy; .tif/.tiff (multi-page, BigTIFF past 4 GiB); a name ending in / (a folder of TIFF planes); .h5/.hdf5 (FILE.h5:/dataset, default /data); .zarr/.ome.zarr (OME-Zarr); .mrc"},
	},
	Params: []pipeline.Param{
		{Name: "box", Kind: pipeline.Text, Help: "crop z0:z1,y0:y1,x0:x1 (half-open, in voxels; an empty bound is the axis' start or end)"},
		{Name: "dtype", Kind: pipeline.Choice, Default: "same", Options: append([]string{"same"}, dtypeNames()...),
			Label: "Pixel type", Help: "the output's pixel type: every value must fit exactly (a run stops at the first that does not, naming it)"},
		{Name: "levels", Kind: pipeline.Int, Default: 1, Help: "levels of the OME-Zarr pyramid, each half the one before along every axis",
			Check: func(v any) error {
				if n := v.(int); n < 1 || n > 16 {
					return fmt.Errorf("%d levels: want 1 to 16", n)
				}
				return nil
			}},
		{Name: "downsample", Kind: pipeline.Choice, Default: "mean", Options: []string{"mean", "nearest"},
			Help: "how a level is made from the one before: the mean of each 2x2x2 block, or its first voxel"},
		{Name: "chunks", Kind: pipeline.Text, Default: "auto", Advanced: true, Axes: "z,y,x",
			Help: "chunk shape z,y,x of HDF5 and OME-Zarr outputs (auto: 64,256,256 for Zarr; a plane for HDF5)"},
		{Name: "shards", Kind: pipeline.Text, Advanced: true, Axes: "z,y,x",
			Help: "shard shape z,y,x of an OME-Zarr 0.5 output, a multiple of the chunks (empty: no sharding)"},
		{Name: "compression", Kind: pipeline.Choice, Default: "auto", Options: []string{"auto", "none", "zstd", "blosc", "gzip", "lz4"},
			Help: "codec: OME-Zarr zstd (default), blosc or gzip; HDF5 none (default), gzip, lz4 or blosc; NPY, TIFF and MRC are uncompressed"},
		{Name: "clevel", Kind: pipeline.Int, Advanced: true, Label: "Compression level", Help: "the codec's level (0: its default)"},
		{Name: "voxel-size", Kind: pipeline.Floats, Len: 3, Axes: "z,y,x", Label: "Voxel size z,y,x", Unit: "µm",
			Help: "the output's voxel size z,y,x in microns, written in its metadata (default: the input's, where its file says)", Check: positiveVoxels},
		{Name: "ome-version", Kind: pipeline.Choice, Default: "0.4", Options: []string{"0.4", "0.5"},
			Label: "OME-Zarr version", Help: "0.4 (Zarr v2, read by every current tool) or 0.5 (Zarr v3, with shards)"},
	},
	Batch: pipeline.Batch{Flag: "batch-size", Unit: "planes", Label: "Planes per block"},
	Live:  pipeline.Live{Kind: pipeline.NoLive},
	Suggest: func(open []pipeline.Layer) ([]string, map[string]string) {
		return []string{pipeline.FirstVolume(open), ""}, nil
	},
	Files:   files,
	Open:    open,
	Example: example,
}

// positiveVoxels checks --voxel-size.
func positiveVoxels(v any) error {
	for i, x := range v.([]float64) {
		if !(x > 0) {
			return fmt.Errorf("voxel sizes must be positive (got %g for %c)", x, "zyx"[i])
		}
	}
	return nil
}

func dtypeNames() []string {
	var out []string
	for _, d := range volume.DTypes {
		out = append(out, d.String())
	}
	return out
}

// conversion is an opened run.
type conversion struct {
	inArg, outArg string
	in            *volume.Volume
	box           volume.Box
	boxRead       bool // the reader reads the box's rows and columns itself
	out           volume.Info
	exp           *volume.Exporter
	format        *volume.Format
	opts          volume.ExportOptions
	mean          bool
	block         int
	start         time.Time
	free          chan []byte // the reader's buffers, handed back
}

// open checks a request and opens the input (headers only).
func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	in, err := volume.Open(r.Args[0])
	if err != nil {
		return nil, err
	}
	j := &conversion{inArg: r.Args[0], in: in, block: r.Batch, mean: v.String("downsample") == "mean", start: time.Now()}
	if err := j.configure(r); err != nil {
		in.Close()
		return nil, err
	}
	return j, nil
}

func (j *conversion) configure(r pipeline.Request) error {
	v := r.Values
	var err error
	if j.box, err = parseBox(v.String("box"), j.in.Shape); err != nil {
		return pipeline.Usagef("%v", err)
	}
	_, j.boxRead = volume.AsBoxReader(j.in.Source())
	j.out = volume.Info{Shape: [3]int{j.box.Z1 - j.box.Z0, j.box.Y1 - j.box.Y0, j.box.X1 - j.box.X0},
		DType: j.in.DType, VoxelSize: j.in.VoxelSize}
	if vs := v.Floats("voxel-size"); vs != nil {
		j.out.VoxelSize = [3]float64(vs)
	}
	if d := v.String("dtype"); d != "same" {
		if j.out.DType, err = volume.ParseDType(d); err != nil {
			return pipeline.Usagef("--dtype: %v", err)
		}
	}
	if j.opts.Chunks, err = parseShape("chunks", v.String("chunks")); err != nil {
		return pipeline.Usagef("%v", err)
	}
	if j.opts.Shards, err = parseShape("shards", v.String("shards")); err != nil {
		return pipeline.Usagef("%v", err)
	}
	j.opts.Compression, j.opts.Level, j.opts.OMEVersion = v.String("compression"), v.Int("clevel"), v.String("ome-version")
	if j.opts.Compression == "auto" {
		j.opts.Compression = ""
	}
	j.opts.Method = v.String("downsample")
	j.outArg = r.Args[1]
	if j.outArg == "" {
		j.outArg = "converted.ome.zarr" // a plan without OUT plans the default
	}
	if j.exp, j.format, err = volume.ExporterFor(j.outArg); err != nil {
		return pipeline.Usagef("%v", err)
	}
	levels := v.Int("levels")
	if levels > 1 {
		if !j.exp.Pyramids {
			return pipeline.Usagef("--levels %d: a %s output holds one level; write an OME-Zarr store (.zarr) for a pyramid", levels, j.format.Name)
		}
		j.opts.Levels, j.opts.Scales = levelInfos(j.out, levels)
	}
	if c := j.opts.Compression; c != "" && !slices.Contains(j.exp.Compressions, c) {
		return pipeline.Usagef("--compression %s: %s outputs are written with %s", c, j.format.Name, strings.Join(j.exp.Compressions, ", "))
	}
	if j.exp.Align == nil && (j.opts.Chunks != [3]int{} || j.opts.Shards != [3]int{}) {
		return pipeline.Usagef("--chunks, --shards: %s outputs are not chunked (HDF5 and OME-Zarr are)", j.format.Name)
	}
	if a := j.aligns()[0]; j.block > 0 && j.block%a != 0 && j.block < j.out.Shape[0] {
		return pipeline.Usagef("--batch-size %d: blocks of the output's chunks hold %d planes; give a multiple of %d", j.block, a, a)
	}
	return nil
}

// aligns is each level's slab alignment.
func (j *conversion) aligns() []int {
	n := max(1, len(j.opts.Levels))
	var a []int
	if j.exp.Align != nil {
		a = j.exp.Align(j.out, j.opts)
	}
	for len(a) < n {
		a = append(a, 1)
	}
	return a
}

func (j *conversion) Close() error { return j.in.Close() }

// example writes a small uint16 volume and converts it to a 2-level
// OME-Zarr beside it.
func example(dir string) ([]string, error) {
	info := volume.Info{Shape: [3]int{9, 10, 11}, DType: volume.Uint16}
	p := filepath.Join(dir, "small.npy")
	w, err := volume.Create(p, info)
	if err != nil {
		return nil, err
	}
	vals := make([]uint16, info.Len())
	for i := range vals {
		vals[i] = uint16(i * 7)
	}
	if err := w.WriteSlab(0, volume.Bytes(vals)); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return []string{p, filepath.Join(dir, "small.ome.zarr"), "--levels", "2"}, nil
}
