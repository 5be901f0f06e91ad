#!/bin/bash
# build.sh <out dir> <seconds> name=kernels_dir[:mamba] ...: libupdate_probe.so
# with one entry probe_update_<name> per tree (each tree's namespace renamed;
# :mamba, bf16 x with f32 weights only, PROBE_MAMBA_ONLY in variant.cu), at
# most 4 nvcc at a time; a compile still running after <seconds> is stopped
# and the library links without it (the driver skips missing entries).
O=$1; budget=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC"
for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}; only=
  case "$d" in *:mamba) d=${d%:mamba}; only=-DPROBE_MAMBA_ONLY ;; esac
  echo "$n $C $only -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_ENTRY=probe_update_$n -c $H/variant.cu"
done | timeout $budget xargs -P 4 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
nvcc -shared -cudart shared -gencode=arch=compute_90,code=sm_90 $(ls $O/*.o) -o $O/libupdate_probe.so > $O/link.log 2>&1 ||
  { echo "link failed"; cat $O/link.log; }
