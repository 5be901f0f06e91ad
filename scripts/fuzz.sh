#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/fuzz_plan.cpp; host code under ASan
# and UBSan, kernels as nvcc built them) and fuzzes select/check/get_info for
# SECONDS (default 120) from the seed corpus tests/fuzz/corpus. The corpus's
# regression_* inputs (defects found before, fixed) run first, each on its own. Exit status: 0
# when no reproducer fails and fuzzing found nothing. New corpus entries go to
# build-fuzz/corpus, findings to build-fuzz/artifacts.
#
#     scripts/fuzz.sh [SECONDS] [BASE_BUILD_DIR]
#
# BASE_BUILD_DIR: a meson build whose kernel objects to reuse (default: one
# configured here, build-fuzz/base, for sm 90). Needs clang++-14 and
# libclang-rt-14-dev (libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
base=${2:-build-fuzz/base}

mkdir -p build-fuzz/corpus build-fuzz/artifacts
if [ ! -f "$base/build.ninja" ]; then
  meson setup "$base" -Dgpu_arch=90 -Dtests=false -Dbench=false >build-fuzz/setup.log 2>&1 ||
    { tail -30 build-fuzz/setup.log; exit 1; }
fi
fuzzer=$(python3 scripts/rebuild-host.py fuzzer "$base" build-fuzz/target | tail -1)

# Leaks count (LSan); a UBSan report is fatal (-fno-sanitize-recover) and comes with its stack.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1
# Each regression input alone, so one failing again does not hide the others.
known=0
for crash in tests/fuzz/corpus/regression_*; do
  [ -f "$crash" ] || continue
  if ! report=$("$fuzzer" -timeout=10 "$crash" 2>&1); then
    echo "fuzz: regression input $crash fails again: $(grep -m1 -E 'runtime error|ERROR|contract broken|timeout' <<<"$report")"
    known=$((known + 1))
  fi
done
found=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/artifacts/ build-fuzz/corpus tests/fuzz/corpus || found=1
echo "fuzz: $known regression inputs fail; fuzzing for $seconds s $([ $found = 0 ] && echo found nothing || echo found a defect)"
[ $known = 0 ] && [ $found = 0 ]
