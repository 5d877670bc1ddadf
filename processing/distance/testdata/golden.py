#!/usr/bin/python3
"""Golden distance matrices for processing/distance, computed naively with
NumPy, pair by pair, from the definitions (not from voxlab's formulation):

- masks: a sphere of radius R voxels about voxel (box//2, box//2, box//2);
- median-zscore: (x - median) / std over the masked voxels, median the
  lower middle value (torch.median) and std with ddof=1 (torch.std), as
  the cryo-EM heterogeneity challenge normalises;
- l2 = ||a - b|| from the difference itself; l2sq its square;
- corr = a.b / n; corr-distance = 1 - corr;
- bioem: Cossio & Hummer 2013 eq. 10 as the challenge evaluates it, the
  logarithms' arguments clamped at float32's smallest normal number;
- fsc: full-box maps (zero outside the mask, after normalisation),
  numpy.fft.fftn, shells |k| in [s - 1/2, s + 1/2) for s = 1..box//2 with
  k from numpy.fft.fftfreq(box, 1/box); 1 - mean FSC;
- res: box * voxel / s at the first shell s with FSC < 0.5, or
  box * voxel / (box//2) when there is none.

Writes little-endian raw files (float32 maps and masks, float64 matrices)
and golden.json describing them. Run from this folder: ./golden.py
"""
import json
import math

import numpy as np

TINY = float(np.finfo(np.float32).tiny)
METRICS = ["l2", "l2sq", "corr", "corr-distance", "bioem", "fsc", "res"]


def blob_maps(rng, n, box, t, noise):
    """Maps of three Gaussian blobs whose positions move with t."""
    g = np.indices((box, box, box)).astype(np.float64)
    out = np.empty((n, box, box, box), np.float32)
    c = box / 2
    for i in range(n):
        v = np.zeros((box, box, box))
        for j, (amp, w) in enumerate([(1.0, 0.18), (0.7, 0.12), (0.5, 0.1)]):
            ang = t[i] * 1.5 + j * 2.1
            p = (c + 0.2 * box * math.cos(ang), c + 0.2 * box * math.sin(ang), c + 0.1 * box * (j - 1))
            d2 = sum((g[k] - p[k]) ** 2 for k in range(3))
            v += amp * np.exp(-d2 / (2 * (w * box) ** 2))
        v += noise * rng.standard_normal(v.shape)
        out[i] = v
    return out


def sphere(box, radius):
    z, y, x = np.indices((box, box, box)) - box // 2
    return (z * z + y * y + x * x) <= radius * radius


def prepare(m, mask, norm):
    x = m.astype(np.float64)[mask]
    if norm == "median-zscore":
        med = np.sort(x)[(len(x) - 1) // 2]
        x = (x - med) / x.std(ddof=1)
    cube = np.zeros(m.shape)
    cube[mask] = x
    return x, cube


def bioem(a, b):
    n = len(a)
    co, cc, coo, ccc, coc = a.sum(), b.sum(), (a * a).sum(), (b * b).sum(), (a * b).sum()
    t2 = n * (ccc * coo - coc * coc) + 2 * co * coc * cc - ccc * co * co - coo * cc * cc
    t3 = (n - 2) * (n * ccc - cc * cc)
    logp = (math.pi / 2 + math.log(2 * math.pi * math.e) * (1 - n / 2)
            + math.log(max(t2, TINY)) * (1.5 - n / 2) + math.log(max(t3, TINY)) * (n / 2 - 2))
    return -logp


def fsc_curve(ca, cb):
    box = ca.shape[0]
    f = np.fft.fftfreq(box, 1 / box)
    kz, ky, kx = np.meshgrid(f, f, f, indexing="ij")
    r = np.sqrt(kz**2 + ky**2 + kx**2)
    fa, fb = np.fft.fftn(ca), np.fft.fftn(cb)
    out = []
    for s in range(1, box // 2 + 1):
        sel = (r >= s - 0.5) & (r < s + 0.5)
        num = np.sum(fa[sel] * np.conj(fb[sel])).real
        den = np.linalg.norm(fa[sel]) * np.linalg.norm(fb[sel])
        out.append(num / den if den > 0 else 0.0)
    return np.array(out)


def matrices(gt, sub, mask, norm, voxel):
    box = gt.shape[1]
    K = box // 2
    pg = [prepare(m, mask, norm) for m in gt]
    ps = [prepare(m, mask, norm) for m in sub]
    res = {k: np.zeros((len(gt), len(sub))) for k in METRICS}
    for i, (a, ca) in enumerate(pg):
        for j, (b, cb) in enumerate(ps):
            d = np.linalg.norm(a - b)
            res["l2"][i, j] = d
            res["l2sq"][i, j] = d * d
            res["corr"][i, j] = np.dot(a, b) / len(a)
            res["corr-distance"][i, j] = 1 - np.dot(a, b) / len(a)
            res["bioem"][i, j] = bioem(a, b)
            c = fsc_curve(ca, cb)
            res["fsc"][i, j] = 1 - c.mean()
            below = np.nonzero(c < 0.5)[0]
            s = below[0] + 1 if len(below) else K
            res["res"][i, j] = box * voxel / s
    return res


def main():
    rng = np.random.default_rng(7)
    cases = []
    for name, box, ngt, nsub, radius, norm in [
        ("even-sphere-zscore", 12, 7, 4, 5.0, "median-zscore"),
        ("odd-nomask-none", 9, 5, 3, 0, "none"),
        ("odd-sphere-zscore", 11, 6, 3, 4.5, "median-zscore"),
    ]:
        tg = np.linspace(0, 1, ngt)
        ts = rng.uniform(0, 1, nsub)
        gt = blob_maps(rng, ngt, box, tg, 0.05)
        sub = blob_maps(rng, nsub, box, ts, 0.3)
        mask = sphere(box, radius) if radius > 0 else np.ones((box,) * 3, bool)
        voxel = 2.146
        gt.astype("<f4").tofile(f"{name}-gt.f32")
        sub.astype("<f4").tofile(f"{name}-sub.f32")
        mask.astype("<f4").tofile(f"{name}-mask.f32")
        res = matrices(gt, sub, mask, norm, voxel)
        for k in METRICS:
            res[k].astype("<f8").tofile(f"{name}-{k}.f64")
        cases.append(dict(name=name, box=box, ngt=ngt, nsub=nsub, radius=radius,
                          normalize=norm, voxel=voxel, metrics=METRICS))
    with open("golden.json", "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
