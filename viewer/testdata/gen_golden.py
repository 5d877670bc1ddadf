#!/usr/bin/python3
"""Independent reference for viewer golden frames (frame_blend.png).

Recomputes, with numpy and matplotlib's own colormap, what the viewer must
draw for the scene built in golden_test.go:

  layer 1: uint16 volume (3, 48, 64), v = (1000x + 300y + 50z) mod 65536,
           slice z = 1, contrast [2000, 50000], gamma 0.7, viridis, opaque;
  layer 2: uint8 volume (3, 20, 30), v = (8x + 5y) mod 256, contrast
           [0, 255], magenta (black to (255, 0, 255)), opacity 0.5,
           translucent;
  view:    160 x 120 device pixels, centre (x=20, y=15) in data pixels,
           3 screen pixels per data pixel, nearest neighbour; background
           (0x26, 0x29, 0x30).

Run from the repository root: /usr/bin/python3 viewer/testdata/gen_golden.py
"""
import numpy as np
from matplotlib import colormaps
from PIL import Image

W, H, CX, CY, S = 160, 120, 20.0, 15.0, 3.0
BG = np.array([0x26, 0x29, 0x30], dtype=np.int64)


def sample(n, centre, size, limit):
    i = np.arange(n)
    d = np.floor(centre + ((i + 0.5) - size / 2) / S).astype(np.int64)
    return np.where((d >= 0) & (d < limit), d, -1)


def colours(v, lo, hi, gamma, table):
    t = np.clip((v.astype(np.float64) - lo) / (hi - lo), 0, 1) ** gamma
    return table[(t * 255 + 0.5).astype(np.int64)]


viridis = np.array([[int(round(c * 255)) for c in colormaps["viridis"].resampled(256)(i)[:3]] for i in range(256)])
magenta = np.array([[(i * top + 127) // 255 for top in (255, 0, 255)] for i in range(256)])

z, y, x = np.mgrid[0:3, 0:48, 0:64]
vol1 = ((1000 * x + 300 * y + 50 * z) % 65536).astype(np.uint16)
z, y, x = np.mgrid[0:3, 0:20, 0:30]
vol2 = ((8 * x + 5 * y) % 256).astype(np.uint8)

out = np.tile(BG, (H, W, 1))
for vol, lo, hi, gamma, table, alpha in ((vol1, 2000, 50000, 0.7, viridis, 256), (vol2, 0, 255, 1.0, magenta, 128)):
    plane = vol[1]
    xs = sample(W, CX, W, plane.shape[1])
    ys = sample(H, CY, H, plane.shape[0])
    for r in range(H):
        if ys[r] < 0:
            continue
        for c in range(W):
            if xs[c] < 0:
                continue
            s = colours(np.array(plane[ys[r], xs[c]]), lo, hi, gamma, table)
            if alpha >= 256:
                out[r, c] = s
            else:
                out[r, c] = (s * alpha + out[r, c] * (256 - alpha)) >> 8

Image.fromarray(out.astype(np.uint8), "RGB").convert("RGBA").save("viewer/testdata/frame_blend.png")
