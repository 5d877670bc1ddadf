#!/usr/bin/python3
"""Golden files of cellfinder's training augmentation (augment_golden.json).

The reference for augment.go: cellfinder's DataAugmentation.__call__
(cellfinder/core/classify/augment.py, brainglobe/cellfinder 5aa244a) with
its draws fixed, and the MONAI RandAffine it calls (monai/transforms/
spatial/array.py AffineGrid, Resample; monai/transforms/utils.py
create_grid, create_rotate, create_translate, create_scale; MONAI
d388d1c) written out in torch, since MONAI is not installed here:

  cube (y, x, z, c) -> permute to (c, y, x, z)           (DIM_ORDER)
  if affine: F.interpolate trilinear to (N, N, N)         (rescale_to_isotropic)
             RandAffine: grid = (R0 @ R1 @ R2 @ T @ S) @ identity grid,
             float32; grid_sample bilinear, border, align_corners False,
             float64                                       (apply_affine)
  torch.flip on the drawn axes                            (flip_axis)
  if affine: F.interpolate trilinear back to (h, w, d)     (rescale_to_original)
  permute back to (y, x, z, c)

The draws are MONAI's parameters: rotate_params (radians about y, x, z),
translate_params (voxels of the isotropic grid), scale_params (the grid's
factors). Run: /usr/bin/python3 gen_augment_golden.py > augment_golden.json
"""
import json
import math

import numpy as np
import torch
import torch.nn.functional as F


def create_grid(size):
    # monai _create_grid_torch: linspace(-(d-1)/2, (d-1)/2, d), homogeneous
    ranges = [torch.linspace(-(d - 1.0) / 2.0, (d - 1.0) / 2.0, int(d), dtype=torch.float32) for d in size]
    coords = torch.meshgrid(*ranges, indexing="ij")
    return torch.stack([*coords, torch.ones_like(coords[0])])


def create_rotate(r):
    # monai _create_rotate, spatial_dims 3, float32 sin/cos
    s, c = torch.sin(torch.tensor(r[0], dtype=torch.float32)), torch.cos(torch.tensor(r[0], dtype=torch.float32))
    a = torch.eye(4)
    a[1, 1], a[1, 2] = c, -s
    a[2, 1], a[2, 2] = s, c
    s, c = torch.sin(torch.tensor(r[1], dtype=torch.float32)), torch.cos(torch.tensor(r[1], dtype=torch.float32))
    b = torch.eye(4)
    b[0, 0], b[0, 2] = c, s
    b[2, 0], b[2, 2] = -s, c
    a = a @ b
    s, c = torch.sin(torch.tensor(r[2], dtype=torch.float32)), torch.cos(torch.tensor(r[2], dtype=torch.float32))
    b = torch.eye(4)
    b[0, 0], b[0, 1] = c, -s
    b[1, 0], b[1, 1] = s, c
    return a @ b


def create_translate(t):
    a = torch.eye(4)
    for i, v in enumerate(t):
        a[i, 3] = v
    return a


def create_scale(s):
    return torch.diag(torch.as_tensor(tuple(s) + (1.0,)))


def rand_affine(img, rotate, translate, scale):
    # AffineGrid.__call__ (align_corners False) then Resample.__call__
    # (torch backend, norm_coords True, float64), padding "border".
    size = img.shape[1:]
    grid = create_grid(size)
    affine = torch.eye(4)
    affine @= create_rotate(rotate)
    affine @= create_translate(translate)
    affine @= create_scale(scale)
    grid = (affine @ grid.view((grid.shape[0], -1))).view([-1] + list(grid.shape[1:]))
    img_t = img.to(torch.float64)
    sr = 3
    grid_t = torch.moveaxis(grid[list(range(sr - 1, -1, -1))], 0, -1).to(torch.float64).unsqueeze(0).clone()
    for i, dim in enumerate(img_t.shape[sr + 1:0:-1]):
        grid_t[0, ..., i] *= 2.0 / max(2, dim)
    out = F.grid_sample(img_t.unsqueeze(0), grid_t, mode="bilinear", padding_mode="border", align_corners=False)[0]
    return out.to(torch.float32)


def augment(cube, d):
    """DataAugmentation.__call__ on a (y, x, z, c) cube with draws d."""
    h, w, dep, _ = cube.shape
    data = torch.permute(torch.from_numpy(cube), (3, 0, 1, 2))  # c, y, x, z
    iso = max(h, w, dep)
    isotropic = h == w == dep
    if d["affine"]:
        if not isotropic:
            data = F.interpolate(data.unsqueeze(0), size=(iso,) * 3, mode="trilinear").squeeze(0)
        data = rand_affine(data, d["rotate"], d["translate"], d["scale"])
    axes = [a + 1 for a in range(3) if d["flip"][a]]
    if axes:
        data = torch.flip(data, axes)
    if d["affine"] and not isotropic:
        data = F.interpolate(data.unsqueeze(0), size=(h, w, dep), mode="trilinear").squeeze(0)
    return torch.permute(data, (1, 2, 3, 0)).contiguous().numpy()


def draws(flip=(False, False, False), affine=False, rotate=(0, 0, 0), translate=(0, 0, 0), scale=(1, 1, 1)):
    return {"flip": list(flip), "affine": affine, "rotate": list(rotate), "translate": list(translate), "scale": list(scale)}


def main():
    rng = np.random.default_rng(35)
    q = math.pi / 4
    cases = []
    shape = (11, 9, 5, 2)  # h, w, d distinct, so a swapped axis shows
    iso = max(shape[:3])
    for name, d in [
        ("flip y z", draws(flip=(True, False, True))),
        ("flip x", draws(flip=(False, True, False))),
        ("translate", draws(affine=True, translate=(-0.55, 1.3, -2.5))),
        ("scale", draws(affine=True, scale=(0.8, 1.25, 1.5))),
        ("rotate y", draws(affine=True, rotate=(q, 0, 0))),
        ("rotate x", draws(affine=True, rotate=(0, q, 0))),
        ("rotate z", draws(affine=True, rotate=(0, 0, 0.3))),
        # cellfinder's defaults: rotate pi/4 and translate 0.05 of the
        # isotropic size (MONAI's sign) on every axis, a drawn scale
        ("all", draws(flip=(True, False, True), affine=True, rotate=(q, q, q),
                      translate=(-0.05 * iso,) * 3, scale=(1 / 0.7, 1 / 1.3, 1.1))),
    ]:
        cases.append((name, shape, d))
    cases.append(("all isotropic", (7, 7, 7, 2), draws(flip=(False, True, True), affine=True, rotate=(0.2, -0.4, q),
                                                         translate=(0.7, -0.35, 0.35), scale=(0.9, 1.2, 1.05))))
    out = []
    for name, shp, d in cases:
        cube = rng.uniform(0, 1000, size=shp).astype(np.float32)
        res = augment(cube, d)
        out.append({"name": name, "input": list(shp), "draws": d,
                    "cube": [float(v) for v in cube.ravel()], "want": [float(v) for v in res.ravel()]})
    # cellfinder's cube (50x50x20, two channels) with cellfinder's default
    # draws; the input is hashCube's, every 13th output value is kept.
    shp = (50, 50, 20, 2)
    d = draws(flip=(True, True, False), affine=True, rotate=(q, q, q), translate=(-2.5,) * 3, scale=(1 / 0.7, 1 / 1.3, 1.1))
    res = augment(hash_cube(shp), d).ravel()
    full = {"name": "cellfinder's cube", "input": list(shp), "draws": d, "every": 13,
            "want": [float(v) for v in res[::13]]}
    print(json.dumps({"source": "gen_augment_golden.py (torch %s)" % torch.__version__, "cases": out, "full": full}))


def hash_cube(shape):
    """Value i of the cube (y x z c order): (i·2654435761 mod 2³²) >> 22."""
    i = np.arange(int(np.prod(shape)), dtype=np.uint64)
    return (((i * np.uint64(2654435761)) % np.uint64(1 << 32)) >> np.uint64(22)).astype(np.float32).reshape(shape)


if __name__ == "__main__":
    main()
