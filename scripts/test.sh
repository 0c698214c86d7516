#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds with tests, runs CTest (Catch2 unit
# tests and the command-line tests on the local data mirror ../shared/datasets).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
