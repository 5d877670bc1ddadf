#!/usr/bin/python3
"""Independent reference for render3d's axis-aligned projections.

Writes two small volumes and NumPy's max, min and mean of each along z
(axis 0), y (axis 1) and x (axis 2):

  vol_u16.npy   uint16 (7, 9, 11), random in [0, 65535], seed 18
  vol_f32.npy   float32 (5, 6, 8), normal(0, 100), seed 19
  <name>_<op>_<axis>.npy   float64 results (op: max, min, mean)

Run from the repository root: /usr/bin/python3 viewer/render3d/testdata/gen_golden.py
"""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(18)
u16 = rng.integers(0, 65536, size=(7, 9, 11), dtype=np.uint16)
rng = np.random.default_rng(19)
f32 = (rng.normal(0, 100, size=(5, 6, 8))).astype(np.float32)
for name, vol in (("vol_u16", u16), ("vol_f32", f32)):
    np.save(os.path.join(here, name + ".npy"), vol)
    for op in ("max", "min", "mean"):
        for axis in range(3):
            r = getattr(vol.astype(np.float64), op)(axis=axis)
            # (1, a, b): voxlab reads NPY volumes of three dimensions.
            np.save(os.path.join(here, "%s_%s_%d.npy" % (name, op, axis)), r[np.newaxis])
