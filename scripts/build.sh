#!/usr/bin/env bash
# Configures and builds bnnbench in ./build (Release).
#   scripts/build.sh            everything (bnnbench, tests, benchmarks)
#   scripts/build.sh bnnbench   only the command-line program
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$root/build" -j"$(nproc)" --target "$@"
else
  cmake --build "$root/build" -j"$(nproc)"
fi
