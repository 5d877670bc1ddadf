#!/usr/bin/python3
"""torch's CPU training step of cellfinder's ResNet with Keras 3's
semantics, on the cubes BenchmarkStep50 trains on (scripts/bench-train.sh
runs both, in turn): float32, autograd, BatchNormalization with the
batch's statistics per z plane and the moving averages updated,
softmax + categorical_crossentropy (its clip), Keras 3's Adam; synth.py's
weights of a new network. Prints cubes/s.
Usage: bench_train_torch.py [depth] [batch] [threads] [steps]"""

import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata"))
import synth  # noqa: E402

INPUT = (50, 50, 20, 2)


class Net:
    def __init__(self, depth, w):
        self.depth = depth
        self.p = {k: {v: torch.tensor(np.asarray(a), dtype=torch.float32, requires_grad=v not in ("moving_mean", "moving_variance"))
                      for v, a in d.items()} for k, d in w.items()}

    def conv(self, x, name, stride):
        return F.conv3d(x, self.p[name]["kernel"].permute(4, 3, 0, 1, 2), stride=stride)

    def bn(self, x, name):
        v = self.p[name]
        mean = x.mean(dim=(0, 1, 2, 3))
        var = ((x - mean) ** 2).mean(dim=(0, 1, 2, 3))
        with torch.no_grad():
            v["moving_mean"].mul_(0.99).add_(mean * (1 - 0.99))
            v["moving_variance"].mul_(0.99).add_(var * (1 - 0.99))
        return (x - mean) / torch.sqrt(var + 1e-5) * v["gamma"] + v["beta"]

    def probs(self, x):
        x = F.pad(x, (3,) * 6)
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
        f = x.mean(dim=(2, 3, 4))
        d = self.p["fully_connected"]
        return torch.softmax(f @ d["kernel"] + d["bias"], dim=1)


def step(net, x, t1h, state, lr=1e-4):
    probs = net.probs(x)
    q = torch.clamp(probs / probs.sum(dim=1, keepdim=True), 1e-7, 1 - 1e-7)
    loss = -(t1h * torch.log(q)).sum(dim=1).mean()
    trainable = [t for d in net.p.values() for t in d.values() if t.requires_grad]
    grads = torch.autograd.grad(loss, trainable)
    state["t"] += 1
    alpha = lr * math.sqrt(1 - 0.999 ** state["t"]) / (1 - 0.9 ** state["t"])
    with torch.no_grad():
        for w, g in zip(trainable, grads):
            m, v = state.setdefault(id(w), (torch.zeros_like(w), torch.zeros_like(w)))
            m.add_((g - m) * (1 - 0.9))
            v.add_((g * g - v) * (1 - 0.999))
            w.sub_(m * alpha / (torch.sqrt(v) + 1e-7))
    return float(loss)


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    torch.set_num_threads(threads)
    net = Net(depth, synth.weights(depth, INPUT))
    n = INPUT[0] * INPUT[1] * INPUT[2] * INPUT[3]
    x = np.stack([synth.uniform("bench_train%d" % b, 0, n, 1.0, 0.0).reshape(INPUT) for b in range(batch)])
    x = torch.from_numpy(x.astype(np.float32)).permute(0, 4, 1, 2, 3).contiguous()
    t1h = F.one_hot(torch.tensor([b % 2 for b in range(batch)]), 2).to(torch.float32)
    state = {"t": 0}
    step(net, x, t1h, state)  # warm up
    t0 = time.perf_counter()
    for _ in range(steps):
        step(net, x, t1h, state)
    dt = time.perf_counter() - t0
    print("torch %s, %d threads: ResNet-%d training step, batch %d: %.3f cubes/s (%d steps)" % (
        torch.__version__, threads, depth, batch, batch * steps / dt, steps))


if __name__ == "__main__":
    main()
