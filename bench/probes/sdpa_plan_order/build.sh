#!/bin/bash
# build.sh <repository root> <out dir> [cudnn.h dir] [cudnn_frontend include]:
# bench_order (bench_ops' attention rows on the library's own plan layer,
# each timing beside the SM clock, power and clock-event reasons NVML
# reported) and bench_ops itself, without building the whole library: the
# attention kernels bench_order times (kernel_jobs, sm_90 / sm_90a only),
# the library's host objects (host_build.sh, cuDNN's backend included), and
# a trap for every baracuda symbol nothing here defines (stubs.sh: the other
# op families' kernels, never called). Objects already in the out dir are kept.
R=$(cd "$1" && pwd); O=$2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
CUDNN=${3:-/usr/include/x86_64-linux-gnu}; FE=${4:-$R/.deps/cudnn_frontend/include}
# cuDNN's headers alone on an include path (-isystem of a system folder hides libc's).
mkdir -p $O/cudnn_inc && ln -sf $CUDNN/cudnn*.h $O/cudnn_inc/
[ -d $O/kern ] || bash $H/kernel_build.sh $R $O/kern 100000 3
[ -d $O/host ] || bash $H/host_build.sh $R $O/host $O/cudnn_inc $FE 3
C="-O2 --std=c++17 -gencode=arch=compute_90,code=sm_90 -I$R/include -I$R/bench -I$H"
nvcc $C -c $H/bench_order.cu -o $O/bench_order.o && nvcc $C -c $H/../sdpa_backward_sm90/real_inputs.cu -o $O/real_inputs.o &&
  nvcc $C -c $R/bench/bench_ops.cu -o $O/bench_ops.o || exit 1
LIB="$O/kern/*.o $O/host/*.o"
bash $H/stubs.sh $O/stubs.s $O/bench_order.o $O/bench_ops.o $LIB && gcc -c $O/stubs.s -o $O/stubs.o || exit 1
nvcc -gencode=arch=compute_90,code=sm_90 $O/bench_order.o $O/real_inputs.o $LIB $O/stubs.o -ldl -lcublas -o $O/bench_order &&
  nvcc -gencode=arch=compute_90,code=sm_90 $O/bench_ops.o $LIB $O/stubs.o -ldl -o $O/bench_ops
