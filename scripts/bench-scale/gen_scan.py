#!/usr/bin/python3
"""Writes a NeXus tomography scan as beamlines do: darks, flats and
projections of uint16 in /entry1/tomo_entry/data/data, chunked one frame
per chunk, image_key at /entry1/tomo_entry/instrument/detector/image_key.

Projections are smooth (a slowly rotating sum of wide Gaussians, as a
sample seen through a detector) with sparse zingers (one voxel in 10^4
raised by 5000-20000 counts). Frames are written one at a time, so the
generator holds a few frames whatever the scan's size.

    gen_scan.py OUT.nxs DARKS FLATS PROJECTIONS ROWS COLS [--contiguous]
"""
import sys

import h5py
import numpy as np


def main():
    out = sys.argv[1]
    nd, nf, npj, rows, cols = (int(a) for a in sys.argv[2:7])
    contiguous = "--contiguous" in sys.argv[7:]
    rng = np.random.default_rng(14)
    y = np.linspace(-1, 1, rows, dtype=np.float32)[:, None]
    x = np.linspace(-1, 1, cols, dtype=np.float32)[None, :]
    flat = (30000 - 8000 * (x * x + y * y)).astype(np.float32)
    # The sample's absorption at angle 0 along x; rotation shifts it.
    blobs = [(0.3 * rng.standard_normal(), 0.3 * rng.standard_normal(), 0.15 + 0.1 * rng.random())
             for _ in range(6)]
    n = nd + nf + npj
    keys = np.array([2] * nd + [1] * nf + [0] * npj, np.int8)
    with h5py.File(out, "w") as f:
        t = f.create_group("entry1").create_group("tomo_entry")
        f["entry1"].attrs["NX_class"] = "NXentry"
        t.attrs["NX_class"] = "NXsubentry"
        kw = {} if contiguous else {"chunks": (1, rows, cols)}
        d = t.create_dataset("data/data", (n, rows, cols), "<u2", **kw)
        t["instrument/detector/image_key"] = keys
        t["data/rotation_angle"] = np.concatenate(
            [np.zeros(nd + nf), np.linspace(0, 180, npj, endpoint=False)])
        for i in range(n):
            if keys[i] == 2:
                frame = np.full((rows, cols), 100, np.float32)
            elif keys[i] == 1:
                frame = flat.copy()
            else:
                a = np.pi * (i - nd - nf) / max(npj, 1)
                absorb = np.zeros((1, cols), np.float32)
                for bx, bz, w in blobs:
                    cx = bx * np.cos(a) + bz * np.sin(a)
                    absorb = absorb + np.exp(-((x - cx) / w) ** 2)
                frame = flat * np.exp(-0.4 * absorb) * (1 - 0.1 * y * y)
            frame += rng.normal(0, 20, (rows, cols)).astype(np.float32)
            z = rng.random((rows, cols)) < 1e-4
            frame[z] += rng.uniform(5000, 20000, int(z.sum())).astype(np.float32)
            d[i] = np.clip(frame, 0, 65535).astype(np.uint16)


if __name__ == "__main__":
    main()
