#!/bin/bash
# build.sh <out dir> <seconds> <include dir> name=kernels_dir ...: <out dir>/probe,
# main.cu linked with one variant.cu object per tree (entry probe_pad_<name>,
# the tree's namespace renamed) and one backward.cu object (probe_pad_bwd_<name>),
# at most 3 nvcc at a time; a compile still
# running after <seconds> is stopped and the probe links without that tree
# (its entry is weak, the driver skips it). A file `flags` beside a tree's
# kernels dir adds its words to that tree's compile; PROBE_NO_BWD=1 skips the
# backward objects.
O=$1; budget=$2; inc=$3; shift 3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90"
{ for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}
  echo "$n $C -I$d -I$inc -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_ENTRY=probe_pad_$n $(cat $d/../flags 2>/dev/null) -c $H/variant.cu"
done
[ -n "$PROBE_NO_BWD" ] && set --
# The backward's objects (main's and v1's: the probe checks v1's against main's) after every
# forward one: a late one is skipped, not a forward.
for spec in "$@"; do
  n=${spec%%=*}; d=${spec#*=}
  [ "$n" = main ] || [ "$n" = v1 ] || continue
  echo "bwd_$n $C -I$d -I$inc -Dbaracuda=baracuda_bwd_$n -DPROBE_ENTRY=probe_pad_bwd_$n -c $H/backward.cu"
done; } | timeout $budget xargs -P 3 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
for f in $O/*.log; do
  echo "$(basename $f .log): $(grep -A2 'tiles_kernel' $f | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | sort | uniq -c | paste -sd' ')"
done
# Instructions of the 16-bit reflect tile kernels (SASS), where cuobjdump is at hand.
command -v cuobjdump > /dev/null && for f in $O/*.o; do
  for k in 24pad_forward_tiles 29pad_forward_slot_tiles; do
    echo "$(basename $f .o) sass lines, b2 reflect $k: $(cuobjdump -sass $f | awk '/Function : .*'$k'_kernelILi2ELNS0_8IndexMapE1/ {on = 1; next} /Function :/ {on = 0} on && /\/\*[0-9a-f]+\*\// {n++} END {print n + 0}')"
  done
done
nvcc $C -o $O/probe $H/main.cu $(ls $O/*.o) > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
