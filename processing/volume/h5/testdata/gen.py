#!/usr/bin/python3
"""Generates the HDF5/NeXus golden files of processing/volume/h5 with h5py.
Run from this folder with Debian's python3:

    /usr/bin/python3 gen.py

The Go tests recompute the values: voxel (z, y, x) = (7z + 3y + 5x) % mod,
floats (… % 97) * 0.25 - 3.5, as in ../../testdata/gen.py.
"""
import os

import h5py
import numpy as np

SHAPE = (3, 4, 5)


def grid(shape=SHAPE):
    z, y, x = np.indices(shape)
    return z * 7 + y * 3 + x * 5


def ints(mod, shape=SHAPE):
    return grid(shape) % mod


def floats(shape=SHAPE):
    return (grid(shape) % 97) * 0.25 - 3.5


def types():
    with h5py.File("types.h5", "w") as f:
        f["u8"] = ints(251).astype("u1")
        f["u16"] = ints(60000).astype("<u2")
        f["u16be"] = ints(60000).astype(">u2")
        f["f32"] = floats().astype("<f4")
        f["f32be"] = floats().astype(">f4")
        f["f64"] = floats().astype("<f8")
        f["f64be"] = floats().astype(">f8")
        f["plane"] = floats((1, 4, 5))[0].astype("<f4")
        f.create_dataset("group/nested/chunked", data=ints(60000).astype("<u2"),
                         chunks=(1, 2, 5), compression="gzip")
        f["i16"] = ints(100).astype("<i2")
        f["text"] = "hello"
        f["vector"] = np.arange(7.0)
        f["four"] = np.zeros((2, 2, 2, 2), "<f4")
        f["u16"].attrs["element_size_um"] = [2.0, 0.5, 0.25]
        # A shape whose byte size overflows 64 bits (chunked, never written).
        f.create_dataset("huge", shape=(2**40, 2**40, 2**40), dtype="<f4", chunks=(1, 1, 16))


def chunked():
    """Chunks spanning several planes, as some detectors write them: plain,
    gzip, and one-plane chunks split into bands of rows."""
    shape = (7, 6, 5)
    with h5py.File("chunked.h5", "w") as f:
        f.create_dataset("plain", data=ints(60000, shape).astype("<u2"), chunks=(3, 4, 5))
        f.create_dataset("gzip", data=floats(shape).astype("<f4"), chunks=(2, 3, 2),
                         compression="gzip")
        f.create_dataset("bands", data=ints(60000, shape).astype(">u2"), chunks=(1, 2, 5))


def single():
    with h5py.File("single.h5", "w") as f:
        f["exchange/data"] = ints(60000).astype("<u2")
        f["exchange/theta"] = np.linspace(0, 180, 3)


def many():
    with h5py.File("many.h5", "w") as f:
        f["a"] = ints(60000).astype("<u2")
        f["b"] = floats().astype("<f4")


# Interleaved as beamlines record: darks, flats, projections, flats.
KEYS = [2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1]


def scan(name, keys, key_dtype="i8", per_frame_angles=True):
    n = len(keys)
    data = ints(60000, (n, 4, 5)).astype("<u2")
    nproj = sum(1 for k in keys if k == 0)
    proj_angles = np.linspace(0, 180, nproj, endpoint=False)
    with h5py.File(name, "w") as f:
        e = f.create_group("entry1")
        e.attrs["NX_class"] = "NXentry"
        t = e.create_group("tomo_entry")
        t.attrs["NX_class"] = "NXsubentry"
        t["data/data"] = data
        t["instrument/detector/image_key"] = np.array(keys, key_dtype)
        if per_frame_angles:
            angles, j = np.zeros(n), 0
            for i, k in enumerate(keys):
                if k == 0:
                    angles[i], j = proj_angles[j], j + 1
            t["data/rotation_angle"] = angles
        else:
            t["data/rotation_angle"] = proj_angles


def nxtomo(name, soft):
    """The NXtomo application definition's layout (/entry, not Diamond's
    /entry1/tomo_entry): frames in the detector and linked from NXdata."""
    keys = KEYS
    n = len(keys)
    data = ints(60000, (n, 4, 5)).astype("<u2")
    nproj = sum(1 for k in keys if k == 0)
    with h5py.File(name, "w") as f:
        e = f.create_group("entry")
        e.attrs["NX_class"] = "NXentry"
        e["definition"] = "NXtomo"
        if soft:
            # Frames in NXdata, the detector's a soft link; keys beside the frames.
            e["data/data"] = data
            e["instrument/detector/data"] = h5py.SoftLink("/entry/data/data")
            e["data/image_key"] = np.array(keys, "i4")
        else:
            # Frames in the detector, NXdata's a hard link to them.
            e["instrument/detector/data"] = data
            e["data/data"] = e["instrument/detector/data"]
            e["instrument/detector/image_key"] = np.array(keys, "u1")
        e["sample/rotation_angle"] = np.linspace(0, 180, nproj, endpoint=False)


def bad():
    with open("types.h5", "rb") as f:
        b = f.read()
    with open("truncated.h5", "wb") as f:
        f.write(b[: len(b) // 2])
    with open("notreally.h5", "w") as f:
        f.write("this is not an HDF5 file\n")
    scan("noproj.nxs", [1, 1, 2])
    with h5py.File("badkeys.nxs", "w") as f:
        f["entry1/tomo_entry/data/data"] = ints(60000).astype("<u2")
        f["entry1/tomo_entry/instrument/detector/image_key"] = np.zeros(5, "i4")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    types()
    single()
    many()
    chunked()
    scan("scan.nxs", KEYS)
    scan("scan_float_keys.nxs", KEYS, "f8", per_frame_angles=False)
    nxtomo("nxtomo.nxs", soft=False)
    nxtomo("nxtomo_soft.nxs", soft=True)
    bad()
