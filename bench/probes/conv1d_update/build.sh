#!/bin/bash
# build.sh <out dir> <seconds> name=kernels_dir[:mamba] ...: libupdate_probe.so
# with one entry probe_update_<name> per tree (each tree's namespace renamed;
# :mamba, bf16 x with f32 weights only, PROBE_MAMBA_ONLY in variant.cu), at
# most 3 nvcc at a time; a compile still running after <seconds> is stopped
# and the library links without it (the driver skips missing entries).
O=$1; budget=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC"
for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}; only=
  case "$d" in *:mamba) d=${d%:mamba}; only=-DPROBE_MAMBA_ONLY ;; esac
  echo "$n $C $only -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_ENTRY=probe_update_$n -c $H/variant.cu"
done | bash $H/../common/compile_and_link.sh $O $budget 3 90 libupdate_probe.so
