#!/usr/bin/env bash
# End-to-end benchmark of issue 14: `voxlab distance` (load the NPY files,
# normalise, l2 + corr, write the output) against bench_e2e_numpy.py, the
# same computation with NumPy + OpenBLAS, on the same files, page cache
# warm, best of N wall times (/usr/bin/time). Both normalisations are run:
# median-zscore (voxlab's default, what the challenge does) and none; the
# NumPy script also in float32 without normalisation, its fastest form.
# The l2 and corr matrices of each pair of runs are checked to agree.
#
# Usage: bench_e2e.sh [VOXLAB [WORKDIR [REPEATS]]]
#   VOXLAB   the voxlab binary (default: go build into WORKDIR)
#   WORKDIR  where the data go (default /tmp/voxlab-bench-e2e)
#   REPEATS  runs of each command, the best counts (default 7)
# Data: 200 ground-truth and 40 submitted maps of 64³ float32 noise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${2:-/tmp/voxlab-bench-e2e}
reps=${3:-7}
py=/usr/bin/python3
mkdir -p "$work"
voxlab=${1:-}
if [ -z "$voxlab" ]; then
  (cd "$here/../../.." && go build -o "$work/voxlab" ./app)
  voxlab=$work/voxlab
fi
gt=$work/gt.npy
sub=$work/sub.npy
if [ ! -e "$gt" ] || [ ! -e "$sub" ]; then
  "$py" - "$gt" "$sub" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(1)
np.save(sys.argv[1], rng.standard_normal((200, 64, 64, 64), dtype=np.float32))
np.save(sys.argv[2], rng.standard_normal((40, 64, 64, 64), dtype=np.float32))
PY
fi
cat "$gt" "$sub" >/dev/null # page cache
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"

# best NAME CMD...: runs CMD reps times; prints and sets BEST (wall, s)
# and CPU (user + sys of that run, s).
best() {
  local name=$1; shift
  BEST=1e9 CPU=0
  for _ in $(seq "$reps"); do
    /usr/bin/time -f '%e %U %S' -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r w u s <"$work/t"
    if awk -v a="$w" -v b="$BEST" 'BEGIN { exit !(a < b) }'; then
      BEST=$w CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
  done
  printf '%-44s best %6.3f s (cpu %s s), %8.0f pairs/s\n' "$name" "$BEST" "$CPU" "$(awk -v t="$BEST" 'BEGIN { print 8000 / t }')"
}

declare -A wall
for norm in median-zscore none; do
  best "voxlab distance --normalize $norm" "$voxlab" distance "$gt" "$sub" "$work/vx-$norm" \
    --metrics l2,corr --normalize "$norm" --backend cpu --quiet
  wall[vx-$norm]=$BEST
  best "numpy float64 --normalize $norm" "$py" "$here/bench_e2e_numpy.py" "$gt" "$sub" "$work/np-$norm" --normalize "$norm"
  wall[np-$norm]=$BEST
done
best "numpy float32 --normalize none" "$py" "$here/bench_e2e_numpy.py" "$gt" "$sub" "$work/np32-none" --normalize none --dtype float32
wall[np32-none]=$BEST

ratio() { awk -v a="${wall[$2]}" -v b="${wall[$1]}" 'BEGIN { printf "%.2f", a / b }'; }
echo "voxlab vs numpy (numpy wall / voxlab wall):"
echo "  median-zscore, float64 both:          $(ratio vx-median-zscore np-median-zscore)x"
echo "  none, float64 both:                   $(ratio vx-none np-none)x"
echo "  none, numpy in float32:               $(ratio vx-none np32-none)x"
echo "  voxlab median-zscore vs numpy float32 none (numpy's fastest, less work): $(ratio vx-median-zscore np32-none)x"

"$py" - "$work" <<'PY'
import sys
import numpy as np
w = sys.argv[1]
ok = True
for norm in ("median-zscore", "none"):
    for m in ("l2", "corr"):
        a, b = np.load(f"{w}/vx-{norm}/{m}.npy"), np.load(f"{w}/np-{norm}/{m}.npy")
        d = np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))
        ok &= bool(d < 1e-9)
        print(f"{norm} {m}: max relative difference voxlab vs numpy float64 {d:.1e}")
sys.exit(0 if ok else 1)
PY
