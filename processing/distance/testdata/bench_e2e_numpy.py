#!/usr/bin/python3
"""NumPy + OpenBLAS end to end, the baseline of `voxlab distance` (issue 14).

Loads a ground-truth stack GT and a submitted stack SUB (NPY, (n, box, box,
box) float32), normalises every map over all its voxels as voxlab does by
default, computes the l2 and corr matrices and saves them as OUT/l2.npy and
OUT/corr.npy (float64, ground truth x submitted), as voxlab distance
--metrics l2,corr --normalize median-zscore writes them:

- median-zscore: (x - median) / std, the median the lower of the two middle
  values for an even count (torch.median; np.partition finds it) and std
  with ddof=1 (torch.std), as the cryo-EM heterogeneity challenge does;
  --normalize none leaves the maps as they are;
- l2 = sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0)) and corr = a.b / n, the product
  by one BLAS gemm.

--dtype float32 normalises and multiplies in float32 (what the challenge's
tools hold maps in: about twice as fast, but ||a||^2 + ||b||^2 - 2ab loses
digits); the default float64 computes what voxlab computes. The script does
its best to be fast: one np.load per file, normalisation in place on the
whole stack, one gemm for both metrics.

Run: bench_e2e_numpy.py GT SUB OUT [--normalize median-zscore|none]
     [--dtype float64|float32]. Prints the time of each step on stderr.
"""
import argparse
import os
import sys
import time

import numpy as np


def normalise(x, how):
    """(x - median) / std of each row of x (n x voxels), in place."""
    if how == "none":
        return x
    k = (x.shape[1] - 1) // 2
    med = np.partition(x, k, axis=1)[:, k]
    std = x.std(axis=1, ddof=1)
    x -= med[:, None]
    x /= std[:, None]
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gt")
    ap.add_argument("sub")
    ap.add_argument("out")
    ap.add_argument("--normalize", default="median-zscore", choices=["median-zscore", "none"])
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    a = ap.parse_args()
    dt = np.dtype(a.dtype)
    t = [time.perf_counter()]
    gt = np.load(a.gt)
    sub = np.load(a.sub)
    gt = gt.reshape(gt.shape[0], -1)
    sub = sub.reshape(sub.shape[0], -1)
    t.append(time.perf_counter())
    # astype copies (float64) or is free (float32): either way the arrays
    # are normalised in place after it.
    gt = normalise(gt.astype(dt, copy=dt != gt.dtype), a.normalize)
    sub = normalise(sub.astype(dt, copy=dt != sub.dtype), a.normalize)
    t.append(time.perf_counter())
    ab = gt @ sub.T
    aa = np.einsum("ij,ij->i", gt, gt)
    bb = np.einsum("ij,ij->i", sub, sub)
    l2 = np.sqrt(np.maximum(aa[:, None] + bb[None, :] - 2 * ab, 0)).astype(np.float64)
    corr = (ab / gt.shape[1]).astype(np.float64)
    t.append(time.perf_counter())
    os.makedirs(a.out, exist_ok=True)
    np.save(os.path.join(a.out, "l2.npy"), l2)
    np.save(os.path.join(a.out, "corr.npy"), corr)
    t.append(time.perf_counter())
    steps = ["load", "normalise", "distances", "save"]
    print("numpy: " + ", ".join(f"{s} {t[i + 1] - t[i]:.3f}s" for i, s in enumerate(steps)), file=sys.stderr)


if __name__ == "__main__":
    main()
