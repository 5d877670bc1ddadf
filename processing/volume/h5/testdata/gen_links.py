#!/usr/bin/python3
"""Generates the NeXus files whose frames sit behind links, and a file of
several 3D datasets, with h5py. Run from this folder with Debian's
python3:

    /usr/bin/python3 gen_links.py

k11.nxs is a look-alike of httomo's DIAD test scan (tests/test_data/
k11_diad/k11-18014.nxs, written by Diamond's GDA): an NXentry /entry
holding an NXinstrument with an NXdetector "imaging" whose data is an
external link to the detector's own file (k11/k11-imaging.h5:/entry/
data/data, a relative path, as GDA writes it) beside an image_key, an
NXdata /entry/imaging (signal "data") whose data and image_key are soft
links to the detector's, the rotation stage's angles in degrees
(/entry/gts_theta.value/gts_theta.value, 90° to 270° as the real scan's)
soft-linked as gts_theta_value into /entry/imaging beside the frames
and into an NXdata /entry/imaging_sum, and several hundred scalar datasets (motor positions,
metadata) around them, as the real file has 492. No dataset path names
the frames: a reader must find them through the links.

k11_dangling.nxs is the same layout whose external link points at a file
that is not there.

several.h5 holds three 3D datasets (one chunked and compressed) and a few
1D and scalar ones, and no NeXus scan.

Frame values: (7z + 3y + 5x) % 60000 as uint16; image keys: 2 darks, 2
flats, 8 projections, 1 flat; angles 90 + 15·frame degrees.
"""
import os

import h5py
import numpy as np

KEYS = [2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]
SHAPE = (len(KEYS), 22, 26)
# The stage's angle at each frame: 90 + 15 i degrees.
ANGLES = 90 + 15 * np.arange(len(KEYS), dtype="f8")


def frames(shape=SHAPE):
    z, y, x = np.indices(shape)
    return ((7 * z + 3 * y + 5 * x) % 60000).astype("<u2")


def nx(group, cls):
    group.attrs["NX_class"] = cls
    return group


def scalars(entry, n):
    """n scalar datasets in groups of ten, as GDA records every device."""
    for i in range(n):
        dev = entry.require_group(f"instrument/device_{i // 10:02d}")
        nx(dev, "NXpositioner")
        dev[f"value_{i % 10}"] = float(i) * 0.5
        dev[f"value_{i % 10}"].attrs["units"] = "mm"


def k11(name, target):
    with h5py.File(name, "w") as f:
        entry = nx(f.create_group("entry"), "NXentry")
        entry["definition"] = "NXtomo"
        entry.attrs["default"] = "imaging"
        inst = nx(entry.create_group("instrument"), "NXinstrument")
        det = nx(inst.create_group("imaging"), "NXdetector")
        det["data"] = h5py.ExternalLink(target, "/entry/data/data")
        det["image_key"] = np.array(KEYS, dtype="i4")
        data = nx(entry.create_group("imaging"), "NXdata")
        data.attrs["signal"] = "data"
        data["data"] = h5py.SoftLink("/entry/instrument/imaging/data")
        data["image_key"] = h5py.SoftLink("/entry/instrument/imaging/image_key")
        entry["gts_theta.value/gts_theta.value"] = ANGLES
        data["gts_theta_value"] = h5py.SoftLink("/entry/gts_theta.value/gts_theta.value")
        total = nx(entry.create_group("imaging_sum"), "NXdata")
        total["gts_theta_value"] = h5py.SoftLink("/entry/gts_theta.value/gts_theta.value")
        total.attrs["signal"] = "gts_theta_value"
        entry["start_time"] = "2022-03-01T10:00:00"
        entry["sample/name"] = "look-alike"
        nx(entry["sample"], "NXsample")
        scalars(entry, 480)


def detector_file(name):
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with h5py.File(name, "w") as f:
        f.create_dataset("entry/data/data", data=frames(), chunks=(1,) + SHAPE[1:], compression="gzip")
        f["entry/data"].attrs["NX_class"] = "NXdata"


def several():
    with h5py.File("several.h5", "w") as f:
        f["raw"] = frames()
        f.create_dataset("processed/filtered", data=frames((4, 8, 9)), chunks=(1, 8, 9), compression="gzip",
                         shuffle=True)
        f["processed/mask"] = frames((2, 3, 4)).astype("u1")
        f["angles"] = np.linspace(0, 180, 5)
        f["count"] = 3


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    detector_file("k11/k11-imaging.h5")
    k11("k11.nxs", "k11/k11-imaging.h5")
    k11("k11_dangling.nxs", "k11/k11-missing.h5")
    several()
