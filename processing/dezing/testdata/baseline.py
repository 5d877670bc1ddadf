#!/usr/bin/env python3
"""Baseline for the dezinging benchmark: scipy.ndimage.median_filter plus the
remove_outlier replacement in NumPy, on 64 x 512 x 512 (uint16 and float32),
the field's reference implementation of the step. Prints voxels/s.

Run: /usr/bin/python3 processing/dezing/testdata/baseline.py [repeats]
"""
import sys
import time

import numpy as np
from scipy.ndimage import median_filter


def remove_outlier(data, kernel, dif):
    med = median_filter(data, size=kernel, mode="nearest")
    diff = np.abs(data.astype(np.float32) - med.astype(np.float32))
    return np.where(diff >= np.float32(dif), med, data)


def phantom(shape, dtype, seed=1):
    """Smooth background plus noise and 0.1% zingers, like the benchmark's."""
    rng = np.random.default_rng(seed)
    z, y, x = np.indices(shape, dtype=np.float32)
    base = 20000 + 8000 * np.sin(x / 40) * np.cos(y / 55) + 50 * z / shape[0]
    data = base + rng.normal(0, 200, shape).astype(np.float32)
    hits = rng.random(shape) < 0.001
    data[hits] = 60000
    return np.clip(data, 0, 65535).astype(dtype)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    shape = (64, 512, 512)
    for dtype in (np.uint16, np.float32):
        for kernel in (3, 5):
            data = phantom(shape, dtype)
            best = float("inf")
            for _ in range(repeats if kernel == 3 else 1):
                t0 = time.perf_counter()
                remove_outlier(data, kernel, 1000)
                best = min(best, time.perf_counter() - t0)
            n = data.size
            print(f"{np.dtype(dtype).name} kernel {kernel}: {best:.3f} s, {n / best / 1e6:.2f} M voxels/s")


if __name__ == "__main__":
    main()
