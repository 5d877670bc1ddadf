#!/usr/bin/python3
"""Golden outputs of voxlab's --normalize-channels (processing/classify),
made with numpy and Debian's python3-torch. Run with /usr/bin/python3 from
this folder: it rewrites norm_golden.json and calib_d18_20x20x8_norm.json.

For two synthetic two-channel crops (synth.py, made identically by the Go
tests): the 30-plane crop of gen_golden.py (its candidates) and a
125-plane crop with somata and candidates of its own, it holds

 - each channel's (mean, std) as cellfinder's dataset_mean_std computes
   them (gen_golden.dataset_mean_std, reimplemented from
   cellfinder/core/tools/image_processing.py) for several
   normalization_n_sampling_planes: more planes than the crop has, fewer
   (a step of int(planes / n)), and 1 (the first plane alone);
 - with cellfinder's default of 50, the probability of each candidate
   being a cell from an 18-layer network on 20x20x8 cubes in float64
   torch (gen_golden.Net), on cubes normalised as cellfinder's
   CuboidArrayDataset does ((x - mean) / std in float32, before
   rescaling; gen_golden.extract).

The network is synth.py's, calibrated as gen_golden.py calibrates its
networks but on the first normalised cubes of the 30-plane crop (a
network calibrated on raw grey levels says "cell" to every normalised
cube): its batch normalisations and dense layer are
calib_d18_20x20x8_norm.json.
"""

import json
import math
import os

import numpy as np

import gen_golden as gg
import synth

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = gg.SEED
TAG, DEPTH, NET, VOXEL = "d18_20x20x8", 18, (8, 20, 20), (5.0, 1.0, 1.0)
INP = (NET[1], NET[2], NET[0], 2)


def network(cubes):
    """synth.py's 18-layer network on 20x20x8 cubes, calibrated on cubes
    as gen_golden.main calibrates its networks; writes the calibration."""
    w = synth.weights(DEPTH, INP)
    ref = gg.Net(DEPTH, {k: dict(v) for k, v in w.items()})
    ref.calibrate = True
    feats = ref.features(cubes[:16])
    ref.calibrate = False
    k = ref.w["fully_connected"]["kernel"]
    diff = (feats @ (k[:, 1] - k[:, 0])).numpy()
    scale = 3.0 / max(float(diff.std()), 1e-12)
    fan = feats.shape[1]
    kernel = synth.uniform("fully_connected", 0, fan * 2, math.sqrt(6.0 / fan) * scale, 0.0).reshape(fan, 2)
    bias = np.array([0.0, -float(diff.mean()) * scale], np.float32)
    calib = {"bn": {n: {k2: [float(x) for x in v] for k2, v in ref.raw[n].items()}
                    for n, c, ws, _ in synth.layers(DEPTH, INP) if c == "BatchNormalization"},
             "dense": {"kernel_scale": scale, "bias": [float(x) for x in bias]}}
    with open(os.path.join(HERE, "calib_%s_norm.json" % TAG), "w") as f:
        json.dump(calib, f)
    wfinal = synth.weights(DEPTH, INP, calib["bn"])
    wfinal["fully_connected"] = {"kernel": kernel, "bias": bias}
    return gg.Net(DEPTH, wfinal)


def cubes_of(vols, pts, norm):
    return np.stack([c for s, c in gg.extract(vols, pts, VOXEL, NET, norm) if c is not None])


def p_cell(net, vols, pts, norm):
    batch = cubes_of(vols, pts, norm)
    return np.concatenate([net.probs(batch[i:i + 8]) for i in range(0, len(batch), 8)])[:, 1]


def crop125():
    """A 125-plane crop: somata spread over its depth, candidates on them,
    off them and too near an edge for a whole cube."""
    shape = (125, 80, 96)
    somata, pts = [], []
    for k in range(24):
        h = int(synth.splitmix64(np.array([9000 + k], dtype=np.uint64))[0])
        somata.append((4 + h % 117, 12 + (h >> 8) % 56, 12 + (h >> 20) % 72))
    pts = [tuple(float(v) for v in s) for s in somata]
    for k in range(16):
        h = int(synth.splitmix64(np.array([9500 + k], dtype=np.uint64))[0])
        pts.append((float(4 + h % 117), float(10 + (h >> 8) % 60), float(10 + (h >> 20) % 76)))
    pts += [(2.0, 40.0, 48.0), (121.0, 40.0, 48.0), (60.0, 5.0, 48.0), (60.0, 40.0, 90.0)]
    return shape, somata, pts


def main():
    net = None
    cands = gg.candidates()
    somata30 = [(int(z), int(y), int(x)) for z, y, x, t in cands if t == "cell"]
    pts30 = [(z, y, x) for z, y, x, t in cands]
    shape125, somata125, pts125 = crop125()
    out = {"tag": TAG, "depth": DEPTH, "input": INP, "voxel": VOXEL, "seed": SEED, "crops": []}
    for name, shape, somata, pts, planes in [("crop30", gg.SHAPE, somata30, pts30, [50, 30, 29, 7, 1]),
                                             ("crop125", shape125, somata125, pts125, [50, 40, 125, 126, 1])]:
        sig, bg = synth.crop(shape, somata, SEED)
        vols = [sig, bg]
        if net is None:
            net = network(cubes_of(vols, pts, [gg.dataset_mean_std(v, 50) for v in vols]))
        entry = {"name": name, "shape": shape, "somata": somata, "points": pts, "norms": []}
        for n in planes:
            norm = [gg.dataset_mean_std(v, n) for v in vols]
            entry["norms"].append({"normalization_n_sampling_planes": n, "norm": norm})
            print(name, "n", n, "mean, std", norm)
        p = p_cell(net, vols, pts, [gg.dataset_mean_std(v, 50) for v in vols])
        entry["p_cell"] = [float(x) for x in p]
        # What a fixed step of 32 (voxlab's --norm-sampling before
        # cellfinder's parameter) changes: printed, not held.
        old = p_cell(net, vols, pts, [fixed_step(v, 32) for v in vols])
        print(name, "classified", len(p), "p(cell) range", float(p.min()), float(p.max()),
              "largest change from a fixed step of 32:", float(np.abs(p - old).max()),
              "labels flipped:", int(((p > 0.5) != (old > 0.5)).sum()))
        out["crops"].append(entry)
    with open(os.path.join(HERE, "norm_golden.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


def fixed_step(vol, f):
    x = np.concatenate([vol[i].astype(np.float64).ravel() for i in range(0, vol.shape[0], f)])
    return float(x.mean()), float(x.std(ddof=1))


if __name__ == "__main__":
    main()
