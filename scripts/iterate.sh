#!/usr/bin/env bash
# On a GPU machine, one round of kernel work on an op family, quicker than
# gpu-run.sh: build, the family's GPU tests, its benchmark rows beside the
# copy bandwidth, then optionally Nsight Compute metrics of chosen kernels,
# knob variants (scripts/variants.sh) and the two sanitizers. Logs under $OUT.
#   TESTS=Catch2 filter  BENCH=bench_ops filter  PROFILE="bench_filter:kernel_regex ..."
#   SOURCE=1 (per-SASS-line counts too)  VARIANTS="name:-DKNOB=1,-DOTHER=2 ..."  SAN=0|1
set -uo pipefail
OUT=${OUT:-/tmp/out}
t0=$(date +%s)
meson setup build-gpu -Dgpu_arch=90 -Dbench=true --buildtype=release >$OUT/setup.log 2>&1 && ninja -C build-gpu >$OUT/build.log 2>&1 || { grep -E "error|FAILED" -A5 $OUT/build.log | head -60; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
build-gpu/tests/gpu_tests "${TESTS:-[causal_conv1d]}~[large]" >$OUT/tests.txt 2>&1; echo "tests rc $?"; tail -4 $OUT/tests.txt; grep -B3 -A15 "FAILED" $OUT/tests.txt | head -60
(build-gpu/bench/bench_ops copy_d2d; build-gpu/bench/bench_ops "${BENCH:-causal_conv1d}") >$OUT/bench.jsonl 2>$OUT/bench.err
python3 bench/report.py $OUT/bench.jsonl | grep -E "copy|${BENCH:-causal_conv1d}" | tee $OUT/bench.md
echo "at $(( $(date +%s) - t0 )) s"
stalls=""
for r in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected selected drain membar dispatch_stall no_instruction tex_throttle branch_resolving sleeping misc; do
  stalls="$stalls,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
for pr in ${PROFILE:-}; do
  f=${pr%%:*}; k=${pr#*:}; n=$(echo "$k" | tr -c "a-zA-Z0-9_\n" "_")
  if [ -n "${SOURCE:-}" ]; then
    ncu --kernel-name-base demangled -k "regex:$k" --launch-count 1 --section SourceCounters --page source \
      --print-source sass --csv build-gpu/bench/bench_ops $f >$OUT/src-$n.csv 2>&1
  fi
  ncu --kernel-name-base demangled -k "regex:$k" --launch-count 1 \
    --metrics "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_op_read_hit_rate.pct,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed$stalls" \
    build-gpu/bench/bench_ops $f >$OUT/ncu-$n.txt 2>&1
  grep -E "kernels::|duration|dram__|lts__|smsp__inst|warps_active|issue_active|l1tex|stalled" $OUT/ncu-$n.txt | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -40
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
