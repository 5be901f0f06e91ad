#!/bin/bash
# compile_and_link.sh <out dir> <seconds> <parallel nvcc> <arch> <library>:
# compiles the lines read from stdin ("name nvcc-arguments...", one object
# <out dir>/<name>.o each) at most <parallel nvcc> at a time, stops those
# still running after <seconds>, and links what compiled into the shared
# library <out dir>/<library> for sm <arch> (a probe's driver skips the
# entries of the objects left out).
O=$1; budget=$2; jobs=$3; arch=$4; lib=$5
timeout $budget xargs -P $jobs -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
nvcc -shared -cudart shared -gencode=arch=compute_$arch,code=sm_$arch $(ls $O/*.o) -o $O/$lib > $O/link.log 2>&1 ||
  { echo "link failed"; cat $O/link.log; }
