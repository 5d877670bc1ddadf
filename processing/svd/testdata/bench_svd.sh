#!/bin/sh
# bench_svd.sh [DIR] [N] [BOX] [HOST_MEMORY]: voxlab svd against numpy's
# in-memory linalg.svd on the same maps (BENCHMARKS.md, issue 36). Writes N
# maps of BOX³ float32 (Gaussian blobs with noise, Debian's numpy) as
# DIR/gt.npy and their first 80 as DIR/subs/sub.npy, runs `voxlab svd` (on
# PATH, or $VOXLAB) under --host-memory HOST_MEMORY with /usr/bin/time -v,
# then numpy's SVD of the normalised, centred maps (float64), and prints
# both singular values.
set -eu
dir=${1:-/tmp/voxlab-bench-svd}; n=${2:-1200}; box=${3:-32}; mem=${4:-96MiB}
voxlab=${VOXLAB:-voxlab}
mkdir -p "$dir/subs"
/usr/bin/python3 - "$dir" "$n" "$box" <<'PY'
import sys, numpy as np
d, n, box = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(3)
t = np.linspace(0, 1, box)
z, y, x = np.meshgrid(t, t, t, indexing="ij")
maps = np.lib.format.open_memmap(f"{d}/gt.npy", mode="w+", dtype=np.float32, shape=(n, box, box, box))
for i in range(n):
    c = 0.3 + 0.4 * rng.random(3); w = 0.05 + 0.1 * rng.random()
    maps[i] = np.exp(-((z - c[0])**2 + (y - c[1])**2 + (x - c[2])**2) / (2 * w * w)) + 0.01 * rng.standard_normal((box,) * 3)
maps.flush()
np.save(f"{d}/subs/sub.npy", np.asarray(maps[:80]))
PY
rm -rf "$dir/out"
"$voxlab" plan svd "$dir/subs" "$dir/out" --gt "$dir/gt.npy" --host-memory "$mem" | head -4
/usr/bin/time -v "$voxlab" svd "$dir/subs" "$dir/out" --gt "$dir/gt.npy" --host-memory "$mem" 2>&1 |
	grep -E "finished|Maximum resident|Elapsed"
/usr/bin/python3 -c "import numpy as np; print('voxlab S', np.load('$dir/out/gt/singular_values.npy')[0])"
/usr/bin/time -v /usr/bin/python3 - "$dir" "$n" <<'PY' 2>&1 | grep -E "numpy|Maximum resident|Elapsed"
import sys, time, numpy as np
x = np.load(f"{sys.argv[1]}/gt.npy").reshape(int(sys.argv[2]), -1).astype(np.float64)
t = time.time()
x /= np.linalg.norm(x, axis=1, keepdims=True)
x -= x.mean(0, keepdims=True)
s = np.linalg.svd(x, full_matrices=False, compute_uv=True)[1]
print("numpy svd %.2f s" % (time.time() - t), "S", s[:5])
PY
