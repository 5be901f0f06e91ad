#!/bin/bash
# build.sh <out dir> <staged kernels dir> <seconds> name=kernels_dir[:tiles[:f16]] ...:
# the probe with one variant.cu per named tree (base first; tiles:
# PROBE_TILES, 64 = 1, 128 = 2, 256 = 4, all by default; f16: the variant
# runs f16 too; the name sm80 builds that tree's sm_80 forward from sm80.cu
# instead; the name grid is the tree time_grid runs; the name cudnn, with a
# repository root for its dir, builds that root's cuDNN backend
# (src/backends/cudnn, with the headers in CUDNN_INCLUDE and
# FRONTEND_INCLUDE) behind cudnn_backend.cpp), at most PROBE_JOBS (3)
# compiles at a time. Compiles still running after <seconds> are stopped and
# the probe links without them (the variants are weak symbols: the probe
# skips them).
O=$1; S=$2; budget=$3; shift 3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC"
CUDNN_INCLUDE=${CUDNN_INCLUDE:-/usr/include/x86_64-linux-gnu}
LINK_DL=""
{
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}
    if [ "$n" = cudnn ]; then
      # The frontend's graph file is the longest compile: first in line.
      X="g++ -O1 -std=c++17 -fPIC -I$d/include -I$d/src -I$d/kernels -isystem $CUDNN_INCLUDE -isystem $FRONTEND_INCLUDE -I/usr/local/cuda/include"
      echo "cudnn_graph $X -c $d/src/backends/cudnn/cudnn_sdpa_graph.cpp"
      for f in cudnn_library cudnn_entry_points cudnn_handles nvrtc_entry_points; do
        echo "cudnn_$f $X -c $d/src/backends/cudnn/$f.cpp"
      done
      echo "cudnn_error $X -c $d/src/core/error.cpp"
      echo "cudnn_probe $X -c $H/cudnn_backend.cpp"
    fi
  done
  echo "main nvcc $C -I$S -c $H/main.cu"
  [ -n "$PROBE_TORCH_LIB" ] && echo "torch_entry nvcc $C -I$S -c $H/torch_entry.cu"
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}; tiles=7; f16=0
    [ "$n" = cudnn ] && continue
    case "$d" in *:*:f16) f16=1; d=${d%:f16} ;; esac
    case "$d" in *:*) tiles=${d##*:}; d=${d%:*} ;; esac
    if [ "$n" = sm80 ]; then echo "$n nvcc $C -I$d -Dbaracuda=baracuda_sm80 -c $H/sm80.cu"; continue; fi
    echo "$n nvcc $C -I$d -Xptxas -v -DPROBE_TILES=$tiles -DPROBE_F16=$f16 -Dbaracuda=baracuda_$n -DPROBE_FORWARD=probe_forward_$n -c $H/variant.cu"
  done
} | timeout $budget xargs -P ${PROBE_JOBS:-3} -L 1 bash -c 'n=$0; "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || { echo "FAILED: $n"; tail -n 15 '$O'/$n.log; }'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; linking: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
# The cuDNN backend links only whole (its objects need one another).
if ls $O/cudnn_*.o > /dev/null 2>&1 && [ $(ls $O/cudnn_*.o | wc -l) -lt 7 ]; then
  echo "cuDNN backend incomplete: left out"; mkdir -p $O/partial; mv $O/cudnn_*.o $O/partial/
fi
ls $O/cudnn_*.o > /dev/null 2>&1 && LINK_DL="-ldl"
nvcc -gencode=arch=compute_90a,code=sm_90a $(ls $O/*.o | grep -v torch_entry) -o $O/probe $LINK_DL -lpthread > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
# PROBE_TORCH_LIB: the variants behind torch_entry.cu's C function in
# libprobe.so, for torch_vs.py (PyTorch's cuDNN in the same process).
if [ -n "$PROBE_TORCH_LIB" ] && [ -f $O/torch_entry.o ] && [ -f $O/base.o ]; then
  nvcc -shared -gencode=arch=compute_90a,code=sm_90a $O/torch_entry.o $O/base.o $(ls $O/v[0-9].o 2>/dev/null) \
    -o $O/libprobe.so > $O/link_torch.log 2>&1 || { echo "libprobe.so link failed"; cat $O/link_torch.log; }
fi
