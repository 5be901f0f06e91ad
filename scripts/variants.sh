#!/usr/bin/env bash
# On a GPU machine: builds the library with other tuning knobs and times the
# chosen benchmark rows with each, for comparing kernel variants in one go.
# A knob is a member of a traits struct in kernels/ (Conv1dTraits,
# GatherRowsTraits, PadBackwardTraits): each variant builds a scratch copy of
# the tree with those members set, so the traits headers stay the one place
# the values live.
# Usage: scripts/variants.sh FILTER "NAME:Struct.kMember=VALUE,Struct.kOther=VALUE" ...
#   e.g. scripts/variants.sh causal_conv1d "stages2:Conv1dTraits.kStages=2"
set -uo pipefail
filter=$1
shift
root=$(pwd)
for v in "$@"; do
  name=${v%%:*}
  dir=$root/build-var-$name
  rm -rf "$dir" && mkdir -p "$dir/tree"
  tar -C "$root" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$dir/tree" -xf -
  ok=1
  IFS=, read -ra knobs <<<"${v#*:}"
  for knob in "${knobs[@]}"; do
    struct=${knob%%.*} member=${knob#*.}
    value=${member#*=} member=${member%%=*}
    file=$(grep -rlE "^struct $struct \{" "$dir/tree/kernels" | head -1)
    [ -n "$file" ] && sed -E -i "/^struct $struct \{/,/^\};/ s/(static constexpr [A-Za-z0-9_]+ $member = )[^;]+;/\1$value;/" "$file"
    if [ -z "$file" ] || ! grep -qE "static constexpr [A-Za-z0-9_]+ $member = $value;" "$file"; then
      echo "$name: no knob $struct.$member in kernels/"; ok=0
    fi
  done
  [ $ok = 1 ] || continue
  meson setup "$dir/build" "$dir/tree" -Dgpu_arch=90 -Dtests=false -Dbench=true --buildtype=release >/dev/null 2>&1 \
    && ninja -C "$dir/build" >/dev/null 2>&1 || { echo "$name: build failed"; continue; }
  "$dir/build/bench/bench_ops" "$filter" | sed "s/^/$name /"
done
