package dezing

import (
	"context"
	"fmt"
	"strings"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// A run's output is a container file (volume.Container, registered by
// the formats voxlab links): an HDF5 file holds the projections at
// /data, the reduced frames at /dark and /flat (unless the flat-field
// correction used them) and the run's parameters as attributes of
// /voxlab/params; an OME-Zarr store holds the projections as its
// image's one level, "0" (a chunk per projection, for reading by
// plane), the frames as the 2-D arrays "dark" and "flat", and the
// parameters as its "voxlab" attributes.

// layout names where a container format keeps each part of a run.
type layout struct {
	data, dark, flat, params string
	// image: data is an image with a voxel size (OME-Zarr's level 0).
	image bool
}

var layouts = map[string]layout{
	"hdf5": {data: "/data", dark: "/dark", flat: "/flat", params: "/voxlab/params"},
	"zarr": {data: "0", dark: "dark", flat: "flat", params: "voxlab", image: true},
}

// containerOf returns the container format an output is written as: by
// its extension (.zarr: OME-Zarr), else HDF5, whatever the name.
func containerOf(out string) (*volume.ContainerFormat, error) {
	f := volume.ContainerFor(out)
	if f == nil {
		f = volume.ContainerFor("out.h5")
	}
	if f == nil {
		return nil, fmt.Errorf("output %s: this binary writes no HDF5 (it links no HDF5 library)", out)
	}
	if _, ok := layouts[f.Name]; !ok {
		return nil, fmt.Errorf("output %s: dezinging writes HDF5 files and OME-Zarr stores, not %s", out, f.Name)
	}
	return f, nil
}

// isStore reports whether out names a container that is a folder (a
// Zarr store).
func isStore(out string) bool {
	f := volume.ContainerFor(out)
	return f != nil && f.Folders
}

// writerBytes is the host memory the output's writer holds while
// planes of planeBytes are written (OUT "": an HDF5 file's).
func writerBytes(out string, planeBytes int64) int64 {
	if out == "" {
		out = "out.h5"
	}
	if f, err := containerOf(out); err == nil && f.WriterBytes != nil {
		return f.WriterBytes(planeBytes)
	}
	return 0
}

// ResultSpec names the projections of a dezinging output as a volume
// spec: /data of an HDF5 file, the image of an OME-Zarr store.
func ResultSpec(out string) string {
	f, err := containerOf(out)
	if err != nil {
		return out
	}
	l := layouts[f.Name]
	if l.image {
		return out
	}
	return out + ":" + l.data
}

// containerOutput is an Output into a container.
type containerOutput struct {
	c          volume.Container
	l          layout
	data       volume.SlabWriter
	rows, cols int
	flatField  bool
}

func (o *containerOutput) Frames(dark, flat []float32) error {
	if o.flatField {
		return nil
	}
	for _, fr := range []struct {
		name  string
		frame []float32
	}{{o.l.dark, dark}, {o.l.flat, flat}} {
		if fr.frame == nil {
			continue
		}
		w, err := o.c.CreateArray(fr.name, volume.Float32, []int{o.rows, o.cols})
		if err != nil {
			return err
		}
		if err := w.WriteSlab(0, volume.Bytes(fr.frame)); err != nil {
			return err
		}
	}
	return nil
}

func (o *containerOutput) Slab(z0 int, data []byte) error { return o.data.WriteSlab(z0, data) }

// write runs the pipeline (produce: a run or a merge) into a temporary
// container and renames it into place on success. The attributes record
// block as block_slices, or the run's block when it is 0.
func (j *scanJob) write(ctx context.Context, backend string, block int, produce func(Output) (*Result, error)) (*Result, error) {
	f, err := containerOf(j.out)
	if err != nil {
		return nil, err
	}
	l := layouts[f.Name]
	info := OutInfo(j.shapes, j.cfg)
	c, err := f.Create(strings.TrimRight(j.out, "/"))
	if err != nil {
		return nil, err
	}
	// Abort does nothing after Commit: deferred whatever happens, a
	// failure or a panic leaves no temporary file behind.
	defer c.Abort()
	data, err := c.CreateArray(l.data, info.DType, info.Shape[:])
	if err != nil {
		return nil, err
	}
	if ic, ok := c.(volume.ImageContainer); ok && l.image {
		if err := ic.SetImage(l.data, j.shapes.Projections.VoxelSize); err != nil {
			return nil, err
		}
	}
	res, err := produce(&containerOutput{c: c, l: l, data: data, rows: info.Shape[1], cols: info.Shape[2], flatField: j.cfg.FlatField})
	if err != nil {
		return nil, err
	}
	if err := c.SetAttrs(l.params, j.params(res, backend, block)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, c.Commit()
}

// params are the attributes that record a run: its parameters, input
// and block, block as block_slices or the run's block when it is 0.
func (j *scanJob) params(res *Result, backend string, block int) map[string]any {
	shapes := j.shapes
	if block == 0 {
		block = res.Plan.Block()
	}
	attrs := map[string]any{
		"kernel": j.cfg.Kernel, "dif": j.cfg.Dif, "reduction": j.cfg.Reduce.String(),
		"flat_field": j.cfg.FlatField, "minus_log": j.cfg.MinusLog,
		"version": pipeline.BuildVersion(), "input": j.s.name, "projections": shapes.Projections.Shape[0],
		"backend": backend, "block_slices": block,
		// What the median changed: the voxels it replaced, per kind.
		"replaced_projections": res.Replaced.Projections, "replaced_darks": res.Replaced.Darks,
		"replaced_flats": res.Replaced.Flats,
	}
	if j.cfg.FlatField {
		attrs["clip_low"], attrs["clip_high"] = float64(j.cfg.ClipLow), float64(j.cfg.ClipHigh)
	}
	if j.s.darks != "" {
		attrs["darks"], attrs["dark_frames"] = j.s.darks, shapes.Darks.Shape[0]
	}
	if j.s.flats != "" {
		attrs["flats"], attrs["flat_frames"] = j.s.flats, shapes.Flats.Shape[0]
	}
	return attrs
}
