#!/usr/bin/env bash
# On a fresh Debian or Ubuntu machine with the CUDA toolkit: installs what is
# missing, builds into ./build, runs `baracuda info`, and `baracuda check`
# where a GPU is present. ARCH picks the SMs (default 80,89,90).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq catch2 pkg-config python3-pip >/dev/null
python3 -m pip install -q meson ninja 2>/dev/null || python3 -m pip install -q --break-system-packages meson ninja
export PATH="/usr/local/cuda/bin:$HOME/.local/bin:$PATH"
meson setup build -Dgpu_arch="${ARCH:-80,89,90}" --reconfigure >/dev/null 2>&1 || meson setup build -Dgpu_arch="${ARCH:-80,89,90}"
ninja -C build
./build/baracuda info
if nvidia-smi -L >/dev/null 2>&1; then ./build/baracuda check; fi
