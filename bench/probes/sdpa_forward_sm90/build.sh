#!/bin/bash
# build.sh <out dir> <staged kernels dir> name=kernels_dir[:tiles] ...: the
# probe with one variant.cu per named tree (base first; tiles: PROBE_TILES,
# 64 = 1, 128 = 2, 256 = 4, all by default), at most 4 nvcc at a time.
O=$1; S=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a"
{
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}; tiles=7
    case "$d" in *:*) tiles=${d##*:}; d=${d%:*} ;; esac
    echo "$n $C -I$d -Xptxas -v -DPROBE_TILES=$tiles -Dbaracuda=baracuda_$n -DPROBE_FORWARD=probe_forward_$n -c $H/variant.cu"
  done
  echo "main $C -I$S -c $H/main.cu"
} | xargs -P 4 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.o > '$O'/$n.log 2>&1 || echo "FAILED: $n (see '$O'/$n.log)"'
nvcc -gencode=arch=compute_90a,code=sm_90a $O/*.o -o $O/probe > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
