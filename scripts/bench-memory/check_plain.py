#!/usr/bin/python3
"""Checks frames [Z0, Z1) of voxlab's dezinged output of a plain volume
(a Zarr array or an HDF5 dataset /data, as gen_layouts.py writes them)
against SciPy: scipy.ndimage.median_filter(size=K, mode='nearest') on the
input around the frames, and the replacement |x - median| >= dif ->
median, as httomo's remove_outlier does. Prints "ok" or what differs;
exits 1 on a mismatch.

    check_plain.py IN OUT.h5 Z0 Z1 [KERNEL] [DIF]
"""
import sys

import h5py
import numpy as np
import zarr
from scipy import ndimage


def main():
    src_path, out = sys.argv[1], sys.argv[2]
    z0, z1 = int(sys.argv[3]), int(sys.argv[4])
    k = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    dif = float(sys.argv[6]) if len(sys.argv) > 6 else 1000
    h = k // 2
    if src_path.endswith(".zarr"):
        data = zarr.open(src_path, mode="r")
        n = data.shape[0]
        a, b = max(z0 - h, 0), min(z1 + h, n)
        src = data[a:b].astype(np.float32)
    else:
        with h5py.File(src_path, "r") as f:
            n = f["data"].shape[0]
            a, b = max(z0 - h, 0), min(z1 + h, n)
            src = f["data"][a:b].astype(np.float32)
    med = ndimage.median_filter(src, size=k, mode="nearest")
    want = np.where(np.abs(src - med) >= dif, med, src).astype(np.uint16)[z0 - a:z1 - a]
    with h5py.File(out, "r") as f:
        got = f["data"][z0:z1]
    bad = np.argwhere(got != want)
    if len(bad):
        print("MISMATCH: %d voxels of %d differ, first at %s: %d, want %d" % (
            len(bad), want.size, tuple(bad[0] + [z0, 0, 0]), got[tuple(bad[0])], want[tuple(bad[0])]))
        sys.exit(1)
    replaced = int((want != src[z0 - a:z1 - a].astype(np.uint16)).sum())
    if replaced == 0:
        print("MISMATCH: no voxel of frames %d-%d was replaced: the check would not see a missed zinger" % (z0, z1))
        sys.exit(1)
    print("ok: frames %d-%d (%d voxels, %d replaced) equal SciPy's median_filter(size=%d) + replacement" % (
        z0, z1, want.size, replaced, k))


if __name__ == "__main__":
    main()
