#!/bin/bash
# build.sh <out dir> <seconds> name=kernels_dir[:flag,flag][@dtypes] ...:
# libconv1d_bwd_probe.so with entries probe_bwd_<name>_<d> (d: 0 bf16 x with
# f32 weights, 2 f16 x with f32 weights, 3 f32; @03: only those) per tree,
# each tree's namespace renamed; flags: -D defines for variant.cu (e.g.
# PROBE_REGISTER_TILES). At most 3 nvcc at a
# time; a compile still running after <seconds> is stopped and the library
# links without it (the driver skips missing entries).
O=$1; budget=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC"
for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}; defs=; types="0 2 3"
  case "$d" in *@*) types=$(echo ${d#*@} | sed 's/./& /g'); d=${d%@*} ;; esac
  case "$d" in *:*) for f in $(echo ${d#*:} | tr , ' '); do defs="$defs -D$f"; done; d=${d%%:*} ;; esac
  for t in $types; do
    echo "${n}_$t $C $defs -DPROBE_DTYPE=$t -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_ENTRY=probe_bwd_${n}_$t -c $H/variant.cu"
  done
done | bash $H/../common/compile_and_link.sh $O $budget 3 90a libconv1d_bwd_probe.so
