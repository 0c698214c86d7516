#!/usr/bin/env bash
# An active-learning job killed (SIGKILL) in the middle of its sequence keeps the steps it
# stored; the next run resumes after them, and the finished job has the bits of a run that was
# never interrupted (per-step metrics, chosen points and test predictions).
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" yacht 2>/dev/null
active_learning_spec al-resume 1 150 > "$work/al.toml"
steps() { sqlite3 "$1/bnnbench.sqlite" "SELECT count(DISTINCT step) FROM metrics" 2>/dev/null || echo 0; }
status() { sqlite3 "$1/bnnbench.sqlite" "SELECT status FROM jobs" 2>/dev/null || true; }
"$BNNBENCH" run "$work/al.toml" --threads 1 -q --no-report --results "$work/killed" &
pid=$!
for _ in $(seq 1 $((600 * time_scale))); do
  [ "$(steps "$work/killed")" -ge 5 ] && break
  sleep 0.02
done
kill -9 "$pid" 2>/dev/null || fail "the run finished before it could be killed (give the test job more additions)"
wait "$pid" 2>/dev/null || true
stored=$(steps "$work/killed")
[ "$(status "$work/killed")" = partial ] || fail "the killed job is not stored as partial: $(status "$work/killed")"
[ "$stored" -ge 5 ] && [ "$stored" -lt 151 ] || fail "expected a job stopped part way, found $stored steps"
dry=$("$BNNBENCH" run "$work/al.toml" --dry-run --results "$work/killed")
grep -q '^| yacht | pbp-a | 1 | 0 | 0 | 0 | 1 | 0 | 0 |' <<<"$dry" || fail "dry run of a job stopped part way: $dry"
"$BNNBENCH" report "$work/al.toml" --results "$work/killed" 2>/dev/null | grep -q "1 job(s) stopped part way" ||
  fail "the report does not note the job stopped part way"
"$BNNBENCH" run "$work/al.toml" --threads 1 -q --no-report --results "$work/killed"
[ "$(status "$work/killed")" = ok ] || fail "the resumed job did not finish"
[ "$(steps "$work/killed")" -eq 151 ] || fail "the resumed job has $(steps "$work/killed") steps, not 151"
# the same job run through without a stop
"$BNNBENCH" run "$work/al.toml" --threads 2 -q --no-report --results "$work/whole"
"$BNNBENCH" report "$work/al.toml" --results "$work/killed" --format splits > killed.csv
out=$("$BNNBENCH" report "$work/al.toml" --results "$work/whole" --compare killed.csv) || fail "resumed != whole: $out"
grep -q '1 identical' <<<"$out" || fail "compare: $out"
# ... and verify compares every step's test predictions too
out=$("$BNNBENCH" verify "$work/al.toml" --results "$work/killed" -q) || fail "verify of the resumed job: $out"
grep -q '^1 job(s) identical' <<<"$out" || fail "verify: $out"
echo "active_resume: all checks passed"
