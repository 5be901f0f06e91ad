#!/bin/bash
# host_build.sh <tree> <out dir> <cudnn.h dir> <cudnn_frontend include> [jobs]: the
# library's host objects (capi, src/core, src/ops, the cuDNN backend) as
# meson.build lists them, compiled with g++ (-O2, hidden visibility off: one
# executable links them).
T=$1; O=$2; CUDNN=$3; FE=$4; J=${5:-3}; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
CUDA_INC=$(dirname $(dirname $(which nvcc)))/include
F="-O2 -std=c++17 -fPIC -I$T/include -I$T/src -I$T/kernels -I$H/cfg -I$CUDA_INC"
{
  for f in capi/baracuda_capi.cpp src/core/args.cpp src/core/candidates.cpp src/core/checked_math.cpp \
    src/core/descriptor.cpp src/core/dtype.cpp src/core/error.cpp src/core/layout.cpp src/core/select_context.cpp \
    src/core/tensor.cpp src/core/versioned.cpp src/ops/registry.cpp src/ops/pad/pad_desc.cpp src/ops/pad/pad_plan.cpp \
    src/ops/write_slice/write_slice_plan.cpp src/ops/causal_conv1d/causal_conv1d_desc.cpp \
    src/ops/causal_conv1d/causal_conv1d_plan.cpp src/ops/alibi/alibi_desc.cpp src/ops/alibi/alibi_plan.cpp \
    src/ops/alibi/alibi_slopes.cpp src/ops/sdpa/sdpa_desc.cpp src/ops/sdpa/sdpa_plan.cpp \
    src/ops/sdpa/views_overlap.cpp src/ops/sdpa/sdpa_cudnn.cpp src/ops/sdpa/sdpa_cudnn_support.cpp; do
    echo "$(basename $f .cpp) $F -c $T/$f"
  done
  for f in cudnn_library cudnn_entry_points cudnn_handles cudnn_sdpa_graph nvrtc_entry_points; do
    echo "$f $F -isystem $CUDNN -isystem $FE -c $T/src/backends/cudnn/$f.cpp"
  done
} > $O/host_jobs
export O
cat $O/host_jobs | xargs -P $J -L 1 bash -c 'n=$0; g++ "$@" -o $O/$n.o > $O/$n.log 2>&1 || echo "FAILED host $n: $(head -c 600 $O/$n.log)"'
ls $O/*.o | wc -l
