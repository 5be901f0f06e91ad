#!/bin/bash
# build.sh <baseline kernels dir> <staged tree> <out dir> [budget s] [jobs] [novariants]: the probe
# from the baseline tree's sm_80 and sm_90 backwards and the staged tree's
# sm_90 backward (with the staged sm_80 one it falls back to), and where the
# staged tree holds variant/knobs, variants of its sm_90 backward (bf16)
# beside them: line i, "name dir knob checked", builds the staged kernels
# with the headers under variant/dir first on the include path and
# -DPROBE_KNOB=knob (checked 0: a diagnostic whose results mean nothing,
# timed only). At most 3 nvcc at a time, the probe's own objects first, the
# variants last; every job ends by the budget (default 150 s), and a variant
# that has not built by then is left out (weak symbols), not the round.
B=$1; S=$2; O=$3; BUDGET=${4:-150}; JOBS=${5:-3}; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
END=$(( $(date +%s) + BUDGET ))
C="-O3 --std=c++17 --expt-relaxed-constexpr -I$H"
V=""; [ "$6" != novariants ] && [ -f $S/variant/knobs ] && V="-DPROBE_HAS_VARIANT -I$O"
A80="-gencode=arch=compute_90,code=sm_90"; A90="-gencode=arch=compute_90a,code=sm_90a"
K=$S/kernels/sdpa/sm90
{
  echo "base_sm90_bf16 $A90 $C -I$B -Dbaracuda=baracuda_base -c $H/base_sm90_bf16.cu"
  for f in bf16_d256 f16_d256 bf16_d128 bf16_d64 f16_d128 f16_d64; do
    [ -f $K/sdpa_backward_sm90_$f.cu ] || continue
    echo "s90_$f $A90 $C -I$S/kernels -Xptxas -v -c $K/sdpa_backward_sm90_$f.cu"
  done
  echo "base_bf16 $A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_bf16.cu"
  echo "base_f16 $A80 $C -I$B -Dbaracuda=baracuda_base -c $H/base_f16.cu"
  echo "s80_bf16 $A80 $C -I$S/kernels -c $H/staged_sm80_bf16.cu"
  echo "s80_f16 $A80 $C -I$S/kernels -c $H/staged_sm80_f16.cu"
  echo "s90_entries $A90 $C -I$S/kernels -c $K/sdpa_backward_sm90_entries.cu"
  echo "main $A80 $C $V -I$S/kernels -c $H/main.cu"
  echo "real_inputs $A80 $C -c $H/real_inputs.cu"
  [ -n "$V" ] && i=0 && while read -r name dir knob checked extra; do
    i=$((i + 1))
    echo "variant_$i $A90 $C -I$S/variant/$dir -I$S/kernels -Dbaracuda=baracuda_v$i -DPROBE_VARIANT" \
      "-DPROBE_KNOB=$knob -DPROBE_SM90_ENTRY=variant${i}_backward_sm90_bf16 $extra -Xptxas -v -c $H/base_sm90_bf16.cu"
  done < $S/variant/knobs
} > $O/jobs
# The variants' table for main.cu (weak: a variant not built is skipped).
if [ -n "$V" ]; then
  n=$(wc -l < $S/variant/knobs)
  { for i in $(seq $n); do
      echo "__attribute__((weak)) int variant${i}_backward_sm90_bf16(const void *, void *, size_t, cudaStream_t);"
    done
    echo "static const ProbeVariant kVariants[] = {"
    i=0; while read -r name dir knob checked extra; do
      i=$((i + 1)); echo "  {\"$name\", variant${i}_backward_sm90_bf16, $checked},"
    done < $S/variant/knobs
    echo "};"; } > $O/probe_variants.h
fi
# Objects that do not change between rounds (the baseline's, the sm_80
# kernels') may come prebuilt: $PREBUILT/<job>.o is used as it is.
export O END PREBUILT
cat $O/jobs | xargs -P $JOBS -L 1 bash -c 'n=$0; [ -n "$PREBUILT" ] && [ -f $PREBUILT/$n.o ] && { cp $PREBUILT/$n.o $O/; cp $PREBUILT/$n.log $O/ 2>/dev/null; exit 0; }
  left=$(( END - $(date +%s) )); [ $left -gt 0 ] || { echo "SKIPPED: $n (budget)"; exit 0; }
  timeout $left nvcc "$@" -o $O/$n.o > $O/$n.log 2>&1 || { rm -f $O/$n.o; echo "FAILED: $n (see $O/$n.log)"; }'
nvcc $A80 $O/*.o -lcublas -o $O/probe > $O/link.log 2>&1 || { echo "link failed"; cat $O/link.log; }
