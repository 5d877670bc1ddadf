#!/usr/bin/python3
"""Generates the golden files of HDF5 virtual datasets (VDS) over
compressed source files, the way Diamond's detectors write a scan: each
writer process fills its own chunked, compressed file and the scan's
file maps them into one dataset. Written with h5py over Debian's libhdf5
and its filter plugins (hdf5-filter-plugin, hdf5-filter-plugin-blosc-
serial: Blosc is filter 32001, LZ4 32004). Run from this folder:

    /usr/bin/python3 gen_vds.py

Each vds_*.h5 holds /data, the virtual dataset; expect_*.npy (written by
NumPy) is what h5py read back through libhdf5's own VDS machinery, the
reference the Go tests compare with bit for bit.

  vds_gzip.h5     planes 0-2 <- src/gzip_0.h5, planes 3-5 <- src/gzip_1.h5
                  (uint16, chunks of one frame, gzip 4 with shuffle)
  vds_blosc.h5    frames interleaved over two writers, as Odin writes
                  them: even planes <- src/blosc_0.h5, odd <- blosc_1.h5
                  (float32, Blosc lz4 with shuffle), a strided mapping
  vds_lz4.h5      one 2D image per plane <- src/lz4_{0..3}.h5 (int16, LZ4)
  vds_mixed.h5    planes 0-2 <- gzip_0.h5, 3-5 <- lz4 frames (uint16,
                  src/lz4_stack.h5), half of each plane's columns from
                  each: sources with different pipelines in one read
  vds_fill.h5     planes 0-2 <- gzip_0.h5, planes 3-4 unmapped (fill 7)
  vds_missing.h5  planes 0-2 <- src/none.h5, which does not exist
  vds_self.h5     /data: planes 0-2 <- /raw/a (gzip), 3-5 <- /raw/b (LZ4),
                  both in the file itself (source file ".")
  scan.nxs        (in the folder above vds/: ../vds_scan.nxs) NXtomo whose
                  /entry1/tomo_entry/data/data is an external link to
                  vds/vds_gzip.h5:/data, with image_key (darks 0, flats
                  1, projections 2-5): the sources are found beside the
                  VDS file, not beside the scan.
"""
import os

import h5py
import numpy as np

GZIP = dict(compression="gzip", compression_opts=4, shuffle=True)
BLOSC = dict(compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 1))  # clevel 5, shuffle, lz4
LZ4 = dict(compression=32004, compression_opts=(0,))

rng = np.random.default_rng(32)
SHAPE = (6, 9, 7)  # planes, rows, columns


def source(name, data, **filt):
    with h5py.File(os.path.join("src", name), "w") as f:
        f.create_dataset("data", data=data, chunks=(1,) + data.shape[1:] if data.ndim == 3 else data.shape, **filt)


def vds(name, layout, fill=0):
    with h5py.File(name, "w", libver="latest") as f:
        f.create_virtual_dataset("data", layout, fillvalue=fill)
    with h5py.File(name, "r") as f:
        got = f["data"][...]
    np.save("expect_" + name[len("vds_"):-len(".h5")] + ".npy", got)
    return got


def main():
    os.makedirs("src", exist_ok=True)
    # gzip, two writers of three planes each.
    g = rng.integers(0, 60000, SHAPE, dtype=np.uint16)
    source("gzip_0.h5", g[:3], **GZIP)
    source("gzip_1.h5", g[3:], **GZIP)
    lay = h5py.VirtualLayout(SHAPE, np.uint16)
    lay[0:3] = h5py.VirtualSource("src/gzip_0.h5", "data", shape=(3,) + SHAPE[1:])
    lay[3:6] = h5py.VirtualSource("src/gzip_1.h5", "data", shape=(3,) + SHAPE[1:])
    assert (vds("vds_gzip.h5", lay) == g).all()

    # Blosc, frames interleaved over two writers.
    b = rng.standard_normal(SHAPE).astype(np.float32)
    source("blosc_0.h5", b[0::2], **BLOSC)
    source("blosc_1.h5", b[1::2], **BLOSC)
    lay = h5py.VirtualLayout(SHAPE, np.float32)
    lay[0::2] = h5py.VirtualSource("src/blosc_0.h5", "data", shape=(3,) + SHAPE[1:])
    lay[1::2] = h5py.VirtualSource("src/blosc_1.h5", "data", shape=(3,) + SHAPE[1:])
    assert (vds("vds_blosc.h5", lay) == b).all()

    # LZ4, one 2D image per file.
    shape = (4,) + SHAPE[1:]
    l4 = rng.integers(-30000, 30000, shape, dtype=np.int16)
    lay = h5py.VirtualLayout(shape, np.int16)
    for i in range(4):
        source("lz4_%d.h5" % i, l4[i], **LZ4)
        lay[i] = h5py.VirtualSource("src/lz4_%d.h5" % i, "data", shape=SHAPE[1:])
    assert (vds("vds_lz4.h5", lay) == l4).all()

    # Mixed pipelines: gzip planes 0-2, LZ4 planes 3-5 whose columns come
    # half from each of two column blocks of one LZ4 stack.
    stack = rng.integers(0, 60000, (3, SHAPE[1], 8), dtype=np.uint16)
    source("lz4_stack.h5", stack, **LZ4)
    lay = h5py.VirtualLayout(SHAPE, np.uint16)
    lay[0:3] = h5py.VirtualSource("src/gzip_0.h5", "data", shape=(3,) + SHAPE[1:])
    src = h5py.VirtualSource("src/lz4_stack.h5", "data", shape=stack.shape)
    lay[3:6, :, 0:4] = src[:, :, 4:8]
    lay[3:6, :, 4:7] = src[:, :, 0:3]
    m = vds("vds_mixed.h5", lay)
    assert (m[:3] == g[:3]).all() and (m[3:, :, :4] == stack[:, :, 4:]).all() and (m[3:, :, 4:] == stack[:, :, :3]).all()

    # Unmapped planes read as the fill value.
    shape = (5,) + SHAPE[1:]
    lay = h5py.VirtualLayout(shape, np.uint16)
    lay[0:3] = h5py.VirtualSource("src/gzip_0.h5", "data", shape=(3,) + SHAPE[1:])
    f = vds("vds_fill.h5", lay, fill=7)
    assert (f[:3] == g[:3]).all() and (f[3:] == 7).all()

    # A source that is missing (libhdf5 reads it as the fill value; voxlab
    # refuses it). No expect file: the test wants an error.
    lay = h5py.VirtualLayout(SHAPE, np.uint16)
    lay[0:3] = h5py.VirtualSource("src/none.h5", "data", shape=(3,) + SHAPE[1:])
    with h5py.File("vds_missing.h5", "w", libver="latest") as f:
        f.create_virtual_dataset("data", lay)
    os.remove("expect_missing.npy") if os.path.exists("expect_missing.npy") else None

    # Sources in the file itself (file name "."), gzip and LZ4.
    with h5py.File("vds_self.h5", "w", libver="latest") as f:
        f.create_dataset("raw/a", data=g[:3], chunks=(1,) + SHAPE[1:], **GZIP)
        f.create_dataset("raw/b", data=g[3:], chunks=(1,) + SHAPE[1:], **LZ4)
        lay = h5py.VirtualLayout(SHAPE, np.uint16)
        lay[0:3] = h5py.VirtualSource(".", "raw/a", shape=(3,) + SHAPE[1:])
        lay[3:6] = h5py.VirtualSource(".", "raw/b", shape=(3,) + SHAPE[1:])
        f.create_virtual_dataset("data", lay)
    with h5py.File("vds_self.h5", "r") as f:
        assert (f["data"][...] == g).all()
        np.save("expect_self.npy", f["data"][...])

    # NXtomo scan one folder up, its frames through an external link.
    with h5py.File("../vds_scan.nxs", "w") as f:
        f["/entry1/tomo_entry/data/data"] = h5py.ExternalLink("vds/vds_gzip.h5", "/data")
        f["/entry1/tomo_entry/instrument/detector/image_key"] = np.array([2, 1, 0, 0, 0, 0], np.int32)
        f["/entry1/tomo_entry/data/rotation_angle"] = np.array([0, 0, 0, 45, 90, 135], np.float64)


if __name__ == "__main__":
    main()
