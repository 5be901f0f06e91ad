#!/usr/bin/env bash
# CI's hardening checks on a machine without a GPU, over an existing meson
# build: the fuzz target for 120 s (scripts/fuzz.sh), 10^4 leak cycles under
# valgrind (scripts/leak-check.sh) and the ABI against its baseline
# (scripts/abi-check.sh). Installs the tools it lacks when it can (root with
# apt-get); a check whose tools are missing is skipped. Logs go to
# BUILD_DIR/hardening-*.log. Ends with `hardening: P passed, F failed, S skipped`.
#
#     scripts/ci-hardening.sh BUILD_DIR [FUZZ_SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/ci-hardening.sh BUILD_DIR [FUZZ_SECONDS]}
fuzz_seconds=${2:-120}

libfuzzer_present() { ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; }
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  { command -v clang++-14 >/dev/null && libfuzzer_present; } || missing+=(clang-14 libclang-rt-14-dev)
  command -v valgrind >/dev/null || missing+=(valgrind)
  command -v abidiff >/dev/null || missing+=(abigail-tools)
  if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >"$build/hardening-apt.log" 2>&1 ||
      echo "hardening: apt-get install ${missing[*]} failed (see $build/hardening-apt.log)"
  fi
fi

passed=0 failed=0 skipped=0
# run_check NAME REQUIRED_COMMAND COMMAND...: runs it, logs it, counts it.
run_check() {
  local name=$1 needs=$2 log="$build/hardening-$1.log"
  shift 2
  if ! eval "$needs" >/dev/null 2>&1; then
    echo "hardening: $name skipped (missing: $needs)"
    skipped=$((skipped + 1))
    return
  fi
  local start=$SECONDS
  if "$@" >"$log" 2>&1; then
    echo "hardening: $name passed ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  else
    echo "hardening: $name FAILED ($((SECONDS - start)) s); the end of $log:"
    tail -40 "$log"
    failed=$((failed + 1))
  fi
}

run_check fuzz "command -v clang++-14 && libfuzzer_present" ./scripts/fuzz.sh "$fuzz_seconds" "$build"
grep -E "^#[0-9]+ *DONE|^fuzz: " "$build/hardening-fuzz.log" 2>/dev/null
run_check leaks "command -v valgrind" ./scripts/leak-check.sh "$build"
grep -E 'cycles over|definitely lost|indirectly lost' "$build/hardening-leaks.log" 2>/dev/null
run_check abi "command -v abidw && command -v abidiff" ./scripts/abi-check.sh "$build"

echo "hardening: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
