#!/usr/bin/python3
"""A large synthetic NeXus (NXtomo) scan, one projection per chunk, for
BENCHMARKS.md's whole-command figures (issue 33: >= 10 GB).

  /usr/bin/python3 gen_large_scan.py OUT.nxs [ROWS]

Writes 1800 projections over [0, 180) degrees of ROWS (default 11000) rows
x 256 columns of uint16 counts (11000 rows: 10.1 GB), chunked (1, ROWS,
256) as Diamond's detectors write them, then 10 darks and 10 flats, with
image_key and rotation_angle, at /entry1/tomo_entry as
gen_phantom_scan.py lays it out. Each row is the phantom of
gen_phantom_scan.py (radius 100 columns, axis at column 127.3) with an
attenuation that varies along the rows; no noise (drawing 5e9 Poisson
values would take longer than the benchmark). Projections are computed
and written one at a time: the generator holds one frame.
"""
import sys

import h5py
import numpy as np

import gen_phantom_scan as g

NPROJ, COLS, AXIS = 1800, 256, 127.3


def main(path, rows):
    g.AXIS = AXIS
    theta = np.deg2rad(np.arange(NPROJ) * 180.0 / NPROJ)
    u = np.arange(COLS, dtype=float)
    mu = 0.01 + 0.02 * (0.5 + 0.5 * np.sin(np.arange(rows) / 500.0))[:, None]
    total = NPROJ + 20
    with h5py.File(path, "w") as f:
        d = f.create_dataset("/entry1/tomo_entry/data/data", shape=(total, rows, COLS),
                             dtype=np.uint16, chunks=(1, rows, COLS))
        for i in range(NPROJ):
            p = g.project(100, theta[i:i + 1], u)  # 1 x COLS line integrals
            d[i] = np.round(100 + 2000 * np.exp(-mu * p)).astype(np.uint16)
        d[NPROJ:NPROJ + 10] = 100
        d[NPROJ + 10:] = 2100
        key = np.array([0] * NPROJ + [2] * 10 + [1] * 10, dtype=np.int32)
        angles = np.concatenate([np.rad2deg(theta), np.zeros(20)])
        f.create_dataset("/entry1/tomo_entry/instrument/detector/image_key", data=key)
        f.create_dataset("/entry1/tomo_entry/data/rotation_angle", data=angles).attrs["units"] = "degrees"
        f["/entry1/tomo_entry"].attrs["NX_class"] = "NXentry"
        f["/entry1/tomo_entry"].attrs["definition"] = "NXtomo"


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 11000)
