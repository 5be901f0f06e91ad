#!/bin/bash
# build.sh <baseline kernels dir> <staged tree> <out dir>: the probe from the
# baseline tree's sm_80 backward and the staged tree's sm_80 and sm_90
# backwards, at most 4 nvcc at a time.
B=$1; S=$2; O=$3; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -I$H"
A80="-gencode=arch=compute_90,code=sm_90"; A90="-gencode=arch=compute_90a,code=sm_90a"
K=$S/kernels/sdpa/sm90
jobs=(
  "$A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_bf16.cu -o $O/base_bf16.o"
  "$A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_f16.cu -o $O/base_f16.o"
  "$A80 $C -I$S/kernels -c $H/staged_sm80_bf16.cu -o $O/s80_bf16.o"
  "$A80 $C -I$S/kernels -c $H/staged_sm80_f16.cu -o $O/s80_f16.o"
  "$A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_bf16_d128.cu -o $O/s90_bf16_d128.o"
  "$A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_bf16_d64.cu -o $O/s90_bf16_d64.o"
  "$A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_f16_d128.cu -o $O/s90_f16_d128.o"
  "$A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_f16_d64.cu -o $O/s90_f16_d64.o"
  "$A90 $C -I$S/kernels -c $K/sdpa_backward_sm90_entries.cu -o $O/s90_entries.o"
  "$A80 $C -I$S/kernels -c $H/main.cu -o $O/main.o"
)
i=0
for j in "${jobs[@]}"; do
  log=$O/$(basename ${j##* }).log
  nvcc $j > $log 2>&1 || echo "FAILED: nvcc $j (see $log)" &
  i=$((i + 1)); [ $((i % 4)) -eq 0 ] && wait
done
wait
nvcc $A80 $O/*.o -o $O/probe > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
