#!/usr/bin/env bash
# distance.sh: the distance-matrix part of scripts/bench-scale.sh.
#
# Generates in $WORK a ground-truth NPY stack of 128³ float32 maps larger
# than the machine's RAM at SCALE=1 (n = ceil(1.1 · MemTotal / 8 MiB)
# maps; n·SCALE at other scales, at least 50) and 40 submitted maps, in
# pieces of 16 maps written to the file one after the other, so the
# generator holds 128 MiB at most. Each map is one of eight smooth
# templates, scaled and shifted, plus noise, so that the matrices have
# structure and the normalisation matters. Runs `voxlab distance
# --low-memory` under `timed` with the default budget and with
# --host-memory $DISTANCE_SMALL_HOST (default 2GiB), and checks a block
# of each output matrix (a few rows and columns) against NumPy computing
# the same metrics from their definitions on those maps, normalised as
# voxlab does (processing/distance/normalize.go: (x − median)/std over
# the masked voxels, here all of them, the median the lower middle value,
# std with n − 1). Exits non-zero when a check fails or a run's peak RSS
# passes its plan's prediction + 10% + 100 MB.
#
# Env (lib.sh): VOXLAB, WORK, SCALE, PY. Optional: DISTANCE_SMALL_HOST,
# DISTANCE_METRICS (default l2,corr,bioem: fsc and res cost a 3D FFT per
# map, minutes at full size), DISTANCE_SEED.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

SMALL=${DISTANCE_SMALL_HOST:-2GiB}
METRICS=${DISTANCE_METRICS:-l2,corr,bioem}
SEED=${DISTANCE_SEED:-1}
BOX=128
NSUB=40

ram=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
ngt=$(awk -v r="$ram" -v s="$SCALE" 'BEGIN {
  n = 1.1 * r / (8 * 2^20); n = (n == int(n)) ? n : int(n) + 1
  n = n * s; n = (n == int(n)) ? n : int(n) + 1
  print (n < 50 ? 50 : n) }')
gt=$WORK/gt.npy
sub=$WORK/sub.npy

cat >"$WORK/gen.py" <<'EOF'
"""gen.py GT NGT SUB NSUB BOX SEED: the two stacks, written piece by piece."""
import sys
import numpy as np

gt, ngt, sub, nsub, box, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rng = np.random.default_rng(seed)
z, y, x = (np.indices((box, box, box), dtype=np.float32) - box / 2) / box
templates = []
for _ in range(8):
    t = np.zeros((box, box, box), np.float32)
    for _ in range(3):
        c = rng.uniform(-0.25, 0.25, 3).astype(np.float32)
        w = np.float32(rng.uniform(0.05, 0.15))
        t += np.exp(-((z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2) / (2 * w * w))
    templates.append(t)
del z, y, x


def write(path, n, piece=16):
    with open(path, "wb") as f:
        np.lib.format.write_array_header_2_0(f, {"descr": "<f4", "fortran_order": False, "shape": (n, box, box, box)})
        for i in range(0, n, piece):
            k = min(piece, n - i)
            out = rng.standard_normal((k, box, box, box), dtype=np.float32)
            out *= np.float32(0.3)
            for j in range(k):
                out[j] += np.float32(rng.uniform(0.5, 2)) * templates[(i + j) % 8] + np.float32(rng.uniform(-1, 1))
            f.write(out.tobytes())


write(gt, ngt)
write(sub, nsub)
EOF

cat >"$WORK/check.py" <<'EOF'
"""check.py GT SUB OUT METRICS: a few rows and columns of each matrix in
OUT against NumPy, from the definitions. Prints ok or FAIL."""
import sys
import numpy as np

gt, sub, out, metrics = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
G, S = np.load(gt, mmap_mode="r"), np.load(sub, mmap_mode="r")
n, m = G.shape[0], S.shape[0]
rows = sorted({0, 1, n // 3, n // 2, n - 1})
cols = sorted({0, 7, m // 2, m - 1})


def norm(a):
    x = np.asarray(a, dtype=np.float64).reshape(-1)
    med = np.partition(x, (x.size - 1) // 2)[(x.size - 1) // 2]  # lower middle, as torch.median
    return (x - med) / x.std(ddof=1)


TINY = float(np.finfo(np.float32).tiny)


def bioem(o, c):
    # Cossio & Hummer 2013, eq. 10, as the challenge evaluates it.
    N = o.size
    co, cc, coo, ccc, coc = o.sum(), c.sum(), o @ o, c @ c, o @ c
    t2 = N * (ccc * coo - coc * coc) + 2 * co * coc * cc - ccc * co * co - coo * cc * cc
    t3 = (N - 2) * (N * ccc - cc * cc)
    logp = np.pi / 2 + np.log(2 * np.pi * np.e) * (1 - N / 2) + np.log(max(t2, TINY)) * (1.5 - N / 2) + np.log(max(t3, TINY)) * (N / 2 - 2)
    return -logp


ref = {
    "l2": lambda a, b: np.linalg.norm(a - b),
    "l2sq": lambda a, b: np.sum((a - b) ** 2),
    "corr": lambda a, b: a @ b / a.size,
    "corr-distance": lambda a, b: 1 - a @ b / a.size,
    "bioem": bioem,
}
A = {i: norm(G[i]) for i in rows}
B = {j: norm(S[j]) for j in cols}
ok = True
for name in metrics:
    if name not in ref:
        print(f"{name}: not checked (no reference here)")
        continue
    got = np.load(f"{out}/{name}.npy")
    if got.shape != (n, m):
        print(f"{name}: shape {got.shape}, want {(n, m)}")
        ok = False
        continue
    worst = 0.0
    for i in rows:
        for j in cols:
            want = ref[name](A[i], B[j])
            worst = max(worst, abs(got[i, j] - want) / max(abs(want), 1e-3))
    good = worst < 1e-6
    ok &= good
    print(f"{name}: rows {rows} x columns {cols}, worst relative difference {worst:.1e}: {'ok' if good else 'FAIL'}")
print("ok" if ok else "FAIL")
EOF

echo "distance: $ngt ground-truth maps of ${BOX}³ ($(awk -v n="$ngt" 'BEGIN { printf "%.1f", n * 8 / 1024 }') GiB; RAM $(awk -v r="$ram" 'BEGIN { printf "%.1f", r / 2^30 }') GiB) x $NSUB submitted, metrics $METRICS" >&2
"$PY" "$WORK/gen.py" "$gt" "$ngt" "$sub" "$NSUB" "$BOX" "$SEED"

failed=0
run_case() {
  local name=$1; shift
  local out=$WORK/out-$name
  local args=(distance "$gt" "$sub" "$out" --metrics "$METRICS" --backend cpu --low-memory "$@")
  local plan
  plan=$(plan_ram_mib "${args[@]}")
  local rc=0
  timed "distance-$name" "$VOXLAB" "${args[@]}" --json || rc=$?
  local check=FAIL rss=OVER throughput=0
  if [ $rc = 0 ]; then
    check=$("$PY" "$WORK/check.py" "$gt" "$sub" "$out" "$METRICS" | tee "$WORK/check-$name.txt" | tail -1)
    sed '$d' "$WORK/check-$name.txt" | sed "s/^/distance $name: /" >&2
    rss=$(rss_ok "$PEAK_RSS_MIB" "$plan")
    throughput=$(awk -v n="$ngt" -v m="$NSUB" -v t="$WALL_S" 'BEGIN { printf "%.0f", n * m / t }')
  fi
  [ "$check" = ok ] && [ "$rss" = ok ] || failed=1
  result pipeline=distance case="$name" throughput="$throughput" unit=pairs/s wall_s="$WALL_S" \
    peak_rss_mib="$PEAK_RSS_MIB" plan_ram_mib="$plan" rss="$rss" check="$check"
  rm -rf "$out"
}

run_case low-memory-default
run_case "low-memory-host-$SMALL" --host-memory "$SMALL"
exit $failed
