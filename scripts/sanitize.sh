#!/usr/bin/env bash
# The whole test suite (Catch2 unit tests and the command-line tests, which run the sanitized
# bnnbench) built with AddressSanitizer and UndefinedBehaviorSanitizer in ./build-sanitize
# (cmake -DBNNBENCH_SANITIZE=ON: -O1 -g1, Eigen's own checks on; no benchmarks, no fuzz targets,
# no MPI). File by file, not as a unity build: CI thus compiles every source on its own too.
# Any report fails the run, a leak too: the process that makes it aborts, AddressSanitizer's and
# LeakSanitizer's reports go to build-sanitize/sanitizer-logs/, which must stay empty, and no test
# output may hold an UndefinedBehaviorSanitizer report (a command-line test that expects a
# command to fail could otherwise take the abort for the failure it wanted; UBSan, run with
# ASan, writes to stderr only).
#   scripts/sanitize.sh             configure, build, run every test
#   scripts/sanitize.sh -R '^cli'   arguments go to ctest (here: only the command-line tests)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-sanitize"
"$root/scripts/install-deps.sh"
# The command-line tests' time limits and waits: a sanitized program is up to 20 times slower.
export BNNBENCH_TEST_TIME_SCALE="${BNNBENCH_TEST_TIME_SCALE:-10}"
# Without MPI: under mpirun the sanitizers would judge OpenMPI's libraries along with ours (the
# MPI runner's message codec is checked here all the same, by test_record_wire; the MPI and
# Slurm tests run in the main build).
cmake -S "$root" -B "$build" -DBNNBENCH_SANITIZE=ON -DCMAKE_BUILD_TYPE=Sanitize -DBNNBENCH_MPI=OFF -DBNNBENCH_UNITY_BUILD=OFF \
  -DBNNBENCH_BUILD_TESTS=ON -DBNNBENCH_BUILD_BENCH=OFF -DBNNBENCH_BUILD_FUZZ=OFF >/dev/null
start=$(date +%s)
cmake --build "$build" -j"$(nproc)"
built=$(date +%s)

logs="$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
common="abort_on_error=1:halt_on_error=1:print_stacktrace=1:log_exe_name=1"
export ASAN_OPTIONS="$common:log_path=$logs/asan:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1"
export UBSAN_OPTIONS="$common:report_error_type=1"
status=0
(cd "$build" && ctest --output-on-failure -j"$(nproc)" --output-junit "$build/ctest-junit.xml" "$@") || status=$?
# Every test case of the binary ran (unless ctest was given a selection).
if [ $# -eq 0 ]; then
  python3 "$root/scripts/tests-ran.py" "$build/tests/bnnbench_tests" "$build/ctest-junit.xml" || status=1
fi
shopt -s nullglob
reports=("$logs"/*)
for report in "${reports[@]}"; do
  echo "== sanitizer report $report" >&2
  cat "$report" >&2
done
ubsan=$(grep -c 'runtime error: ' "$build/Testing/Temporary/LastTest.log" 2>/dev/null || true)
ubsan=${ubsan:-0}
[ "$ubsan" -eq 0 ] || grep -B3 -A12 'runtime error: ' "$build/Testing/Temporary/LastTest.log" >&2
echo "sanitize: built in $((built - start)) s, tests ran in $(($(date +%s) - built)) s;" \
  "${#reports[@]} ASan/LSan report(s), $ubsan UBSan report(s)"
[ ${#reports[@]} -eq 0 ] && [ "$ubsan" -eq 0 ] || status=1
exit "$status"
