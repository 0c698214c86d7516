#!/usr/bin/env bash
# --shard K/N splits the jobs deterministically; merging the shards' stores gives the same
# results as one run; a report of the merged store works.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" run quickstart -q --no-report --results "$work/all"
for k in 1 2 3; do
  "$BNNBENCH" run quickstart -q --no-report --results "$work/s$k" --shard "$k/3"
done
n1=$(splits_without_time quickstart --results "$work/s1" | wc -l)
[ "$n1" -gt 0 ] && [ "$n1" -lt "$(splits_without_time quickstart --results "$work/all" | wc -l)" ] || fail "shard 1/3 is not a proper share"
"$BNNBENCH" merge --results "$work/merged" "$work/s1" "$work/s2" "$work/s3" 2>/dev/null
splits_without_time quickstart --results "$work/merged" > merged.csv
splits_without_time quickstart --results "$work/all" > all.csv
cmp -s merged.csv all.csv || { diff merged.csv all.csv | head; fail "merged shards differ from a single run"; }
"$BNNBENCH" report quickstart --results "$work/merged" | grep '^| epnn-case2 |' >/dev/null || fail "report of merged store lacks rows"
# Merging again copies nothing new.
"$BNNBENCH" merge --results "$work/merged" "$work/s1" 2>&1 | grep 'merged 0 job' >/dev/null || fail "re-merge copied jobs twice"
# --without-points: the same per-split metrics, no per-point rows.
"$BNNBENCH" merge --without-points --results "$work/slim" "$work/all" 2>/dev/null
splits_without_time quickstart --results "$work/slim" > slim.csv
cmp -s slim.csv all.csv || { diff slim.csv all.csv | head; fail "a store merged without points lost metrics"; }
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); sys.exit(c.execute("SELECT COUNT(*) FROM points").fetchone()[0] != 0)' "$work/slim/bnnbench.sqlite" || fail "merge --without-points copied points"
# A report that pools test points says when a slim store makes it fall back to per-split means.
sed -e 's/^name = "quickstart"/name = "pooled"/' -e 's/^metrics = .*/metrics = ["lpd_mean", "se_mean", "se_p99"]/' \
  "$BNNBENCH_HOME_DIR/experiments/quickstart.toml" > pooled.toml
"$BNNBENCH" run pooled.toml -q --no-report --results "$work/pooled" --datasets epnn-case1
"$BNNBENCH" report pooled.toml --results "$work/pooled" | grep 'no per-point predictions' >/dev/null && fail "a full store reported as unpooled"
"$BNNBENCH" merge --without-points --results "$work/pooled-slim" "$work/pooled" 2>/dev/null
"$BNNBENCH" report pooled.toml --results "$work/pooled-slim" | grep 'epnn-case1/linear.*: some jobs have no per-point predictions' >/dev/null ||
  fail "the report of a slim store does not say its means are per split"
# A store written before the grid table existed still merges.
cp -r "$work/s1" "$work/old"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE grid"); c.commit()' "$work/old/bnnbench.sqlite"
"$BNNBENCH" merge --results "$work/from-old" "$work/old" 2>&1 | grep "merged [1-9][0-9]* job" >/dev/null || fail "merge from a store without the grid table failed"
# An empty file or a foreign SQLite database is not an input, and stays as it was.
mkdir -p empty foreign
: > empty/bnnbench.sqlite
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE t (x)"); c.commit()' foreign/bnnbench.sqlite
before=$(sha256sum empty/bnnbench.sqlite foreign/bnnbench.sqlite)
for input in empty foreign; do
  set +e
  "$BNNBENCH" merge --results "$work/out-$input" "$work/$input" > out.txt 2> err.txt
  code=$?
  set -e
  [ "$code" -ne 0 ] || fail "merge accepted $input/bnnbench.sqlite"
  grep -q "$input/bnnbench.sqlite: not a bnnbench results store" err.txt || fail "merge of $input: $(cat err.txt)"
done
[ "$before" = "$(sha256sum empty/bnnbench.sqlite foreign/bnnbench.sqlite)" ] || fail "merge wrote into its inputs"
[ ! -e "$work/out-empty/bnnbench.sqlite" ] || fail "merge created its output for a rejected input"
echo "shard_merge: all checks passed"
