#!/usr/bin/env bash
# build-ptx.sh compiles every CUDA source of the project (gpu/kernels/*.cu,
# the device's own kernels, and processing/*/*.cu, each pipeline's) to
# PTX beside it, for the virtual architecture compute_70, which the
# driver JIT-compiles for any GPU of compute capability 7.0 or later
# (V100, T4, A100, H100, H200, ...), so the committed .ptx files need
# only the NVIDIA driver at run time. nvcc 11.8 writes PTX ISA 7.8, which
# drivers from R520 (CUDA 11.8) on can JIT; an older driver fails to load
# the module with CUDA_ERROR_UNSUPPORTED_PTX_VERSION and gpu.Open(auto)
# falls back to the CPU, saying so.
#
# Usage: scripts/build-ptx.sh          regenerate the .ptx files
#        scripts/build-ptx.sh --check  fail if a committed .ptx is stale
# Also run by `go generate` in each package with a .cu file.
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null; then
  echo "build-ptx.sh: nvcc not found; install the CUDA toolkit with scripts/install-cuda.sh" >&2
  exit 1
fi
check=0
[ "${1:-}" = --check ] && check=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
shopt -s nullglob
for cu in gpu/kernels/*.cu processing/*/*.cu processing/*/cuda/*.cu; do
  ptx=${cu%.cu}.ptx
  out=$tmp/$(echo "$ptx" | tr / _)
  # -ptx: PTX text only; -arch=compute_70: virtual architecture (PTX ISA
  # for sm_70 and later); -O3 for the device code; no -G / -lineinfo so the
  # output is the same on every machine with this nvcc. Compiled from the
  # source's folder so that the PTX names the file as it is committed.
  (cd "$(dirname "$cu")" && "$NVCC" -ptx -arch=compute_70 -O3 -std=c++14 -o "$out" "$(basename "$cu")")
  if [ $check = 1 ]; then
    if ! cmp -s "$out" "$ptx"; then
      echo "build-ptx.sh: $ptx is stale or missing: run scripts/build-ptx.sh" >&2
      status=1
    fi
  else
    mv "$out" "$ptx"
    echo "$ptx"
  fi
done
exit $status
