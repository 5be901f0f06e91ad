#!/usr/bin/env bash
# On a GPU machine, one round of kernel work on an op family, quicker than
# gpu-run.sh: build, the family's GPU tests, its benchmark rows beside the
# copy bandwidth, then optionally Nsight Compute metrics of chosen kernels,
# knob variants (scripts/variants.sh) and the two sanitizers. Logs under $OUT.
#   TESTS=Catch2 filter  BENCH=bench_ops filter  PROFILE="bench_filter:kernel_regex ..."
#   SOURCE=1 (per-SASS-line counts too, see scripts/profile.sh)  SAN=0|1
#   VARIANTS="name:Conv1dTraits.kStages=2,Conv1dTraits.kForwardTilesPerBlock=4 ..." (traits members, see scripts/variants.sh)
set -uo pipefail
OUT=${OUT:-/tmp/out}
t0=$(date +%s)
meson setup build-gpu -Dgpu_arch=90 -Dbench=true --buildtype=release >$OUT/setup.log 2>&1 && ninja -C build-gpu >$OUT/build.log 2>&1 || { grep -E "error|FAILED" -A5 $OUT/build.log | head -60; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
build-gpu/tests/gpu_tests "${TESTS:-[causal_conv1d]}~[large]" >$OUT/tests.txt 2>&1; echo "tests rc $?"; tail -4 $OUT/tests.txt; grep -B3 -A15 "FAILED" $OUT/tests.txt | head -60
(build-gpu/bench/bench_ops copy_d2d; build-gpu/bench/bench_ops "${BENCH:-causal_conv1d}") >$OUT/bench.jsonl 2>$OUT/bench.err
python3 bench/report.py $OUT/bench.jsonl | grep -E "copy|${BENCH:-causal_conv1d}" | tee $OUT/bench.md
echo "at $(( $(date +%s) - t0 )) s"
for pr in ${PROFILE:-}; do  # "bench_filter:kernel_regex"
  OUT=$OUT BUILD=build-gpu scripts/profile.sh "${pr%%:*}" "${pr#*:}"
done
echo "at $(( $(date +%s) - t0 )) s"
if [ -n "${VARIANTS:-}" ]; then scripts/variants.sh "${BENCH:-causal_conv1d}" $VARIANTS 2>&1 | tee $OUT/variants.txt; fi
echo "at $(( $(date +%s) - t0 )) s"
if [ "${SAN:-1}" = 1 ]; then
for tool in memcheck racecheck; do
  (timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/gpu_tests "${TESTS:-[causal_conv1d]}~[large]" >$OUT/san-$tool.txt 2>&1; echo "$tool exit $?" >>$OUT/san-$tool.txt) &
done; wait
for tool in memcheck racecheck; do grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases|exit" $OUT/san-$tool.txt | tail -3; done
fi
echo "at $(( $(date +%s) - t0 )) s"
