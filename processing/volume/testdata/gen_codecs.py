#!/usr/bin/python3
"""Golden TIFF files with Zstandard compression (TIFF compression 50000)
and the floating-point predictor (predictor 3), for the Go reader's tests.

Debian 12's tifffile (python3-tifffile 2023.2.3) writes these only with
imagecodecs, which Debian does not package, so each file is made by
libtiff's own tiffcp (Debian's libtiff-tools, libtiff 4.5 built with
zstd) from an uncompressed TIFF that tifffile wrote:

    tifffile.imwrite(src, values)                   # uncompressed
    tiffcp -c zstd:3 [-t -w 16 -l 16] [-r 5] [-B] src out.tif

("-c CODEC:3" sets predictor 3, ":2" the horizontal predictor; -t -w -l
tiles; -r rows per strip; -B big-endian). There is no big-endian file
with predictor 3: libtiff 4.5 does not read back what it writes with
-B and predictor 3 (its decoder returns each sample byte-swapped), so
no field tool here makes one that is known right. Each file is then converted
back by tiffcp -c none (libtiff decodes it) and read by tifffile, and
must equal the values, which are saved beside it as NAME.npy.

Run with Debian's python from this folder (apt-get install
python3-tifffile libtiff-tools):
    cd processing/volume/testdata && /usr/bin/python3 gen_codecs.py
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np
import tifffile

OUT = "codecs"
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
SHAPE = (3, 37, 53)  # odd sizes: partial strips, tiles overhanging the image


def values(dtype):
    dt = np.dtype(dtype)
    i = np.arange(np.prod(SHAPE), dtype=np.int64).reshape(SHAPE)
    if dt.kind == "f":
        v = np.sin(i * 0.01) * 1000.0 + i * 0.125
        v = v.astype(dt)
        v.flat[5] = np.nan
        v.flat[7] = -np.inf
        v.flat[11] = -0.0
        v.flat[13] = np.finfo(dt).tiny / 4  # a subnormal
        return v
    return ((i * 7919) % 60000).astype(dt)


def make(name, dtype, opts, samples=0):
    v = values(dtype)
    kw = {}
    if samples:
        # Two samples per pixel, interleaved (the predictor then
        # differences each byte with the same byte of the previous
        # pixel); the reader is checked on sample 1, saved as the NPY.
        v = np.stack([v, v * -2], axis=-1)
        kw = dict(planarconfig="contig", extrasamples=[0])
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.tif")
        tifffile.imwrite(src, v, photometric="minisblack", **kw)
        out = os.path.join(OUT, name + ".tif")
        subprocess.run(["tiffcp"] + opts + [src, out], check=True)
        back = os.path.join(tmp, "back.tif")
        subprocess.run(["tiffcp", "-c", "none", out, back], check=True)
        got = tifffile.imread(back)
    assert got.shape == v.shape and np.array_equal(got.astype(v.dtype).view(np.uint8), v.view(np.uint8)), name
    if samples:
        v = np.ascontiguousarray(v[..., 1])
    np.save(os.path.join(OUT, name + ".npy"), v)


make("zstd_u16", "<u2", ["-c", "zstd", "-r", "8"])
make("zstd_pred2_u16", "<u2", ["-c", "zstd:2", "-r", "8"])
make("zstd_pred3_f32", "<f4", ["-c", "zstd:3", "-r", "8"])
make("zstd_pred3_f64", "<f8", ["-c", "zstd:3"])
make("zstd_pred3_f32_tiled", "<f4", ["-c", "zstd:3", "-t", "-w", "16", "-l", "16"])
make("zstd_f32_be", "<f4", ["-c", "zstd", "-B", "-r", "8"])
make("zstd_pred2_u16_be", "<u2", ["-c", "zstd:2", "-B"])
make("deflate_pred3_f32", "<f4", ["-c", "zip:3", "-r", "8"])
make("deflate_pred3_f64_tiled", "<f8", ["-c", "zip:3", "-t", "-w", "32", "-l", "16"])
make("lzw_pred3_f32", "<f4", ["-c", "lzw:3", "-r", "8"])
make("lzw_pred3_f64", "<f8", ["-c", "lzw:3"])
make("zstd_pred3_f32_samples", "<f4", ["-c", "zstd:3", "-r", "8"], samples=2)
print("wrote", len(os.listdir(OUT)), "files in", OUT)
