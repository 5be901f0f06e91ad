#!/bin/bash
# build.sh <out dir> <seconds> name=kernels_dir:dtypes:min_w:max_w[:variants_dir] ...:
# libforward_probe.so with entries probe_fwd_<name>_<dtype> (dtype 0 bf16 x /
# f32 weights, 2 f16 x / f32 weights, 3 f32, 4 f64; dtypes e.g. 0234) for
# each tree, its namespace renamed, serving widths min_w .. max_w (and with
# variants_dir, the forced variants of its probe_variants.cuh). At most 3
# nvcc at a time; a compile still running after <seconds> is stopped and the
# library links without it (the driver skips missing entries).
O=$1; budget=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC"
for spec in "$@"; do
  n=${spec%%=*}; IFS=: read -r d types lo hi variants <<< "${spec#*=}"
  extra="-DPROBE_MIN_W=$lo -DPROBE_MAX_W=$hi"
  [ -n "$variants" ] && extra="$extra -DPROBE_VARIANTS -I$variants"
  for t in $(echo $types | grep -o .); do
    echo "${n}_$t $C $extra -DPROBE_DTYPE=$t -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_ENTRY=probe_fwd_${n}_$t -c $H/variant.cu"
  done
done | bash $H/../common/compile_and_link.sh $O $budget 3 90 libforward_probe.so
