#!/usr/bin/env bash
# Tri Dao's causal-conv1d test suite against baracuda's plans, on a GPU machine.
#
#     bench/tridao_suite/run.sh LIBRARY TRIDAO_DIR [pytest arguments]
#
# LIBRARY: the libbaracuda_kernels.so.0 to test; TRIDAO_DIR: a copy of
# ../shared/reference/tridao-causal-conv1d (not in the repository), whose
# tests/ folder receives this folder's conftest.py. Needs PyTorch, pytest, einops.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${1:?usage: run.sh LIBRARY TRIDAO_DIR [pytest arguments]}
tridao=${2:?usage: run.sh LIBRARY TRIDAO_DIR [pytest arguments]}
shift 2
cp "$here/conftest.py" "$tridao/tests/conftest.py"
export BARACUDA_LIBRARY=$lib BARACUDA_TRIDAO_ADAPTER=$here
export PYTHONPATH=$root/bindings/python:$tridao/python:$tridao${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m pytest -q -p no:cacheprovider "$tridao/tests/test_causal_conv1d.py" "$@"
