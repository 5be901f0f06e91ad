#!/usr/bin/env bash
# On a fresh Debian or Ubuntu machine with the CUDA toolkit: installs what is
# missing, builds into ./build with the default options, runs `baracuda info`,
# and `baracuda check` where a GPU is present. ARCH=90 (or ARCH=80,90) builds
# machine code for those SMs only, which is faster.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq catch2 pkg-config python3-pip >/dev/null
python3 -m pip install -q meson ninja 2>/dev/null || python3 -m pip install -q --break-system-packages meson ninja
export PATH="/usr/local/cuda/bin:$HOME/.local/bin:$PATH"
options=()
[ -n "${ARCH:-}" ] && options+=("-Dgpu_arch=$ARCH")
if [ -d build ]; then meson setup build --reconfigure "${options[@]}"; else meson setup build "${options[@]}"; fi
ninja -C build
./build/baracuda info
if nvidia-smi -L >/dev/null 2>&1; then ./build/baracuda check; fi
