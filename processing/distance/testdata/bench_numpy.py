#!/usr/bin/python3
"""NumPy baseline for the distance benchmark (issue 7).

In memory, box 64, 200 ground-truth x 40 submitted maps: the l2 distance
matrix as sqrt(|a|^2 + |b|^2 - 2 a.b) with the product a.b done by NumPy's
BLAS (OpenBLAS on Debian), and the correlation matrix a.b / N. Prints pairs
per second for float32 (what the challenge's tools hold maps as) and
float64. Run: python3 bench_numpy.py [repeats]
"""
import sys
import time

import numpy as np

BOX, NGT, NSUB = 64, 200, 40


def l2(a, b):
    aa = np.einsum("ij,ij->i", a, a)
    bb = np.einsum("ij,ij->i", b, b)
    d2 = aa[:, None] + bb[None, :] - 2.0 * (a @ b.T)
    return np.sqrt(np.maximum(d2, 0))


def corr(a, b):
    return (a @ b.T) / a.shape[1]


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rng = np.random.default_rng(1)
    n = BOX**3
    try:
        from threadpoolctl import threadpool_info  # optional
        print(threadpool_info())
    except ImportError:
        np.show_config()
    z, y, x = np.indices((BOX,) * 3) - BOX // 2
    sphere = ((z * z + y * y + x * x) <= (BOX // 2) ** 2).reshape(-1)
    for masked in (False, True):
        for dt in (np.float32, np.float64):
            a = rng.standard_normal((NGT, n), dtype=np.float32).astype(dt)
            b = rng.standard_normal((NSUB, n), dtype=np.float32).astype(dt)
            if masked:  # the challenge's maps[:, mask]: only the masked voxels
                a, b = a[:, sphere], b[:, sphere]
            for name, fn in (("l2", l2), ("corr", corr)):
                fn(a, b)  # warm up
                best = float("inf")
                for _ in range(reps):
                    t0 = time.perf_counter()
                    fn(a, b)
                    best = min(best, time.perf_counter() - t0)
                what = "sphere r=32" if masked else "no mask"
                print(f"{np.dtype(dt).name} {name} ({what}, {a.shape[1]} voxels): best {best*1e3:.1f} ms, {NGT*NSUB/best:,.0f} pairs/s")


if __name__ == "__main__":
    main()
