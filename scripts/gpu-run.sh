#!/usr/bin/env bash
# On a GPU machine (DESIGN.md section 7): build, run `baracuda info` and
# `check`, the whole test suite, compute-sanitizer memcheck and racecheck over
# the GPU suite, the benchmarks and the Python binding's per-call overhead.
# Logs go under $OUT (default ./gpu-out). Parts can be left out (TESTS=0,
# BINDINGS=0, SANITIZE=0, BENCH=0, SDPA_TURNS=0, PYBENCH=0), to split a run
# over several calls on one warm machine.
# Catch2 and the cudnn-frontend headers must be unpacked under .deps/ first
# (scripts/fetch-deps.sh, on a machine with Debian's archive and PyPI). The GPU
# machine has cuDNN, so the suite fails there if the cuDNN candidates do not
# load (BARACUDA_EXPECT_CUDNN=0 to run without). Its GPU is an sm 90 one, so
# the suite also fails if the Hopper forward is not served there
# (BARACUDA_EXPECT_SM90=0 for an ARCH without 90).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
export BARACUDA_EXPECT_CUDNN=${BARACUDA_EXPECT_CUDNN:-1}
export BARACUDA_EXPECT_SM90=${BARACUDA_EXPECT_SM90:-1}
# The default arch list (sm 80, 90) unless ARCH says otherwise: the suites
# force the sm 80 and 89 kernels with target_sm, which run on the sm 80 code.
ARCH=${ARCH:-}
mkdir -p "$OUT"
build=build-gpu
status=0

step() { echo "=== $*"; }

step "build (sm ${ARCH:-80,90 (the default)})"
# An existing build folder is configured again (a second call on a warm machine rebuilds nothing that is current).
reconfigure=$([ -d "$build/meson-info" ] && echo --reconfigure)
meson setup $reconfigure "$build" ${ARCH:+-Dgpu_arch="$ARCH"} -Dbench=true --buildtype=release >"$OUT/setup.log" 2>&1 ||
  { tail -40 "$OUT/setup.log"; exit 1; }
ninja -C "$build" >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -60; exit 1; }

step "baracuda info / check"
"$build/baracuda" info | tee "$OUT/info.txt"
"$build/baracuda" check >"$OUT/check.txt" 2>&1 || status=1
grep -v " pass$" "$OUT/check.txt"

if [ "${TESTS:-1}" = 1 ]; then
step "test suite"
meson test -C "$build" --print-errorlogs >"$OUT/tests.txt" 2>&1 || status=1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$OUT/tests.txt"
grep -E "test cases|assertions" "$build/meson-logs/testlog.txt" | sort | uniq -c | head -20
grep -B2 -A12 "FAILED:" "$build/meson-logs/testlog.txt" | head -80
fi

if [ "${BINDINGS:-1}" = 1 ]; then
  step "bindings: Python against PyTorch, Rust and Go (binaries from scripts/build-binding-tests.sh)"
  BARACUDA_LIBRARY="$PWD/$build/libbaracuda_kernels.so.0" python3 -m pytest -q bindings/python/tests \
    >"$OUT/pytest.txt" 2>&1 || status=1
  tail -2 "$OUT/pytest.txt"
  for t in rust_plans go_baracuda.test; do
    [ -x ".deps/bin/$t" ] || { echo "$t: not built"; continue; }
    flag=$([ "$t" = go_baracuda.test ] && echo -test.v || echo --nocapture)
    LD_LIBRARY_PATH="$PWD/$build" ".deps/bin/$t" $flag >"$OUT/$t.txt" 2>&1 || status=1
    grep -E "test result|--- |Rust:|Go:|^ok|PASS$|FAIL" "$OUT/$t.txt" | head -8
  done
fi

if [ "${SANITIZE:-1}" = 1 ]; then
  step "compute-sanitizer memcheck and racecheck, side by side (GPU suite without the >2^31 cases)"
  for tool in memcheck racecheck; do
    (timeout 520 compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/gpu_tests" "~[large]" \
      >"$OUT/sanitizer-$tool.txt" 2>&1; echo "$tool exit $?" >>"$OUT/sanitizer-$tool.txt") &
  done
  wait
  for tool in memcheck racecheck; do
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases|exit" "$OUT/sanitizer-$tool.txt" | tail -3
    grep -q "$tool exit 0" "$OUT/sanitizer-$tool.txt" || status=1
  done
fi

if [ "${BENCH:-1}" = 1 ]; then
  step "benchmarks"
  "$build/bench/bench_ops" >"$OUT/bench.jsonl" 2>"$OUT/bench.err" || { cat "$OUT/bench.err"; status=1; }
  python3 bench/torch_sdpa.py >"$OUT/torch_sdpa.jsonl" 2>"$OUT/torch_sdpa.err" || { cat "$OUT/torch_sdpa.err"; status=1; }
  python3 bench/report.py "$OUT/bench.jsonl" "$OUT/torch_sdpa.jsonl" | tee "$OUT/bench.md"
fi
if [ "${SDPA_TURNS:-1}" = 1 ]; then
  # The attention rows again, every side in one process and timed in turn (the two processes above meet the
  # power-capped clock at different moments: bench/NOTES.md, sessions 22-23); report.py reads its files as above.
  step "attention in one process: our plans and PyTorch's backends in turn (bench/sdpa_same_process.py)"
  BARACUDA_LIBRARY="$PWD/$build/libbaracuda_kernels.so.0" PYTHONPATH=bindings/python \
    python3 bench/sdpa_same_process.py --ours "$OUT/sdpa_turns.jsonl" --torch "$OUT/torch_sdpa_turns.jsonl" \
    >"$OUT/sdpa_turns.md" 2>"$OUT/sdpa_turns.err" || { tail -20 "$OUT/sdpa_turns.err"; status=1; }
  python3 bench/report.py "$OUT/sdpa_turns.jsonl" "$OUT/torch_sdpa_turns.jsonl" | tee "$OUT/sdpa_turns_report.md"
fi
if [ "${PYBENCH:-1}" = 1 ]; then
  step "Python binding: per-call overhead beside PyTorch and a bare ctypes call"
  # Tri Dao's causal-conv1d extension, where carried (../shared/reference/tridao-causal-conv1d/): the C++ extension row
  tridao=$([ -f .deps/tridao/causal_conv1d_cuda.so ] && echo "$PWD/.deps/tridao")
  BARACUDA_LIBRARY="$PWD/$build/libbaracuda_kernels.so.0" PYTHONPATH=bindings/python BARACUDA_TRIDAO="$tridao" \
    python3 bench/python_overhead.py --json "$OUT/python_overhead.json" | tee "$OUT/python_overhead.md" || status=1
fi
exit $status
