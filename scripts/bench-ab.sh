#!/usr/bin/env bash
# bench-ab.sh compares the pipelines before and after a change, A/B
# interleaved so that a loaded machine's drift falls on both alike: the
# package benchmarks of each pipeline (its whole Run on the CPU) and
# the three commands on the demo data (wall time and peak RSS, from
# /usr/bin/time -v), ROUNDS times, OLD (a git revision, default main)
# against the working tree.
#
#   scripts/bench-ab.sh [OLD_REV] [ROUNDS]
#
# Prints one line per run and, at the end, the medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:-main}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out"
git archive "$old" | tar -x -C "$work/src"
for v in old new; do
  src=.
  [ $v = old ] && src="$work/src"
  (cd "$src" && go build -o "$work/voxlab-$v" ./app &&
    for p in dezing detect distance; do go test -c -o "$work/$v-$p.test" ./processing/$p; done)
done
"$work/voxlab-new" demo "$work/demo" >/dev/null
D=$work/demo
for round in $(seq "$rounds"); do
  for v in old new; do
    (cd processing/dezing && "$work/$v-dezing.test" -test.run '^$' -test.bench 'BenchmarkPipelineCPU$' -test.benchtime 3x) | grep ^Benchmark | sed "s/^/$v /"
    (cd processing/detect && "$work/$v-detect.test" -test.run '^$' -test.bench 'BenchmarkPipeline2048x100$' -test.benchtime 2x) | grep ^Benchmark | sed "s/^/$v /"
    (cd processing/distance && "$work/$v-distance.test" -test.run '^$' -test.bench 'BenchmarkInMemoryL2Corr$|BenchmarkLowMemoryL2Corr$' -test.benchtime 3x) | grep ^Benchmark | sed "s/^/$v /"
    O=$work/out
    for c in "dezing $D/tomo/scan.nxs $O/$v-d.h5" "detect $D/brain/planes $O/$v-c.csv" \
      "distance $D/maps/gt.npy $D/maps/submitted.npy $O/$v-dist --mask $D/maps/mask.mrc"; do
      # shellcheck disable=SC2086
      /usr/bin/time -v "$work/voxlab-$v" $c --backend cpu --quiet 2>"$work/time.txt" >/dev/null
      echo "$v cmd-${c%% *} $(grep 'Elapsed (wall' "$work/time.txt" | awk '{print $NF}') wall, $(grep 'Maximum resident' "$work/time.txt" | awk '{print $NF}') KiB RSS"
    done
  done
done | tee "$work/runs.txt"
/usr/bin/python3 - "$work/runs.txt" <<'PY'
import re, statistics, sys, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r'(old|new) (Benchmark\S+)\s+\d+\s+(\d+) ns/op', l)
    if m:
        d[(m.group(2), m.group(1))].append(int(m.group(3)) / 1e9)
    m = re.match(r'(old|new) (cmd-\S+) (?:(\d+):)?([\d.]+) wall, (\d+) KiB RSS', l)
    if m:
        d[(m.group(2), m.group(1))].append(float(m.group(3) or 0) * 60 + float(m.group(4)))
        d[(m.group(2) + " RSS MiB", m.group(1))].append(int(m.group(5)) / 1024)
for n in sorted({k[0] for k in d}):
    o, w = statistics.median(d[(n, 'old')]), statistics.median(d[(n, 'new')])
    print(f"{n:45s} old {o:9.3f}  new {w:9.3f}  new/old {w / o:.2f}")
PY
