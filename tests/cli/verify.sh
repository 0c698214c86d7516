#!/usr/bin/env bash
# `bnnbench verify` reruns a store's finished jobs and finds every number that came out
# differently: none after a plain run, a tampered metric or test-point prediction otherwise;
# `report --compare` checks a table against a published one.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston 2>/dev/null
"$BNNBENCH" run pbp-table1 --methods linear,pbp --datasets boston --splits 0-2 --threads 2 -q --no-report \
  --results "$work/r"
verify() { "$BNNBENCH" verify pbp-table1 --results "$work/r" -q "$@"; }

out=$(verify --threads 1 2>&1) || fail "verify of an untouched store failed: $out"
# Only the data sets the store has jobs of are loaded: no notes about the others not fetched.
grep -q 'note: data set' <<<"$out" && fail "notes about data sets the store does not hold: $out"
grep -q '^| boston | pbp | 3 | 3 | 0 | 0 |' <<<"$out" || fail "pbp row: $out"
grep -q '^6 job(s) identical, 0 differ' <<<"$out" || fail "summary: $out"

# The per-split file a table is committed with, and its provenance file (one row per job).
"$BNNBENCH" report pbp-table1 --results "$work/r" --format splits -o splits.csv
jobs=$("$BNNBENCH" report pbp-table1 --results "$work/r" --format jobs)
head -1 <<<"$jobs" | grep -q '^dataset,method,config_hash,split,method_name,config,seed,status,' || fail "jobs header: $jobs"
[ "$(grep -c '^boston,pbp,[0-9a-f]*,[0-2],pbp,method=pbp|options=[^,]*|seed=[0-9]*|[^,]*,[0-9]*,ok,' <<<"$jobs")" -eq 3 ] ||
  fail "jobs rows: $jobs"
# A partial rerun elsewhere (one split of one method) against it, job by job: identical.
"$BNNBENCH" run pbp-table1 --methods pbp --datasets boston --splits 1 --threads 1 -q --no-report --results "$work/one"
out=$("$BNNBENCH" report pbp-table1 --results "$work/one" --compare splits.csv) || fail "partial rerun: $out"
grep -q '^1 job(s) compared ([0-9]* values, timings excepted; 0 stored before options of ours existed, at their defaults): 1 identical, 0 differ; 5 published job(s) not rerun here (0 of them under another configuration here), 0 of ours' <<<"$out" ||
  fail "partial rerun summary: $out"
# A published job stored before pbp had its epochs option (its configuration lacks it, and so
# does its hash) is the same computation as the rerun at the default 40 epochs: the
# configurations in the jobs.csv beside splits.csv say so. Without that file it is not compared.
mkdir -p old old_without_jobs
sed 's/^boston,pbp,\([0-9a-f]*\),1,/boston,pbp,0123456789abcdef,1,/' splits.csv > old/splits.csv
"$BNNBENCH" report pbp-table1 --results "$work/r" --format jobs |
  sed '/^boston,pbp,[0-9a-f]*,1,/ { s/^boston,pbp,[0-9a-f]*,1,/boston,pbp,0123456789abcdef,1,/; s/;epochs=40;/;/ }' > old/jobs.csv
grep -q '^boston,pbp,0123456789abcdef,1,pbp,method=pbp|options=[^|]*|' old/jobs.csv && ! grep -q '^boston,pbp,0123456789abcdef,1,.*epochs=' old/jobs.csv ||
  fail "old configuration not simulated: $(grep '^boston,pbp,0123456789abcdef' old/jobs.csv)"
out=$("$BNNBENCH" report pbp-table1 --results "$work/one" --compare old/splits.csv) || fail "older configuration: $out"
grep -q '^1 job(s) compared ([0-9]* values, timings excepted; 1 stored before options of ours existed, at their defaults): 1 identical' <<<"$out" ||
  fail "older configuration summary: $out"
cp old/splits.csv old_without_jobs/
if out=$("$BNNBENCH" report pbp-table1 --results "$work/one" --compare old_without_jobs/splits.csv 2>&1); then
  fail "an older configuration was compared without its jobs.csv: $out"
fi
grep -q '6 published job(s) not rerun here (1 of them under another configuration here)' <<<"$out" ||
  fail "older configuration without jobs.csv: $out"
# verify where the results directory has no store but a committed splits.csv (a clean
# checkout): the selected jobs it holds are rerun and compared with it.
mkdir -p committed && cp splits.csv committed/ && "$BNNBENCH" report pbp-table1 --results "$work/r" --format jobs > committed/jobs.csv
out=$("$BNNBENCH" verify pbp-table1 --results committed --methods pbp --splits 1-5 -q) || fail "verify against splits.csv: $out"
grep -q '^2 job(s) compared ([0-9]* values, [^)]*): 2 identical, 0 differ' <<<"$out" ||
  fail "verify against splits.csv: $out"
awk -F, 'BEGIN { OFS = "," } $2 == "pbp" && $4 == 1 && $6 == "test_ll" { $7 = $7 * 1.000001 } { print }' splits.csv > committed/splits.csv
if out=$("$BNNBENCH" verify pbp-table1 --results committed --methods pbp --splits 1 -q); then fail "a changed committed value passed: $out"; fi
grep -q '^| boston | pbp | 1 | test_ll |' <<<"$out" || fail "changed committed value not listed: $out"
if out=$("$BNNBENCH" verify pbp-table1 --results committed --methods bp -q 2>&1); then fail "verify of no committed job passed"; fi
grep -q 'nothing to verify: none of the 20 selected job(s) is finished in committed/splits.csv' <<<"$out" || fail "no committed job: $out"

# Another configuration of the same split is not compared: nothing to compare is an error.
"$BNNBENCH" run pbp-table1 --methods pbp --datasets boston --splits 1 --set pbp.epochs=3 -q --no-report \
  --results "$work/other"
if out=$("$BNNBENCH" report pbp-table1 --results "$work/other" --set pbp.epochs=3 --compare splits.csv 2>&1); then
  fail "a store with no matching job passed"
fi
grep -q '6 published job(s) not rerun here (1 of them under another configuration here)' <<<"$out" &&
  grep -q "no job of splits.csv is in $work/other/bnnbench.sqlite" <<<"$out" || fail "other configuration: $out"
printf 'dataset,method,config_hash,split,status,metric,value\nboston,pbp,abc,0,ok,rmse\n' > bad_splits.csv
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare bad_splits.csv 2>&1); then
  fail "malformed per-split file accepted"
fi
grep -q "bad_splits.csv, line 2: 6 fields, but a row has 7" <<<"$out" || fail "malformed per-split message: $out"

# Tamper with one stored metric and one stored prediction (relative changes 1e-9 and 1e-6).
python3 - "$work/r/bnnbench.sqlite" <<'EOF'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE metrics SET value = value * (1 + 1e-9) WHERE method_label = 'pbp' AND split = 1 AND name = 'rmse'")
(blob,) = db.execute("SELECT mean FROM points WHERE method_label = 'linear' AND split = 2").fetchone()
values = list(struct.unpack(f"<{len(blob) // 8}d", blob))
values[4] *= 1 + 1e-6
db.execute("UPDATE points SET mean = ? WHERE method_label = 'linear' AND split = 2",
           (struct.pack(f"<{len(values)}d", *values),))
db.commit()
EOF
if out=$(verify --threads 2); then fail "verify accepted a tampered store: $out"; fi
grep -q '^4 job(s) identical, 2 differ' <<<"$out" || fail "summary after tampering: $out"
grep -q '^- boston/pbp/split 1: 1 of [0-9]* numbers differ; largest relative difference 1.00e-09 at metric rmse' <<<"$out" ||
  fail "tampered metric not reported: $out"
grep -q '^- boston/linear/split 2: 1 of [0-9]* numbers differ; largest relative difference 1.00e-06 at points mean\[4\]' <<<"$out" ||
  fail "tampered prediction not reported: $out"
# ... which the per-split comparison finds too.
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare splits.csv); then fail "tampered metric passed: $out"; fi
grep -q '^6 job(s) compared ([0-9]* values, timings excepted; 0 [^)]*): 5 identical, 1 differ;' <<<"$out" &&
  grep -q '^| boston | pbp | 1 | rmse |' <<<"$out" || fail "tampered metric, per split: $out"
out=$(verify --tolerance 1e-8 2>&1) && fail "tolerance 1e-8 accepted a change of 1e-6: $out"
grep -q '^4 job(s) identical, 1 within the relative tolerance 1e-08, 1 differ' <<<"$out" || fail "tolerance 1e-8: $out"
out=$(verify --tolerance 1e-5) || fail "tolerance 1e-5 rejected changes of 1e-6 and less: $out"

# Nothing to compare, bad options, a missing store: clear errors, non-zero exits.
if out=$(verify --set pbp.epochs=3 --methods pbp 2>&1); then fail "verify with another configuration passed"; fi
grep -q 'nothing to verify: none of the 20 selected job(s) is finished' <<<"$out" || fail "other configuration: $out"
if out=$(verify --tolerance -1 2>&1); then fail "negative tolerance accepted"; fi
grep -q -- '--tolerance is -1' <<<"$out" || fail "negative tolerance message: $out"
if out=$("$BNNBENCH" verify pbp-table1 --results "$work/none" 2>&1); then fail "missing store accepted"; fi
grep -q "no results store at $work/none/bnnbench.sqlite and no committed per-split file $work/none/splits.csv" <<<"$out" ||
  fail "missing store message: $out"
# report --compare: a table against a published one (here: itself, then with one cell changed).
"$BNNBENCH" report pbp-table1 --results "$work/r" --format csv -o published.csv
out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare published.csv) || fail "compare with itself: $out"
grep -q '^4 value(s) compared (timings excepted): 4 identical, 0 differ;' <<<"$out" ||
  fail "compare with itself: $out"
awk -F, 'BEGIN { OFS = "," } $1 == "boston" && $2 == "pbp" && $3 == "rmse" { $4 = $4 * 1.01 } { print }' \
  published.csv > changed.csv
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare changed.csv); then fail "a changed cell passed"; fi
grep -q '^| boston | pbp | rmse |' <<<"$out" || fail "changed cell not listed: $out"
"$BNNBENCH" report pbp-table1 --results "$work/r" --compare changed.csv --tolerance 0.02 >/dev/null ||
  fail "tolerance 0.02 rejected a change of 1%"
printf 'dataset,method,metric,value,se\nboston,pbp,rmse,abc,1\n' > bad.csv
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare bad.csv 2>&1); then fail "malformed table accepted"; fi
grep -q "bad.csv, line 2, column 4: non-numeric value 'abc'" <<<"$out" || fail "malformed table message: $out"
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare published.csv --tolerance -0.5 2>&1); then
  fail "negative tolerance accepted by report"
fi
grep -q -- '--tolerance is -0.5' <<<"$out" || fail "report negative tolerance message: $out"
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --compare "$work/missing.csv" 2>&1); then
  fail "missing comparison table accepted"
fi
grep -q "cannot read $work/missing.csv" <<<"$out" || fail "missing table message: $out"
echo "verify: all checks passed"
