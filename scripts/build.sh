#!/usr/bin/env bash
# Configures and builds bnnbench in ./build (Release).
#   scripts/build.sh            everything (bnnbench, tests, benchmarks)
#   scripts/build.sh bnnbench   only the command-line program
# A new build folder uses Ninja when it is installed (install-deps.sh installs it): it keeps
# both cores busy across targets, where make finishes one library before starting the next.
# An existing build folder keeps the generator it was made with.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
generator=()
if [ ! -f "$root/build/CMakeCache.txt" ] && command -v ninja > /dev/null; then
  generator=(-G Ninja)
fi
cmake -S "$root" -B "$root/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$root/build" -j"$(nproc)" --target "$@"
else
  cmake --build "$root/build" -j"$(nproc)"
fi
