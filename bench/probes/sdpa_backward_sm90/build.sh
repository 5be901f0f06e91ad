#!/bin/bash
# build.sh <baseline kernels dir> <staged tree> <out dir>: the probe from the
# baseline tree's sm_80 and sm_90 backwards and the staged tree's sm_90
# backward (with the staged sm_80 one it falls back to), and where the staged
# tree holds variant/kernels, that tree's sm_90 backward (bf16) beside them;
# at most 4 nvcc at a time, the longest first.
B=$1; S=$2; O=$3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -I$H"
V=""; [ -d $S/variant/kernels ] && V="-DPROBE_HAS_VARIANT"
A80="-gencode=arch=compute_90,code=sm_90"; A90="-gencode=arch=compute_90a,code=sm_90a"
K=$S/kernels/sdpa/sm90
{
  echo "base_sm90_bf16 $A90 $C -I$B -Dbaracuda=baracuda_base -c $H/base_sm90_bf16.cu"
  [ -n "$V" ] && echo "variant_sm90_bf16 $A90 $C -I$S/variant/kernels -Dbaracuda=baracuda_variant -DPROBE_VARIANT -c $H/base_sm90_bf16.cu"
  for f in bf16_d128 bf16_d64 f16_d128 f16_d64; do
    echo "s90_$f $A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_$f.cu"
  done
  echo "base_bf16 $A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_bf16.cu"
  echo "base_f16 $A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_f16.cu"
  echo "s80_bf16 $A80 $C -I$S/kernels -c $H/staged_sm80_bf16.cu"
  echo "s80_f16 $A80 $C -I$S/kernels -c $H/staged_sm80_f16.cu"
  echo "s90_entries $A90 $C -I$S/kernels -c $K/sdpa_backward_sm90_entries.cu"
  echo "main $A80 $C $V -I$S/kernels -c $H/main.cu"
} | xargs -P 4 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.o > '$O'/$n.log 2>&1 || echo "FAILED: $n (see '$O'/$n.log)"'
nvcc $A80 $O/*.o -o $O/probe > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
