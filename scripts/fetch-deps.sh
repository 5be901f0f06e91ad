#!/usr/bin/env bash
# Unpacks into .deps/ what a machine without the packages needs (the GPU
# machine): Debian's Catch2 (header-only v2) and the cudnn-frontend headers
# of the PyPI wheel nvidia-cudnn-frontend (its include/ only, for the cuDNN
# backend; meson finds them there).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
(cd .deps && apt-get download catch2 >/dev/null && dpkg -x catch2_*.deb . && rm catch2_*.deb)
test -f .deps/usr/include/catch2/catch.hpp && echo "Catch2 unpacked into .deps/"
wheels=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" nvidia-cudnn-frontend==1.32.0
rm -rf .deps/cudnn_frontend && mkdir -p .deps/cudnn_frontend
python3 -m zipfile -e "$wheels"/nvidia_cudnn_frontend-*.whl "$wheels/unpacked"
mv "$wheels/unpacked/include" .deps/cudnn_frontend/include
rm -rf "$wheels"
test -f .deps/cudnn_frontend/include/cudnn_frontend.h && echo "cudnn-frontend headers unpacked into .deps/cudnn_frontend/"
