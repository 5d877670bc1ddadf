#!/usr/bin/python3
"""Golden results of voxlab's training step (processing/classify/train),
made with Debian's python3-torch. Run with /usr/bin/python3 from this
folder: it rewrites train_golden.json.

An independent reference of Keras 3's semantics as cellfinder trains its
network (train_yaml.py -> model.fit; resnet.py's build_model: softmax,
categorical_crossentropy, Adam(learning_rate)), written here in torch,
float64, with autograd for every gradient:
 - the network of resnet.py (the layers of ../../testdata/synth.py,
   channels-last cubes permuted to torch's layout, explicit zero padding,
   'valid' convolutions with Keras's (kh, kw, kd, in, out) kernels);
 - BatchNormalization(axis=3, epsilon=1e-5, momentum=0.99) in training
   mode: the batch's mean and biased variance over every axis but z
   (Keras 3's ops.moments), the moving statistics updated as
   moving*0.99 + batch*(1-0.99);
 - softmax; Keras's categorical_crossentropy of probabilities: divided
   by their sum, clipped to [1e-7, 1-1e-7], -sum(t*log p), the mean over
   the batch;
 - Keras 3's Adam (beta_1 0.9, beta_2 0.999, epsilon 1e-7):
   m += (g-m)(1-b1), v += (g^2-v)(1-b2),
   w -= m*lr*sqrt(1-b2^t)/(1-b1^t) / (sqrt(v)+eps).
Inputs: synth.py's weights (uncalibrated) of an 18-layer network on
20x20x8 two-channel cubes, and four cubes of synth.uniform values (the Go
test makes both identically). Two steps on the batch: the golden holds
the loss and probabilities of both, and after the first step every
moving statistic, every variable of up to 4096 values, and of each larger
one 512 values at hashed indices (sample_index, which the Go test
repeats) with the sum and absolute sum of its update.
"""

import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata"))
import synth  # noqa: E402

torch.set_num_threads(2)
DEPTH = 18
INPUT = (20, 20, 8, 2)
LABELS = [1, 0, 0, 1]
LR = 1e-4
FULL = 4096
SAMPLES = 512


def cubes():
    n = INPUT[0] * INPUT[1] * INPUT[2] * INPUT[3]
    return np.stack([synth.uniform("train_cube%d" % b, 0, n, 1.0, 0.0).reshape(INPUT) for b in range(len(LABELS))])


class Net:
    def __init__(self, w):
        self.p = {k: {v: torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=v not in ("moving_mean", "moving_variance"))
                      for v, a in d.items()} for k, d in w.items()}

    def conv(self, x, name, stride):
        k = self.p[name]["kernel"].permute(4, 3, 0, 1, 2)
        return F.conv3d(x, k, stride=stride)

    def bn(self, x, name):
        v = self.p[name]
        mean = x.mean(dim=(0, 1, 2, 3))
        var = ((x - mean) ** 2).mean(dim=(0, 1, 2, 3))
        with torch.no_grad():
            v["moving_mean"].mul_(0.99).add_(mean * (1 - 0.99))
            v["moving_variance"].mul_(0.99).add_(var * (1 - 0.99))
        return (x - mean) / torch.sqrt(var + 1e-5) * v["gamma"] + v["beta"]

    def probs(self, batch):
        x = torch.from_numpy(batch).to(torch.float64).permute(0, 4, 1, 2, 3)
        x = F.pad(x, (3,) * 6)
        x = F.relu(self.bn(self.conv(x, "conv1", 2), "conv1_bn"))
        x = F.max_pool3d(x, (3, 3, 2), stride=2)
        for unit, n in enumerate(synth.BLOCKS[DEPTH]):
            for block in range(n):
                s = 2 if unit > 0 and block == 0 else 1
                p = "resunit%d_block%d_" % (unit + 2, block)
                y = F.relu(self.bn(self.conv(F.pad(x, (1,) * 6), p + "conv_a", s), p + "bn_a"))
                y = self.bn(self.conv(F.pad(y, (1,) * 6), p + "conv_b", 1), p + "bn_b")
                short = x
                if block == 0:
                    short = self.bn(self.conv(x, p + "shortcut_conv", s), p + "shortcut_bn")
                x = F.relu(y + short)
        f = x.mean(dim=(2, 3, 4))
        d = self.p["fully_connected"]
        return torch.softmax(f @ d["kernel"] + d["bias"], dim=1)


def crossentropy(probs, labels):
    t = F.one_hot(torch.tensor(labels), 2).to(torch.float64)
    q = probs / probs.sum(dim=1, keepdim=True)
    q = torch.clamp(q, 1e-7, 1 - 1e-7)
    return -(t * torch.log(q)).sum(dim=1).mean()


def step(net, batch, state):
    probs = net.probs(batch)
    loss = crossentropy(probs, LABELS)
    trainable = [t for d in net.p.values() for t in d.values() if t.requires_grad]
    grads = torch.autograd.grad(loss, trainable)
    state["t"] += 1
    t = state["t"]
    alpha = LR * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    with torch.no_grad():
        for w, g in zip(trainable, grads):
            m, v = state.setdefault(id(w), (torch.zeros_like(w), torch.zeros_like(w)))
            m.add_((g - m) * (1 - 0.9))
            v.add_((g * g - v) * (1 - 0.999))
            w.sub_(m * alpha / (torch.sqrt(v) + 1e-7))
    return float(loss), probs.detach().numpy()


def sample_index(layer, var, n):
    base = (synth.fnv1a64(layer + "/" + var) + (7 << 48)) & synth.M64
    with np.errstate(over="ignore"):
        h = synth.splitmix64(np.uint64(base) + np.arange(SAMPLES, dtype=np.uint64))
    return [int(i) for i in h % np.uint64(n)]


def g9(x):
    """x to 9 significant digits (a float32's precision; the golden's size)."""
    return float("%.9g" % x)


def main():
    w0 = synth.weights(DEPTH, INPUT)
    net = Net(w0)
    batch = cubes()
    state = {"t": 0}
    l1, p1 = step(net, batch, state)
    tensors = []
    for layer, d in net.p.items():
        for var, t in d.items():
            new = t.detach().numpy().ravel()
            old = np.asarray(w0[layer][var], np.float64).ravel()
            e = {"layer": layer, "var": var, "n": int(new.size)}
            if new.size <= FULL:
                e["values"] = [g9(x) for x in new]
            else:
                idx = sample_index(layer, var, new.size)
                e["values"] = [g9(new[i]) for i in idx]
                e["delta_sum"] = float((new - old).sum())
                e["delta_abs_sum"] = float(np.abs(new - old).sum())
            tensors.append(e)
    l2, p2 = step(net, batch, state)
    print("loss", l1, l2, "p(cell)", p1[:, 1], p2[:, 1])
    out = {"depth": DEPTH, "input": INPUT, "labels": LABELS, "learning_rate": LR,
           "loss": [l1, l2], "probs": [[float(x) for x in p1.ravel()], [float(x) for x in p2.ravel()]],
           "tensors": tensors}
    with open(os.path.join(HERE, "train_golden.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
