#!/usr/bin/env bash
# Compares the ABI of libbaracuda_kernels (exported functions and the layouts of
# every type they reach) with the baseline abi/libbaracuda_kernels.abi; any
# difference, an addition included, fails until the baseline is regenerated
# on purpose with --update and reviewed with the change.
#
#     scripts/abi-check.sh [--update] BUILD_DIR
#
# A release build carries no DWARF, so the host code is compiled again with -g
# into BUILD_DIR/abi-debug and linked like the library (scripts/rebuild-host.py).
# Needs abidw and abidiff (Debian: abigail-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
build=${1:?usage: scripts/abi-check.sh [--update] BUILD_DIR}
baseline=abi/libbaracuda_kernels.abi

lib=$(python3 scripts/rebuild-host.py abi "$build" "$build/abi-debug" | tail -1)
current="$build/abi-debug/libbaracuda_kernels.abi"
# Public types only, without paths or line numbers, so the file is the same on every machine.
abidw --suppressions abi/private-types.abignore --headers-dir include/baracuda --drop-private-types --drop-undefined-syms --no-corpus-path \
  --no-comp-dir-path --no-show-locs --out-file "$current" "$lib"
grep -q "baracuda_plan_info_t" "$current" || { echo "abi: $lib's debug info lacks the public structs"; exit 1; }

if [ $update = 1 ]; then
  cp "$current" "$baseline"
  echo "abi: baseline $baseline rewritten; commit it with the change that needs it"
  exit 0
fi
if abidiff "$baseline" "$current"; then
  echo "abi: matches $baseline"
else
  echo "abi: differs from $baseline (above); if intended, run scripts/abi-check.sh --update $build and commit it"
  exit 1
fi
