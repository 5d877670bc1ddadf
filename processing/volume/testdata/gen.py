#!/usr/bin/python3
"""Generates the golden files of processing/volume with the field's tools
(numpy, mrcfile, tifffile, h5py; Pillow for LZW and PackBits TIFF). Run from this folder with Debian's python3:

    /usr/bin/python3 gen.py

The Go tests recompute the same formulas (see golden_test.go) and compare
voxel by voxel, so the files are checked against an independent writer.
"""
import os
import shutil

import numpy as np

SHAPE = (3, 4, 5)
BIG = (2, 64, 80)  # large enough for LZW's codes to grow past 9 bits


def grid(shape=SHAPE, k=0):
    z, y, x = np.indices(shape)
    return z * 7 + y * 3 + x * 5 + k


def ints(mod, shape=SHAPE, k=0):
    return grid(shape, k) % mod


def floats(shape=SHAPE, k=0):
    # Exact in float32: quarters between -3.5 and 20.5.
    return (grid(shape, k) % 97) * 0.25 - 3.5


def stack(n, box):
    return np.stack([floats((box, box, box), 11 * i) for i in range(n)])


def npy():
    from numpy.lib import format as fmt
    d = "npy"
    os.makedirs(d, exist_ok=True)
    np.save(f"{d}/u1.npy", ints(251).astype("u1"))
    for t in ["<u2", ">u2"]:
        np.save(f"{d}/u2{'le' if t[0] == '<' else 'be'}.npy", ints(60000).astype(t))
    for t in ["<f4", ">f4", "<f8", ">f8"]:
        np.save(f"{d}/{t[1:]}{'le' if t[0] == '<' else 'be'}.npy", floats().astype(t))
    for v in [(2, 0), (3, 0)]:
        with open(f"{d}/v{v[0]}.npy", "wb") as f:
            fmt.write_array(f, ints(60000).astype("<u2"), version=v)
    np.save(f"{d}/plane.npy", floats((1, 4, 5))[0].astype("<f4"))
    np.save(f"{d}/stack4d.npy", stack(3, 4).astype("<f4"))
    np.save(f"{d}/flat.npy", stack(3, 4).reshape(3, 64).astype("<f4"))
    # Bad inputs.
    np.save(f"{d}/fortran.npy", np.asfortranarray(ints(60000).astype("<u2")))
    np.save(f"{d}/int16.npy", ints(100).astype("<i2"))
    np.save(f"{d}/notcube.npy", np.zeros((3, 63), "<f4"))
    np.save(f"{d}/vector.npy", np.zeros(7, "<f4"))
    with open(f"{d}/u2le.npy", "rb") as f:
        b = f.read()
    with open(f"{d}/truncated.npy", "wb") as f:
        f.write(b[:-10])
    with open(f"{d}/truncated_header.npy", "wb") as f:
        f.write(b[:40])
    with open(f"{d}/wrongmagic.npy", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + b[8:])
    # A header whose shape product overflows int64.
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }"
    hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
    with open(f"{d}/overflow.npy", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode())


def mrc():
    import mrcfile
    d = "mrc"
    os.makedirs(d, exist_ok=True)
    vs = (1.5, 2.0, 2.5)  # x, y, z in Å
    data = {
        0: (ints(200) - 100).astype(np.int8),
        1: (ints(2000) - 1000).astype(np.int16),
        2: floats().astype(np.float32),
        6: ints(60000).astype(np.uint16),
    }
    for mode, a in data.items():
        with mrcfile.new(f"{d}/mode{mode}.mrc", overwrite=True) as m:
            m.set_data(a)
            m.voxel_size = vs
    with mrcfile.new(f"{d}/bigendian.mrc", overwrite=True) as m:
        m.set_data(floats().astype(">f4"))
        m.voxel_size = vs
    with mrcfile.new(f"{d}/exthdr.mrc", overwrite=True) as m:
        m.set_data(ints(60000).astype(np.uint16))
        m.set_extended_header(np.arange(40, dtype=np.int32))
        m.voxel_size = vs
    with mrcfile.new(f"{d}/stack.mrc", overwrite=True) as m:
        m.set_data(stack(3, 4).astype(np.float32))  # 4D: a volume stack
        m.voxel_size = 2.146
    with mrcfile.new(f"{d}/images.mrcs", overwrite=True) as m:
        m.set_data(stack(3, 4).reshape(12, 4, 4).astype(np.float32))
        m.set_image_stack()
        m.voxel_size = 2.146
    with mrcfile.new(f"{d}/float16.mrc", overwrite=True) as m:
        m.set_data(floats().astype(np.float16))
    shutil.rmtree(f"{d}/dir", ignore_errors=True)
    os.makedirs(f"{d}/dir")
    s = stack(3, 4).astype(np.float32)
    for i, name in enumerate(["map2", "map10", "map100"]):
        with mrcfile.new(f"{d}/dir/{name}.mrc") as m:
            m.set_data(s[i])
            m.voxel_size = 2.146
    with open(f"{d}/mode2.mrc", "rb") as f:
        b = f.read()
    with open(f"{d}/truncated.mrc", "wb") as f:
        f.write(b[:-4])
    with open(f"{d}/short.mrc", "wb") as f:
        f.write(b[:512])
    bad = bytearray(b)
    bad[208:212] = b"XXXX"
    with open(f"{d}/wrongmagic.mrc", "wb") as f:
        f.write(bad)
    bad = bytearray(b)
    bad[0:12] = np.array([1 << 30, 1 << 30, 1 << 30], "<i4").tobytes()
    with open(f"{d}/overflow.mrc", "wb") as f:
        f.write(bad)


def tiff():
    import struct
    import tifffile
    d = "tiff"
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    u8, u16, f32 = ints(251).astype("u1"), ints(60000).astype("<u2"), floats().astype("<f4")
    tifffile.imwrite(f"{d}/u8.tif", u8, compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/u16.tif", u16, compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/f32.tif", f32, compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/f64.tif", floats().astype("<f8"), compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/be_f32.tif", f32, byteorder=">", compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/big_u16.tif", u16, bigtiff=True, compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/strips_u16.tif", u16, rowsperstrip=1, compression=None, photometric="minisblack")
    tifffile.imwrite(f"{d}/imagej_u16.tif", u16, imagej=True, resolution=(1 / 0.5, 1 / 0.25),
                     metadata={"spacing": 2.0, "unit": "um", "axes": "ZYX"})
    # Compressed: Deflate with tifffile (with the horizontal predictor, in
    # both byte orders and over one-row strips); LZW and PackBits with
    # Pillow, whose libtiff writes them (tifffile needs imagecodecs).
    from PIL import Image
    tifffile.imwrite(f"{d}/deflate_u16.tif", u16, compression="zlib", photometric="minisblack")
    tifffile.imwrite(f"{d}/deflate_f32.tif", f32, compression="zlib", photometric="minisblack")
    tifffile.imwrite(f"{d}/deflate_pred_u8.tif", u8, compression="zlib", predictor=2, photometric="minisblack")
    tifffile.imwrite(f"{d}/deflate_pred_u16.tif", u16, compression="zlib", predictor=2, rowsperstrip=1,
                     photometric="minisblack")
    tifffile.imwrite(f"{d}/deflate_pred_be_u16.tif", u16, compression="zlib", predictor=2, byteorder=">",
                     photometric="minisblack")
    big = ints(60000, BIG).astype("<u2")
    for name, comp in [("lzw", "tiff_lzw"), ("packbits", "packbits")]:
        pages = [Image.fromarray(p) for p in big]
        pages[0].save(f"{d}/{name}_u16.tif", compression=comp, save_all=True, append_images=pages[1:])
        with Image.open(f"{d}/{name}_u16.tif") as im:
            for z in range(len(big)):
                im.seek(z)
                assert np.array_equal(np.array(im), big[z]), name
    # One page, two strips of two rows stored in reverse order.
    rows = ints(60000)[0].astype("<u2")
    s0, s1 = rows[:2].tobytes(), rows[2:].tobytes()
    entries = [(256, 3, 1, 5), (257, 3, 1, 4), (258, 3, 1, 16), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 2, None), (277, 3, 1, 1), (278, 3, 1, 2), (279, 4, 2, None)]
    ifd_off = 8
    ifd_len = 2 + 12 * len(entries) + 4
    arr_off = ifd_off + ifd_len
    data_off = arr_off + 16
    offsets = (data_off + len(s1), data_off)  # strip 0 after strip 1
    b = bytearray(b"II*\x00" + struct.pack("<I", ifd_off))
    b += struct.pack("<H", len(entries))
    for tag, typ, count, val in entries:
        if tag == 273:
            b += struct.pack("<HHII", tag, typ, count, arr_off)
        elif tag == 279:
            b += struct.pack("<HHII", tag, typ, count, arr_off + 8)
        else:
            b += struct.pack("<HHIHH", tag, typ, count, val, 0)
    b += struct.pack("<I", 0)
    b += struct.pack("<II", *offsets) + struct.pack("<II", len(s0), len(s1))
    b += s1 + s0
    with open(f"{d}/scattered_u16.tif", "wb") as f:
        f.write(b)
    # Bad inputs.
    tifffile.imwrite(f"{d}/lzma.tif", u16, compression="lzma", photometric="minisblack")
    tifffile.imwrite(f"{d}/rgb.tif", np.zeros((4, 5, 3), "u1"), photometric="rgb")
    tifffile.imwrite(f"{d}/int16.tif", ints(100).astype("<i2"), photometric="minisblack")
    tifffile.imwrite(f"{d}/tiled.tif", np.zeros((32, 32), "<u2"), tile=(16, 16))
    tifffile.imwrite(f"{d}/mixed_pages.tif", u16[0])
    tifffile.imwrite(f"{d}/mixed_pages.tif", np.zeros((5, 5), "<u2"), append=True)
    with open(f"{d}/u16.tif", "rb") as f:
        b = f.read()
    with open(f"{d}/truncated.tif", "wb") as f:
        f.write(b[:560])  # inside the last IFD (tifffile writes data before IFDs)
    with open(f"{d}/scattered_u16.tif", "rb") as f:
        s = f.read()
    with open(f"{d}/truncated_data.tif", "wb") as f:
        f.write(s[:-7])  # inside the last strip
    with open(f"{d}/wrongmagic.tif", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + b[8:])
    # Plane folders.
    os.makedirs(f"{d}/planes")
    for z, name in enumerate(["plane2", "plane10", "plane100"]):
        tifffile.imwrite(f"{d}/planes/{name}.tif", u16[z])
    os.makedirs(f"{d}/mixed_sizes")
    tifffile.imwrite(f"{d}/mixed_sizes/a1.tif", u16[0])
    tifffile.imwrite(f"{d}/mixed_sizes/a2.tif", np.zeros((4, 6), "<u2"))
    os.makedirs(f"{d}/mixed_dtypes")
    tifffile.imwrite(f"{d}/mixed_dtypes/a1.tif", u16[0])
    tifffile.imwrite(f"{d}/mixed_dtypes/a2.tif", f32[1])


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    npy()
    mrc()
    tiff()
