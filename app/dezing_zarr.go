package main

import (
	"context"
	"strings"

	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/zarr"
)

// isZarr reports whether an output path names a Zarr store.
func isZarr(path string) bool { return dezing.IsZarr(path) }

// dezingResultSpec names the projections of a dezinging output: /data
// of an HDF5 file, the image of an OME-Zarr store.
func dezingResultSpec(out string) string {
	if isZarr(out) {
		return out
	}
	return out + ":/data"
}

// writeZarr is write for an OME-Zarr output: the projections are the
// image's one level, "0" (a zstd chunk per projection, for reading by
// plane), the reduced dark and flat are the 2-D arrays "dark" and
// "flat", and the parameters are the store's "voxlab" attributes. The
// store is filled under a temporary name and renamed when complete.
func (f *dezingFlags) writeZarr(ctx context.Context, r *dezingSetup, block int, produce func(dezing.Output) (*dezing.Result, error)) (*dezing.Result, error) {
	info := dezing.OutInfo(r.shapes, f.cfg)
	file, err := zarr.Create(strings.TrimRight(r.out, "/"))
	if err != nil {
		return nil, err
	}
	defer file.Abort()
	data, err := file.CreateArray("0", info.DType, info.Shape[:])
	if err != nil {
		return nil, err
	}
	if err := file.SetImage("0", r.shapes.Projections.VoxelSize); err != nil {
		return nil, err
	}
	res, err := produce(&zarrOutput{file: file, data: data, rows: info.Shape[1], cols: info.Shape[2], flatField: f.cfg.FlatField})
	if err != nil {
		return nil, err
	}
	if err := file.SetAttrs("voxlab", f.params(r, res, block)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, file.Commit()
}

// zarrOutput is h5Output's counterpart for an OME-Zarr store.
type zarrOutput struct {
	file       *zarr.File
	data       *zarr.ArrayWriter
	rows, cols int
	flatField  bool
}

func (o *zarrOutput) Frames(dark, flat []float32) error {
	if o.flatField {
		return nil
	}
	for _, fr := range []struct {
		name  string
		frame []float32
	}{{"dark", dark}, {"flat", flat}} {
		if fr.frame == nil {
			continue
		}
		w, err := o.file.CreateArray(fr.name, volume.Float32, []int{o.rows, o.cols})
		if err != nil {
			return err
		}
		if err := w.WriteSlab(0, volume.Bytes(fr.frame)); err != nil {
			return err
		}
	}
	return nil
}

func (o *zarrOutput) Slab(z0 int, data []byte) error { return o.data.WriteSlab(z0, data) }
