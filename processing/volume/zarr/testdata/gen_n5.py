#!/usr/bin/python3
"""Golden N5 containers (and padded Blosc Zarr chunks) for the Go reader.

Run with Debian's python (python3-zarr 2.13, python3-numcodecs):
    cd processing/volume/zarr/testdata && /usr/bin/python3 gen_n5.py

n5/NAME.n5 is written by zarr-python's N5Store (zarr.N5Store, the N5
writer in Debian: attributes.json with dimensions and blockSize x first,
big-endian blocks behind N5's header, keys "x/y/z"), one container per
compression (raw, gzip, gzip with useZlib, bzip2, blosc, zstd, xz) and per
pixel type; NAME.npy beside it is what zarr-python reads back, z, y, x.

zarr's N5Store writes every block whole, padded to blockSize; n5-java
(BigStitcher, Fiji) stores edge blocks cropped to the dataset, and can
write varlength blocks (mode 1). No Debian tool writes those, so
hand_*.n5 are written here block by block per the N5 specification
(https://github.com/saalfeldlab/n5#file-system-specification) with numpy
and Python's gzip, bz2 and lzma modules; zarr-python reads the cropped
ones back (its N5 codec pads them), which makes their NPY; the varlength
one's NPY is the array it was written from.

The multiscale containers follow BigDataViewer's N5 layout
(setup0/timepoint0/s0..s2, downsamplingFactors on setup0, resolution on
the time point) and n5-viewer's (c0 with scales and pixelResolution),
their levels written with N5Store.

z5py writes 16 bytes after each Blosc frame; z5py is not in Debian, so
padded_blosc.zarr and n5/padded_blosc.n5 are zarr-python stores with 16
zero bytes appended to every chunk file as z5py leaves them, which
zarr-python still reads (checked below).
"""
import bz2
import glob
import gzip
import json
import lzma
import os
import shutil
import struct

import numcodecs
import numpy as np
import zarr

OUT = "n5"
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
for p in glob.glob("padded_*.zarr") + glob.glob("padded_*.npy"):
    shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.remove(p)

SHAPE, CHUNKS = (5, 6, 7), (2, 4, 3)  # z, y, x: edge blocks on every axis


def data(dtype, seed=0):
    dt = np.dtype(dtype)
    i = np.arange(int(np.prod(SHAPE)), dtype=np.int64).reshape(SHAPE)
    if dt.kind == "f":
        v = (i * 0.37 - 11.5 + seed).astype(dt)
        v.flat[3] = np.nan
        return v
    info = np.iinfo(dt)
    span = int(info.max) - int(info.min) + 1
    return ((i * 7919 + 13 * seed) % span + int(info.min)).astype(dt)


def n5(name, arr, compressor, chunks=CHUNKS):
    path = os.path.join(OUT, name + ".n5")
    z = zarr.open(zarr.N5Store(path), mode="w", shape=arr.shape, chunks=chunks, dtype=arr.dtype, compressor=compressor)
    z[...] = arr
    back = zarr.open(zarr.N5Store(path), mode="r")[...]
    assert np.array_equal(back, arr, equal_nan=True), name
    np.save(os.path.join(OUT, name + ".npy"), back.astype(back.dtype.newbyteorder("<")))
    return path


u2 = data("<u2")
n5("raw", u2, None)
n5("gzip", u2, numcodecs.GZip(level=5))
n5("zlib", u2, numcodecs.Zlib(level=5))
n5("bzip2", u2, numcodecs.BZ2(level=9))
n5("blosc_lz4", u2, numcodecs.Blosc(cname="lz4", shuffle=numcodecs.Blosc.SHUFFLE))
n5("blosc_zstd_f4", data("<f4"), numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.BITSHUFFLE))
n5("zstd", u2, numcodecs.Zstd(level=3))
n5("xz", u2, numcodecs.LZMA(preset=6))
for dt in ["u1", "i1", "<i2", "<u4", "<i4", "<f4", "<f8"]:
    n5("gzip_" + np.dtype(dt).name, data(dt, 1), numcodecs.GZip())
# One z plane per block, as a slab read decodes them in place.
n5("planes_gzip", u2, numcodecs.GZip(), chunks=(1, 6, 7))
n5("plane2d", data("<u2")[0], numcodecs.GZip(), chunks=(4, 3))

# Blocks not written read as zeros.
path = os.path.join(OUT, "sparse.n5")
z = zarr.open(zarr.N5Store(path), mode="w", shape=SHAPE, chunks=CHUNKS, dtype="<i2", compressor=numcodecs.GZip())
z[0:2, 0:4, 0:3] = 5
z[4, 5, 6] = -9
np.save(os.path.join(OUT, "sparse.npy"), zarr.open(zarr.N5Store(path), mode="r")[...])


# Blocks written by hand, as n5-java writes them.
def hand(name, arr, ctype, compress, varlength=False, extra=None):
    path = os.path.join(OUT, name + ".n5")
    os.makedirs(path)
    json.dump({"n5": "4.0.0"}, open(os.path.join(path, "attributes.json"), "w"))
    ds = os.path.join(path, "data")
    os.makedirs(ds)
    attrs = {"dimensions": list(arr.shape[::-1]), "blockSize": list(CHUNKS[::-1]),
             "dataType": arr.dtype.name, "compression": {"type": ctype, **(extra or {})}}
    json.dump(attrs, open(os.path.join(ds, "attributes.json"), "w"))
    grid = [-(-s // c) for s, c in zip(arr.shape, CHUNKS)]
    for idx in np.ndindex(*grid):
        sl = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, CHUNKS, arr.shape))
        block = arr[sl]  # cropped at the edges
        head = struct.pack(">HH", 1 if varlength else 0, block.ndim)
        head += b"".join(struct.pack(">I", n) for n in block.shape[::-1])
        if varlength:
            head += struct.pack(">I", block.size)
        body = compress(np.ascontiguousarray(block).astype(block.dtype.newbyteorder(">")).tobytes())
        key = os.path.join(ds, *[str(i) for i in idx[::-1]])
        os.makedirs(os.path.dirname(key), exist_ok=True)
        open(key, "wb").write(head + body)
    if not varlength:
        back = zarr.open(zarr.N5Store(path), mode="r")["data"][...]
        assert np.array_equal(back, arr, equal_nan=True), name
    np.save(os.path.join(OUT, name + ".npy"), arr.astype(arr.dtype.newbyteorder("<")))


hand("hand_cropped_gzip", data("<u2", 2), "gzip", lambda b: gzip.compress(b, 6), extra={"level": 6, "useZlib": False})
hand("hand_cropped_raw_f8", data("<f8", 2), "raw", lambda b: b)
hand("hand_cropped_bzip2_i4", data("<i4", 2), "bzip2", bz2.compress, extra={"blockSize": 9})
hand("hand_cropped_xz", data("<u2", 3), "xz", lambda b: lzma.compress(b, preset=6), extra={"preset": 6})
hand("hand_varlength_gzip", data("<u2", 4), "gzip", lambda b: gzip.compress(b, 6), varlength=True, extra={"level": 6, "useZlib": False})

# Multiscale: BigDataViewer's layout (setup0/timepoint0/s0..s2).
T = np.random.default_rng(7).integers(0, 60000, size=(6, 16, 20), dtype=np.uint16)
path = os.path.join(OUT, "bdv.n5")
store = zarr.N5Store(path)
root = zarr.group(store=store, overwrite=True)
setup = root.create_group("setup0")
setup.attrs["downsamplingFactors"] = [[1, 1, 1], [2, 2, 1], [4, 4, 2]]
setup.attrs["dataType"] = "uint16"
tp = setup.create_group("timepoint0")
tp.attrs["resolution"] = [0.5, 0.5, 2.0]
tp.attrs["multiScale"] = True
levels = [T, T[:, ::2, ::2], T[::2, ::4, ::4]]
for i, lv in enumerate(levels):
    a = tp.create_dataset("s%d" % i, shape=lv.shape, chunks=(2, 8, 8), dtype="<u2", compressor=numcodecs.GZip())
    a[...] = lv
    np.save(os.path.join(OUT, "bdv_s%d.npy" % i), zarr.open(zarr.N5Store(path), mode="r")["setup0/timepoint0/s%d" % i][...])

# n5-viewer's layout: c0 with scales and pixelResolution, s0..s1.
path = os.path.join(OUT, "viewer.n5")
root = zarr.group(store=zarr.N5Store(path), overwrite=True)
c0 = root.create_group("c0")
c0.attrs["scales"] = [[1, 1, 1], [2, 2, 2]]
c0.attrs["pixelResolution"] = {"unit": "um", "dimensions": [0.25, 0.25, 1.0]}
for i, lv in enumerate([T, T[::2, ::2, ::2]]):
    a = c0.create_dataset("s%d" % i, shape=lv.shape, chunks=(4, 8, 8), dtype="<u2", compressor=numcodecs.Zstd())
    a[...] = lv
    if i:
        a.attrs["downsamplingFactors"] = [2, 2, 2]
    np.save(os.path.join(OUT, "viewer_s%d.npy" % i), zarr.open(zarr.N5Store(path), mode="r")["c0/s%d" % i][...])


# Blosc frames followed by 16 zero bytes, as z5py writes them.
def pad(path):
    n = 0
    for f in glob.glob(os.path.join(path, "**", "*"), recursive=True):
        if os.path.isfile(f) and not os.path.basename(f).startswith(".") and not f.endswith(".json"):
            open(f, "ab").write(b"\0" * 16)
            n += 1
    assert n > 0, path


z = zarr.open("padded_blosc.zarr", mode="w", shape=SHAPE, chunks=CHUNKS, dtype="<u2",
              compressor=numcodecs.Blosc(cname="lz4", shuffle=numcodecs.Blosc.SHUFFLE))
z[...] = u2
pad("padded_blosc.zarr")
back = zarr.open("padded_blosc.zarr", mode="r")[...]
assert np.array_equal(back, u2)
np.save("padded_blosc.npy", back)
path = n5("padded_blosc", u2, numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.BITSHUFFLE))
pad(path)
assert np.array_equal(zarr.open(zarr.N5Store(path), mode="r")[...], u2)
print("wrote", len(os.listdir(OUT)), "entries in", OUT)
