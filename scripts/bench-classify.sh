#!/usr/bin/env bash
# bench-classify.sh: classification on the CPU, side by side in one run
# (BENCHMARKS.md, "Classification"):
#   1. the network alone, voxlab's CPU engine (BenchmarkForwardCPU) and
#      torch's CPU forward pass (testdata/bench_torch.py) on the same
#      cubes and weights, in turn, ROUNDS times: cubes/s each;
#   2. a whole classification (planes read, cubes cut and rescaled, the
#      network; BenchmarkClassifyCPU) against the network alone;
#   3. its peak RSS against its plan (TestRSS).
# Usage: scripts/bench-classify.sh [depth=50] [batch=64] [threads=2] [rounds=3]
# Needs /usr/bin/python3 with numpy, h5py and torch (Debian's python3-torch).
set -euo pipefail
cd "$(dirname "$0")/../processing/classify"
depth=${1:-50} batch=${2:-64} threads=${3:-2} rounds=${4:-3}
export VOXLAB_BENCH_DEPTH=$depth VOXLAB_BENCH_BATCH=$batch GOMAXPROCS=$threads
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"
go test -c -o /tmp/classify.bench.test . >/dev/null
for r in $(seq "$rounds"); do
  echo "round $r (load $(cut -d' ' -f1-3 /proc/loadavg))"
  /tmp/classify.bench.test -test.run '^$' -test.bench 'ForwardCPU$' -test.benchtime 2x -test.cpu "$threads" | grep -E 'Benchmark'
  (cd testdata && /usr/bin/python3 bench_torch.py "$depth" "$batch" "$threads" 2 | grep "cubes/s")
done
/tmp/classify.bench.test -test.run '^$' -test.bench 'ClassifyCPU$' -test.benchtime 1x -test.cpu "$threads" | grep -E 'Benchmark'
VOXLAB_CLASSIFY_RSS=1 /tmp/classify.bench.test -test.run '^TestRSS$' | grep 'classify RSS'
rm -f /tmp/classify.bench.test
