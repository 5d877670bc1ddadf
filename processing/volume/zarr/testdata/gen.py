#!/usr/bin/python3
"""Golden Zarr v2 and OME-Zarr 0.4 stores for the Go reader's tests.

Run with Debian's python (python3-zarr 2.13, python3-numcodecs):
    cd processing/volume/zarr/testdata && /usr/bin/python3 gen.py
Each store NAME.zarr sits beside NAME.npy, the volume (z, y, x) a reader
must return, written by NumPy from what zarr reads back.
"""
import json
import os
import shutil

import numcodecs
import numpy as np
import zarr

OUT = "v2"
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)

SHAPE, CHUNKS = (5, 6, 7), (2, 4, 3)  # edge chunks on every axis


def data(dtype, seed=0):
    dt = np.dtype(dtype)
    n = int(np.prod(SHAPE))
    i = np.arange(n, dtype=np.int64).reshape(SHAPE)
    if dt.kind == "f":
        v = (i * 0.37 - 11.5 + seed).astype(dt)
        v.flat[3] = np.nan if dt.itemsize == 4 else -np.inf
        return v
    info = np.iinfo(dt)
    span = int(info.max) - int(info.min) + 1
    v = (i * 7919 + 13 * seed) % span + int(info.min)
    return v.astype(dt)


def save(name, arr, **kw):
    path = os.path.join(OUT, name + ".zarr")
    z = zarr.open(path, mode="w", shape=arr.shape, chunks=kw.pop("chunks", CHUNKS), dtype=arr.dtype, **kw)
    z[...] = arr
    back = zarr.open(path, mode="r")[...]
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(back.astype(back.dtype.newbyteorder("<"))))
    return path


# Every pixel type, zstd.
for dt in ["u1", "i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<f8"]:
    save("zstd_" + np.dtype(dt).name, data(dt), compressor=numcodecs.Zstd(level=3))

# Every compressor on uint16.
u2 = data("<u2")
save("none", u2, compressor=None)
save("gzip", u2, compressor=numcodecs.GZip(level=5))
save("zlib", u2, compressor=numcodecs.Zlib(level=5))
for cname in ["lz4", "lz4hc", "zstd", "zlib", "blosclz"]:
    for shuf, sname in [(numcodecs.Blosc.NOSHUFFLE, "noshuffle"), (numcodecs.Blosc.SHUFFLE, "shuffle"), (numcodecs.Blosc.BITSHUFFLE, "bitshuffle")]:
        save(f"blosc_{cname}_{sname}", u2, compressor=numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuf))
save("blosc_lz4_f4", data("<f4"), compressor=numcodecs.Blosc(cname="lz4", shuffle=numcodecs.Blosc.SHUFFLE))

# Layouts: Fortran order, "/" separator, big-endian elements.
save("order_f", u2, order="F", compressor=numcodecs.Zstd())
save("order_f_f8", data("<f8"), order="F", compressor=None)
save("slash", u2, dimension_separator="/", compressor=numcodecs.Zstd())
save("big_u2", data(">u2"), compressor=numcodecs.Zstd())
save("big_f4", data(">f4"), compressor=None)
save("big_i4", data(">i4"), order="F", compressor=numcodecs.Blosc(cname="lz4"))

# Fill value: chunks never written are missing files.
path = os.path.join(OUT, "fill.zarr")
z = zarr.open(path, mode="w", shape=SHAPE, chunks=CHUNKS, dtype="<i2", fill_value=-7, compressor=numcodecs.Zstd())
z[0:2, 0:4, 0:3] = 5
z[4, 5, 6] = 9
np.save(os.path.join(OUT, "fill.npy"), zarr.open(path, mode="r")[...])
path = os.path.join(OUT, "fill_nan.zarr")
z = zarr.open(path, mode="w", shape=SHAPE, chunks=CHUNKS, dtype="<f4", fill_value=np.nan, compressor=None)
z[2:4, :, 3:6] = 1.5
np.save(os.path.join(OUT, "fill_nan.npy"), zarr.open(path, mode="r")[...])

# One plane per chunk: chunks a slab read decodes in place.
P = (1, 6, 7)
save("planes_zstd", u2, chunks=P, compressor=numcodecs.Zstd())
save("planes_gzip", u2, chunks=P, compressor=numcodecs.GZip())
save("planes_zlib", u2, chunks=P, compressor=numcodecs.Zlib())
save("planes_none", u2, chunks=P, compressor=None)
save("planes_blosc_lz4", u2, chunks=P, compressor=numcodecs.Blosc(cname="lz4", shuffle=numcodecs.Blosc.SHUFFLE))
save("planes_blosc_zstd_f8", data("<f8"), chunks=P, compressor=numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.BITSHUFFLE))
save("planes_big_i2", data(">i2"), chunks=P, compressor=numcodecs.Zstd())

# A 2-D array: one plane.
save("plane2d", data("<u2")[0], chunks=(4, 3), compressor=numcodecs.Zstd())

# OME-Zarr 0.4 pyramid (t, c, z, y, x), 3 levels halving y and x, written
# with zarr as the NGFF 0.4 specification lays it out (no ome-zarr-py in
# Debian 12).
T, C, Z, Y, X = 2, 3, 4, 16, 12
rng = np.random.default_rng(4)
full = rng.integers(0, 60000, size=(T, C, Z, Y, X), dtype=np.uint16)
path = os.path.join(OUT, "ome.zarr")
g = zarr.open_group(path, mode="w")
datasets = []
level = full
for i in range(3):
    a = g.create_dataset(str(i), shape=level.shape, chunks=(1, 1, 2, 8, 8), dtype="<u2", compressor=numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.BITSHUFFLE))
    a[...] = level
    datasets.append({"path": str(i), "coordinateTransformations": [{"type": "scale", "scale": [1.0, 1.0, 2.5, 0.5 * 2**i, 0.5 * 2**i]}]})
    for t in range(T):
        for c in range(C):
            np.save(os.path.join(OUT, f"ome_l{i}_t{t}_c{c}.npy"), g[str(i)][t, c])
    level = level[:, :, :, ::2, ::2]
g.attrs["multiscales"] = [{
    "version": "0.4",
    "name": "golden",
    "axes": [
        {"name": "t", "type": "time", "unit": "second"},
        {"name": "c", "type": "channel"},
        {"name": "z", "type": "space", "unit": "micrometer"},
        {"name": "y", "type": "space", "unit": "micrometer"},
        {"name": "x", "type": "space", "unit": "micrometer"},
    ],
    "datasets": datasets,
    "coordinateTransformations": [{"type": "scale", "scale": [1.0, 1.0, 2.0, 1.0, 1.0]}],
}]
print("wrote", len(os.listdir(OUT)), "entries in", OUT)
