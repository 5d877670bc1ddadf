#!/usr/bin/python3
"""torch's CPU forward pass of cellfinder's ResNet on the cubes
BenchmarkForwardCPU runs (scripts/bench-classify.sh runs both, in turn):
the candidates of candidates.csv cut from the synthetic crop at the
network's voxel size, repeated to a batch, divided by 1000; synth.py's
weights. Prints cubes/s.  Usage: bench_torch.py [depth] [batch] [threads] [repeats]"""

import sys
import time

import numpy as np
import torch

import gen_golden
import synth


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    torch.set_num_threads(threads)
    pts = gen_golden.candidates()
    somata = [(int(z), int(y), int(x)) for z, y, x, t in pts if t == "cell"]
    vols = synth.crop(gen_golden.SHAPE, somata, gen_golden.SEED)
    cubes = [c for s, c in gen_golden.extract(vols, pts, (5, 1, 1), (20, 50, 50)) if c is not None]
    cubes = np.stack([cubes[i % len(cubes)] for i in range(batch)]) / np.float32(1000)
    w = synth.weights(depth, (50, 50, 20, 2))
    net = gen_golden.Net(depth, w, torch.float32)
    with torch.inference_mode():
        net.probs(cubes[:2])  # warm up
        best = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            p = net.probs(cubes)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
    print("torch %s, %d threads, mkldnn %s: ResNet-%d batch %d: %.3f cubes/s (best of %d)" % (
        torch.__version__, threads, torch.backends.mkldnn.is_available(), depth, batch, batch / best, repeats))
    print("p(cell) of the first cubes:", p[0, 1], p[1, 1], p[2, 1])


if __name__ == "__main__":
    main()
