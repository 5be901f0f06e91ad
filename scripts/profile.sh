#!/usr/bin/env bash
# On a GPU machine: Nsight Compute over chosen benchmark rows (a -lineinfo
# build, so stalls map to source lines), under $OUT.
# Usage: scripts/profile.sh FILTER [KERNEL_REGEX]
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
filter=${1:-pad_constant}
kernel=${2:-regex:.}
build=build-profile
mkdir -p "$OUT"
if [ ! -x "$build/bench/bench_ops" ]; then
  meson setup "$build" -Dgpu_arch=90 -Dtests=false -Dbench=true --buildtype=release -Dcuda_args=-lineinfo \
    >"$OUT/setup.log" 2>&1 || exit 1
  ninja -C "$build" >"$OUT/build.log" 2>&1 || { grep -E "error" -A5 "$OUT/build.log" | head -40; exit 1; }
fi
ncu --clock-control none --kernel-name "$kernel" --launch-skip "${SKIP:-3}" --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters \
  --section MemoryWorkloadAnalysis --section LaunchStats \
  "$build/bench/bench_ops" "$filter" >"$OUT/ncu-$filter.txt" 2>&1
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Issued Ipc|Warp Cycles Per Issued|L2 Hit|Grid Size" "$OUT/ncu-$filter.txt" | head -20
