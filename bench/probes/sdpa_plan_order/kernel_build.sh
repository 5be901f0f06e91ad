#!/bin/bash
# kernel_build.sh <tree> <out dir> <budget s> [jobs]: the attention kernels
# bench_order times (kernel_jobs: name, arch, source), sm_90 / sm_90a only;
# a job not done by the budget is left out (the link then says which symbol).
T=$1; O=$2; END=$(( $(date +%s) + $3 )); J=${4:-3}; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
export T O END
cat $H/kernel_jobs | xargs -P $J -L 1 bash -c 'n=$0; a=$1; f=$2; left=$(( END - $(date +%s) ))
  [ $left -gt 0 ] || { echo "SKIPPED: $n"; exit 0; }
  timeout $left nvcc -O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_$a,code=sm_$a \
    -Xcompiler=-fvisibility=hidden -Xptxas -v -I$T/include -I$T/kernels -I$T/src -c $T/$f -o $O/$n.o > $O/$n.log 2>&1 ||
    { rm -f $O/$n.o; echo "FAILED: $n"; tail -5 $O/$n.log; }'
