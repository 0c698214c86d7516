#!/usr/bin/env bash
# A run killed with SIGKILL loses no finished job; the next run completes the rest and every
# job ends up done exactly once; --rerun runs finished jobs again.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" protein > "$work/fetch.log" 2>&1 || fail "fetch failed: $(tail -3 "$work/fetch.log")"
cat > "$work/resume.toml" <<'TOML'
name = "resume-test"
seed = 3
datasets = ["protein"]
protocol = { kind = "random", train_fraction = 0.5, repeats = 120 }
[[method]]
method = "linear"
TOML
results="$work/r"
count_ok() { "$BNNBENCH" report "$work/resume.toml" --results "$results" --format splits 2>/dev/null | grep -c ',ok,rmse,' || true; }
"$BNNBENCH" run "$work/resume.toml" --threads 1 -q --no-report --results "$results" &
pid=$!
for _ in $(seq 1 $((400 * time_scale))); do
  [ -f "$results/bnnbench.sqlite" ] && [ "$(count_ok)" -ge 3 ] && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null || fail "the run finished before it could be killed (make the test experiment larger)"
wait "$pid" 2>/dev/null || true
# report reads the jobs still in the -wal file of the killed run and never writes the store
# (not even as root, who may write anywhere)
[ -s "$results/bnnbench.sqlite-wal" ] || fail "the killed run left no -wal file: the test checks nothing"
store_bytes=$(sha256sum < "$results/bnnbench.sqlite")
before=$(count_ok)
[ "$store_bytes" = "$(sha256sum < "$results/bnnbench.sqlite")" ] || fail "report wrote the store"
[ "$before" -eq "$(sqlite3 -readonly "$results/bnnbench.sqlite" "SELECT count(*) FROM jobs WHERE status = 'ok'")" ] ||
  fail "report sees $before jobs, the store holds more"
[ "$before" -ge 3 ] && [ "$before" -lt 120 ] || fail "expected a partial run, found $before finished jobs"
# --dry-run lists what is finished and what would run, and runs nothing.
dry=$("$BNNBENCH" run "$work/resume.toml" --dry-run --results "$results" 2>"$work/dry.err") ||
  fail "dry run after the kill failed: $(tail -3 "$work/dry.err")"
grep -q "| protein | linear | 120 | $before | 0 | 0 | 0 | 0 | 0 | $((120 - before)) |" <<<"$dry" || fail "dry run table: $dry"
grep -q "^$((120 - before)) job(s) would run" <<<"$dry" || fail "dry run total: $dry"
[ "$(count_ok)" -eq "$before" ] || fail "--dry-run ran jobs"
out=$("$BNNBENCH" run "$work/resume.toml" --threads 2 --no-report --results "$results" 2>&1) ||
  fail "resumed run failed: $(tail -3 <<<"$out")"
out=$(tail -1 <<<"$out")
grep -q "ran $((120 - before)) job(s)" <<<"$out" || fail "resumed run did not run exactly the missing jobs: $out (had $before)"
[ "$(count_ok)" -eq 120 ] || fail "expected 120 finished jobs, found $(count_ok)"
dups=$("$BNNBENCH" report "$work/resume.toml" --results "$results" --format splits | grep ',rmse,' | cut -d, -f1-4 | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "$dups jobs stored more than once"
# --rerun runs finished jobs again (here 5 of them), replacing each with the same numbers.
before_rerun=$(splits_without_time "$work/resume.toml" --results "$results")
dry=$("$BNNBENCH" run "$work/resume.toml" --rerun --splits 0-4 --dry-run --results "$results" 2>/dev/null)
grep -q "^5 job(s) would run (--rerun" <<<"$dry" || fail "rerun dry run: $dry"
out=$("$BNNBENCH" run "$work/resume.toml" --rerun --splits 0-4 --threads 2 --no-report --results "$results" 2>&1 | tail -1)
grep -q "ran 5 job(s)" <<<"$out" || fail "--rerun did not rerun the 5 selected jobs: $out"
[ "$(splits_without_time "$work/resume.toml" --results "$results")" = "$before_rerun" ] || fail "--rerun changed the numbers"
[ "$(count_ok)" -eq 120 ] || fail "expected 120 finished jobs after --rerun, found $(count_ok)"
echo "resume: killed after $before of 120 jobs; the rerun finished the other $((120 - before)); --rerun reproduced 5"
