#!/usr/bin/python3
"""Golden files for the 2D stage of voxlab's cell detection.

Each step is done the way brainglobe cellfinder does it on the CPU with
SciPy: clip to [0, max-2]; 3x3 median with zero padding (scipy.signal's
medfilt2d, i.e. ndimage.median_filter(mode='constant')); min-max normalise
to [0, 1] in float32; gaussian_filter with mode='reflect' and truncate set so
the kernel is 2*round(4*sigma)+1 wide; laplace (mode='reflect'); negate;
rescale to [0, clip]; threshold at mean + n*SD (SD unbiased, as torch); the
optional tiled threshold (tiles overlapping by half, stretched over the plane
as cellfinder's torch code does); and the in-brain tiles (corner tile mean +
2*SD(ddof=0) + 1, partial tiles out).

Run from this folder: /usr/bin/python3 make_golden.py  (numpy, scipy). It writes raw
little-endian files and a JSON description per case; the Go tests read them.
"""
import json
import numpy as np
from scipy import ndimage


def plane(h, w, seed, dtype):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    # a bright "brain" region over a dark corner, smooth autofluorescence
    inside = 1.0 / (1.0 + np.exp(-(np.hypot(yy - h * 0.55, xx - w * 0.55) - 0.45 * min(h, w)) * -0.3))
    img = 80 + 400 * inside + 60 * np.sin(yy / 17.0) * np.cos(xx / 23.0) * inside
    for _ in range(25):
        cy, cx = rng.uniform(8, h - 8), rng.uniform(8, w - 8)
        r = rng.uniform(2.5, 5)
        img += 2500 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r)) * inside
    img += rng.normal(0, 20, img.shape)
    if dtype == np.uint8:
        img = img / 12
    img = np.clip(img, 0, np.iinfo(dtype).max)
    out = img.astype(dtype)
    # a few saturated pixels to exercise the clip
    out[h // 2, w // 3] = np.iinfo(dtype).max
    out[h // 3, w // 2] = np.iinfo(dtype).max - 1
    return out


def local_threshold(e, tile_px, nsd):
    """cellfinder's tiled threshold, written from its description."""
    h, w = e.shape
    s = tile_px // 2
    ny, nx = max(h // s - 1, 1), max(w // s - 1, 1)
    doy, dox = ny >= 2, nx >= 2
    thr = np.empty((ny, nx))
    for ty in range(ny):
        for tx in range(nx):
            ya = (h % s) // 2 + ty * s if doy else 0
            yb = ya + 2 * s if doy else h
            xa = (w % s) // 2 + tx * s if dox else 0
            xb = xa + 2 * s if dox else w
            t = e[ya:yb, xa:xb].astype(np.float64)
            thr[ty, tx] = t.mean() + nsd * t.std(ddof=1)

    def stretch(n, tiles, do):
        if not do:
            return np.zeros(n, dtype=int)
        rep = np.full(tiles, s)
        rep[0] = rep[-1] = 2 * s
        idx = np.repeat(np.arange(tiles), rep)
        off = (s - n % s) // 2
        return idx[off:off + n]

    iy, ix = stretch(h, ny, doy), stretch(w, nx, dox)
    return thr[iy][:, ix]


def case(name, h, w, dtype, seed, soma_px=8, log_sigma=0.2, nsd=10.0, tile=0.0, tile_nsd=10.0):
    raw = plane(h, w, seed, dtype)
    clip = np.iinfo(dtype).max - 2
    clipped = np.minimum(raw, clip).astype(np.float32)
    med = ndimage.median_filter(clipped, size=3, mode="constant", cval=0)
    norm = med - med.min()
    rng = norm.max()
    norm = (norm / (rng if rng != 0 else 1)).astype(np.float32)
    sigma = log_sigma * soma_px
    radius = int(round(4 * sigma))
    gauss = ndimage.gaussian_filter(norm, sigma, mode="reflect", truncate=radius / sigma)
    lap = ndimage.laplace(gauss)
    e = (-lap).astype(np.float32)
    enh = e - e.min()
    enh = (enh / enh.max() * clip).astype(np.float32)
    e64 = enh.astype(np.float64)
    thr = e64.mean() + nsd * e64.std(ddof=1)
    mask = e64 > thr
    local_px = int(round(soma_px * tile)) if tile else 0
    if local_px >= 2:
        mask &= e64 > local_threshold(enh, local_px, tile_nsd)
    t = 2 * soma_px
    ty, tx = -(-h // t), -(-w // t)
    tiles = np.zeros((ty, tx), dtype=np.uint8)
    if h >= t and w >= t:
        c = np.minimum(raw[:t, :t], clip).astype(np.float64)
        bthr = c.mean() + 2 * c.std() + 1
        for i in range(h // t):
            for j in range(w // t):
                tiles[i, j] = np.minimum(raw[i*t:(i+1)*t, j*t:(j+1)*t], clip).mean() >= bthr
    raw.astype(raw.dtype.newbyteorder("<")).tofile(f"{name}.raw")
    med.astype("<f4").tofile(f"{name}.median.f32")
    gauss.astype("<f4").tofile(f"{name}.gauss.f32")
    e.astype("<f4").tofile(f"{name}.e.f32")
    enh.astype("<f4").tofile(f"{name}.enhanced.f32")
    mask.astype(np.uint8).tofile(f"{name}.mask.u8")
    tiles.tofile(f"{name}.tiles.u8")
    meta = dict(h=h, w=w, dtype=np.dtype(dtype).name, soma_px=soma_px, sigma=sigma,
                radius=radius, nsd=nsd, local_tile_px=local_px, local_nsd=tile_nsd,
                clip=int(clip), threshold=float(thr), mask_pixels=int(mask.sum()))
    with open(f"{name}.json", "w") as f:
        json.dump(meta, f, indent=1)
    print(name, meta)


if __name__ == "__main__":
    case("plane16", 96, 128, np.uint16, 1, nsd=4.0)
    case("plane8", 70, 90, np.uint8, 2, nsd=3.0)
    case("tiled16", 96, 128, np.uint16, 3, nsd=2.0, tile=1.0, tile_nsd=1.0)
    case("odd16", 53, 77, np.uint16, 4, soma_px=6, nsd=3.0, tile=1.5, tile_nsd=1.5)
