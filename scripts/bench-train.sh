#!/usr/bin/env bash
# bench-train.sh: training on the CPU, side by side in one run
# (BENCHMARKS.md, "Training"):
#   1. one training step of cellfinder's ResNet (50x50x20 two-channel
#      cubes), voxlab's (BenchmarkStep50, processing/classify/train) and
#      torch's with Keras 3's semantics (train/testdata/bench_train_torch.py)
#      in turn, ROUNDS times: cubes/s each;
#   2. one epoch of `voxlab train` on training cubes (YAML, default: the
#      cubes of cellfinder's crop the README exports): its wall time against
#      the steps alone (the step's cubes/s), and its peak RSS (GNU time)
#      against `voxlab plan train`'s peak.
# Usage: scripts/bench-train.sh [depth=50] [batch=4] [threads=2] [rounds=2] [YAML]
# Needs /usr/bin/python3 with numpy and torch (Debian's python3-torch), GNU time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
depth=${1:-50} batch=${2:-4} threads=${3:-2} rounds=${4:-2} yaml=${5:-}
export GOMAXPROCS=$threads
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$root" && go test -c -o /tmp/train.bench.test ./processing/classify/train >/dev/null)
for r in $(seq "$rounds"); do
  echo "round $r (load $(cut -d' ' -f1-3 /proc/loadavg))"
  (cd "$root/processing/classify/train" && /tmp/train.bench.test -test.run '^$' -test.bench 'Step50$' -test.benchtime 3x -test.cpu "$threads" | grep -E 'Benchmark')
  (cd "$root/processing/classify/train/testdata" && /usr/bin/python3 bench_train_torch.py "$depth" "$batch" "$threads" 3 | grep "cubes/s")
done
rm -f /tmp/train.bench.test
[ -n "$yaml" ] || exit 0
(cd "$root" && go build -o /tmp/train.bench.voxlab ./app)
out=$(mktemp -d)
/tmp/train.bench.voxlab plan train "$yaml" "$out/run" --network-depth "$depth" --batch-size "$batch" --test-fraction 0 | grep -E '^RAM'
echo "epoch (load $(cut -d' ' -f1-3 /proc/loadavg))"
/usr/bin/time -f 'epoch: %e s wall, peak RSS %M KiB' /tmp/train.bench.voxlab train "$yaml" "$out/run" --network-depth "$depth" \
  --batch-size "$batch" --epochs 1 --test-fraction 0 --no-save-checkpoints --save-weights --backend cpu --quiet
rm -rf "$out" /tmp/train.bench.voxlab
