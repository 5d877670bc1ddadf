#!/usr/bin/python3
"""Write a large OME-Zarr 0.4 pyramid for looking at the viewer's level
choice by hand: Z planes of N x N uint16 (default 600 of 2048 x 2048,
about 4.8 GB before compression), 4 levels halving y and x, Blosc-LZ4
with byte shuffle, one plane of 1024 x 1024 per chunk at level 0.

    /usr/bin/python3 scripts/ome-zarr-pyramid.py /tmp/big.ome.zarr [Z] [N]

The image is light-sheet-like: a dim tissue outline with bright round
cells, drifting with z, so every level shows structure.
"""
import sys

import numcodecs
import numpy as np
import zarr

out = sys.argv[1]
Z = int(sys.argv[2]) if len(sys.argv) > 2 else 600
N = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
LEVELS = 4

rng = np.random.default_rng(1)
yy, xx = np.mgrid[0:N, 0:N].astype(np.float32) / N
cells = rng.uniform(0, 1, size=(4000, 3)).astype(np.float32)  # z, y, x

g = zarr.open_group(out, mode="w")
comp = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
arrays = []
for i in range(LEVELS):
    n = N >> i
    c = min(1024, n)
    arrays.append(g.create_dataset(str(i), shape=(Z, n, n), chunks=(1, c, c), dtype="<u2", compressor=comp))

for z in range(Z):
    t = z / Z
    r = np.hypot(yy - 0.5, (xx - 0.5) * 1.3)
    plane = 300 + 900 * np.clip(1 - r / (0.45 - 0.1 * t), 0, 1) ** 0.5
    # Cells within 0.01 of this plane, drawn as discs of 6 pixels.
    near = cells[np.abs(cells[:, 0] - t) < 0.01]
    for cz, cy, cx in near:
        y0, x0 = int(cy * N), int(cx * N)
        ys, xs = slice(max(y0 - 6, 0), min(y0 + 7, N)), slice(max(x0 - 6, 0), min(x0 + 7, N))
        d = (np.arange(ys.start, ys.stop)[:, None] - y0) ** 2 + (np.arange(xs.start, xs.stop)[None, :] - x0) ** 2
        plane[ys, xs] += 3000 * (d < 36)
    plane += rng.normal(0, 20, size=plane.shape)
    level = np.clip(plane, 0, 65535).astype(np.uint16)
    for i, a in enumerate(arrays):
        a[z] = level
        if i + 1 < LEVELS:
            h = level.shape[0] // 2
            level = level.reshape(h, 2, h, 2).mean(axis=(1, 3)).astype(np.uint16)
    if z % 50 == 0:
        print(f"plane {z}/{Z}", flush=True)

g.attrs["multiscales"] = [{
    "version": "0.4",
    "name": "pyramid",
    "axes": [{"name": a, "type": "space", "unit": "micrometer"} for a in "zyx"],
    "datasets": [{"path": str(i), "coordinateTransformations": [{"type": "scale", "scale": [5.0, 2.0 * 2**i, 2.0 * 2**i]}]} for i in range(LEVELS)],
}]
print("wrote", out)
