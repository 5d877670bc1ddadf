#!/usr/bin/python3
"""Reference probabilities of a model voxlab's training saved
(trained_golden.json, for modelfiles/TestTrainedModelClassifies). Run
with /usr/bin/python3 from this folder; it needs Go.

The Go test, run with VOXLAB_TRAINED_OUT, exports the synthetic crop's
training cubes, trains the calibrated 18-layer network an epoch and keeps
the cubes and model.weights.h5 there. This script then classifies each
exported cube with gen_golden.py's torch network (float64, written from
resnet.py's description, inference mode: the moving statistics), reading
the weights with h5py from Keras 3's layout and the cubes with tifffile
as cellfinder reads them (z, y, x pages, to (y, x, z) channels last), and
commits p(cell) per cube with a fingerprint of the weights it read.
"""

import glob
import json
import os
import subprocess
import tempfile

import numpy as np
import tifffile

import gen_golden

HERE = os.path.dirname(os.path.abspath(__file__))
DEPTH, INPUT = 18, (20, 20, 8, 2)
PARTS = [("fully_connected", "kernel"), ("fully_connected", "bias"), ("conv1", "kernel"),
         ("conv1_bn", "gamma"), ("conv1_bn", "moving_variance")]


def main():
    out = tempfile.mkdtemp(prefix="trained-golden-")
    env = dict(os.environ, VOXLAB_TRAINED_OUT=out)
    subprocess.run(["go", "test", "-count=1", "-run", "TestTrainedModelClassifies$", "./processing/classify/modelfiles"],
                   cwd=os.path.join(HERE, "..", "..", ".."), env=env, check=True)
    w = gen_golden.read_weights(os.path.join(out, "model.weights.h5"), DEPTH, INPUT)
    net = gen_golden.Net(DEPTH, w)
    p = {}
    for f0 in sorted(glob.glob(os.path.join(out, "cubes", "*", "*Ch0.tif"))):
        chans = [tifffile.imread(f0[:-5] + "%d.tif" % c).astype(np.float32) for c in range(INPUT[3])]
        cube = np.stack([np.transpose(c, (1, 2, 0)) for c in chans], axis=-1)  # y, x, z, c
        p[os.path.basename(f0)] = float(net.probs(cube[None])[0, 1])
    fp = {"%s/%s" % lv: float(np.abs(w[lv[0]][lv[1]].astype(np.float64)).sum()) for lv in PARTS}
    with open(os.path.join(HERE, "trained_golden.json"), "w") as f:
        json.dump({"Fingerprint": fp, "P": p}, f, indent=1, sort_keys=True)
    print("%d cubes classified" % len(p))


if __name__ == "__main__":
    main()
