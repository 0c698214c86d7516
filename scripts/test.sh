#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds with tests, runs CTest (Catch2 unit
# tests and the command-line tests on the local data mirror ../shared/datasets), then checks
# that CTest executed every test case the test binary lists (scripts/tests-ran.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$root/build"
status=0
ctest --output-on-failure -j"$(nproc)" --output-junit "$root/build/ctest-junit.xml" || status=$?
python3 "$root/scripts/tests-ran.py" "$root/build/tests/bnnbench_tests" "$root/build/ctest-junit.xml" || status=1
exit "$status"
