#!/usr/bin/python3
"""Generates testdata/types/: every pixel type the field uses in NPY
(numpy), MRC (mrcfile, modes 0, 1, 2, 6 and 12) and TIFF (tifffile,
SampleFormat 2 for the signed types), tiled TIFFs (tifffile: none,
Deflate and Deflate with the predictor; tiles that overhang the image)
OME-TIFFs with channels (tifffile's OME writer) and an ImageJ hyperstack
with channels. Run from this folder
with Debian's python3:

    /usr/bin/python3 gen_types.py

The Go tests recompute the values (types_test.go): g = 7z + 3y + 5x + k,
and per dtype int8 g%251-125, uint8 g%251, int16 g%60000-30000, uint16
g%60000, int32 (g%60000-30000)*70001, uint32 (g%60000)*70001, float16,
float32 and float64 (g%97)*0.25-3.5; channel c of an OME-TIFF has k = 11c.
"""
import os
import shutil

import mrcfile
import numpy as np
import tifffile

SHAPE = (3, 4, 5)


def values(dtype, shape=SHAPE, k=0):
    z, y, x = np.indices(shape)
    g = z * 7 + y * 3 + x * 5 + k
    dt = np.dtype(dtype)
    v = {
        "int8": lambda: g % 251 - 125,
        "uint8": lambda: g % 251,
        "int16": lambda: g % 60000 - 30000,
        "uint16": lambda: g % 60000,
        "int32": lambda: (g % 60000 - 30000) * 70001,
        "uint32": lambda: (g % 60000) * 70001,
    }.get(dt.name, lambda: (g % 97) * 0.25 - 3.5)()
    return v.astype(dt)


def main():
    d = "types"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    # NPY: every type, both byte orders for the wider ones.
    for dt in ["i1", "<i2", ">i2", "<i4", ">i4", "<u4", ">u4"]:
        order = "be" if dt[0] == ">" else "le"
        np.save(f"{d}/{np.dtype(dt).name}_{order}.npy", values(dt))
    np.save(f"{d}/int64.npy", values("<i4").astype("<i8"))  # still refused
    # MRC: modes 0 (int8), 1 (int16), 2, 6 and 12 (float16).
    for mode, dt in [(0, "i1"), (1, "<i2"), (2, "<f4"), (6, "<u2"), (12, "<f2")]:
        with mrcfile.new(f"{d}/mode{mode}.mrc", overwrite=True) as m:
            m.set_data(values(dt))
            m.voxel_size = 1.5
        with mrcfile.open(f"{d}/mode{mode}.mrc") as m:
            assert m.header.mode == mode, (mode, m.header.mode)
    # TIFF: every integer type (SampleFormat 1 or 2) and float.
    for dt in ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<f4", "<f8", ">i2", ">i4"]:
        order = "be" if dt[0] == ">" else "le"
        tifffile.imwrite(f"{d}/{np.dtype(dt).name}_{order}.tif", values(dt), byteorder=dt[0] if dt[0] in "<>" else "<",
                         photometric="minisblack", compression=None)
    # Tiled TIFF: 2 planes of 40 x 56 in 16 x 16 tiles (the last row and
    # column of tiles overhang), as slide scanners and stitchers write.
    big = (2, 40, 56)
    tifffile.imwrite(f"{d}/tiled_u16.tif", values("<u2", big), tile=(16, 16), photometric="minisblack")
    tifffile.imwrite(f"{d}/tiled_deflate_i16.tif", values("<i2", big), tile=(16, 16), compression="zlib",
                     photometric="minisblack")
    tifffile.imwrite(f"{d}/tiled_pred_f32.tif", values("<f4", big), tile=(16, 32), compression="zlib",
                     photometric="minisblack")
    tifffile.imwrite(f"{d}/tiled_pred_u16.tif", values("<u2", big), tile=(16, 16), compression="zlib",
                     predictor=2, photometric="minisblack")
    # OME-TIFF: Z x C x Y x X, 3 channels, one page per plane; and a
    # C x Z x Y x X order (DimensionOrder XYZCT) with physical sizes.
    zcyx = np.stack([values("<u2", SHAPE, 11 * c) for c in range(3)], axis=1)
    tifffile.imwrite(f"{d}/zcyx.ome.tif", zcyx, metadata={"axes": "ZCYX"}, photometric="minisblack")
    czyx = np.stack([values("<u2", SHAPE, 11 * c) for c in range(2)], axis=0)
    tifffile.imwrite(f"{d}/czyx.ome.tif", czyx, photometric="minisblack",
                     metadata={"axes": "CZYX", "PhysicalSizeX": 0.25, "PhysicalSizeY": 0.5, "PhysicalSizeZ": 2.0})
    # An ImageJ hyperstack with 2 channels (planes in C, Z order) and a
    # voxel size; channel c has k = 11c.
    ij = np.stack([values("<u2", SHAPE, 11 * c) for c in range(2)], axis=1)
    tifffile.imwrite(f"{d}/imagej_zcyx.tif", ij, imagej=True, resolution=(1 / 0.5, 1 / 0.25),
                     metadata={"axes": "ZCYX", "spacing": 2.0, "unit": "um"})
    # Several samples per pixel: RGB (interleaved), 2 channels stored
    # separately, and 2 channels interleaved in tiles with the
    # predictor (differences with the same sample of the previous pixel);
    # a palette image, which stays refused.
    def samples(n, dt, shape=SHAPE):
        return np.stack([values(dt, shape, 11 * c) for c in range(n)], axis=-1)
    tifffile.imwrite(f"{d}/rgb_u8.tif", samples(3, "u1"), photometric="rgb", planarconfig="contig")
    tifffile.imwrite(f"{d}/separate_i16.tif", np.moveaxis(samples(2, "<i2"), -1, 1), photometric="minisblack",
                     planarconfig="separate", metadata=None)
    tifffile.imwrite(f"{d}/contig_tiled_pred_u16.tif", samples(2, "<u2", (2, 40, 56)), photometric="minisblack",
                     planarconfig="contig", tile=(16, 16), compression="zlib", predictor=2, extrasamples=[0],
                     metadata=None)
    # Folders of 2D planes of several samples.
    for name, planes in [("rgb_planes", [dict(data=p, photometric="rgb") for p in samples(3, "u1")]),
                         ("separate_planes", [dict(data=np.moveaxis(p, -1, 0), photometric="minisblack",
                                                   planarconfig="separate", metadata=None)
                                              for p in samples(2, "<i2")])]:
        os.makedirs(f"{d}/{name}")
        for z, kw in enumerate(planes):
            tifffile.imwrite(f"{d}/{name}/plane{z}.tif", **kw)
    tifffile.imwrite(f"{d}/palette.tif", values("u1"), photometric="palette",
                     colormap=np.tile(np.arange(256, dtype="<u2") * 257, (3, 1)))
    # OME-TIFF with 2 time points of 2 channels (T, Z, C): voxlab reads
    # time point 0; time point 1 holds k + 1000.
    tzcyx = np.stack([np.stack([values("<u2", SHAPE, 11 * c + 1000 * t) for c in range(2)], axis=1)
                      for t in range(2)])
    tifffile.imwrite(f"{d}/tzcyx.ome.tif", tzcyx, metadata={"axes": "TZCYX"}, photometric="minisblack")
    # OME-TIFF, tiled, one channel.
    tifffile.imwrite(f"{d}/tiled.ome.tif", values("<u2", big), tile=(16, 16), metadata={"axes": "ZYX"},
                     photometric="minisblack")
    for name in ["zcyx", "czyx", "tiled"]:
        with tifffile.TiffFile(f"{d}/{name}.ome.tif") as t:
            assert t.is_ome, name


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    main()
