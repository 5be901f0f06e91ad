#!/bin/bash
# build.sh <out dir> <staged kernels dir> <seconds> name=kernels_dir[:tiles] ...:
# the probe with one variant.cu per named tree (base first; tiles:
# PROBE_TILES, 64 = 1, 128 = 2, 256 = 4, all by default; the name sm80
# builds that tree's sm_80 forward from sm80.cu instead), at most PROBE_JOBS
# (4) nvcc at a time. Compiles still running after <seconds> are stopped and the probe
# links without them (the variants are weak symbols: the probe skips them).
O=$1; S=$2; budget=$3; shift 3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a"
{
  echo "main $C -I$S -c $H/main.cu"
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}; tiles=7
    case "$d" in *:*) tiles=${d##*:}; d=${d%:*} ;; esac
    if [ "$n" = sm80 ]; then echo "$n $C -I$d -Dbaracuda=baracuda_sm80 -c $H/sm80.cu"; continue; fi
    echo "$n $C -I$d -Xptxas -v -DPROBE_TILES=$tiles -Dbaracuda=baracuda_$n -DPROBE_FORWARD=probe_forward_$n -c $H/variant.cu"
  done
} | timeout $budget xargs -P ${PROBE_JOBS:-4} -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
nvcc -gencode=arch=compute_90a,code=sm_90a $(ls $O/*.o) -o $O/probe > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
