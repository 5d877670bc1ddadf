#!/usr/bin/python3
"""Golden files for processing/svd's tests, made with the field's tools.

Run from this folder with the challenge's repository as the argument:

    /usr/bin/python3 gen_golden.py /path/to/Cryo-EM-Heterogeneity-Challenge-1

(a checkout or `git archive` of github.com/flatironinstitute/
Cryo-EM-Heterogeneity-Challenge-1; voxlab's goldens were made at commit
11a0eb1e9a28c6a677ca2db38f5eb5546465ef0b). Needs Debian's python3-numpy and
python3-torch. It writes, per set of maps, <name>_maps.npy (n × voxels,
float32: the challenge's tests/data/Ground_truth/test_maps_gt_flat_10.npy and
tests/data/dataset_2_submissions/submission_1000.pt's volumes, and synthetic
sets) and, from numpy's exact linalg.svd of the maps divided by their norms
with the mean map removed (as the challenge's load_gt_svd and
load_submissions_svd prepare them, without mask, B-factor or downsampling),
<name>_s.npy (1 × rank), <name>_u.npy (n × rank) and, for the challenge's
two sets, <name>_v.npy (voxels × rank, float32); golden_svd.json holds the challenge's own
_svd.svd_utils on those SVDs: compute_distance_matrix (the captured-variance
matrix, sorted as the challenge sorts it, with its labels),
compute_common_embedding and project_to_gt_embedding; and the challenge's
preprocessing run as it is on single maps (pre_<name>_in/_bfactor/_ds.npy:
bfactor_normalize_volumes, then downsample_volume, in float64) and, with its
test config's mask (test_mask_dilated_wide.mrc, copied), B-factor 170 at 1 Å
and box 16, numpy's singular values of the preprocessed test maps.
"""
import importlib.util
import json
import os
import shutil
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
RANK = 5


def exact_svd(x):
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    xc = x - x.mean(0, keepdims=True)
    u, s, vt = np.linalg.svd(xc, full_matrices=False)
    return u[:, :RANK], s[:RANK], vt[:RANK].T


def save(name, maps):
    maps = maps.astype(np.float32)  # as maps are stored; the SVD is of their float64 values
    np.save(os.path.join(here, f"{name}_maps.npy"), maps)
    u, s, v = exact_svd(maps.astype(np.float64))
    np.save(os.path.join(here, f"{name}_s.npy"), s[None, :])
    np.save(os.path.join(here, f"{name}_u.npy"), np.ascontiguousarray(u))
    if name.startswith("challenge"):  # V follows from U, S and the maps; kept for two sets (float32: size)
        np.save(os.path.join(here, f"{name}_v.npy"), np.ascontiguousarray(v).astype(np.float32))
    return {"u_matrices": torch.from_numpy(u), "singular_values": torch.from_numpy(s), "eigenvectors": torch.from_numpy(v)}


def synthetic(rng, n, d, k):
    """n maps: a common map plus k smooth modes with random weights, and noise."""
    t = np.linspace(0, 1, d)
    base = 1 + np.exp(-((t - 0.5) ** 2) / 0.02)
    modes = np.stack([np.sin((j + 1) * np.pi * t + rng.random()) for j in range(k)])
    w = rng.normal(size=(n, k)) * (0.5 ** np.arange(k))
    return base + w @ modes + 0.01 * rng.normal(size=(n, d))


def load_preprocessing(repo):
    """The challenge's bfactor_normalize_volumes and downsample_volume, run
    as they are (their package's relative imports given stub packages)."""
    import types
    for name in ["cryo_challenge", "cryo_challenge._preprocessing"]:
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    mods = {}
    for name, rel in [("cryo_challenge.power_spectrum_utils", "power_spectrum_utils.py"),
                      ("cryo_challenge._preprocessing.crop_pad_utils", "_preprocessing/crop_pad_utils.py"),
                      ("cryo_challenge._preprocessing.fourier_utils", "_preprocessing/fourier_utils.py"),
                      ("cryo_challenge._preprocessing.bfactor_normalize", "_preprocessing/bfactor_normalize.py")]:
        spec = importlib.util.spec_from_file_location(name, os.path.join(repo, "src/cryo_challenge", rel))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        mods[name.split(".")[-1]] = mod
    return mods["bfactor_normalize"].bfactor_normalize_volumes, mods["fourier_utils"].downsample_volume


def preprocessing_goldens(repo, gt, coffee):
    """The challenge's preprocessing on single maps (float64), and the SVD of
    its test config's preprocessing (mask, B-factor 170 at 1 Å, box 16)."""
    import mrcfile
    bfactor, downsample = load_preprocessing(repo)
    out = {"maps": []}
    rng = np.random.default_rng(7)
    cases = [("gt0", gt[0].reshape(16, 16, 16), 170.0, 1.0, 10), ("gt3", gt[3].reshape(16, 16, 16), 50.0, 2.146, 7),
             ("odd", rng.random((15, 15, 15)), 100.0, 1.5, 8)]
    for name, vol, b, vs, ds in cases:
        v = torch.from_numpy(np.ascontiguousarray(vol, dtype=np.float64))
        vb = bfactor(v, b, vs, in_place=False)
        vd = downsample(vb, box_size_ds=ds)
        np.save(os.path.join(here, f"pre_{name}_in.npy"), vol.reshape(1, -1).astype(np.float64))
        np.save(os.path.join(here, f"pre_{name}_bfactor.npy"), vb.numpy().reshape(1, -1))
        np.save(os.path.join(here, f"pre_{name}_ds.npy"), vd.numpy().reshape(1, -1))
        out["maps"].append({"name": name, "box": vol.shape[0], "bfactor": b, "voxel_size": vs, "box_ds": ds})
    mask = mrcfile.open(os.path.join(repo, "tests/data/Ground_truth/test_mask_dilated_wide.mrc")).data.astype(np.float64)
    shutil.copy(os.path.join(repo, "tests/data/Ground_truth/test_mask_dilated_wide.mrc"), os.path.join(here, "test_mask_dilated_wide.mrc"))
    for name, maps in [("challenge_gt", gt), ("challenge_coffee", coffee)]:
        pre = []
        for m in maps.astype(np.float32).astype(np.float64):
            v = torch.from_numpy(m.reshape(16, 16, 16) * mask)
            v = bfactor(v, 170.0, 1.0, in_place=False)
            pre.append(v.numpy().reshape(-1))
        _, s, _ = exact_svd(np.array(pre))
        out[name + "_s"] = s.tolist()
    return out


def main(repo):
    spec = importlib.util.spec_from_file_location("svd_utils", os.path.join(repo, "src/cryo_challenge/_svd/svd_utils.py"))
    svd_utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(svd_utils)

    gt = np.load(os.path.join(repo, "tests/data/Ground_truth/test_maps_gt_flat_10.npy")).reshape(10, -1).astype(np.float64)
    sub = torch.load(os.path.join(repo, "tests/data/dataset_2_submissions/submission_1000.pt"), weights_only=False)
    coffee = sub["volumes"].numpy().reshape(sub["volumes"].shape[0], -1).astype(np.float64)
    rng = np.random.default_rng(36)
    d = gt.shape[1]
    sets = {"challenge_gt": gt, "challenge_coffee": coffee,
            "synthetic_a": synthetic(rng, 7, d, 6), "synthetic_b": synthetic(rng, 9, d, 7)}
    data = {name: save(name, maps) for name, maps in sets.items()}
    subs = {k: data[k] for k in ["challenge_coffee", "synthetic_a", "synthetic_b"]}
    golden = {"rank": RANK}
    res = svd_utils.compute_distance_matrix(subs, data["challenge_gt"])
    golden["with_gt"] = {"matrix": res["dist_matrix"].numpy().tolist(), "labels": res["labels"].tolist()}
    res = svd_utils.compute_distance_matrix(subs)
    golden["without_gt"] = {"matrix": res["dist_matrix"].numpy().tolist(), "labels": res["labels"].tolist()}
    ce = svd_utils.compute_common_embedding(subs, data["challenge_gt"])
    golden["common"] = {"singular_values": ce["singular_values"].numpy().tolist(),
                        "embedding": {k: v.numpy().tolist() for k, v in ce["common_embedding"].items()},
                        "gt_embedding": ce["gt_embedding"].numpy().tolist()}
    pg = svd_utils.project_to_gt_embedding(subs, data["challenge_gt"])
    golden["in_gt"] = {"embedding": {k: v.numpy().tolist() for k, v in pg["submission_embedding"].items()},
                       "gt_embedding": pg["gt_embedding"].numpy().tolist()}
    golden["preprocessing"] = preprocessing_goldens(repo, gt, coffee)
    with open(os.path.join(here, "golden_svd.json"), "w") as f:
        json.dump(golden, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
