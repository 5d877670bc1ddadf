#!/usr/bin/env bash
# build.sh compiles every kernels/*.cu to PTX for the virtual architecture
# compute_70, which the driver JIT-compiles for any GPU of compute
# capability 7.0 or later (V100, T4, A100, H100, H200, ...), so the
# committed .ptx files need only the NVIDIA driver at run time. nvcc 11.8
# writes PTX ISA 7.8, which drivers from R520 (CUDA 11.8) on can JIT; an
# older driver fails to load the module with CUDA_ERROR_UNSUPPORTED_PTX_VERSION
# and gpu.Open(auto) falls back to the CPU, saying so.
#
# Usage: gpu/kernels/build.sh          regenerate the .ptx files
#        gpu/kernels/build.sh --check  fail if a committed .ptx is stale
# Run through `go generate ./gpu` (see gpu/generate.go).
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null; then
  echo "build.sh: nvcc not found; install the CUDA toolkit with scripts/install-cuda.sh" >&2
  exit 1
fi
check=0
[ "${1:-}" = --check ] && check=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
shopt -s nullglob
for cu in *.cu; do
  name=${cu%.cu}
  # -ptx: PTX text only; -arch=compute_70: virtual architecture (PTX ISA
  # for sm_70 and later); -O3 for the device code; no -G / -lineinfo so the
  # output is the same on every machine with this nvcc.
  "$NVCC" -ptx -arch=compute_70 -O3 -std=c++14 -o "$tmp/$name.ptx" "$cu"
  if [ $check = 1 ]; then
    if ! cmp -s "$tmp/$name.ptx" "$name.ptx"; then
      echo "build.sh: gpu/kernels/$name.ptx is stale or missing: run go generate ./gpu" >&2
      status=1
    fi
  else
    mv "$tmp/$name.ptx" "$name.ptx"
    echo "gpu/kernels/$name.ptx"
  fi
done
exit $status
