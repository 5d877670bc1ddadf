#!/usr/bin/env python3
"""Golden files for processing/dezing, made with the field's tools:
scipy.ndimage.median_filter(size=k, mode='nearest') plus the remove_outlier
replacement in NumPy, NumPy's mean/median for the darks and flats, and the
flat-field correction and -log in NumPy (float32).

Writes golden.json (the cases) and raw little-endian .bin arrays beside it.
Run: /usr/bin/python3 processing/dezing/testdata/gen_golden.py
(scipy 1.10.1, numpy 1.24.2 made the committed files).
"""
import json
import os

import numpy as np
from scipy.ndimage import median_filter

HERE = os.path.dirname(os.path.abspath(__file__))


def remove_outlier(data, kernel, dif):
    med = median_filter(data, size=kernel, mode="nearest")
    if data.dtype == np.uint16:
        diff = np.abs(data.astype(np.int64) - med.astype(np.int64))
        return np.where(diff >= dif, med, data)
    diff = np.abs(data - med)  # float32 arithmetic, as the pipeline's
    return np.where(diff >= np.float32(dif), med, data)


def scan(rng, shape, dtype, level):
    """A smooth frame with noise, and hot and cold zingers."""
    z, y, x = np.indices(shape, dtype=np.float64)
    base = level + 0.3 * level * np.sin(x / 5.0) * np.cos(y / 7.0) + 20 * z
    data = base + rng.normal(0, 60, shape)
    hot = rng.random(shape) < 0.02
    cold = rng.random(shape) < 0.01
    data[hot] += rng.uniform(2000, 30000, hot.sum())
    data[cold] -= rng.uniform(1500, 5000, cold.sum())
    data = np.clip(data, 0, 65535)
    if dtype == np.uint16:
        return np.round(data).astype(np.uint16)
    return data.astype(np.float32)


def save(name, a):
    a = np.ascontiguousarray(a)
    a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(HERE, name))
    return {"file": name, "dtype": a.dtype.name, "shape": list(a.shape)}


def main():
    rng = np.random.default_rng(20240611)
    cases = []
    # remove_outlier alone: both dtypes, several kernels and thresholds,
    # shapes with odd sizes so that every edge is exercised.
    for dtype in (np.uint16, np.float32):
        data = scan(rng, (9, 17, 22), dtype, 20000)
        name = np.dtype(dtype).name
        src = save(f"outlier_{name}.bin", data)
        for kernel, dif in ((3, 1000), (3, 200), (5, 1000), (7, 500), (13, 800)):
            out = remove_outlier(data, kernel, dif)
            assert out.dtype == data.dtype
            cases.append({
                "kind": "outlier", "input": src, "kernel": kernel, "dif": dif,
                "output": save(f"outlier_{name}_k{kernel}_d{dif}.bin", out),
                "replaced": int((out != data).sum()),
            })
    # The pipeline: darks and flats dezinged as their own stacks, reduced,
    # and the flat-field correction with -log.
    for dtype in (np.uint16, np.float32):
        name = np.dtype(dtype).name
        proj = scan(rng, (11, 13, 16), dtype, 12000)
        darks = scan(rng, (4, 13, 16), dtype, 300)
        flats = scan(rng, (5, 13, 16), dtype, 30000)
        kernel, dif = 3, 1000
        dp = remove_outlier(proj, kernel, dif)
        dd = remove_outlier(darks, kernel, dif)
        df = remove_outlier(flats, kernel, dif)
        case = {
            "kind": "pipeline", "kernel": kernel, "dif": dif,
            "projections": save(f"scan_{name}_proj.bin", proj),
            "darks": save(f"scan_{name}_darks.bin", darks),
            "flats": save(f"scan_{name}_flats.bin", flats),
            "dezinged": save(f"scan_{name}_dezinged.bin", dp),
        }
        for red in ("mean", "median"):
            if red == "mean":
                dark = np.mean(dd, axis=0, dtype=np.float64).astype(np.float32)
                flat = np.mean(df, axis=0, dtype=np.float64).astype(np.float32)
            else:
                dark = np.median(dd.astype(np.float64), axis=0).astype(np.float32)
                flat = np.median(df.astype(np.float64), axis=0).astype(np.float32)
            case[f"dark_{red}"] = save(f"scan_{name}_dark_{red}.bin", dark)
            case[f"flat_{red}"] = save(f"scan_{name}_flat_{red}.bin", flat)
            den = np.maximum(flat - dark, np.float32(1e-7))
            ff = (dp.astype(np.float32) - dark) / den
            low, high = np.float32(-1e12), np.float32(1e12)
            ff = np.clip(ff, low, high).astype(np.float32)
            case[f"flatfield_{red}"] = save(f"scan_{name}_ff_{red}.bin", ff)
            ml = (-np.log(ff.astype(np.float64))).astype(np.float32)
            case[f"minuslog_{red}"] = save(f"scan_{name}_ml_{red}.bin", ml)
        cases.append(case)
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump({"generator": "gen_golden.py", "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
