#!/usr/bin/env bash
# Runs the binding suites against a built library: Python (pytest), Rust
# (cargo test, offline) and Go (go test via cgo). Prints one line per suite:
# "<suite>: P passed, F failed, S skipped". GPU parts skip without a GPU.
# Usage: scripts/run-bindings.sh BUILD_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
export BARACUDA_LIBRARY="$build/libbaracuda_kernels.so.0" BARACUDA_LIB_DIR="$build"
status=0

# Twice: with the compiled fast path where the build made one (next to the
# library), and with the Python path alone.
for fastpath in 1 0; do
  log="$build/pytest-fastpath$fastpath.log"
  ( cd "$root" && BARACUDA_PYTHON_FASTPATH=$fastpath python3 -m pytest -q -rs bindings/python/tests ) >"$log" 2>&1 ||
    status=1
  echo "  BARACUDA_PYTHON_FASTPATH=$fastpath:"
  tail -3 "$log" | sed 's/^/  /'
  p=$(grep -oE '[0-9]+ passed' "$log" | tail -1 | cut -d' ' -f1)
  f=$(grep -oE '[0-9]+ failed' "$log" | tail -1 | cut -d' ' -f1)
  s=$(grep -oE '[0-9]+ skipped' "$log" | tail -1 | cut -d' ' -f1)
  echo "python: ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
done

( cd "$root/examples/rust" && cargo test --offline -q -- --nocapture ) >"$build/cargo.log" 2>&1 || status=1
grep -E "test result|Rust:|no CUDA|error" "$build/cargo.log" | sed 's/^/  /' | head -8
p=$(grep -oE '[0-9]+ passed' "$build/cargo.log" | awk '{s+=$1} END {print s+0}')
f=$(grep -oE '[0-9]+ failed' "$build/cargo.log" | awk '{s+=$1} END {print s+0}')
echo "rust: $p passed, $f failed, 0 skipped"

( cd "$root/examples/go" && CGO_CFLAGS="-I$root/include -I$cuda/include" \
  CGO_LDFLAGS="-L$build -Wl,-rpath,$build -L$cuda/lib64 -Wl,-rpath,$cuda/lib64" go test -v ./... ) >"$build/go.log" 2>&1 || status=1
grep -E "^(ok|FAIL|---)|Go:" "$build/go.log" | sed 's/^/  /' | head -8
echo "go: $(grep -c -- '--- PASS' "$build/go.log") passed, $(grep -c -- '--- FAIL' "$build/go.log") failed, $(grep -c -- '--- SKIP' "$build/go.log") skipped"
exit $status
