#!/usr/bin/env bash
# 10^4 select/check/destroy cycles with failures between them
# (tests/fuzz/leak_cycles.c) under valgrind: any definitely or indirectly lost
# block, or any memory error, fails.
#
#     scripts/leak-check.sh BUILD_DIR [CYCLES]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/leak-check.sh BUILD_DIR [CYCLES]}
cycles=${2:-10000}
ninja -C "$build" tests/leak_cycles >/dev/null
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect,possible \
  --error-exitcode=1 "$build/tests/leak_cycles" "$cycles"
