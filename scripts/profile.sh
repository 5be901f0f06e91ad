#!/usr/bin/env bash
# On a GPU machine: Nsight Compute over one launch of the kernels a regex
# picks, in chosen benchmark rows, under $OUT: the usual sections plus bytes
# moved through DRAM and L2, instructions, and the warp stall reasons.
# Usage: scripts/profile.sh FILTER [KERNEL_REGEX]
#   BUILD=dir: an existing build (default: a -lineinfo one of its own, so
#   stalls map to source lines); SKIP=n launches skipped first (default 3);
#   SOURCE=1: also per-SASS-line counts, as CSV.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
filter=${1:-pad_constant}
kernel=${2:-.}
build=${BUILD:-build-profile}
mkdir -p "$OUT"
if [ ! -x "$build/bench/bench_ops" ]; then
  meson setup "$build" -Dgpu_arch=90 -Dtests=false -Dbench=true --buildtype=release -Dcuda_args=-lineinfo \
    >"$OUT/setup.log" 2>&1 || exit 1
  ninja -C "$build" >"$OUT/build.log" 2>&1 || { grep -E "error" -A5 "$OUT/build.log" | head -40; exit 1; }
fi
name=$(echo "$filter-$kernel" | tr -c "a-zA-Z0-9_\n" "_")
select=(--kernel-name-base demangled -k "regex:$kernel" --launch-skip "${SKIP:-3}" --launch-count 1)
metrics="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum"
metrics="$metrics,lts__t_sectors_op_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum"
metrics="$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active"
for r in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected \
  dispatch_stall no_instruction branch_resolving; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
ncu --clock-control none "${select[@]}" --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section LaunchStats --metrics "$metrics" \
  "$build/bench/bench_ops" "$filter" >"$OUT/ncu-$name.txt" 2>&1
if [ -n "${SOURCE:-}" ]; then
  ncu --clock-control none "${select[@]}" --section SourceCounters --page source --print-source sass --csv \
    "$build/bench/bench_ops" "$filter" >"$OUT/src-$name.csv" 2>&1
fi
grep -E "kernels::|Duration|Achieved Occupancy|Registers Per|dram__|lts__|smsp__inst|issue_active|stalled" \
  "$OUT/ncu-$name.txt" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -40
