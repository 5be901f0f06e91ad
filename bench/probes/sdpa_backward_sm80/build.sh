#!/bin/bash
# build.sh <out dir> <seconds> <include dir> name=kernels_dir[@tiles|:variant:tile] ...:
# libsdpa80_probe.so with entries probe_bwd_<name>_h<tile> for the head
# tiles 64, 128 and 256 of each named tree (with @64,256 those alone) or,
# with :variant:tile,
# variants.h's tiles of that number at that head tile alone, each tree's
# namespace renamed; the benchmark's fills beside them, and with
# PROBE_FORWARD=1 the first tree's forward (probe_fwd_<name>: run.py's data
# rows, with the first tree named base) and, with PROBE_FWD_VARIANTS="name:n
# ...", fwd_variants.h's forward tiles n of that tree (probe_fwd_<name>; "name:n@dir": of
# the kernels at dir instead); with
# PROBE_FORWARD_ALL=1 every later tree's forward too (probe_fwd_<tree>). At most 3 nvcc at a time, the longest
# first; a compile still running after <seconds> is stopped and the library
# links without it (run.py skips missing entries).
O=$1; budget=$2; INC=$3; shift 3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC -I$H -I$INC"
first=1
declare -A fwd_done
{
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}
    if [ "$d" != "${d%%:*}" ]; then
      rest=${d#*:}; d=${d%%:*}; v=${rest%%:*}; t=${rest#*:}
      e=probe_bwd_${n}_h$t
      echo "${n}_h$t $C -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_TILE=$t -DPROBE_VARIANT=$v -DPROBE_ENTRY=$e -DPROBE_ENTRY_ws=${e}_ws -c $H/tree.cu"
      continue
    fi
    # A tree named ptx80 compiles to compute_80 PTX, which the driver compiles
    # for the device at first launch: the sm_80 source paths run on an H200.
    if [ "$n" = ptx80 ]; then A=${C/compute_90,code=sm_90/compute_80,code=compute_80}; else A=$C; fi
    tiles="256 128 64"
    if [ "$d" != "${d%@*}" ]; then tiles=$(echo ${d#*@} | tr , ' '); d=${d%@*}; fi
    for t in $tiles; do
      e=probe_bwd_${n}_h$t
      echo "${n}_h$t $A -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_TILE=$t -DPROBE_ENTRY=$e -DPROBE_ENTRY_ws=${e}_ws -c $H/tree.cu"
    done
    if [ -n "${PROBE_FORWARD_ALL:-}" ] && [ $first = 0 ] && [ "$n" != ptx80 ] && [ -z "${fwd_done[$n]:-}" ]; then
      echo "${n}_fwd $C -I$d -Dbaracuda=baracuda_${n}_fwd -DPROBE_ENTRY=probe_fwd_$n -c $H/forward.cu"
      fwd_done[$n]=1
    fi
    if [ $first = 1 ] && [ -n "$PROBE_FORWARD" ]; then
      echo "${n}_fwd $C -I$d -Dbaracuda=baracuda_${n}_fwd -DPROBE_ENTRY=probe_fwd_$n -c $H/forward.cu"
      for fv in ${PROBE_FWD_VARIANTS:-}; do
        vn=${fv#*:}; vd=$d
        if [ "$vn" != "${vn%@*}" ]; then vd=${vn#*@}; vn=${vn%@*}; fi
        echo "${fv%%:*}_fwdv $C -I$vd -Xptxas -v -Dbaracuda=baracuda_${fv%%:*}_fwdv -DPROBE_FWD_VARIANT=$vn -DPROBE_ENTRY=probe_fwd_${fv%%:*} -c $H/fwd_variant.cu"
      done
      first=0
      fwd_done[$n]=1
    fi
  done
  echo "fill $C -c $H/fill.cu"
} | timeout $budget xargs -P 3 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
nvcc -shared -cudart shared -gencode=arch=compute_90,code=sm_90 $(ls $O/*.o) -o $O/libsdpa80_probe.so > $O/link.log 2>&1 ||
  { echo "link failed"; cat $O/link.log; }
# Spills of every main kernel (tree, head tile, traits, aligned), for the record.
awk '/Function properties for .*sdpa20sdpa_backward_kernel/ {n=$NF} /spill stores/ && n {print n": "$5" B spill stores"; n=""}' \
  $O/*_h*.log 2>/dev/null | sed -E 's/_ZN[0-9]+baracuda_([a-z0-9]+)7kernels4sdpa20sdpa_backward_kernelI13__nv_bfloat16NS0_/\1 /; s/EvNS0_11SdpaProblemEPKfPfPi//; s/ELNS0_[0-9]+SdpaBackward[A-Za-z]+E/:/g; s/ILi|ELi/ /g' | sort
