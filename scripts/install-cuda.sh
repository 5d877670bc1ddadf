#!/usr/bin/env bash
# install-cuda.sh installs what the CUDA build of voxlab (make build-cuda,
# make cuda-check) needs on Debian 12: nvcc and the CUDA headers
# (nvidia-cuda-toolkit, nvidia-cuda-dev) and the driver library libcuda.so.1
# (libcuda1), from Debian's contrib and non-free components, which it
# enables in the apt sources. About 800 MB. The default build (make build,
# make test) needs none of it.
#
# If libcuda.so.1 is already there (an NVIDIA driver installed some other
# way, e.g. NVIDIA's own packages on a GPU workstation), libcuda1 is not
# installed: mixing two driver versions breaks the GPU. Such a machine
# still links through the stub libcuda.so that nvidia-cuda-dev ships.
#
# Usage: scripts/install-cuda.sh [--dry-run]
set -euo pipefail

dry=0
[ "${1:-}" = --dry-run ] && dry=1
run() {
  if [ $dry = 1 ]; then echo "would run: $*"; else "$@"; fi
}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

have_driver_lib() { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; }

if command -v nvcc >/dev/null && [ -e /usr/include/cuda.h ] && have_driver_lib; then
  echo "install-cuda: nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), cuda.h and libcuda.so.1 are already installed"
  exit 0
fi

if ! grep -qs '^VERSION_ID="12"' /etc/os-release || ! grep -qs '^ID=debian' /etc/os-release; then
  echo "install-cuda: this script knows Debian 12's packages only; on another system install the CUDA toolkit (nvcc, cuda.h) and the NVIDIA driver yourself" >&2
  exit 1
fi

# Enable contrib and non-free on every Debian source: deb822 files
# (Components: line) and one-line sources.list entries. non-free-firmware
# does not count as non-free.
enable_components() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -q '^Components:' "$f" || continue
    if grep -E '^Components:' "$f" | grep -qvE '(^|[[:space:]])contrib([[:space:]]|$)' ||
       grep -E '^Components:' "$f" | grep -qvE '(^|[[:space:]])non-free([[:space:]]|$)'; then
      echo "install-cuda: adding contrib non-free to the Components of $f"
      run $SUDO sed -i -E \
        -e '/^Components:/{/(^|[[:space:]])contrib([[:space:]]|$)/!s/$/ contrib/}' \
        -e '/^Components:/{/(^|[[:space:]])non-free([[:space:]]|$)/!s/$/ non-free/}' "$f"
    fi
  done
  f=/etc/apt/sources.list
  if [ -f "$f" ] && grep -qE '^deb(-src)?[[:space:]].*debian' "$f"; then
    echo "install-cuda: adding contrib non-free to the Debian lines of $f"
    run $SUDO sed -i -E \
      -e '/^deb(-src)?[[:space:]].*debian/{/[[:space:]]contrib([[:space:]]|$)/!s/$/ contrib/}' \
      -e '/^deb(-src)?[[:space:]].*debian/{/[[:space:]]non-free([[:space:]]|$)/!s/$/ non-free/}' "$f"
  fi
}
enable_components

pkgs="nvidia-cuda-toolkit nvidia-cuda-dev"
if have_driver_lib; then
  echo "install-cuda: libcuda.so.1 is already installed ($(ldconfig -p | grep -m1 'libcuda\.so\.1 ' | sed 's/.*=> //')); not installing libcuda1"
else
  pkgs="$pkgs libcuda1"
fi
echo "install-cuda: installing $pkgs (about 800 MB)"
run $SUDO apt-get update -qq
run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs
if [ $dry = 0 ]; then
  command -v nvcc >/dev/null || { echo "install-cuda: nvcc is still missing after the install" >&2; exit 1; }
  echo "install-cuda: done: $(nvcc --version | tail -n 2 | head -n 1)"
fi
