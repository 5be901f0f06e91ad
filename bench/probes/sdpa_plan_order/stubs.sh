#!/bin/bash
# stubs.sh <out.s> <objects...>: every baracuda symbol the objects use and
# none defines (the other op families' kernels, the f16 and f32 attention
# kernels bench_order never runs) as a label on a trap, so the executable
# links; calling one would stop the process at once (ud2).
O=$1; shift
nm -u "$@" 2>/dev/null | awk '{print $NF}' | grep '^_ZN8baracuda' | sort -u > $O.undef
nm --defined-only "$@" 2>/dev/null | awk '{print $NF}' | grep '^_ZN8baracuda' | sort -u > $O.def
{ echo ".section .note.GNU-stack,\"\",@progbits"; echo ".text"; comm -23 $O.undef $O.def | while read -r s; do echo ".globl $s"; echo "$s: ud2"; done; } > $O
echo "$(comm -23 $O.undef $O.def | wc -l) stubs"
