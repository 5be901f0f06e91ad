#!/usr/bin/env bash
# On a GPU machine: builds the library with other tuning knobs and times the
# chosen benchmark rows with each, for comparing kernel variants in one go.
# Usage: scripts/variants.sh FILTER "NAME:-DKNOB=1,-DOTHER=2" ...
set -uo pipefail
filter=$1
shift
for v in "$@"; do
  name=${v%%:*}
  args=${v#*:}
  dir=build-var-$name
  IFS=, read -ra defs <<<"$args"  # several -D flags, comma-separated, as a Meson array
  list=$(printf "'%s'," "${defs[@]}")
  meson setup "$dir" -Dgpu_arch=90 -Dtests=false -Dbench=true --buildtype=release -Dcuda_args="[${list%,}]" >/dev/null 2>&1 \
    && ninja -C "$dir" >/dev/null 2>&1 || { echo "$name: build failed"; continue; }
  "$dir/bench/bench_ops" "$filter" | sed "s/^/$name /"
done
