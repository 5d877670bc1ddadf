#!/usr/bin/env bash
# Low-memory benchmark of issue 7: a ground-truth file twice the memory
# budget, streamed with --low-memory --host-memory BUDGET, against the
# in-memory pipeline on the same data, both with the file in the page
# cache. Prints /usr/bin/time -v's peak RSS and wall time and the pairs/s
# of each run's distance stage (summary.json), and checks the matrices
# agree.
#
# Usage: bench_lowmem.sh [VOXLAB [WORKDIR [BUDGET_MIB [METRICS]]]]
#   VOXLAB     the voxlab binary (default: go build into WORKDIR)
#   WORKDIR    where the data go (default /tmp/voxlab-bench-distance)
#   BUDGET_MIB the --host-memory budget in MiB (default 512); the ground
#              truth is 2 x BUDGET_MIB maps of 64³ float32 (1 MiB each)
#   METRICS    default l2,corr
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${2:-/tmp/voxlab-bench-distance}
budget=${3:-512}
metrics=${4:-l2,corr}
mkdir -p "$work"
voxlab=${1:-}
if [ -z "$voxlab" ]; then
  (cd "$here/../../.." && go build -o "$work/voxlab" ./app)
  voxlab=$work/voxlab
fi
ngt=$((2 * budget))
/usr/bin/python3 - "$work" "$ngt" <<'PY'
import os, sys
import numpy as np
work, ngt = sys.argv[1], int(sys.argv[2])
box, nsub = 64, 40
gt = os.path.join(work, f"gt{ngt}.npy")
if not os.path.exists(gt):
    rng = np.random.default_rng(1)
    m = np.lib.format.open_memmap(gt + ".part", "w+", np.float32, (ngt, box, box, box))
    for i in range(0, ngt, 64):
        n = min(64, ngt - i)
        m[i:i + n] = rng.standard_normal((n, box, box, box), dtype=np.float32)
    m.flush(); del m
    os.rename(gt + ".part", gt)
sub = os.path.join(work, "sub.npy")
if not os.path.exists(sub):
    rng = np.random.default_rng(2)
    np.save(sub, rng.standard_normal((nsub, box, box, box), dtype=np.float32))
PY
gt=$work/gt$ngt.npy
sub=$work/sub.npy
echo "ground truth: $gt ($(du -m "$gt" | cut -f1) MiB), budget ${budget} MiB, metrics $metrics, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$gt" "$sub" >/dev/null # page cache
for mode in low mem; do
  out=$work/out-$mode
  rm -rf "$out"
  args=(distance "$gt" "$sub" "$out" --metrics "$metrics" --backend cpu --quiet)
  if [ $mode = low ]; then args+=(--low-memory --host-memory "${budget}MiB"); fi
  /usr/bin/time -v "$voxlab" "${args[@]}" 2>"$work/time-$mode.txt"
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time-$mode.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time-$mode.txt")
  /usr/bin/python3 - "$out/summary.json" "$mode" "$rss" "$wall" "$budget" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
mode, rss, wall, budget = sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
pairs = s["n_ground_truth"] * s["n_submitted"]
t = s["timings_seconds"]
print(f"{s['pipeline']:>10}: chunk {s['chunk_size']:4d}  peak RSS {rss/1024:7.1f} MiB"
      + (f" (budget {budget} MiB + {rss/1024-budget:+.1f})" if mode == "low" else "")
      + f"  wall {wall}  load {t['load']:.2f}s distances {t['distances']:.2f}s"
      + f"  {pairs/t['distances']:,.0f} pairs/s (distance stage), {pairs/(t['load']+t['distances']):,.0f} pairs/s (load + distances)")
PY
done
/usr/bin/python3 - "$work" "$metrics" <<'PY'
import sys
import numpy as np
work, metrics = sys.argv[1], sys.argv[2].split(",")
for m in metrics:
    a = np.load(f"{work}/out-low/{m}.npy"); b = np.load(f"{work}/out-mem/{m}.npy")
    print(f"{m}: max relative difference low vs in memory {np.max(np.abs(a-b)/np.abs(b)):.2e}")
PY
