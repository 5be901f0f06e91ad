#!/usr/bin/env bash
# Builds the C and C++ examples against an installed copy of the library,
# using nothing but pkg-config (and the CUDA runtime they call themselves),
# then runs them. Exit 77 (skip) where no GPU is present, after building.
# Usage: examples/run_c_examples.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet >/dev/null
pc=$(dirname "$(find "$stage" -name baracuda-kernels.pc | head -1)")
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$stage"
cuda=${CUDA_HOME:-/usr/local/cuda}
libdir=$(pkg-config --variable=libdir baracuda-kernels)
flags="$(pkg-config --cflags --libs baracuda-kernels) -I$cuda/include -L$cuda/lib64 -lcudart -Wl,-rpath,$libdir"
cc -std=c99 -Wall -Werror "$here/c/pad_and_slice.c" $flags -o "$stage/c_example"
c++ -std=c++17 -Wall -Wextra -Werror "$here/cpp/pad.cpp" $flags -o "$stage/cpp_example"
status=0
for exe in c_example cpp_example; do
  "$stage/$exe" || status=$?
  [ "$status" = 0 ] || break
done
exit $status
