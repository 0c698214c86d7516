#!/usr/bin/env bash
# One writer per store: a second run (or merge) on a store that a run is writing stops at once,
# naming the first; once the first has ended, a run on the store takes the rest.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht > /dev/null
"$BNNBENCH" run pbp-table1 --methods linear,pbp --datasets boston,yacht --threads 1 --no-report -q --results shared &
first=$!
for _ in $(seq 1 $((100 * time_scale))); do grep -q "^pid $first " shared/bnnbench.lock 2>/dev/null && break; sleep 0.05; done
grep -q "^pid $first " shared/bnnbench.lock || fail "the first run did not take the lock"
set +e
"$BNNBENCH" run pbp-table1 --methods linear --datasets yacht --no-report -q --results shared > out.txt 2> err.txt
code=$?
"$BNNBENCH" merge --results shared "$work/shared" > /dev/null 2> merge_err.txt
merge_code=$?
set -e
kill -0 "$first" 2>/dev/null || fail "the first run ended before the second was tried: make it longer"
[ "$code" -ne 0 ] || fail "a second run on a store in use exited 0"
grep -q "is being written by another bnnbench (pid $first on .*bnnbench run pbp-table1" err.txt ||
  fail "the second run does not name the first: $(cat err.txt)"
[ "$merge_code" -ne 0 ] && grep -q "being written by another bnnbench" merge_err.txt || fail "merge into a store in use: $(cat merge_err.txt)"
wait "$first"
"$BNNBENCH" run pbp-table1 --methods linear,pbp --datasets boston,yacht --threads 2 --no-report --results shared 2> second.txt
grep -q "ran 0 job(s)" second.txt || fail "after the first run, the second did not find every job done: $(tail -1 second.txt)"
echo "store_lock: all checks passed"
