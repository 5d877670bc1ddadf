package h5

// Crafting files chunk by chunk, for the tests of damaged and hostile
// chunks and for the fuzz target: a dataset is created with a given
// filter pipeline and its chunks are written as given bytes, with
// H5Dwrite_chunk (the chunk bytes bypass the filters, as h5py's
// write_direct_chunk does). Never used to write voxlab's outputs.

// #include <stdlib.h>
// #include <string.h>
// #include <hdf5.h>
// #include <blosc.h>
// #include <lz4.h>
// #include <zstd.h>
// #include <zlib.h>
//
// // craftZlibZeros writes a zlib stream of total zero bytes to dst (cap
// // bytes), fed 1 MiB at a time; returns its length or 0.
// static size_t craftZlibZeros(unsigned char *dst, size_t cap, unsigned long long total) {
// 	static unsigned char zeros[1 << 20];
// 	z_stream z;
// 	memset(&z, 0, sizeof z);
// 	if (deflateInit(&z, 1) != Z_OK) return 0;
// 	z.next_out = dst;
// 	z.avail_out = (uInt)cap;
// 	for (unsigned long long done = 0; done < total; done += sizeof zeros) {
// 		z.next_in = zeros;
// 		z.avail_in = sizeof zeros;
// 		if (deflate(&z, done + sizeof zeros >= total ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR || z.avail_out == 0) {
// 			deflateEnd(&z);
// 			return 0;
// 		}
// 	}
// 	size_t n = z.total_out;
// 	deflateEnd(&z);
// 	return n;
// }
//
// static hid_t craftCreate(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims,
//                          const hsize_t *chunk, int nf, const int *ids, const unsigned *flags,
//                          const size_t *ncd, const unsigned *cd) {
// 	hid_t space = H5Screate_simple(rank, dims, NULL);
// 	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
// 	H5Pset_chunk(dcpl, rank, chunk);
// 	for (int i = 0; i < nf; i++) {
// 		H5Pset_filter(dcpl, ids[i], flags[i], ncd[i], cd);
// 		cd += ncd[i];
// 	}
// 	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
// 	H5Pset_create_intermediate_group(lcpl, 1);
// 	hid_t ds = H5Dcreate2(file, name, type, space, lcpl, dcpl, H5P_DEFAULT);
// 	H5Pclose(lcpl);
// 	H5Pclose(dcpl);
// 	H5Sclose(space);
// 	return ds;
// }
//
// // craftLZ4Zeros writes the HDF5 LZ4 filter's framing of total zero
// // bytes in blocks of block bytes to dst (cap bytes); returns its length
// // or 0 when it does not fit.
// static size_t craftLZ4Zeros(unsigned char *dst, size_t cap, unsigned long long total, unsigned block,
//                             int bitshuffle) {
// 	char *zeros = calloc(block, 1);
// 	int bound = LZ4_compressBound((int)block);
// 	char *one = malloc((size_t)bound);
// 	int n = LZ4_compress_default(zeros, one, (int)block, bound);
// 	size_t pos = 12;
// 	if (cap < 12) goto full;
// 	for (int i = 0; i < 8; i++) dst[i] = (unsigned char)(total >> (56 - 8 * i));
// 	for (int i = 0; i < 4; i++) dst[8 + i] = (unsigned char)((unsigned long long)block >> (24 - 8 * i));
// 	for (unsigned long long done = 0; done < total; done += block) {
// 		if (pos + 4 + (size_t)n > cap) goto full;
// 		for (int i = 0; i < 4; i++) dst[pos + i] = (unsigned char)((unsigned)n >> (24 - 8 * i));
// 		memcpy(dst + pos + 4, one, (size_t)n);
// 		pos += 4 + (size_t)n;
// 	}
// 	(void)bitshuffle;
// 	free(zeros), free(one);
// 	return pos;
// full:
// 	free(zeros), free(one);
// 	return 0;
// }
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// rawChunk is one chunk as stored: its element offset, filter mask (bit
// i set: filter i skipped) and bytes.
type rawChunk struct {
	off  []int
	mask uint32
	data []byte
}

// rawSet is a dataset to craft.
type rawSet struct {
	name    string
	dtype   volume.DType
	shape   []int
	chunk   []int
	filters []Filter // Optional set: H5Z_FLAG_OPTIONAL
	chunks  []rawChunk
}

// craftFile writes a new HDF5 file at p holding sets.
func craftFile(p string, sets ...rawSet) error {
	lib.Lock()
	defer lib.Unlock()
	f, err := hdf5.CreateFile(p, hdf5.F_ACC_TRUNC)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, s := range sets {
		if err := craftSet(f, s); err != nil {
			return fmt.Errorf("craft %s:%s: %w", p, s.name, err)
		}
	}
	return nil
}

func craftSet(f *hdf5.File, s rawSet) error {
	t, err := nativeType(s.dtype)
	if err != nil {
		return err
	}
	rank := len(s.shape)
	dims, chunk := make([]C.hsize_t, rank), make([]C.hsize_t, rank)
	for i := range dims {
		dims[i], chunk[i] = C.hsize_t(s.shape[i]), C.hsize_t(s.chunk[i])
	}
	nf := len(s.filters)
	ids, flags, ncd := make([]C.int, nf+1), make([]C.uint, nf+1), make([]C.size_t, nf+1)
	var cd []C.uint
	for i, fl := range s.filters {
		ids[i], ncd[i] = C.int(fl.ID), C.size_t(len(fl.Params))
		if fl.Optional {
			flags[i] = C.H5Z_FLAG_OPTIONAL
		}
		for _, v := range fl.Params {
			cd = append(cd, C.uint(v))
		}
	}
	cd = append(cd, 0) // never empty
	name := C.CString(s.name)
	defer C.free(unsafe.Pointer(name))
	ds := C.craftCreate(C.hid_t(f.ID()), name, C.hid_t(t.ID()), C.int(rank), &dims[0], &chunk[0], C.int(nf),
		&ids[0], &flags[0], &ncd[0], &cd[0])
	if ds < 0 {
		return fmt.Errorf("cannot create the dataset")
	}
	defer C.H5Dclose(ds)
	for _, c := range s.chunks {
		off := make([]C.hsize_t, rank)
		for i := range off {
			off[i] = C.hsize_t(c.off[i])
		}
		var p unsafe.Pointer
		if len(c.data) > 0 {
			p = C.CBytes(c.data)
			defer C.free(p)
		}
		if C.H5Dwrite_chunk(ds, C.H5P_DEFAULT, C.uint32_t(c.mask), &off[0], C.size_t(len(c.data)), p) < 0 {
			return fmt.Errorf("cannot write the chunk at %v", c.off)
		}
	}
	return nil
}

// lz4Zeros returns the LZ4 filter's framing (or, with bitshuffle, the
// bitshuffle+LZ4 one: the same framing, and zeros shuffle to zeros) of
// total zero bytes in blocks of block bytes, or nil past max bytes.
func lz4Zeros(total uint64, block uint32, max int) []byte {
	dst := make([]byte, max)
	n := C.craftLZ4Zeros((*C.uchar)(unsafe.Pointer(&dst[0])), C.size_t(max), C.ulonglong(total), C.uint(block), 0)
	if n == 0 {
		return nil
	}
	return dst[:n]
}

// zlibZeros returns a zlib stream (the gzip filter's chunk) of n zero
// bytes (a multiple of 1 MiB).
func zlibZeros(n uint64) []byte {
	dst := make([]byte, n/32+1<<16)
	got := C.craftZlibZeros((*C.uchar)(unsafe.Pointer(&dst[0])), C.size_t(len(dst)), C.ulonglong(n))
	if got == 0 {
		return nil
	}
	return dst[:got]
}

// bloscZeros returns a Blosc buffer of n zero bytes (2-byte elements,
// byte shuffle, level 1).
func bloscZeros(n int) []byte {
	src := make([]byte, n)
	dst := make([]byte, n/64+1<<16)
	codec := C.CString("blosclz")
	defer C.free(unsafe.Pointer(codec))
	got := C.blosc_compress_ctx(1, 1, 2, C.size_t(n), unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]),
		C.size_t(len(dst)), codec, 0, 1)
	if got <= 0 {
		return nil
	}
	return dst[:got]
}

// zstdZeros returns one zstd frame of n zero bytes.
func zstdZeros(n int) []byte {
	src := make([]byte, n)
	dst := make([]byte, C.ZSTD_compressBound(C.size_t(n)))
	got := C.ZSTD_compress(unsafe.Pointer(&dst[0]), C.size_t(len(dst)), unsafe.Pointer(&src[0]), C.size_t(n), 1)
	if C.ZSTD_isError(got) != 0 {
		return nil
	}
	return dst[:got]
}

// zstdOf returns one zstd frame of data.
func zstdOf(data []byte) []byte {
	dst := make([]byte, C.ZSTD_compressBound(C.size_t(len(data))))
	var src unsafe.Pointer
	if len(data) > 0 {
		src = unsafe.Pointer(&data[0])
	}
	got := C.ZSTD_compress(unsafe.Pointer(&dst[0]), C.size_t(len(dst)), src, C.size_t(len(data)), 3)
	if C.ZSTD_isError(got) != 0 {
		return nil
	}
	return dst[:got]
}

// rawChunkAt returns the stored bytes and filter mask of the chunk at
// element offset off of dataset name in file p (H5Dread_chunk).
func rawChunkAt(p, name string, off []int) ([]byte, uint32, error) {
	var out []byte
	var mask uint32
	err := withFile(p, func(f *file) error {
		ds, err := f.f.OpenDataset(name)
		if err != nil {
			return err
		}
		defer ds.Close()
		o := make([]C.hsize_t, len(off))
		for i := range o {
			o[i] = C.hsize_t(off[i])
		}
		var m C.unsigned
		var addr C.haddr_t
		var size C.hsize_t
		if C.H5Dget_chunk_info_by_coord(C.hid_t(ds.ID()), &o[0], &m, &addr, &size) < 0 || addr == C.HADDR_UNDEF {
			return fmt.Errorf("%s:%s: no chunk at %v", p, name, off)
		}
		out = make([]byte, size)
		var fm C.uint32_t
		if size > 0 && C.H5Dread_chunk(C.hid_t(ds.ID()), C.H5P_DEFAULT, &o[0], &fm, unsafe.Pointer(&out[0])) < 0 {
			return fmt.Errorf("%s:%s: cannot read the chunk at %v", p, name, off)
		}
		mask = uint32(fm)
		return nil
	})
	return out, mask, err
}

// templateOf describes dataset name of file p as a rawSet (no chunks):
// its type, shape, chunk shape and filters.
func templateOf(p, name string) (rawSet, error) {
	v, err := Open(p, name)
	if err != nil {
		return rawSet{}, err
	}
	defer v.Close()
	d := v.Source().(*dataset)
	return rawSet{name: name, dtype: d.info.DType, shape: d.dims(), chunk: d.chunk, filters: d.filters}, nil
}
