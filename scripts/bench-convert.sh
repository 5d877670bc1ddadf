#!/usr/bin/env bash
# bench-convert.sh: `voxlab convert` of a uint16 scan (default 600 x 2048
# x 2048, 5 GB; SHAPE=Z,Y,X to scale) to a 4-level OME-Zarr, its wall
# time set beside the time voxlab's reader takes to read the input
# (scripts/readvol, same slabs), interleaved ROUNDS times so that a
# loaded machine's drift falls on both alike; peak RSS from
# /usr/bin/time -v against `voxlab plan convert`'s peak.
#
#   scripts/bench-convert.sh [ROUNDS] [EXTRA CONVERT FLAGS...]
#   SHAPE=300,2048,2048 scripts/bench-convert.sh 2 --compression none
#
# The input is kept in $BENCH_DIR (default /tmp/voxlab-bench-convert)
# between runs; it is generated with Debian's numpy (/usr/bin/python3):
# a smooth pattern with Poisson noise, compressible as scans are.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
shift || true
shape=${SHAPE:-600,2048,2048}
dir=${BENCH_DIR:-/tmp/voxlab-bench-convert}
mkdir -p "$dir"
in=$dir/scan-${shape//,/x}.npy
need=$(python3 -c "import math; print(math.prod(map(int,'$shape'.split(',')))*2*2)")
free=$(df -B1 --output=avail "$dir" | tail -1)
if [ ! -f "$in" ] && [ "$free" -lt "$need" ]; then
  echo "not enough disk in $dir: $free bytes free, $need needed (input and output); set SHAPE smaller" >&2
  exit 1
fi
go build -o "$dir/voxlab" ./app
go build -o "$dir/readvol" ./scripts/readvol
if [ ! -f "$in" ]; then
  /usr/bin/python3 - "$in" "$shape" <<'PY'
import sys, numpy as np
path, shape = sys.argv[1], tuple(int(s) for s in sys.argv[2].split(','))
a = np.lib.format.open_memmap(path + '.tmp', mode='w+', dtype='<u2', shape=shape)
rng = np.random.default_rng(1)
y, x = np.mgrid[0:shape[1], 0:shape[2]]
for z in range(shape[0]):
    base = 1000 + 800 * np.sin(x / 97 + z / 50) * np.cos(y / 131)
    a[z] = rng.poisson(np.maximum(base, 1)).astype('<u2')
a.flush(); del a
import os; os.rename(path + '.tmp', path)
PY
fi
out=$dir/out.ome.zarr
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
"$dir/voxlab" plan convert "$in" "$out" --levels 4 "$@" | sed -n '1,4p'
plan=$("$dir/voxlab" plan convert "$in" "$out" --levels 4 --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["peak_ram_bytes"])' 2>/dev/null || echo 0)
block=$("$dir/voxlab" plan convert "$in" "$out" --levels 4 --json "$@" | python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["phases"][0]["block"])')
for r in $(seq "$rounds"); do
  /usr/bin/time -v "$dir/readvol" "$in" "$block" 2>"$dir/t.txt"
  echo "round $r read: $(grep 'Elapsed (wall' "$dir/t.txt" | awk '{print $NF}') wall, $(grep 'Maximum resident' "$dir/t.txt" | awk '{print $NF}') KiB RSS"
  rm -rf "$out"
  /usr/bin/time -v "$dir/voxlab" convert "$in" "$out" --levels 4 --quiet "$@" 2>"$dir/t.txt"
  rss=$(grep 'Maximum resident' "$dir/t.txt" | awk '{print $NF}')
  echo "round $r convert: $(grep 'Elapsed (wall' "$dir/t.txt" | awk '{print $NF}') wall, $rss KiB RSS; plan $((plan / 1024)) KiB, limit plan+10%+100MB $(( (plan + plan / 10 + 100000000) / 1024 )) KiB; load $(cut -d' ' -f1-3 /proc/loadavg); output $(du -sb "$out" | cut -f1) bytes"
done
rm -rf "$out"
