#!/usr/bin/env bash
# Proves a kernel refactor changed no machine code: compiles every kernels/**/*.cu
# of BASE_REF and of the working tree for each SM (nvcc -cubin with the flags
# meson.build gives kernel sources), disassembles them and compares kernel by
# kernel. Instruction addresses are dropped but encodings (with their scheduling
# bits) are kept, and kernels are keyed by name, so moving code between headers
# or files is no change while any different instruction or stall count is.
# Needs no GPU: cuobjdump and nvdisasm from the CUDA toolkit, or without it
# `pip install --target DIR nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` and DIR/nvidia/cu13/bin on PATH.
# Usage: scripts/sass-compare.sh BASE_REF [SM ...]   (default: 80 90)
#   SASS_NVCC_FLAGS: extra nvcc flags for both sides (e.g. -Xptxas options)
#   SASS_WORK: where listings go (default build-sass/; BASE_REF's are reused)
# Exit status: 0 identical, 1 some kernel differs or exists on one side only.
set -euo pipefail
base_ref=${1:?usage: scripts/sass-compare.sh BASE_REF [SM ...]}
shift
sms=("$@")
[ ${#sms[@]} -eq 0 ] && sms=(80 90)
root=$(git rev-parse --show-toplevel)
work=${SASS_WORK:-$root/build-sass}
base_sha=$(git -C "$root" rev-parse "$base_ref")
flags_key=$(echo "${SASS_NVCC_FLAGS:-}" | md5sum | cut -c1-8)
base_tree=$work/tree-$base_sha
if [ ! -d "$base_tree" ]; then
  mkdir -p "$base_tree.tmp" && git -C "$root" archive "$base_sha" kernels include src | tar -x -C "$base_tree.tmp"
  mv "$base_tree.tmp" "$base_tree"
fi

# OUT/cubin: every kernel file of the tree compiled for the SM.
compile_tree() {  # tree out sm
  local tree=$1 out=$2 sm=$3
  rm -rf "$out" && mkdir -p "$out/cubin"
  (cd "$tree" && find kernels -name '*.cu' | sort) | xargs -P "${JOBS:-$(nproc)}" -I{} sh -c '
    nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr $4 -I"$1/include" -I"$1/src" -I"$1/kernels" \
      -arch=sm_$3 -cubin -o "$2/cubin/$(echo {} | tr / _).cubin" "$1/{}"' _ "$tree" "$out" "$sm" "${SASS_NVCC_FLAGS:-}"
  touch "$out/compiled"
}

# OUT/kernels/NAME: the kernel's instructions without addresses, one per line.
list_kernels() {  # out
  local out=$1
  rm -rf "$out/kernels" && mkdir -p "$out/kernels"
  # Anonymous namespaces are named after the source's path: dropped, so both trees agree.
  for cubin in "$out"/cubin/*.cubin; do cuobjdump -sass "$cubin"; done | sed -E 's/_GLOBAL__N__[0-9a-f]+_/_GLOBAL__N__/g' |
    awk -v dir="$out/kernels" '
    /Function : / { name = dir "/" $3; printf "" > name; next }
    name == "" { next }
    /\.\.\.\.\.\.\.\.\.\./ { close(name); name = ""; next }
    /^[[:space:]]*\/\*[0-9a-f]+\*\// { sub(/^[[:space:]]*\/\*[0-9a-f]+\*\/[[:space:]]*/, ""); print > name; next }
    /^[[:space:]]*\/\* 0x[0-9a-f]+ \*\/[[:space:]]*$/ { gsub(/[[:space:]]+/, " "); print > name }'
}

status=0
for sm in "${sms[@]}"; do
  b=$work/base-$base_sha-$flags_key-sm$sm h=$work/head-sm$sm
  [ -f "$b/compiled" ] || compile_tree "$base_tree" "$b" "$sm"
  compile_tree "$root" "$h" "$sm"
  list_kernels "$b"
  list_kernels "$h"
  b=$b/kernels h=$h/kernels
  only_base=$(comm -23 <(ls "$b") <(ls "$h")) only_head=$(comm -13 <(ls "$b") <(ls "$h"))
  same=0 differ=()
  for k in $(comm -12 <(ls "$b") <(ls "$h")); do
    if cmp -s "$b/$k" "$h/$k"; then same=$((same + 1)); else differ+=("$k"); fi
  done
  echo "sm_$sm: $same kernels identical, ${#differ[@]} differ," \
       "$(grep -c . <<<"$only_base" || true) only in $base_ref, $(grep -c . <<<"$only_head" || true) only in the working tree"
  for k in "${differ[@]}"; do echo "  differs: $k ($(diff "$b/$k" "$h/$k" | grep -c '^[<>]') lines; diff $b/$k $h/$k)"; status=1; done
  for k in $only_base; do echo "  only in $base_ref: $k"; status=1; done
  for k in $only_head; do echo "  only in the working tree: $k"; status=1; done
done
exit $status
