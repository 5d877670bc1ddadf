#!/usr/bin/python3
"""Golden outputs of voxlab's classification (processing/classify), made
with numpy, h5py and Debian's python3-torch. Run with /usr/bin/python3
from this folder: it rewrites candidates.csv, extract_golden.json,
calib_*.json, net_golden.json and the two small fixture files (with the
argument "extract": candidates.csv and extract_golden.json only).

 - A synthetic two-channel crop (synth.py, made identically by the Go
   tests) with somata at cellfinder's own test cells
   (processing/points/testdata/cellfinder_cell_classification.xml).
 - A reference cube extractor written here from the semantics of
   cellfinder's current cube generator (cube_generator.py: crop sizes
   round(n*net/data), starts round(p - m/2) in x and y and int(p - m//2)
   in z of the point's int() coordinates (brainglobe-utils' Cell), no cube for a cuboid leaving the volume, get_data_converter,
   optional (x - mean)/std with cellfinder's dataset_mean_std) with
   torch.nn.functional.interpolate(mode="trilinear") for rescaling, as
   cellfinder calls it.
 - A reference network written here in torch from resnet.py's
   description (channels-last cubes permuted to torch's layout, explicit
   zero padding, 'valid' convolutions with Keras's (kh, kw, kd, in, out)
   kernels, BatchNormalization(axis=3) = one parameter per z index,
   3x3x2 max pool, global average pool, dense, softmax), in float64,
   loading its weights with h5py from Keras-layout files this script
   writes.
The weights are synth.py's; each batch normalisation's statistics (and
the dense layer's scale and bias) are calibrated here on the first cubes
so that activations keep a sane scale and probabilities spread over
(0, 1); those few numbers are committed (calib_*.json).
"""

import hashlib
import json
import math
import os
import re
import tempfile

import h5py
import numpy as np
import torch
import torch.nn.functional as F

import synth

torch.set_num_threads(2)
HERE = os.path.dirname(os.path.abspath(__file__))
POINTS = os.path.join(HERE, "..", "..", "points", "testdata")
SHAPE = (30, 520, 680)
SEED = 2024
NET_VOXEL = (5.0, 1.0, 1.0)


def read_xml(path):
    s = open(path).read()
    out = []
    for t, block in re.findall(r"<Type>(\d+)</Type>(.*?)</Marker_Type>", s, re.S):
        for x, y, z in re.findall(r"<MarkerX>(\d+)</MarkerX>\s*<MarkerY>(\d+)</MarkerY>\s*<MarkerZ>(\d+)</MarkerZ>", block):
            out.append((float(z), float(y), float(x), "cell" if t == "2" else "non-cell"))
    return out


def candidates():
    cells = read_xml(os.path.join(POINTS, "cellfinder_cell_classification.xml"))
    far = read_xml(os.path.join(POINTS, "cellfinder_cube_extract_cells.xml"))
    extra = []
    # candidates without a soma, spread over the crop
    for k in range(16):
        h = int(synth.splitmix64(np.array([7000 + k], dtype=np.uint64))[0])
        extra.append((float(10 + h % 11), float(60 + (h >> 8) % 400), float(60 + (h >> 20) % 560), "non-cell"))
    # edges: the first and last starts inside, one further outside
    for p in [(9, 260, 340), (10, 260, 340), (20, 260, 340), (21, 260, 340), (15, 260, 11), (15, 260, 12),
              (15, 260, 667), (15, 260, 668), (15, 12, 340), (15, 11, 340), (15, 507, 340), (15, 508, 340),
              (15, 200.5, 300.5), (15.7, 100, 100), (14, 130, 250.5)]:
        extra.append((float(p[0]), float(p[1]), float(p[2]), "unknown"))
    return cells + far + extra


def fmt(v):
    return repr(float(v)).rstrip("0").rstrip(".") if float(v) != int(v) else str(int(v))


def data_voxels(voxel, net):
    return [int(round(net[a] * NET_VOXEL[a] / voxel[a])) for a in range(3)]


def start_of(p, m):
    z = int(p[0] - m[0] // 2)
    y = int(round(p[1] - m[1] / 2))
    x = int(round(p[2] - m[2] / 2))
    return (z, y, x)


def converter(a):
    return a.astype(np.float32)  # uint16: unscaled (get_data_converter)


def dataset_mean_std(dataset, n_sampling_planes):
    """cellfinder's dataset_mean_std (cellfinder/core/tools/image_processing.py
    at brainglobe/cellfinder's main branch of 2026), reimplemented without
    its progress bar: at least n_sampling_planes planes sampled (every
    plane of a volume of no more, else every int(planes / n)-th from plane
    0), each whole plane converted to float64 (get_data_converter: uint16
    unscaled) and fed at once to Welford's online algorithm; the sample
    standard deviation (count - 1)."""
    plane_n = dataset.shape[1] * dataset.shape[2]
    count = 0
    mean = np.array(0, dtype=np.float64)
    sq_dist = np.array(0, dtype=np.float64)
    if len(dataset) <= n_sampling_planes:
        step = 1
    else:
        step = int(len(dataset) / n_sampling_planes)
    for i in range(0, len(dataset), step):
        new_value = dataset[i, ...].astype(np.float64).reshape((plane_n,))
        count += plane_n
        delta = new_value - mean
        mean += np.sum(delta) / count
        delta2 = new_value - mean
        sq_dist += np.sum(np.multiply(delta, delta2))
    if count <= 1:
        raise ValueError("Not enough data to compute the variance")
    var_sample = sq_dist / (count - 1)
    std = np.sqrt(var_sample)
    return mean.item(), std.item()


def extract(vols, pts, voxel, net, norm=None):
    """[(status, cube y,x,z,c float32 or None)] for each point."""
    m = data_voxels(voxel, net)
    out = []
    for p in pts:
        # cellfinder's Cell keeps int() of each coordinate
        s = start_of((int(p[0]), int(p[1]), int(p[2])), m)
        if any(s[a] < 0 or s[a] + m[a] > vols[0].shape[a] for a in range(3)):
            out.append(("unknown", None))
            continue
        chans = []
        for c, v in enumerate(vols):
            crop = converter(v[s[0]:s[0] + m[0], s[1]:s[1] + m[1], s[2]:s[2] + m[2]])
            if norm is not None:
                mean, std = norm[c]
                crop = (crop - np.float32(mean)) / np.float32(std)
            chans.append(crop)
        data = np.stack(chans)  # c, z, y, x
        if tuple(voxel) != NET_VOXEL:
            t = torch.from_numpy(np.ascontiguousarray(data))[None]
            data = F.interpolate(t, size=tuple(net), mode="trilinear")[0].numpy()
        out.append(("ok", np.ascontiguousarray(np.transpose(data, (2, 3, 1, 0)))))  # y, x, z, c
    return out


def samples(cube, k=32):
    n = cube.size
    idx = synth.splitmix64(np.arange(k, dtype=np.uint64)) % np.uint64(n)
    flat = cube.ravel()
    return [float(flat[int(i)]) for i in idx]


# ---------------------------------------------------------------- network

def snake(cls):
    s = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", cls)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()


def keras3_paths(ls):
    used, out = {}, {}
    for name, cls, _, _ in ls:
        n = snake(cls)
        if n in used:
            used[n] += 1
            n = "%s_%d" % (n, used[n])
        else:
            used[n] = 0
        out[name] = "layers/" + n
    return out


def write_legacy(path, depth, inp, w):
    ls = synth.layers(depth, inp)
    with h5py.File(path, "w") as f:
        names = ["input_1" if cls == "InputLayer" else n for n, cls, _, _ in ls]
        f.attrs["layer_names"] = np.array([n.encode() for n in names])
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = "2.13.1"
        for (name, cls, ws, _), gname in zip(ls, names):
            g = f.create_group(gname)
            wn = [("%s/%s:0" % (name, v)).encode() for v, _ in ws]
            g.attrs["weight_names"] = np.asarray(wn)  # empty list -> float64, as Keras writes it
            for (v, _), n in zip(ws, wn):
                g.create_dataset(n.decode(), data=w[name][v])


def write_keras3(path, depth, inp, w):
    ls = synth.layers(depth, inp)
    paths = keras3_paths(ls)
    with h5py.File(path, "w") as f:
        f.create_group("vars")
        for name, cls, ws, _ in ls:
            g = f.create_group(paths[name]).create_group("vars")
            for i, (v, _) in enumerate(ws):
                g[str(i)] = w[name][v]


def read_weights(path, depth, inp):
    """The weights of a Keras-layout file, by layer and variable name."""
    ls = synth.layers(depth, inp)
    w = {}
    with h5py.File(path, "r") as f:
        if "layer_names" in f.attrs:
            for n in f.attrs["layer_names"]:
                n = n.decode()
                g = f[n]
                wn = g.attrs["weight_names"]
                if len(wn) == 0:
                    continue
                w[n] = {x.decode().split("/")[-1].split(":")[0]: np.array(g[x.decode()]) for x in wn}
        else:
            paths = keras3_paths(ls)
            for name, cls, ws, _ in ls:
                if ws:
                    w[name] = {v: np.array(f[paths[name] + "/vars/" + str(i)]) for i, (v, _) in enumerate(ws)}
    return w


class Net:
    """cellfinder's ResNet from resnet.py's description, in torch."""

    def __init__(self, depth, w, dtype=torch.float64):
        self.depth, self.dtype = depth, dtype
        self.w = {k: {v: torch.from_numpy(np.asarray(a)).to(dtype) for v, a in d.items()} for k, d in w.items()}
        self.calibrate = False
        self.raw = w
        self.kernels = {}

    def conv(self, x, name, stride):
        k = self.kernels.get(name)
        if k is None:  # out, in, kh, kw, kd, contiguous once
            k = self.kernels[name] = self.w[name]["kernel"].permute(4, 3, 0, 1, 2).contiguous()
        return F.conv3d(x, k, stride=stride)

    def bn(self, x, name):
        # x: (B, C, H, W, D); axis=3 of (B, H, W, D, C) is D: one value per z
        if self.calibrate:
            d = x.permute(4, 0, 1, 2, 3).reshape(x.shape[4], -1)
            mean, var = d.mean(1), d.var(1, unbiased=False)
            n = x.shape[4]
            p = {"gamma": synth.uniform(name, 10, n, 0.25, 1.0), "beta": synth.uniform(name, 11, n, 0.25, 0.0),
                 "moving_mean": mean.numpy().astype(np.float32),
                 "moving_variance": np.maximum(var.numpy(), 1e-3).astype(np.float32)}
            self.raw[name] = p
            self.w[name] = {k: torch.from_numpy(v).to(self.dtype) for k, v in p.items()}
        v = self.w[name]
        return (x - v["moving_mean"]) / torch.sqrt(v["moving_variance"] + 1e-5) * v["gamma"] + v["beta"]

    def features(self, cubes):
        x = torch.from_numpy(cubes).to(self.dtype).permute(0, 4, 1, 2, 3)
        x = F.pad(x, (3, 3, 3, 3, 3, 3))
        x = F.relu(self.bn(self.conv(x, "conv1", 2), "conv1_bn"))
        x = F.max_pool3d(x, (3, 3, 2), stride=2)
        bott = self.depth >= 50
        for unit, n in enumerate(synth.BLOCKS[self.depth]):
            for block in range(n):
                s = 2 if unit > 0 and block == 0 else 1
                p = "resunit%d_block%d_" % (unit + 2, block)
                y = x if bott else F.pad(x, (1,) * 6)
                y = F.relu(self.bn(self.conv(y, p + "conv_a", s), p + "bn_a"))
                y = self.bn(self.conv(F.pad(y, (1,) * 6), p + "conv_b", 1), p + "bn_b")
                if bott:
                    y = self.bn(self.conv(F.relu(y), p + "conv_c", 1), p + "bn_c")
                short = x
                if block == 0:
                    short = self.bn(self.conv(x, p + "shortcut_conv", s), p + "shortcut_bn")
                x = F.relu(y + short)
        return x.mean(dim=(2, 3, 4))

    def probs(self, cubes):
        f = self.features(cubes)
        k, b = self.w["fully_connected"]["kernel"], self.w["fully_connected"]["bias"]
        return torch.softmax(f @ k + b, dim=1).numpy()


def sha(cube):
    return hashlib.sha256(np.ascontiguousarray(cube, dtype="<f4").tobytes()).hexdigest()


def main(only_extract=False):
    pts = candidates()
    with open(os.path.join(HERE, "candidates.csv"), "w") as f:
        f.write("z,y,x,type\n")
        for z, y, x, t in pts:
            f.write("%s,%s,%s,%s\n" % (fmt(z), fmt(y), fmt(x), t))
    somata = [(int(z), int(y), int(x)) for z, y, x, t in pts if t == "cell"]
    sig, bg = synth.crop(SHAPE, somata, SEED)
    vols = [sig, bg]
    golden = {"shape": SHAPE, "seed": SEED, "signal_sha256": hashlib.sha256(sig.astype("<u2").tobytes()).hexdigest(),
              "background_sha256": hashlib.sha256(bg.astype("<u2").tobytes()).hexdigest(), "extract": []}
    net = (20, 50, 50)
    # normf: cellfinder's normalization_n_sampling_planes (0: no
    # normalisation); of the 30 planes, 4 samples every 7th, 50 all.
    for name, voxel, normf in [("equal", (5, 1, 1), 0), ("xy2", (5, 2, 2), 0), ("z7.25", (7.25, 2, 2), 0),
                               ("fractional", (5, 1.5, 1.25), 0), ("xy2-norm4", (5, 2, 2), 4),
                               ("equal-norm50", (5, 1, 1), 50)]:
        norm = [dataset_mean_std(v, normf) for v in vols] if normf else None
        cubes = extract(vols, pts, voxel, net, norm)
        entry = {"name": name, "voxel": voxel, "normalization_n_sampling_planes": normf, "crop": data_voxels(voxel, net),
                 "norm": norm, "cubes": []}
        for st, c in cubes:
            if c is None:
                entry["cubes"].append({"status": st})
                continue
            c64 = c.astype(np.float64)
            e = {"status": st, "sha256": sha(c), "sum": float(c64.sum()), "sumsq": float((c64 * c64).sum())}
            if tuple(voxel) != NET_VOXEL or normf:
                e["samples"] = samples(c)  # exact cubes are held by their hash
            entry["cubes"].append(e)
        golden["extract"].append(entry)
        print(name, "crop", entry["crop"], "unknown", sum(1 for s, _ in cubes if s != "ok"))
    with open(os.path.join(HERE, "extract_golden.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
    if only_extract:
        return

    nets = {"configs": []}
    tmp = tempfile.mkdtemp()
    for depth, net_zyx, voxel, layout in [(18, (8, 20, 20), (5, 1, 1), "legacy"), (50, (8, 20, 20), (5, 2, 2), "keras3"),
                                           (18, (20, 50, 50), (5, 2, 2), "legacy"), (50, (20, 50, 50), (5, 2, 2), "keras3")]:
        inp = (net_zyx[1], net_zyx[2], net_zyx[0], 2)
        cubes = [c for s, c in extract(vols, pts, voxel, net_zyx) if c is not None]
        batch = np.stack(cubes)
        w = synth.weights(depth, inp)
        ref = Net(depth, {k: dict(v) for k, v in w.items()})
        ref.calibrate = True
        feats = ref.features(batch[:16])
        ref.calibrate = False
        k = ref.w["fully_connected"]["kernel"]
        diff = (feats @ (k[:, 1] - k[:, 0])).numpy()
        scale = 3.0 / max(float(diff.std()), 1e-12)
        tag = "d%d_%dx%dx%d" % (depth, inp[0], inp[1], inp[2])
        fan = feats.shape[1]
        kernel = synth.uniform("fully_connected", 0, fan * 2, math.sqrt(6.0 / fan) * scale, 0.0).reshape(fan, 2)
        bias = np.array([0.0, -float(diff.mean()) * scale], np.float32)
        calib = {"bn": {n: {k2: [float(x) for x in v] for k2, v in ref.raw[n].items()}
                        for n, c, ws, _ in synth.layers(depth, inp) if c == "BatchNormalization"},
                 "dense": {"kernel_scale": scale, "bias": [float(x) for x in bias]}}
        with open(os.path.join(HERE, "calib_%s.json" % tag), "w") as f:
            json.dump(calib, f)
        wfinal = synth.weights(depth, inp, calib["bn"])
        wfinal["fully_connected"] = {"kernel": kernel, "bias": bias}
        path = os.path.join(tmp, tag + (".h5" if layout == "legacy" else ".weights.h5"))
        (write_legacy if layout == "legacy" else write_keras3)(path, depth, inp, wfinal)
        loaded = read_weights(path, depth, inp)
        probs, probs32 = [], []
        for i in range(0, len(batch), 8):
            probs.append(Net(depth, loaded).probs(batch[i:i + 8]))
            probs32.append(Net(depth, loaded, torch.float32).probs(batch[i:i + 8]))
        p = np.concatenate(probs)[:, 1]
        p32 = np.concatenate(probs32)[:, 1]
        os.remove(path)
        print(tag, "p(cell) range", float(p.min()), float(p.max()), "float32 vs float64 torch max diff", float(np.abs(p - p32).max()))
        nets["configs"].append({"tag": tag, "depth": depth, "input": inp, "voxel": voxel, "layout": layout,
                                "p_cell": [float(x) for x in p], "float32_max_diff": float(np.abs(p - p32).max())})
    with open(os.path.join(HERE, "net_golden.json"), "w") as f:
        json.dump(nets, f, indent=1)
    fixtures()


def fixtures():
    """Small files in both layouts exactly as h5py writes Keras's (not
    whole networks: the reader's layout tests)."""
    w = {"conv1": {"kernel": np.arange(6, dtype=np.float32).reshape(1, 1, 1, 2, 3) / 8},
         "conv1_bn": {v: np.full(3, i + 0.5, np.float32) for i, v in enumerate(("gamma", "beta", "moving_mean", "moving_variance"))}}
    with h5py.File(os.path.join(HERE, "fixture_legacy.h5"), "w") as f:
        f.attrs["layer_names"] = np.array([b"input_1", b"conv1_padding", b"conv1", b"conv1_bn"])
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = "2.13.1"
        for n in ("input_1", "conv1_padding"):
            f.create_group(n).attrs["weight_names"] = np.asarray([])
        for n, vs in w.items():
            g = f.create_group(n)
            names = [("%s/%s:0" % (n, v)).encode() for v in vs]
            g.attrs["weight_names"] = np.asarray(names)
            for v, nm in zip(vs, names):
                g.create_dataset(nm.decode(), data=vs[v])
    with h5py.File(os.path.join(HERE, "fixture_keras3.weights.h5"), "w") as f:
        f.create_group("vars")
        f.create_group("layers/input_layer/vars")
        f.create_group("layers/zero_padding3d/vars")
        g = f.create_group("layers/conv3d/vars")
        g["0"] = w["conv1"]["kernel"]
        g = f.create_group("layers/batch_normalization/vars")
        for i, v in enumerate(("gamma", "beta", "moving_mean", "moving_variance")):
            g[str(i)] = w["conv1_bn"][v].astype(np.float64)


if __name__ == "__main__":
    import sys
    # "extract": rewrite extract_golden.json only (the networks' goldens
    # and calibrations take long and do not depend on it).
    main(only_extract=sys.argv[1:] == ["extract"])
