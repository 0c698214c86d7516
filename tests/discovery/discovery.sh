#!/usr/bin/env bash
# Test discovery cannot drop a test case: builds tests/discovery (cases named with ';', ',',
# '[', '~', '\', '"' and '*'), runs its CTest tests and checks that each case ran (its mark),
# that a deliberately failing case fails CTest while the others pass, that a CTest entry which
# matches no case fails (--warn NoTests), and that scripts/tests-ran.py counts every case and
# names a case that did not run.
source "$(dirname "$0")/../cli/lib.sh"
: "${BNN_SOURCE_DIR:?}"
cmake -S "$BNN_SOURCE_DIR/tests/discovery" -B build -DBNN_SOURCE_DIR="$BNN_SOURCE_DIR" -DCMAKE_BUILD_TYPE=Release \
  >cmake.log 2>&1 || { cat cmake.log >&2; fail "the fixture does not configure"; }
cmake --build build >>cmake.log 2>&1 || { cat cmake.log >&2; fail "the fixture does not build"; }
binary=build/discovery_cases
mapfile -t names < <("$binary" --list-test-names-only | grep -v '^$')
[ "${#names[@]}" -eq 6 ] || fail "the fixture lists ${#names[@]} cases, not 6"
[ "$(cd build && ctest -N | grep -c 'Test *#')" -eq 6 ] || { (cd build && ctest -N) >&2; fail "CTest has not one test per case"; }

run_all() {  # run_all FAILING_NAME: runs CTest with marks in ./marks, junit in ./junit.xml
  rm -rf marks && mkdir marks
  (cd build && DISCOVERY_MARKS="$work/marks" DISCOVERY_FAIL="$1" ctest --output-junit "$work/junit.xml" >"$work/ctest.log" 2>&1)
}
run_all "" || { cat ctest.log >&2; fail "CTest failed with no failing case"; }
for name in "${names[@]}"; do
  grep -qxF -- "$name" marks/* || fail "case '$name' did not run"
done
python3 "$BNN_SOURCE_DIR/scripts/tests-ran.py" "$binary" junit.xml >ran.log || { cat ran.log >&2; fail "tests-ran.py"; }
grep -q '6 test case(s) listed by discovery_cases, 6 of them executed by CTest' ran.log || fail "tests-ran.py: $(cat ran.log)"

for failing in "a semicolon; then more" "a comma, then more" "a [bracket] in the name" "a star* and all; of, them [x]"; do
  if run_all "$failing"; then fail "CTest passed although '$failing' failed"; fi
  grep -q '1 tests failed out of 6' ctest.log || { cat ctest.log >&2; fail "not exactly one failure for '$failing'"; }
  grep -qF -- "- $failing (Failed)" ctest.log || { cat ctest.log >&2; fail "CTest did not name '$failing' as failed"; }
done

# An entry that matches no case fails rather than passing having run nothing.
if "$binary" "no such case" --warn NoTests >/dev/null 2>&1; then fail "a filter matching nothing passed"; fi
# tests-ran.py names a case that CTest did not run.
(cd build && DISCOVERY_MARKS="$work/marks" ctest -E comma --output-junit "$work/junit.xml" >/dev/null 2>&1) || true
if python3 "$BNN_SOURCE_DIR/scripts/tests-ran.py" "$binary" junit.xml >ran.log 2>&1; then fail "tests-ran.py missed a case"; fi
grep -q '^  a comma, then more$' ran.log || fail "tests-ran.py did not name the case: $(cat ran.log)"
echo "discovery: 6 cases with special characters run, fail and are counted"
