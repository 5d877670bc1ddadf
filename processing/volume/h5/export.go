package h5

// #include <hdf5.h>
// #include "guard.h"
//
// // setFilter adds filter id with its client values to a dataset
// // creation property list, optional (as h5py adds them): a chunk the
// // filter cannot shrink is stored as it is, marked in its filter mask.
// static int setFilter(hid_t dcpl, int id, size_t n, const unsigned *cd) {
// 	return H5Pset_filter(dcpl, (H5Z_filter_t)id, H5Z_FLAG_OPTIONAL, n, cd);
// }
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// HDF5 with options (voxlab convert): one chunked dataset, compressed
// with gzip (deflate, built into libhdf5), LZ4 (filter 32004) or Blosc
// (filter 32001, zstd inside with byte shuffle), the filters h5py reads
// with Debian's hdf5-filter-plugin and hdf5-filter-plugin-blosc-serial,
// and hdf5plugin too.
func init() {
	volume.RegisterExporter("hdf5", &volume.Exporter{
		Create:       createExport,
		Bytes:        exportBytes,
		Align:        func(info volume.Info, o volume.ExportOptions) []int { return []int{int(exportChunks(info, o)[0])} },
		Compressions: []string{"none", "gzip", "lz4", "blosc"},
	})
}

// exportLayout is how a File lays out its 3-D datasets.
type exportLayout struct {
	chunks []uint
	codec  string
	level  int
	elem   int
}

// exportChunks is the chunk shape: the asked one clipped to the volume,
// else OutputChunks' (a plane, or a band of rows of one).
func exportChunks(info volume.Info, o volume.ExportOptions) []uint {
	def := OutputChunks(info.Shape[:], info.DType.Size())
	out := make([]uint, 3)
	for d := range 3 {
		c := o.Chunks[d]
		if c <= 0 {
			out[d] = def[d]
			continue
		}
		out[d] = uint(max(1, min(c, info.Shape[d])))
	}
	return out
}

func createExport(path, dataset string, info volume.Info, o volume.ExportOptions) (volume.LevelWriter, error) {
	if len(o.Levels) > 1 {
		return nil, fmt.Errorf("create %s: HDF5 output holds one level; write an OME-Zarr store (.zarr) for a pyramid", path)
	}
	if o.Shards != [3]int{} {
		return nil, fmt.Errorf("create %s: shards are a Zarr v3 layout; HDF5 has chunks only", path)
	}
	l := &exportLayout{chunks: exportChunks(info, o), codec: o.Compression, level: o.Level, elem: info.DType.Size()}
	switch l.codec {
	case "", "none":
		l.codec = "none"
	case "gzip":
		if l.level == 0 {
			l.level = 4
		}
		if l.level < 1 || l.level > 9 {
			return nil, fmt.Errorf("create %s: gzip level %d: want 1 to 9", path, l.level)
		}
	case "lz4":
	case "blosc":
		if l.level == 0 {
			l.level = 5
		}
	default:
		return nil, fmt.Errorf("create %s: compression %q: HDF5 is written with gzip, lz4, blosc or none", path, o.Compression)
	}
	if dataset == "" {
		dataset = "/data"
	}
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	f.layout = l
	w, err := f.CreateDataset(dataset, info.DType, info.Shape[:])
	if err == nil && info.VoxelSize != [3]float64{} {
		err = f.SetAttrs(dataset, map[string]any{"voxel_size": info.VoxelSize[:]})
	}
	if err == nil && len(o.Attrs) > 0 {
		err = f.SetAttrs(dataset, o.Attrs)
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return &exportWriter{f: f, w: w, align: int(l.chunks[0])}, nil
}

// createLaidOut creates a 3-D dataset with f.layout's chunks and filter.
// Call with lib held.
func (f *File) createLaidOut(name string, t *hdf5.Datatype, space *hdf5.Dataspace) (*hdf5.Dataset, error) {
	l := f.layout
	dcpl, err := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	if err != nil {
		return nil, err
	}
	defer dcpl.Close()
	if err := dcpl.SetChunk(l.chunks); err != nil {
		return nil, err
	}
	var id int
	var cd []C.uint
	switch l.codec {
	case "gzip":
		if err := dcpl.SetDeflate(l.level); err != nil {
			return nil, err
		}
	case "lz4":
		id, cd = 32004, []C.uint{0} // the plugin's default block size
	case "blosc":
		// Reserved, reserved, type size, chunk bytes (the plugin fills
		// these four), level, shuffle, compressor (5: zstd).
		chunk := C.uint(int(l.chunks[0]*l.chunks[1]*l.chunks[2]) * l.elem)
		shuffle := C.uint(0)
		if l.elem > 1 {
			shuffle = 1
		}
		id, cd = 32001, []C.uint{2, 2, C.uint(l.elem), chunk, C.uint(l.level), shuffle, 5}
	}
	if id != 0 {
		var msg [256]C.char
		if C.vox_encoder(C.int(id), &msg[0], C.size_t(len(msg))) < 0 {
			return nil, fmt.Errorf("%s: cannot write the %s filter: %s (Debian's %s)", name, filterName(id), C.GoString(&msg[0]), knownFilters[id].pkg)
		}
		if C.setFilter(C.hid_t(dcpl.ID()), C.int(id), C.size_t(len(cd)), (*C.uint)(unsafe.Pointer(&cd[0]))) < 0 {
			return nil, fmt.Errorf("%s: cannot add the %s filter (Debian's %s)", name, filterName(id), knownFilters[id].pkg)
		}
	}
	return f.f.CreateDatasetWith(name, t, space, dcpl)
}

// exportWriter writes the one dataset of an exported HDF5 file.
type exportWriter struct {
	f     *File
	w     *DatasetWriter
	align int
}

func (e *exportWriter) WriteLevel(level, z0 int, src []byte) error {
	if level != 0 {
		return fmt.Errorf("write %s: HDF5 output holds one level", e.f.target)
	}
	return e.w.WriteSlab(z0, src)
}
func (e *exportWriter) Align(int) int { return e.align }
func (e *exportWriter) Commit() error { return e.f.Commit() }
func (e *exportWriter) Abort() error  { return e.f.Abort() }

// exportBytes is what libhdf5 holds while a slab is written: its chunk
// cache, and for a filter the chunk being encoded and its encoding.
func exportBytes(info volume.Info, o volume.ExportOptions) int64 {
	c := exportChunks(info, o)
	chunk := int64(c[0]*c[1]*c[2]) * int64(info.DType.Size())
	n := int64(WriterCacheBytes)
	if o.Compression != "" && o.Compression != "none" {
		n += 2*chunk + chunk/8
	}
	return n
}
