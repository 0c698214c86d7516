#!/usr/bin/env bash
# A store that cannot take a job (here the file-size limit of the process, as a full disk
# would) stops the run: no job starts after the failure, the summary says how many were
# computed but not stored, the exit is non-zero, and a rerun with room completes the run
# with the same per-split metrics as an uninterrupted one.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht > /dev/null
run() { "$BNNBENCH" run pbp-table1 --methods linear --datasets boston,yacht --threads 2 --no-report "$@"; }
set +e
( ulimit -f 160; run --results full ) > out.txt 2> err.txt  # bnnbench ignores SIGXFSZ itself
code=$?
set -e
[ "$code" -ne 0 ] || fail "a run whose store failed exited 0: $(cat err.txt)"
grep -q "the store failed: [1-9][0-9]* job(s) computed but not stored, [0-9]* not started" err.txt ||
  fail "no summary of the storage failure: $(tail -3 err.txt)"
grep -q "^error: could not store " err.txt || fail "no 'could not store' line: $(tail -3 err.txt)"
not_started=$(sed -n 's/.* not stored, \([0-9]*\) not started.*/\1/p' err.txt)
[ "$not_started" -gt 0 ] || fail "the run went on after the store failed: $(grep 'store failed' err.txt)"
# with room again: the rest runs, the finished jobs are kept
run --results full -q
run --results whole -q
[ "$(splits_without_time pbp-table1 --results full)" = "$(splits_without_time pbp-table1 --results whole)" ] ||
  fail "the completed run differs from an uninterrupted one"
echo "ok: the store's failure stopped the run after $(grep -c ': ok' err.txt) stored job(s); the rerun completed it"
