#!/usr/bin/env bash
# bench-scale.sh: voxlab's pipelines at the field's real sizes, whole
# commands under /usr/bin/time -v. Each part (scripts/bench-scale/*.sh)
# generates its data in a temporary folder, runs the command, prints
# throughput, wall time and peak RSS against the plan's prediction, checks
# part of the output against an independent reference, and the folder is
# deleted after it.
#
#   dezing    a 9.5 GB NeXus scan chunked one frame per chunk (and stored
#             contiguously), and 64 x 512 x 512 against SciPy
#   detect    600 TIFF planes of 2048 x 2048 uint16 with planted cells
#   distance  a stack of 128^3 float32 maps larger than RAM, 40 submitted
#
# Usage: scripts/bench-scale.sh [--scale F] [--dir DIR] [--only dezing,detect,distance]
#   --scale F  data size as a fraction of the field's (default 1; 0.05
#              runs in a few minutes)
#   --dir DIR  where the temporary folders go (default: $TMPDIR or /tmp;
#              SCALE=1 needs about 30 GB free there)
# make bench-scale SCALE=F runs it after building. It exits non-zero when
# a check fails or a peak RSS passes its plan + 10% + 100 MB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scale=1 dir=${TMPDIR:-/tmp} only="dezing,detect,distance"
while [ $# -gt 0 ]; do
  case $1 in
    --scale) scale=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "bench-scale: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
export SCALE=$scale VOXLAB=$root/bin/voxlab PY=/usr/bin/python3
[ -x "$VOXLAB" ] || { echo "bench-scale: $VOXLAB is missing: run make build (or make bench-scale)" >&2; exit 2; }
"$PY" -c 'import numpy, scipy, h5py, tifffile' 2>/dev/null ||
  { echo "bench-scale: $PY lacks numpy, scipy, h5py or tifffile (make bench-scale installs them)" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"; [ -n "${WORK:-}" ] && rm -rf "$WORK"' EXIT
echo "bench-scale: scale $SCALE on $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 2^20 }' /proc/meminfo) RAM, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
status=0
for part in ${only//,/ }; do
  export WORK
  WORK=$(mktemp -d "$dir/voxlab-bench-$part.XXXXXX")
  echo "== $part (data in $WORK)"
  "$root/scripts/bench-scale/$part.sh" | tee -a "$log" || status=1
  rm -rf "$WORK"
  WORK=
done
echo
echo "== summary"
grep '^RESULT ' "$log" | sed 's/^RESULT /  /' || true
if grep -q '^RESULT .*\(check=FAIL\|rss=OVER\)' "$log"; then status=1; fi
[ $status = 0 ] && echo "bench-scale: every check passed" || echo "bench-scale: FAILED (see above)"
exit $status
