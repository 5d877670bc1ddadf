#!/usr/bin/python3
"""Writes the four compressed layouts of issue 23's memory report, as the
field's tools (zarr-python with numcodecs, h5py) write them, for
scripts/bench-memory.sh:

    single   a Zarr v2 array stored as one zstd chunk (1 GiB: 512 frames
             of 1024 x 1024 uint16)
    gzip400  an HDF5 dataset /data of 1200 frames of 512 x 512 uint16,
             gzip level 1, chunks of 400 whole frames (200 MiB each)
    blosc64  a Zarr v2 array of 512 frames of 1024 x 512 uint16, Blosc
             (LZ4, byte shuffle), chunks of 64 whole frames (64 MiB each)
    zstd256  a Zarr v2 array of 512 frames of 1024 x 1024 uint16, zstd
             level 1, chunks of 256^3 (32 MiB each, 16 across a frame)
    chunks64 a Zarr v2 array of 256 frames of 2048 x 2048 uint16 (2 GiB),
             zstd level 1, chunks of 64 x 512 x 512 (issue 27's store)

Frames are detector-like: a level of ~1000 counts with 6 bits of noise
(the data compress about 2:1, as real projections do) and sparse zingers.
Data are generated a slab at a time, so memory stays near one chunk layer
(the single chunk needs its whole 1 GiB, and its compressed copy).

    gen_layouts.py DIR LAYOUT...
"""
import os
import sys

import h5py
import numcodecs
import numpy as np
import zarr

LAYOUTS = {
    "single": ((512, 1024, 1024), (512, 1024, 1024), "zstd"),
    "gzip400": ((1200, 512, 512), (400, 512, 512), "gzip"),
    "blosc64": ((512, 1024, 512), (64, 1024, 512), "blosc"),
    "zstd256": ((512, 1024, 1024), (256, 256, 256), "zstd"),
    "chunks64": ((256, 2048, 2048), (64, 512, 512), "zstd"),
}


def frames(rng, z0, z1, rows, cols):
    """Frames [z0, z1): noise around 1000 and one zinger in 10^4 voxels."""
    a = rng.integers(1000, 1064, (z1 - z0, rows, cols), dtype=np.uint16)
    hit = rng.random((z1 - z0, rows, cols), dtype=np.float32) < 1e-4
    a[hit] += 20000
    return a


def main():
    out = sys.argv[1]
    for name in sys.argv[2:]:
        shape, chunks, codec = LAYOUTS[name]
        rng = np.random.default_rng(23)
        step = chunks[0]
        if codec == "gzip":
            path = os.path.join(out, name + ".h5")
            with h5py.File(path, "w") as f:
                d = f.create_dataset("data", shape, "<u2", chunks=chunks, compression="gzip", compression_opts=1)
                for z in range(0, shape[0], step):
                    d[z:z + step] = frames(rng, z, min(z + step, shape[0]), shape[1], shape[2])
        else:
            path = os.path.join(out, name + ".zarr")
            comp = numcodecs.Zstd(level=1) if codec == "zstd" else numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE)
            z = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype="<u2", compressor=comp)
            for z0 in range(0, shape[0], step):
                z[z0:z0 + step] = frames(rng, z0, min(z0 + step, shape[0]), shape[1], shape[2])
        print(path)


if __name__ == "__main__":
    main()
