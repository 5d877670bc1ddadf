#!/usr/bin/python3
"""A synthetic NeXus (NXtomo) scan of a 3D Shepp-Logan-like phantom, for
looking at `voxlab reconstruct` on a file laid out as Diamond's are.

  /usr/bin/python3 gen_phantom_scan.py OUT.nxs

Writes 180 projections over [0, 180) degrees of 16 rows x 128 columns,
uint16 counts (dark 100, flat 2000, Poisson noise), with the rotation axis
at column 69.3 (off the middle, 64), a stripe (column 40's gain 7 % low in
the projections only) and 10 darks and 10 flats, as
/entry1/tomo_entry/data/data with image_key and rotation_angle (degrees).
Each row is the Shepp-Logan phantom (Toft's contrasts), its radius
shrinking away from the middle row, projected exactly: u = axis +
x cos(t) - y sin(t), the geometry voxlab's FBP inverts.
"""
import sys

import h5py
import numpy as np

ELLIPSES = [  # x, y, a, b (fractions of the radius), angle (deg), density
    (0, 0, 0.69, 0.92, 0, 1), (0, -0.0184, 0.6624, 0.874, 0, -0.8),
    (0.22, 0, 0.11, 0.31, -18, -0.2), (-0.22, 0, 0.16, 0.41, 18, -0.2),
    (0, 0.35, 0.21, 0.25, 0, 0.1), (0, 0.1, 0.046, 0.046, 0, 0.1),
    (0, -0.1, 0.046, 0.046, 0, 0.1), (-0.08, -0.605, 0.046, 0.023, 0, 0.1),
    (0, -0.605, 0.023, 0.023, 0, 0.1), (0.06, -0.605, 0.023, 0.046, 0, 0.1),
]
NPROJ, ROWS, COLS, AXIS = 180, 16, 128, 69.3


def project(radius, theta, u):
    """Line integrals of the phantom of the given radius along
    x cos(t) - y sin(t) = u - AXIS, for each angle (rows) and column."""
    t = (u[None, :] - AXIS)
    c, s = np.cos(theta)[:, None], np.sin(theta)[:, None]
    out = np.zeros((len(theta), len(u)))
    for x, y, a, b, phi, rho in ELLIPSES:
        x, y, a, b, phi = x * radius, y * radius, a * radius, b * radius, np.deg2rad(phi)
        tt = t - (x * c - y * s)
        nu = c * np.cos(phi) - s * np.sin(phi)
        nv = -c * np.sin(phi) - s * np.cos(phi)
        a2 = (a * nu) ** 2 + (b * nv) ** 2
        inside = tt ** 2 < a2
        out += np.where(inside, 2 * rho * a * b * np.sqrt(np.clip(a2 - tt ** 2, 0, None)) / a2, 0)
    return out


def main(path):
    rng = np.random.default_rng(33)
    theta = np.deg2rad(np.arange(NPROJ) * 180.0 / NPROJ)
    u = np.arange(COLS, dtype=float)
    proj = np.empty((NPROJ, ROWS, COLS))
    for row in range(ROWS):
        r = 48 * np.sqrt(max(1 - ((row - 7.5) / 10) ** 2, 0.05))
        proj[:, row, :] = 100 + 2000 * np.exp(-0.02 * project(r, theta, u))
    proj[:, :, 40] = 100 + (proj[:, :, 40] - 100) * 0.93  # a stripe
    proj = rng.poisson(proj)
    darks = rng.poisson(np.full((10, ROWS, COLS), 100.0))
    flats = rng.poisson(np.full((10, ROWS, COLS), 2100.0))
    data = np.concatenate([darks, flats, proj]).astype(np.uint16)
    key = np.array([2] * 10 + [1] * 10 + [0] * NPROJ, dtype=np.int32)
    angles = np.concatenate([np.zeros(20), np.rad2deg(theta)])
    with h5py.File(path, "w") as f:
        f.create_dataset("/entry1/tomo_entry/data/data", data=data, chunks=(1, ROWS, COLS))
        f.create_dataset("/entry1/tomo_entry/instrument/detector/image_key", data=key)
        f.create_dataset("/entry1/tomo_entry/data/rotation_angle", data=angles).attrs["units"] = "degrees"
        f["/entry1/tomo_entry"].attrs["NX_class"] = "NXentry"
        f["/entry1/tomo_entry"].attrs["definition"] = "NXtomo"


if __name__ == "__main__":
    main(sys.argv[1])
