#!/usr/bin/env bash
# gpu-check.sh checks the CUDA backend against the CPU backend on a GPU.
#
#   scripts/gpu-check.sh build   build here (needs Go and the CUDA toolkit,
#                                no GPU) the CUDA test binaries of gpu/ and
#                                the algorithm packages into bin/gpu-check/
#   scripts/gpu-check.sh run     on a GPU machine (needs only the NVIDIA
#                                driver and this checkout with bin/gpu-check/):
#                                run them and print the figures
#   scripts/gpu-check.sh         build, then run if a GPU answers
#
# The run: every test of each binary (CPU tests included), each in its
# package folder so that testdata/ is found; then the transfer benchmark
# with pin_memory off and on. It fails (exit 1) when a test fails, a test
# with CUDA in its name is skipped, a binary cannot find a device (its
# preflight exits 77), a kernel in a committed .ptx was never launched by
# any test, a pipeline with kernels has no passing CUDA test naming it,
# or its kernels fail the self-check a run makes before trusting them
# (TestCUDA<Pipeline>SelfCheck: Dezing, Detect, Dist, Classify, Recon).
# processing/reconstruct (recon_ kernels: TestCUDAReconBackProject,
# TestCUDAReconRun, TestCUDAReconSelfCheck) is found by its .cu like the
# others; its test binary links FFTW (gridrec) statically, so the GPU
# machine needs no FFTW installed. processing/classify/train has no .cu and its tests link
# HDF5, so it is not built here: run its CUDA tests (TestCUDATrain…) with
# `go test -tags cuda ./processing/classify/train` on the GPU machine.
# The run stops after GPU_CHECK_BUDGET seconds (default 280) so that the
# whole check stays under 5 minutes. Logs: bin/gpu-check/logs/.
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${GPU_CHECK_DIR:-bin/gpu-check}
# The device, and every pipeline with kernels of its own (a .cu source
# in its room, processing/<pipeline>): a new pipeline is checked without
# a change here.
pipeline_pkgs() {
  local d
  for d in processing/*/; do
    compgen -G "${d}*.cu" >/dev/null && printf '%s ' "${d%/}"
  done
}
PKGS=${GPU_CHECK_PKGS:-"gpu $(pipeline_pkgs)"}
BUDGET=${GPU_CHECK_BUDGET:-280}
mode=${1:-all}

build() {
  command -v go >/dev/null || { echo "gpu-check: go not found: build on a machine with Go, then run with '$0 run'" >&2; return 1; }
  rm -rf "$DIR"
  mkdir -p "$DIR"
  local bad=0 pkg name deps
  : >"$DIR/manifest"
  for pkg in $PKGS; do
    name=$(basename "$pkg")
    # These binaries must start on a bare GPU machine: no Fyne (OpenGL,
    # X11) and no HDF5 C library.
    if ! deps=$(go list -deps -test -tags cuda "./$pkg" 2>&1); then
      echo "FAIL  $pkg: go list: $deps" | head -n 5; bad=1; continue
    fi
    if grep -qE '^(fyne\.io/|gonum\.org/v1/hdf5)' <<<"$deps"; then
      echo "FAIL  $pkg links $(grep -E '^(fyne\.io/|gonum\.org/v1/hdf5)' <<<"$deps" | head -n 3 | tr '\n' ' ')(the CUDA test binaries must not need Fyne or HDF5)"
      bad=1; continue
    fi
    # -s -w: no symbol tables, so the binaries stay small enough to carry.
    if ! go test -c -tags cuda -ldflags='-s -w' -o "$DIR/$name.test" "./$pkg" >"$DIR/$name.build.log" 2>&1; then
      echo "FAIL  $pkg: go test -c -tags cuda:"; head -n 20 "$DIR/$name.build.log"; bad=1; continue
    fi
    if [ ! -e "$DIR/$name.test" ]; then
      echo "FAIL  $pkg has no tests"; bad=1; continue
    fi
    echo "$name $pkg" >>"$DIR/manifest"
    echo "built $DIR/$name.test ($(du -h "$DIR/$name.test" | cut -f1))"
  done
  # The kernels the tests must exercise, from the embedded PTX.
  grep -ho '\.entry[[:space:]]\+[A-Za-z_][A-Za-z0-9_$]*' gpu/kernels/*.ptx $(ls processing/*/*.ptx processing/*/cuda/*.ptx 2>/dev/null) | awk '{print $2}' | sort -u >"$DIR/kernels"
  cp "$0" "$DIR/gpu-check.sh"
  echo "gpu-check: $(wc -l <"$DIR/manifest") test binaries and $(wc -l <"$DIR/kernels") kernels in $DIR"
  return $bad
}

has_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

run() {
  [ -s "$DIR/manifest" ] || { echo "gpu-check: no test binaries in $DIR: run '$0 build' first (on a machine with Go)" >&2; return 1; }
  local root=$PWD logs="$DIR/logs" bad=0 start=$SECONDS
  rm -rf "$logs"; mkdir -p "$logs"
  export VOXLAB_CUDA_KERNEL_LOG="$root/$logs/launched"
  : >"$VOXLAB_CUDA_KERNEL_LOG"
  local gpus
  gpus=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null) || gpus="nvidia-smi lists no GPU"
  echo "gpu-check on $(hostname): $(head -n 1 <<<"$gpus")"
  local name pkg left rc bin cuda_pass cuda_skip cuda_fail
  while read -r name pkg; do
    left=$((BUDGET - (SECONDS - start)))
    if [ $left -lt 20 ]; then
      echo "FAIL  $pkg: not run, the ${BUDGET}s budget is spent"; bad=1; continue
    fi
    bin="$root/$DIR/$name.test"
    # Tests run in their package folder (testdata/), as go test runs them.
    (cd "$pkg" 2>/dev/null || cd "$root/$DIR"
      timeout $((left - 5)) "$bin" -test.v -test.count=1 -test.timeout=$((left - 10))s) >"$logs/$name.log" 2>&1
    rc=$?
    cuda_pass=$(grep -cE -- '--- PASS: [^ ]*CUDA' "$logs/$name.log")
    cuda_skip=$(grep -cE -- '--- SKIP: [^ ]*CUDA' "$logs/$name.log")
    cuda_fail=$(grep -cE -- '--- FAIL' "$logs/$name.log")
    if [ $rc = 77 ]; then
      echo "FAIL  $pkg: $(grep -m1 'no usable CUDA device' "$logs/$name.log")"; bad=1
    elif [ $rc != 0 ] || [ "$cuda_fail" != 0 ]; then
      echo "FAIL  $pkg (exit $rc, $cuda_fail failed):"; grep -E -- '--- FAIL|^panic|timed out|^\s+\S+_test\.go:[0-9]+:' "$logs/$name.log" | head -n 20; bad=1
    elif [ "$cuda_skip" != 0 ]; then
      echo "FAIL  $pkg: $cuda_skip CUDA tests skipped on a GPU machine:"; grep -A2 -E -- '--- SKIP: [^ ]*CUDA' "$logs/$name.log" | head -n 12; bad=1
    else
      echo "PASS  $pkg: $cuda_pass CUDA tests passed, $(grep -cE -- '--- PASS' "$logs/$name.log") tests in all ($((SECONDS - start))s so far)"
    fi
    grep -hE '^\s+cuda_test\.go:[0-9]+: (device|bandwidth):' "$logs/$name.log" | sed 's/^[[:space:]]*cuda_test\.go:[0-9]*: /      /'
  done <"$DIR/manifest"

  # Every kernel must have been launched by some test.
  local missing
  missing=$(comm -23 "$DIR/kernels" <(sort -u "$VOXLAB_CUDA_KERNEL_LOG"))
  if [ -n "$missing" ]; then
    echo "FAIL  kernels no test launched: $(echo $missing)"; bad=1
  else
    echo "PASS  all $(wc -l <"$DIR/kernels") kernels were launched by the tests"
  fi
  # Every pipeline with kernels needs a passing CUDA test naming it: the
  # prefix of its kernels' names, capitalised (dezing_… → Dezing,
  # dist_… → Dist).
  local prefix word
  for prefix in $(grep -ho '\.entry[[:space:]]\+[A-Za-z_][A-Za-z0-9_$]*' $(ls processing/*/*.ptx processing/*/cuda/*.ptx 2>/dev/null) | awk '{print $2}' | sed 's/_.*//' | sort -u); do
    word=$(tr '[:lower:]' '[:upper:]' <<<"${prefix:0:1}")${prefix:1}
    grep -q "^${prefix}_" "$DIR/kernels" || continue
    if cat "$logs"/*.log | grep -qE -- "--- PASS: [^ ]*(CUDA[^ ]*${word}|${word}[^ ]*CUDA)"; then
      echo "PASS  $word: CPU-vs-CUDA tests passed"
    else
      echo "FAIL  $word has ${prefix}_ kernels but no passing test named with CUDA and $word"; bad=1
    fi
    # The self-check a run makes before it trusts the kernels
    # (gpu.RegisterSelfCheck, the pipeline's selfcheck.go) must pass on
    # this device, or every run here would fall back to the CPU.
    if cat "$logs"/*.log | grep -qE -- "--- PASS: TestCUDA${word}SelfCheck "; then
      echo "PASS  $word: the kernels pass the self-check runs make (TestCUDA${word}SelfCheck)"
    else
      echo "FAIL  $word: TestCUDA${word}SelfCheck did not pass: runs on this device would fall back to the CPU"; bad=1
    fi
  done

  # Transfer figures: UploadAsync of 64 MiB, pin_memory off and on.
  left=$((BUDGET - (SECONDS - start)))
  if grep -q '^gpu ' "$DIR/manifest" && [ $left -gt 15 ]; then
    echo "transfer benchmark (host to device, 64 MiB per copy):"
    (cd gpu && timeout $((left - 2)) "$root/$DIR/gpu.test" -test.run='^$' -test.bench='^BenchmarkCUDAUpload$' -test.benchtime=20x) >"$logs/bench.log" 2>&1
    rc=$?
    grep -E '^BenchmarkCUDAUpload' "$logs/bench.log" | sed 's/^/      /'
    if [ $rc != 0 ]; then echo "FAIL  transfer benchmark (exit $rc)"; tail -n 5 "$logs/bench.log"; bad=1; fi
  fi
  echo "gpu-check: $((SECONDS - start))s; logs in $logs"
  return $bad
}

case $mode in
build) build ;;
run) run ;;
all)
  build || exit 1
  if has_gpu; then
    run
  else
    echo "gpu-check: no GPU here (nvidia-smi -L lists none); on a GPU machine with this checkout and $DIR, run: scripts/gpu-check.sh run"
  fi
  ;;
*) echo "usage: $0 [build|run]" >&2; exit 2 ;;
esac
