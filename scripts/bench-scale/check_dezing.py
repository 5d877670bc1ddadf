#!/usr/bin/python3
"""Checks a sub-block of voxlab's dezinged projections against SciPy:
scipy.ndimage.median_filter(size=K, mode='nearest') on the input around
the block, and the replacement |x - median| >= dif -> median, as httomo's
remove_outlier does. Prints "ok" or what differs; exits 1 on a mismatch.

    check_dezing.py SCAN.nxs OUT.h5 Z0 Z1 [KERNEL] [DIF]
"""
import sys

import h5py
import numpy as np
from scipy import ndimage


def main():
    scan, out = sys.argv[1], sys.argv[2]
    z0, z1 = int(sys.argv[3]), int(sys.argv[4])
    k = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    dif = float(sys.argv[6]) if len(sys.argv) > 6 else 1000
    h = k // 2
    with h5py.File(scan, "r") as f:
        t = f["entry1/tomo_entry"]
        proj = np.flatnonzero(t["instrument/detector/image_key"][:] == 0)
        n = len(proj)
        # The block with its halo; at the ends of the scan the halo is
        # clamped, as mode='nearest' does.
        a, b = max(z0 - h, 0), min(z1 + h, n)
        data = t["data/data"]
        src = np.stack([data[proj[i]] for i in range(a, b)]).astype(np.float32)
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
        print("MISMATCH: no voxel of projections %d-%d was replaced: the check would not see a missed zinger" % (z0, z1))
        sys.exit(1)
    print("ok: projections %d-%d (%d voxels, %d replaced) equal SciPy's median_filter(size=%d) + replacement" % (
        z0, z1, want.size, replaced, k))


if __name__ == "__main__":
    main()
