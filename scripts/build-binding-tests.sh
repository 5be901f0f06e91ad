#!/usr/bin/env bash
# Builds the Rust and Go test binaries here, into .deps/bin/, for a GPU
# machine that has no Rust or Go toolchain (scripts/gpu-run.sh runs them).
# Usage: scripts/build-binding-tests.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$root/.deps/bin"
exe=$(cd "$root/examples/rust" && BARACUDA_LIB_DIR="$build" cargo test --offline --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "plans" and m.get("executable"):
        print(m["executable"])')
cp "$exe" "$root/.deps/bin/rust_plans"
(cd "$root/examples/go" && CGO_CFLAGS="-I$root/include -I$cuda/include" \
  CGO_LDFLAGS="-L$build -L$cuda/lib64 -Wl,-rpath,$cuda/lib64" go test -c -o "$root/.deps/bin/go_baracuda.test" .)
ls -l "$root/.deps/bin"
