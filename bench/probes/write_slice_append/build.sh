#!/bin/bash
# build.sh <out dir> <seconds> <include dir> name=kernels_dir ...: <out dir>/probe,
# main.cu linked with one variant.cu object per tree (entry probe_ws_<name>,
# its namespace renamed), at most 3 nvcc at a time; a compile still running
# after <seconds> is stopped and the probe links without that tree (weak entry).
O=$1; budget=$2; inc=$3; shift 3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90"
for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}
  echo "$n $C -I$d -I$inc -Dbaracuda=baracuda_ws_$n -DPROBE_ENTRY=probe_ws_$n $(cat $d/../flags 2>/dev/null) -c $H/variant.cu"
done | timeout $budget xargs -P 3 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s"
rm -f $O/*.tmp.o
nvcc $C -o $O/probe $H/main.cu $(ls $O/*.o) > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
