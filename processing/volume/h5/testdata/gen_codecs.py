#!/usr/bin/python3
"""Generates codecs.h5 and dtypes.h5, the golden files of compressed and
signed/32-bit HDF5 datasets, with h5py and Debian's HDF5 filter plugins
(hdf5-filter-plugin, hdf5-filter-plugin-blosc-serial, hdf5-plugin-lzf,
hdf5-filter-plugin-zfp-serial) through python3-hdf5plugin's filter
classes. Run from this folder with Debian's python3:

    /usr/bin/python3 gen_codecs.py

Bitshuffle (filter 32008) and Zstd (32015) have no Debian plugin (and
Debian's python3-hdf5plugin ships none of its own), so their chunks are
built here by hand, independently of voxlab's decoders: NumPy transposes
the bits of each block (np.unpackbits/np.packbits, bit order little),
python3-lz4 (the LZ4 library) and python3-zstandard (libzstd) compress
the blocks; the chunks are written with write_direct_chunk into datasets
that declare the filter with the values hdf5plugin gives it
(hdf5plugin.Zstd(), hdf5plugin.Bitshuffle(cname=...), as the plugins
store them: bitshuffle's set_local puts its version and the element size
before the user's block size, compressor and level).

The Go tests recompute the values: g = 7z + 3y + 5x, and per dtype
int8 g%251-125, uint8 g%251, int16 g%60000-30000, uint16 g%60000,
int32 (g%60000-30000)*70001, uint32 (g%60000)*70001, float32/float64
(g%97)*0.25-3.5.
"""
import os
import struct

import h5py
import hdf5plugin
import lz4.block
import numpy as np
import zstandard


def grid(shape):
    z, y, x = np.indices(shape)
    return z * 7 + y * 3 + x * 5


def values(dtype, shape):
    g = grid(shape)
    dt = np.dtype(dtype)
    name = dt.name
    if name == "int8":
        v = g % 251 - 125
    elif name == "uint8":
        v = g % 251
    elif name == "int16":
        v = g % 60000 - 30000
    elif name == "uint16":
        v = g % 60000
    elif name == "int32":
        v = (g % 60000 - 30000) * 70001
    elif name == "uint32":
        v = (g % 60000) * 70001
    else:
        v = (g % 97) * 0.25 - 3.5
    return v.astype(dt)


SHAPE = (3, 4, 5)
DTYPES = ["i1", "u1", "<i2", ">i2", "<u2", "<i4", ">i4", "<u4", ">u4", "<f4", "<f8"]


def dtypes():
    """Every pixel type, in both byte orders for the wider ones."""
    with h5py.File("dtypes.h5", "w") as f:
        for dt in DTYPES:
            name = np.dtype(dt).name + ("be" if dt.startswith(">") else "")
            f[name] = values(dt, SHAPE)
        f["int64"] = values("<i4", SHAPE).astype("<i8")


def shuffle_bits(block, elem):
    """bitshuffle's transpose of one block (len a multiple of 8): row
    8j+k holds bit k of byte j of every element, little bit order."""
    n = len(block) // elem
    bits = np.unpackbits(np.frombuffer(block, np.uint8).reshape(n, elem), axis=1, bitorder="little")
    return np.packbits(bits.T, axis=1, bitorder="little").tobytes()


def lz4_block(b):
    return lz4.block.compress(b, store_size=False)


def zstd_frame(b, level=3):
    return zstandard.ZstdCompressor(level=level).compress(b)


def bitshuffle_chunk(data, block, compress):
    """A chunk as bitshuffle's HDF5 filter writes it: blocks of `block`
    elements, the last the rest rounded down to 8, then the final n%8
    elements raw; with a compressor (compress: lz4_block or zstd_frame),
    a 12-byte header (size, block bytes; big endian) and each block as a
    4-byte big-endian size + the compressed block."""
    elem = data.dtype.itemsize
    raw = data.tobytes()
    n = data.size
    sizes = [block] * (n // block)
    last = n % block // 8 * 8
    if last:
        sizes.append(last)
    out = [struct.pack(">QI", len(raw), block * elem)] if compress else []
    pos = 0
    for m in sizes:
        sh = shuffle_bits(raw[pos:pos + m * elem], elem)
        if compress:
            c = compress(sh)
            out.append(struct.pack(">I", len(c)) + c)
        else:
            out.append(sh)
        pos += m * elem
    out.append(raw[pos:])
    return b"".join(out)


def bitshuffle(f, name, data, chunks, block, compress):
    elem = data.dtype.itemsize
    # cd_values as the plugin stores them: filter version, library
    # version, element size, then hdf5plugin's block size (0 = default;
    # the header carries the real one), compressor (2 = LZ4, 3 = zstd,
    # 0 = none) and zstd level.
    cname = {None: "none", lz4_block: "lz4", zstd_frame: "zstd"}[compress]
    user = hdf5plugin.Bitshuffle(nelems=0 if compress else block, cname=cname)["compression_opts"]
    opts = (0, 4, elem) + tuple(user)
    ds = f.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=chunks,
                          compression=32008, compression_opts=opts, allow_unknown_filter=True)
    for z in range(0, data.shape[0], chunks[0]):
        for y in range(0, data.shape[1], chunks[1]):
            for x in range(0, data.shape[2], chunks[2]):
                c = np.zeros(chunks, data.dtype)  # edge chunks are padded
                part = data[z:z + chunks[0], y:y + chunks[1], x:x + chunks[2]]
                c[:part.shape[0], :part.shape[1], :part.shape[2]] = part
                ds.id.write_direct_chunk((z, y, x), bitshuffle_chunk(c, block, compress))


def zstd(f, name, data, chunks):
    """HDF5Plugin-Zstandard's chunk: one zstd frame of the chunk (padded
    at the edges), with the level hdf5plugin.Zstd() stores."""
    opts = hdf5plugin.Zstd()
    level = opts["compression_opts"][0]
    ds = f.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=chunks,
                          allow_unknown_filter=True, **opts)
    for z in range(0, data.shape[0], chunks[0]):
        for y in range(0, data.shape[1], chunks[1]):
            for x in range(0, data.shape[2], chunks[2]):
                c = np.zeros(chunks, data.dtype)
                part = data[z:z + chunks[0], y:y + chunks[1], x:x + chunks[2]]
                c[:part.shape[0], :part.shape[1], :part.shape[2]] = part
                ds.id.write_direct_chunk((z, y, x), zstd_frame(c.tobytes(), level))


BIG = (2, 17, 37)  # 629 voxels a plane: 2 blocks of 256, one of 112, 5 raw


def codecs():
    with h5py.File("codecs.h5", "w") as f:
        u16 = values("<u2", BIG)
        one = (1,) + BIG[1:]
        f.create_dataset("lz4", data=u16, chunks=one, **hdf5plugin.LZ4())
        f.create_dataset("bzip2", data=u16, chunks=one, **hdf5plugin.BZip2())
        f.create_dataset("lzf", data=u16, chunks=one, compression="lzf")
        f.create_dataset("gzip_shuffle", data=u16, chunks=(2, 16, 16), compression="gzip", shuffle=True)
        # Every shuffle with LZ4, every compressor with the byte shuffle.
        blosc = [("lz4", "noshuffle"), ("lz4", "shuffle"), ("lz4", "bitshuffle"),
                 ("blosclz", "shuffle"), ("lz4hc", "shuffle"), ("zlib", "shuffle"), ("zstd", "shuffle")]
        shuffles = {"noshuffle": hdf5plugin.Blosc.NOSHUFFLE, "shuffle": hdf5plugin.Blosc.SHUFFLE,
                    "bitshuffle": hdf5plugin.Blosc.BITSHUFFLE}
        for cname, sname in blosc:
            f.create_dataset(f"blosc_{cname}_{sname}", data=u16, chunks=one,
                             **hdf5plugin.Blosc(cname=cname, clevel=5, shuffle=shuffles[sname]))
        # ZFP in reversible (lossless) mode, on the types ZFP takes.
        for dt in ["<i4", "<f4", "<f8"]:
            f.create_dataset("zfp_" + np.dtype(dt).name, data=values(dt, BIG), chunks=(1, 16, 16),
                             **hdf5plugin.Zfp(reversible=True))
        # Bitshuffle + LZ4 as Eiger writes it (one frame a chunk), on
        # each element size, and shuffle-only; a chunk shape that leaves
        # padded edge chunks.
        for dt in ["u1", "<i2", "<u2", "<u4", "<f4", "<f8"]:
            bitshuffle(f, "bslz4_" + np.dtype(dt).name, values(dt, BIG), one, 256, lz4_block)
        bitshuffle(f, "bslz4_edges", u16, (2, 16, 24), 64, lz4_block)
        bitshuffle(f, "bs_uint16", u16, one, 256, None)
        # A damaged chunk: plane 1's chunk cut short.
        bitshuffle(f, "bslz4_damaged", u16, one, 256, lz4_block)
        good = bitshuffle_chunk(u16[1:2], 256, lz4_block)
        f["bslz4_damaged"].id.write_direct_chunk((1, 0, 0), good[:len(good) // 2])
        # Zstd and Bitshuffle+Zstd, as hdf5plugin writes them by default
        # for many beamline and microscope files, on every pixel type
        # (both byte orders of the wider ones); a frame per chunk, and
        # chunks of several planes with padded edges.
        for dt in DTYPES:
            name = np.dtype(dt).name + ("be" if dt.startswith(">") else "")
            zstd(f, "zstd_" + name, values(dt, BIG), one)
            bitshuffle(f, "bszstd_" + name, values(dt, BIG), one, 256, zstd_frame)
        zstd(f, "zstd_edges", u16, (2, 16, 24))
        bitshuffle(f, "bszstd_edges", u16, (2, 16, 24), 64, zstd_frame)
        # A filter no one provides, declared but never decodable.
        ds = f.create_dataset("unknown", shape=SHAPE, dtype="<u2", chunks=SHAPE, compression=40000,
                              allow_unknown_filter=True)
        ds.id.write_direct_chunk((0, 0, 0), b"not really compressed")
        # Bitshuffle with a compressor bitshuffle does not have (4).
        ds = f.create_dataset("bsunknown", shape=SHAPE, dtype="<u2", chunks=SHAPE, compression=32008,
                              compression_opts=(0, 4, 2, 0, 4), allow_unknown_filter=True)
        ds.id.write_direct_chunk((0, 0, 0), b"not really compressed")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    dtypes()
    codecs()
