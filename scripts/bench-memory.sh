#!/usr/bin/env bash
# bench-memory.sh: the peak RSS of `voxlab dezing --host-memory 256MiB`
# on issue 23's four compressed layouts, against the plan. Each layout is
# written by scripts/bench-memory/gen_layouts.py (zarr-python and h5py) at
# the size the field reported it at:
#
#   single   a Zarr array of one 1 GiB zstd chunk (512 x 1024 x 1024 uint16)
#   gzip400  HDF5, gzip, chunks of 400 frames of 512 x 512 (200 MiB)
#   blosc64  Zarr, Blosc LZ4, chunks of 64 frames of 1024 x 512 (64 MiB)
#   zstd256  Zarr, zstd, chunks of 256^3 (32 MiB, 16 across a frame)
#
# For each: `voxlab plan dezing` at the budget; where the plan refuses
# (a chunk and its decode buffers cannot fit), the refusal is the result
# and the run goes ahead at the budget the message names for decoding
# every chunk once. The command runs under /usr/bin/time -v; the check is
# peak RSS <= plan + 10% + 100 MB, and frames around chunk boundaries are
# compared with SciPy (scripts/bench-memory/check_plain.py).
#
# Usage: scripts/bench-memory.sh [--dir DIR] [--only single,gzip400,...]
#          [--budget 256MiB] [--before BIN] [--keep]
#   --dir DIR     where the data go (default $TMPDIR or /tmp; 3 GB)
#   --before BIN  also run an older voxlab binary at the budget (its RSS
#                 only: its plan is what the issue is about)
#   --keep        keep the generated layouts in DIR/voxlab-bench-memory
#                 for the next run
# make bench-memory runs it after building. It exits non-zero when a run
# fails, a check fails or a peak RSS passes its plan + 10% + 100 MB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TMPDIR:-/tmp} only="single,gzip400,blosc64,zstd256" budget=256MiB before="" keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "bench-memory: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
export VOXLAB=$root/bin/voxlab PY=/usr/bin/python3
[ -x "$VOXLAB" ] || { echo "bench-memory: $VOXLAB is missing: run make build" >&2; exit 2; }
"$PY" -c 'import numpy, scipy, h5py, zarr, numcodecs' 2>/dev/null ||
  { echo "bench-memory: $PY lacks numpy, scipy, h5py, zarr or numcodecs (make bench-memory installs them)" >&2; exit 2; }
data=$dir/voxlab-bench-memory
mkdir -p "$data"
export WORK
WORK=$(mktemp -d "$dir/voxlab-bench-memory-run.XXXXXX")
trap 'rm -rf "$WORK"; [ $keep = 1 ] || rm -rf "$data"' EXIT
. "$root/scripts/bench-scale/lib.sh"

echo "bench-memory: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 2^20 }' /proc/meminfo) RAM, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), budget $budget"
status=0
for layout in ${only//,/ }; do
  case $layout in
    gzip400) in=$data/$layout.h5 depth=400 n=1200 ;;
    single) in=$data/$layout.zarr depth=512 n=512 ;;
    blosc64) in=$data/$layout.zarr depth=64 n=512 ;;
    zstd256) in=$data/$layout.zarr depth=256 n=512 ;;
    *) echo "bench-memory: unknown layout $layout" >&2; exit 2 ;;
  esac
  [ -e "$in" ] || "$PY" "$root/scripts/bench-memory/gen_layouts.py" "$data" "$layout" >/dev/null
  echo "== $layout ($(du -sh "$in" | cut -f1) on disk)"
  run_budget=$budget refused=""
  if ! msg=$("$VOXLAB" plan dezing "$in" --host-memory "$budget" 2>&1 >/dev/null); then
    refused=$(sed -n 's/.*the smallest budget that works is \([^ ]*\) \([KMGT]iB\).*/\1\2/p' <<<"$msg")
    run_budget=$(sed -n 's/.*(\([0-9.]*\) \([KMGT]iB\) runs with every chunk.*/\1\2/p' <<<"$msg")
    echo "$layout: refused at $budget: $msg"
    [ -n "$run_budget" ] || { result layout="$layout" check=FAIL | tee -a "$WORK/results"; status=1; continue; }
  fi
  planned=$(plan_ram_mib dezing "$in" --host-memory "$run_budget")
  reading=$("$VOXLAB" plan dezing "$in" --host-memory "$run_budget" --json | "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(d.get("reading", ""), "| blocks of", d["block_slices"])')
  echo "$layout: at $run_budget: plan $planned MiB, $reading"
  rm -f "$WORK/out.h5"
  if ! timed "$layout" "$VOXLAB" dezing "$in" "$WORK/out.h5" --host-memory "$run_budget" --quiet; then
    result layout="$layout" budget="$run_budget" check=FAIL | tee -a "$WORK/results"; status=1; continue
  fi
  check=ok
  for z in 0 $((depth - 4)) $((n - 8)); do
    "$PY" "$root/scripts/bench-memory/check_plain.py" "$in" "$WORK/out.h5" "$z" $((z + 8)) || check=FAIL
  done
  rss=$(rss_ok "$PEAK_RSS_MIB" "$planned")
  [ "$check" = ok ] && [ "$rss" = ok ] || status=1
  extra=""
  if [ -n "$before" ]; then
    rm -f "$WORK/before.h5"
    VOXLAB=$before timed "$layout-before" "$before" dezing "$in" "$WORK/before.h5" --host-memory "$budget" --quiet || true
    extra="before_rss_mib=$PEAK_RSS_MIB before_wall_s=$WALL_S"
    rm -f "$WORK/before.h5"
  fi
  result layout="$layout" budget="$run_budget" refused_at_"$budget"="${refused:-no}" peak_rss_mib="$PEAK_RSS_MIB" \
    plan_ram_mib="$planned" rss="$rss" wall_s="$WALL_S" check=$check $extra | tee -a "$WORK/results"
done
echo
echo "== summary"
sed 's/^RESULT /  /' "$WORK/results" 2>/dev/null || true
[ $status = 0 ] && echo "bench-memory: every check passed" || echo "bench-memory: FAILED (see above)"
exit $status
