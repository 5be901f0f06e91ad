#!/usr/bin/env bash
# Unpacks Debian's Catch2 (header-only v2) into .deps/, for machines that
# have no Catch2 package, such as the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
(cd .deps && apt-get download catch2 >/dev/null && dpkg -x catch2_*.deb . && rm catch2_*.deb)
test -f .deps/usr/include/catch2/catch.hpp && echo "Catch2 unpacked into .deps/"
