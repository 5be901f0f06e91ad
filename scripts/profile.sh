#!/usr/bin/env bash
# On a GPU machine: Nsight Compute over chosen benchmark rows, and the SASS of
# the row kernels, under $OUT. Usage: scripts/profile.sh FILTER [KERNEL_REGEX]
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
filter=${1:-pad_constant}
kernel=${2:-regex:.}
build=build-gpu
mkdir -p "$OUT"
if [ ! -x "$build/bench/bench_ops" ]; then
  meson setup "$build" -Dgpu_arch=90 -Dbench=true --buildtype=release >"$OUT/setup.log" 2>&1 || exit 1
  ninja -C "$build" >"$OUT/build.log" 2>&1 || { grep -E "error" -A5 "$OUT/build.log" | head -40; exit 1; }
fi
"$build/bench/bench_ops" "$filter"
ncu --clock-control none --kernel-name "$kernel" --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  "$build/bench/bench_ops" "$filter" >"$OUT/ncu-$filter.txt" 2>&1
grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Issued Ipc|Executed Ipc|No Eligible|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Grid Size|Stall|Compute \(SM\) Throughput" "$OUT/ncu-$filter.txt" | head -60
so=$(ls "$build"/libbaracuda_kernels.so.0.*.p/kernels_pad_pad_forward_b4.cu.o 2>/dev/null | head -1)
[ -n "$so" ] && cuobjdump -sass "$so" >"$OUT/sass-pad-forward-b4.txt" 2>&1
