#!/bin/sh
# bench_svd.sh [DIR] [N] [BOX] [HOST_MEMORY] [SUBSET]: voxlab svd against
# numpy's in-memory linalg.svd (BENCHMARKS.md, issue 36). Writes N maps of
# BOX³ float32 (Gaussian blobs with noise, Debian's numpy) as DIR/gt.npy and
# their first 80 as DIR/subs/sub.npy, runs `voxlab svd` (on PATH, or
# $VOXLAB) under --host-memory HOST_MEMORY with /usr/bin/time -v and prints
# its plan. Then, on the first SUBSET maps (default N: all of them) written
# as DIR/gt_subset.npy when SUBSET < N, a subset numpy holds in memory,
# voxlab svd again and numpy's SVD of the normalised, centred maps
# (float64), each with its singular values. KEEP=1 keeps DIR; otherwise
# the maps are deleted at the end. DROP_CACHES=1 (root) empties the page
# cache before each voxlab run, so the maps come from the disk.
#
# The maps are written one at a time into a memory-mapped NPY file, so
# any N fits: the challenge's full ground truth,
#   DROP_CACHES=1 sh bench_svd.sh /tmp/b 3315 128 2GiB 100
# writes 25.9 GiB (gt.npy) + 640 MiB (sub.npy) + 800 MiB (gt_subset.npy;
# numpy's SVD of those 100 maps holds about 6.5 GiB: 300 maps of 96³ held
# 8.1 GiB). The Gram pass is n(n+1)/2 · BOX³ multiply-adds (printed).
set -eu
dir=${1:-/tmp/voxlab-bench-svd}; n=${2:-1200}; box=${3:-32}; mem=${4:-96MiB}; sub=${5:-$n}
voxlab=${VOXLAB:-voxlab}
mkdir -p "$dir/subs"
/usr/bin/python3 - "$dir" "$n" "$box" "$sub" <<'PY'
import sys, numpy as np
d, n, box, sub = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(3)
t = np.linspace(0, 1, box, dtype=np.float32)
z, y, x = np.meshgrid(t, t, t, indexing="ij")
maps = np.lib.format.open_memmap(f"{d}/gt.npy", mode="w+", dtype=np.float32, shape=(n, box, box, box))
for i in range(n):
    c = 0.3 + 0.4 * rng.random(3); w = 0.05 + 0.1 * rng.random()
    maps[i] = np.exp(-((z - c[0])**2 + (y - c[1])**2 + (x - c[2])**2) / (2 * w * w)) + 0.01 * rng.standard_normal((box,) * 3)
    if i % 256 == 255:
        maps.flush()  # bound the dirty pages: the file may be larger than RAM
maps.flush()
np.save(f"{d}/subs/sub.npy", np.asarray(maps[:80]))
if sub < n:
    np.save(f"{d}/gt_subset.npy", np.asarray(maps[:sub]))
PY
du -sh "$dir/gt.npy"
gt_sub="$dir/gt.npy"
[ "$sub" -lt "$n" ] && gt_sub="$dir/gt_subset.npy"
rm -rf "$dir/out" "$dir/out_subset"
drop() { [ "${DROP_CACHES:-0}" = 1 ] && sync && echo 3 >/proc/sys/vm/drop_caches || true; }
echo "== voxlab svd, $n maps of $box³, --host-memory $mem ($(/usr/bin/python3 -c "print('%.3g' % ($n * ($n + 1) / 2 * $box**3))") multiply-adds in the Gram pass)"
"$voxlab" plan svd "$dir/subs" "$dir/out" --gt "$dir/gt.npy" --host-memory "$mem" | head -4
drop
/usr/bin/time -v "$voxlab" svd "$dir/subs" "$dir/out" --gt "$dir/gt.npy" --host-memory "$mem" 2>&1 |
	grep -E "finished|Maximum resident|Elapsed|User time|System time"
uptime
/usr/bin/python3 -c "import numpy as np; print('voxlab S', np.load('$dir/out/gt/singular_values.npy')[0])"
if [ "$sub" -lt "$n" ]; then
	echo "== voxlab svd, the first $sub maps"
	drop
	/usr/bin/time -v "$voxlab" svd "$dir/subs" "$dir/out_subset" --gt "$gt_sub" --host-memory "$mem" 2>&1 |
		grep -E "finished|Maximum resident|Elapsed|User time|System time"
	uptime
	/usr/bin/python3 -c "import numpy as np; print('voxlab S', np.load('$dir/out_subset/gt/singular_values.npy')[0])"
fi
echo "== numpy linalg.svd, the first $sub maps in memory"
/usr/bin/time -v /usr/bin/python3 - "$gt_sub" "$sub" <<'PY' 2>&1 | grep -E "numpy|Maximum resident|Elapsed"
import sys, time, numpy as np
x = np.load(sys.argv[1]).reshape(int(sys.argv[2]), -1).astype(np.float64)
t = time.time()
x /= np.linalg.norm(x, axis=1, keepdims=True)
x -= x.mean(0, keepdims=True)
s = np.linalg.svd(x, full_matrices=False, compute_uv=True)[1]
print("numpy svd %.2f s" % (time.time() - t), "S", s[:5])
PY
uptime
[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
