#!/bin/bash
# build.sh <out dir> <seconds> name=kernels_dir[@dtype,...] ...: libpadbwd_probe.so
# with entries probe_bwd_<name>_<f32|bf16|f16> (each tree's namespace
# renamed; @ names the dtypes to build, default all three; a tree named
# stamps* is built with its phase clocks), and the driver pad_bwd_probe
# (against the first tree's headers). At most 3 nvcc at a time, in the order
# given; a compile still running after <seconds> is stopped, and an object
# missing then is taken from $PREBUILT when set (built
# on another machine with the same nvcc), else left out (the driver skips
# missing entries).
O=$1; budget=$2; shift 2; H=$(cd "$(dirname "$0")" && pwd); mkdir -p $O
C="-O3 -lineinfo --std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC"
first=${1#*=}; first=${first%@*}
{
  echo "driver $C -I$first -c $H/main.cu"
  for spec in "$@"; do
    n=${spec%%=*}; d=${spec#*=}; dts="f32,bf16,f16"
    case "$d" in *@*) dts=${d#*@}; d=${d%@*} ;; esac
    x=; case "$n" in stamps*) x=-DPROBE_STAMPS ;; esac
    k=0
    for dt in f32 bf16 f16; do
      case ",$dts," in *,$dt,*)
        echo "${n}_$dt $C $x -I$d -Xptxas -v -Dbaracuda=baracuda_$n -DPROBE_DTYPE=$k -DPROBE_ENTRY=probe_bwd_${n}_$dt -c $H/entry.cu" ;;
      esac
      k=$((k + 1))
    done
  done
} | timeout $budget xargs -P 3 -L 1 bash -c 'n=$0; nvcc "$@" -o '$O'/$n.tmp.o > '$O'/$n.log 2>&1 && mv '$O'/$n.tmp.o '$O'/$n.o || echo "FAILED: $n (see '$O'/$n.log)"'
[ $? -eq 124 ] && echo "compiles stopped after $budget s; built: $(cd $O && ls *.o | grep -v tmp | paste -sd' ')"
rm -f $O/*.tmp.o
if [ -n "$PREBUILT" ] && [ -d "$PREBUILT" ]; then
  for f in $PREBUILT/*.o; do [ -f $O/$(basename $f) ] || { cp $f $O/; echo "prebuilt: $(basename $f)"; }; done
fi
nvcc -gencode=arch=compute_90,code=sm_90 $O/driver.o -o $O/pad_bwd_probe -ldl > $O/link_driver.log 2>&1 || { echo "driver link failed"; cat $O/link_driver.log; }
nvcc -shared -cudart shared -gencode=arch=compute_90,code=sm_90 $(ls $O/*.o | grep -v driver.o) -o $O/libpadbwd_probe.so > $O/link.log 2>&1 ||
  { echo "link failed"; cat $O/link.log; }
