#!/usr/bin/python3
"""Golden voxel conversions of voxlab's classification (processing/classify
converter and converter64), made with numpy. Run with /usr/bin/python3 from
this folder: it rewrites converter_golden.json.

get_data_converter is reimplemented here from cellfinder's
cellfinder/core/tools/tools.py (brainglobe/cellfinder's main branch of
2026): the largest exact integer of a float type is 2**nmant (2**23 for
float32, 2**52 for float64, as get_max_possible_int_value computes it,
though its docstring says 2**24), a type whose range fits the
destination's is converted unscaled, an integer type that does not is
scaled by out_abs_max / in_abs_max in float64, a float type in its own
type. Cubes are converted to float32; dataset_mean_std converts to
float64.
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def max_int(dt):
    if np.issubdtype(dt, np.integer):
        return int(np.iinfo(dt).max)
    return 2 ** int(np.finfo(dt).nmant)


def min_int(dt):
    if np.issubdtype(dt, np.integer):
        return int(np.iinfo(dt).min)
    return -(2 ** int(np.finfo(dt).nmant))


def get_data_converter(src, dest):
    in_min, in_max, out_min, out_max = min_int(src), max_int(src), min_int(dest), max_int(dest)
    in_abs_max, out_abs_max = max(in_max, abs(in_min)), max(out_max, abs(out_min))
    if src == dest:
        return np.asarray
    if out_min <= in_min < in_max <= out_max:
        return lambda d: np.asarray(d).astype(dest)
    if np.issubdtype(src, np.integer):
        return lambda d: ((np.asarray(d).astype(np.float64) / in_abs_max) * out_abs_max).astype(dest)
    return lambda d: ((np.asarray(d) / in_abs_max) * out_abs_max).astype(dest)


def values(dt):
    if np.issubdtype(dt, np.integer):
        i = np.iinfo(dt)
        v = [i.min, i.min + 1, -1, 0, 1, 2, 3, 255, 1000, 65535, 123456789, 2 ** 31 - 1, i.max - 1, i.max]
        return np.array([x for x in v if i.min <= x <= i.max], dtype=dt)
    return np.array([-3.4e38, -1e6, -1.5, -0.0, 0.0, 1e-7, 0.5, 1.0, 255.0, 65535.0, 16777217.0, 1e12, 3.4e38], dtype=dt)


def main():
    out = []
    for name in ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"]:
        dt = np.dtype(name).type
        v = values(dt)
        e = {"dtype": name, "raw_hex": v.astype(np.dtype(name).newbyteorder("<")).tobytes().hex()}
        for dest, key in [(np.float32, "float32_bits"), (np.float64, "float64_bits")]:
            r = get_data_converter(dt, dest)(v).astype(dest)
            e[key] = [int(x) for x in r.view(np.uint32 if dest == np.float32 else np.uint64)]
        out.append(e)
        print(name, get_data_converter(dt, np.float32)(v[-1:]), get_data_converter(dt, np.float64)(v[-1:]))
    with open(os.path.join(HERE, "converter_golden.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
