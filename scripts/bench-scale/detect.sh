#!/usr/bin/env bash
# detect.sh: the cell-detection part of scripts/bench-scale.sh.
#
# Generates 600·SCALE (at least 40) TIFF planes of 2048 x 2048 uint16 in
# $WORK: a light-sheet-like tissue region (dark corners, smooth
# autofluorescence, shot noise) with a few hundred planted somata
# (Gaussian blobs of cellfinder's default 16 µm soma at 5,2,2 µm voxels),
# written plane by plane so the generator holds a few planes at most.
# Runs `voxlab detect` on them under `timed` with the default budget and
# with --host-memory $DETECT_SMALL_HOST (default 224MiB: for 2048 x 2048
# planes the planner then drops from 4 planes per batch to 1 or 2), and checks the
# cells found against the planted positions: at least 95% of planted
# somata found within 3 voxels on each axis, and at least 95% of the
# candidates near a planted soma. Also runs the 2D stage's benchmark
# (BenchmarkPlane2048, when the source tree is at $SRC, default the
# repository this script is in) so the pipeline's throughput can be
# stated as a share of it. Exits non-zero when a check fails.
#
# Env (lib.sh): VOXLAB, WORK, SCALE, PY. Optional: DETECT_SMALL_HOST,
# DETECT_SEED, SRC, GO (the go tool; the benchmark is skipped without it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

SMALL=${DETECT_SMALL_HOST:-224MiB}
SEED=${DETECT_SEED:-1}
SRC=${SRC:-$(cd "$here/../.." && pwd)}
GO=${GO:-$(command -v go || true)}

planes=$(awk -v s="$SCALE" 'BEGIN { n = int(600 * s + 0.5); print (n < 40 ? 40 : n) }')
in=$WORK/planes
mkdir -p "$in"

# gen.py OUT PLANES SEED: the planes and truth.csv (z,y,x of each soma).
cat >"$WORK/gen.py" <<'EOF'
import os, sys
import numpy as np
import tifffile

out, nz, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ny = nx = 2048
vz, vxy = 5.0, 2.0                  # voxel size, µm (z; y and x)
sig_xy, sig_z = 3.5, 4.5            # soma profile SD, µm: a 16 µm soma
spacing = 30.0                      # least distance between somata, µm
rng = np.random.default_rng(seed)

# Tissue: an ellipse with a smooth edge leaving the corners dark (the
# corner tile sets cellfinder's in-brain threshold), and a slowly varying
# autofluorescence inside it.
y, x = np.mgrid[0:ny, 0:nx].astype(np.float32)
ey, ex = (y - (ny - 1) / 2) / (0.44 * ny), (x - (nx - 1) / 2) / (0.44 * nx)
inside = (1 - np.sqrt(ey * ey + ex * ex)) * (0.44 * min(ny, nx))   # px into the tissue
u, v = y / ny, x / nx
auto = 0.5 + 0.2 * np.sin(7 * u + 1.3) * np.cos(5 * v + 0.4) + 0.15 * np.sin(13 * (u + v) + 2.1)
tissue = (110 + (420 * (0.7 + 0.6 * auto) - 110) / (1 + np.exp(np.clip(-inside / 6, -60, 60)))).astype(np.float32)
del y, x, ey, ex, u, v, auto

# Somata: integer voxel centres inside the tissue (a tile's width in),
# away from the first and last planes, at least `spacing` apart.
want = max(60, int(round(0.7 * nz)))
margin = 4
cells = []
pos = np.empty((0, 3))
for _ in range(200 * want):
    if len(cells) == want:
        break
    c = (int(rng.integers(margin, nz - margin)), int(rng.integers(0, ny)), int(rng.integers(0, nx)))
    if inside[c[1], c[2]] < 40:
        continue
    p = np.array([c[0] * vz, c[1] * vxy, c[2] * vxy])
    if len(pos) and (((pos - p) ** 2).sum(axis=1) < spacing ** 2).any():
        continue
    cells.append((c, 900 + 1300 * rng.random()))
    pos = np.vstack([pos, p])
cells.sort()
with open(os.path.join(out, "..", "truth.csv"), "w") as f:
    f.write("z,y,x\n")
    for (z, yy, xx), _ in cells:
        f.write("%d,%d,%d\n" % (z, yy, xx))

r = int(np.ceil(4 * sig_xy / vxy))
d = np.arange(-r, r + 1) * vxy
blob = np.exp(-(d[:, None] ** 2 + d[None, :] ** 2) / (2 * sig_xy ** 2)).astype(np.float32)
reach = int(np.ceil(4 * sig_z / vz))
width = len(str(nz - 1))
for z in range(nz):
    f = tissue * np.float32(1 + 0.08 * np.sin(z / 9))
    for (cz, cy, cx), bright in cells:
        if abs(z - cz) > reach:
            continue
        a = bright * np.exp(-((z - cz) * vz) ** 2 / (2 * sig_z ** 2))
        y0, y1, x0, x1 = max(cy - r, 0), min(cy + r + 1, ny), max(cx - r, 0), min(cx + r + 1, nx)
        f[y0:y1, x0:x1] += np.float32(a) * blob[y0 - cy + r:y1 - cy + r, x0 - cx + r:x1 - cx + r]
    # Shot noise (Gaussian approximation of Poisson) plus read noise.
    f += rng.standard_normal(f.shape, dtype=np.float32) * (np.sqrt(f) + 3)
    img = np.clip(np.rint(f), 0, 65535).astype(np.uint16)
    tifffile.imwrite(os.path.join(out, "plane_%0*d.tif" % (max(width, 4), z)), img)
print(len(cells))
EOF

# check.py CSV TRUTH: found/planted within 3 voxels per axis (one to one,
# nearest first); prints "recall precision found planted matched".
cat >"$WORK/check.py" <<'EOF'
import sys
import numpy as np
from scipy.spatial import cKDTree

found = np.array([[int(v) for v in l.split(",")[:3]] for l in open(sys.argv[1]).read().split("\n")[1:]
                  if l and l.split(",")[3] == "cell"]).reshape(-1, 3)
truth = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, dtype=int).reshape(-1, 3)
used = np.zeros(len(found), bool)
matched = 0
if len(found):
    tree = cKDTree(found)
    for t in truth:
        for dist, i in zip(*tree.query(t, k=min(8, len(found)), p=np.inf)):
            if dist <= 3 and not used[i]:
                used[i] = True
                matched += 1
                break
recall = matched / max(len(truth), 1)
precision = matched / max(len(found), 1)
print("%.4f %.4f %d %d %d" % (recall, precision, len(found), len(truth), matched))
EOF

start=$(date +%s)
ncells=$("$PY" "$WORK/gen.py" "$in" "$planes" "$SEED")
echo "detect: generated $planes planes of 2048 x 2048 uint16 with $ncells somata in $(( $(date +%s) - start )) s"

# The 2D stage on its own (BenchmarkPlane2048, mean of 3), for the
# ratio of the command's throughput to it.
stage=""
if [ -n "$GO" ] && [ -f "$SRC/processing/detect/bench_test.go" ]; then
  (cd "$SRC" && "$GO" test -run '^$' -bench 'Plane2048$' -benchtime 40x -count 3 ./processing/detect/) \
    >"$WORK/bench2d.out" 2>&1 || true
  stage=$(awk '/BenchmarkPlane2048/ { for (i = 1; i < NF; i++) if ($(i+1) == "planes/s") { s += $i; n++ } }
      END { if (n) printf "%.2f", s / n }' "$WORK/bench2d.out")
  [ -n "$stage" ] && result pipeline=detect case=2d-stage throughput="$stage" unit=planes/s
fi

fail=0
# one CASE ARGS...: runs voxlab detect with ARGS and prints its result line.
one() {
  local name=$1; shift
  local out=$WORK/$name.csv plan check rc=0
  plan=$(plan_ram_mib detect "$in" "$out" --backend cpu --voxel-size 5,2,2 "$@")
  # Read the planes once, so that every case starts with them in the
  # page cache (a second run's state) whatever ran before it.
  cat "$in"/*.tif >/dev/null
  timed "$name" "$VOXLAB" detect "$in" "$out" --backend cpu --voxel-size 5,2,2 "$@" || rc=$?
  check=FAIL
  local stats="" tput=0 batch="?" ratio=""
  if [ $rc = 0 ]; then
    stats=$("$PY" "$WORK/check.py" "$out" "$WORK/truth.csv")
    read -r recall precision nfound nplanted matched <<<"$stats"
    echo "detect $name: $nfound cells found, $nplanted planted, $matched matched: recall $recall precision $precision"
    if awk -v r="$recall" -v p="$precision" 'BEGIN { exit !(r >= 0.95 && p >= 0.95) }'; then
      check=ok
    fi
    tput=$(awk -v n="$planes" -v s="$WALL_S" 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }')
    batch=$(sed -n 's/.*planes\/s, batch \([0-9]*\).*/\1/p' "$WORK/$name.out" | tail -1)
  fi
  local rss
  rss=$(rss_ok "$PEAK_RSS_MIB" "$plan")
  [ -n "$stage" ] && ratio=" of_2d_stage=$(awk -v a="$tput" -v b="$stage" 'BEGIN { printf "%.2f", a / b }')"
  result pipeline=detect case="$name" throughput="$tput" unit=planes/s wall_s="$WALL_S" \
    peak_rss_mib="$PEAK_RSS_MIB" plan_ram_mib="$plan" rss="$rss" check="$check" batch="$batch"$ratio
  [ "$check" = ok ] && [ "$rss" = ok ] || fail=1
}

one default
one host-"$SMALL" --host-memory "$SMALL"

exit $fail
