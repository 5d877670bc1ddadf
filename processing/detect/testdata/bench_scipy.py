#!/usr/bin/python3
"""Baseline for the 2D stage benchmark: the same per-plane steps as
cellfinder's CPU path with SciPy, on 2048 x 2048 float32 planes.

Run: /usr/bin/python3 bench_scipy.py [planes]   (numpy, scipy)
Prints planes per second (single process, as cellfinder's per-plane filter).
"""
import sys
import time

import numpy as np
from scipy.ndimage import gaussian_filter, laplace
from scipy.signal import medfilt2d

CLIP = 65533.0
SIGMA = 1.6  # 0.2 x 8 px soma diameter


def plane_stage(img):
    img = np.clip(img, 0, CLIP)
    img = medfilt2d(img)
    img = img - img.min()
    img = img / (img.max() or 1)
    img = gaussian_filter(img, SIGMA)
    img = laplace(img)
    img = -img
    img = img - img.min()
    img = img / img.max() * CLIP
    thr = img.mean() + 10 * img.std(ddof=1)
    return img > thr


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    rng = np.random.default_rng(1)
    planes = [(300 + rng.normal(0, 20, (2048, 2048))).astype(np.float32) for _ in range(2)]
    plane_stage(planes[0])  # warm up
    t = time.perf_counter()
    for i in range(n):
        plane_stage(planes[i % 2])
    dt = time.perf_counter() - t
    print(f"scipy 2D stage, 2048x2048 float32: {n / dt:.2f} planes/s ({dt / n * 1000:.0f} ms/plane, {n} planes)")


if __name__ == "__main__":
    main()
