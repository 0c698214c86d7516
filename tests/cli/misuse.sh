#!/usr/bin/env bash
# The misuse catalogue: commands a user gets wrong, each of which must fail with one line that
# names what is wrong, a given exit status, and leave every file as it was (the results store,
# the inputs, the spec); then the cases where a store could be quietly wrong, each shown to be
# said or refused. A table row is
#   EXIT STATUS | PATTERN of the one stderr line (extended regex) | COMMAND (bnnbench's arguments)
source "$(dirname "$0")/lib.sh"
B="$BNNBENCH"
"$B" datasets fetch --from "$MIRROR" boston yacht >/dev/null 2>&1
"$B" run pbp-table1 --methods linear --datasets boston --splits 0-1 --results store -q --no-report

# Inputs of the cases
printf '1 2 3\n4 5 6\n7 8 9\n10 11 13\n' > a.csv
printf '1 2 3\n4 5 7\n' > b.csv
cp "$BNNBENCH_HOME_DIR/experiments/pbp-table1.toml" e.toml
printf '[[dataset]]\nname = "mine"\navailability = "synthetic"\nsynthetic = { generator = "bb-toy", n = 30, seed = 1 }\n' > my.toml
mkdir -p foreign && sqlite3 foreign/bnnbench.sqlite "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'Ada');"
mkdir -p zero && : > zero/bnnbench.sqlite
cat > huge.toml <<'TOML'
name = "huge"
datasets = ["pbp-cubic"]
protocol = { kind = "random", train_fraction = 0.5, repeats = 1000000000 }
[[method]]
method = "linear"
TOML
cat > grid.toml <<'TOML'
name = "grid"
datasets = ["pbp-cubic"]
protocol = { kind = "all" }
[grid]
axes = [[-1, 1, 1000000], [-1, 1, 1000000]]
[[method]]
method = "linear"
TOML
sed 's/method = "linear"/method = "lineer"/' e.toml > lineer.toml
printf '[[dataset]]\nname = "t"\navailability = "public"\nfolder = "t"\nfiles = [{ path = "t.txt", sha265 = "" }]\ntable = { file = "t.txt", features = [0], target = 1 }\n' > sha265.toml
ln -s e.toml link.toml

CASES=$(cat <<'TABLE'
2|--predictions b.csv is the test table \(--test\) \(b.csv\), which this command reads; refusing to overwrite it|fit linear --header no --train a.csv --test b.csv --predictions b.csv
2|--predictions a.csv is the training table \(--train\)|fit linear --header no --train a.csv --test b.csv --predictions a.csv
2|-o e.toml is the experiment's spec \(\./e.toml\), which this command reads|report ./e.toml --results store -o e.toml
2|-o link.toml is the experiment's spec|report ./e.toml --results store -o link.toml
2|-o my.toml is a data-set registry \(my.toml\), which this command reads|report pbp-table1 --results store --registry my.toml -o my.toml
2|-o store/bnnbench.sqlite is a results store|report pbp-table1 --results store -o store/bnnbench.sqlite
1|foreign/bnnbench.sqlite is not a bnnbench results store \(it holds the table\(s\) customers\): choose another --results directory|run quickstart --results foreign
1|foreign/bnnbench.sqlite is not a bnnbench results store \(it holds the table\(s\) customers\)|merge --results foreign store
1|zero/bnnbench.sqlite is not a complete bnnbench results store|report quickstart --results zero
2|huge.toml, line 3, column 12: protocol: repeats is 1000000000, but must be <= 100000 \(a job of every method per repeat; the splits alone would take 8 bytes per row per repeat, 8000 GB per 1000 rows\)|run ./huge.toml --dry-run --results r
2|grid.toml, line 5, column 8: grid.axes make 1e\+12 points, but must make <= 10000000 \(each job stores 48 bytes a point: 4.8e\+04 GB a job\)|run ./grid.toml --dry-run --results r
2|--set: pbp: hidden_layers has a layer of 100000000 units, but must be <= 100000 \(a layer that wide needs 0.8 GB for each input's weights alone|run pbp-table1 --methods pbp --datasets boston --set pbp.hidden_layers=100000000 --dry-run --results store
2|--set: pbp: option epochs is 'abc', but must be an integer|run pbp-table1 --methods pbp --datasets boston --set pbp.epochs=abc --dry-run --results store
2|mc-dropout: samples is 100000000, but must be <= 1000000 \(each pass is stored, 4 bytes per test point\)|fit mc-dropout --header no --train a.csv --test b.csv --set samples=100000000
2|--cpus-per-task is 0, but must be between 1 and 4096|slurm quickstart --time 01:00:00 --cpus-per-task 0 --results store
2|--shards 3 is for --form array|slurm quickstart --time 01:00:00 --shards 3 --results store
2|--cores lets Slurm place the processes: give it or --nodes/--ntasks-per-node, not both|slurm quickstart --time 01:00:00 --cores 8 --nodes 2 --results store
2|--cores is 0, but must be between 1 and 10000000|slurm quickstart --time 01:00:00 --cores 0 --results store
2|--cpus-per-task 4 is more than --cores 2: not one process would fit|slurm quickstart --time 01:00:00 --cores 2 --cpus-per-task 4 --results store
2|--time '00:00:00' is under a minute: Slurm would end the job before it runs|slurm quickstart --time 00:00:00 --results store
2|lineer.toml, line [0-9]+: \[\[method\]\] linear: unknown method 'lineer'|run ./lineer.toml --results store --datasets boston
2|sha265.toml, line [0-9]+, column [0-9]+: unknown key 'sha265' in an entry of 'files'|datasets list --registry sha265.toml
2|--threads is 0, but must be between 1 and 1024|run pbp-table1 --threads 0 --results store
2|no results store in nowhere|merge --results store nowhere
2|--tolerance is -1, but must be >= 0|verify pbp-table1 --results store --tolerance -1
TABLE
)

# Every file under the work folder with its checksum (the case's own stdout and stderr aside).
snapshot() { find . -path ./out.txt -prune -o -path ./err.txt -prune -o \( -type f -o -type l \) -print0 | sort -z | xargs -0 sha256sum; }
cases=0
while IFS='|' read -r code pattern command; do
  [ -n "$code" ] || continue
  before=$(snapshot)
  set +e
  # shellcheck disable=SC2086  # the command's words as the table writes them
  "$B" $command >out.txt 2>err.txt
  got=$?
  set -e
  [ "$got" -eq "$code" ] || fail "'bnnbench $command' exited $got, expected $code; stderr: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'bnnbench $command' printed more than one line: $(cat err.txt)"
  grep -qE -- "$pattern" err.txt || fail "'bnnbench $command': '$(cat err.txt)' does not match '$pattern'"
  [ "$before" = "$(snapshot)" ] || fail "'bnnbench $command' changed files: $(diff <(echo "$before") <(snapshot) | head -5)"
  cases=$((cases + 1))
done <<<"$CASES"
echo "misuse: $cases refused case(s), one line each, no file changed"

# --- Where a store could be quietly wrong

# A user's data file without a checksum, corrected at its source after its jobs ran: fetch
# replaces the copy (and says so), and the jobs computed from the old data are stale: counted by
# --dry-run, computed again by run, which says so.
mkdir -p mymirror/myboston
cp "$MIRROR"/bostonHousing/{data.txt,index_features.txt,index_target.txt} mymirror/myboston/
cat > myboston.toml <<'TOML'
[[dataset]]
name = "myboston"
availability = "public"
folder = "myboston"
files = [{ path = "data.txt" }, { path = "index_features.txt" }, { path = "index_target.txt" }]
table = { file = "data.txt", delimiter = "whitespace", features = "index_features.txt", target = "index_target.txt" }
TOML
cat > myexp.toml <<'TOML'
name = "myexp"
datasets = ["myboston"]
protocol = { kind = "kfold", folds = 2 }
[[method]]
method = "linear"
TOML
mine() { "$B" "$@" --registry myboston.toml; }
mine datasets fetch --from mymirror myboston 2>/dev/null
mine run ./myexp.toml --results mystore -q --no-report
awk 'NR == 1 { $NF = $NF + 1 } { print }' mymirror/myboston/data.txt > edited && mv edited mymirror/myboston/data.txt
mine datasets fetch --from mymirror myboston 2>fetch.err
grep -q 'myboston: data.txt <- .* (changed there: replaces the copy)' fetch.err || fail "fetch kept the old copy: $(cat fetch.err)"
grep -q '1 replaced (changed at the source), 2 present without a checksum (the same as the source' fetch.err ||
  fail "fetch summary: $(cat fetch.err)"
dry=$(mine run ./myexp.toml --results mystore --dry-run 2>/dev/null)
grep -q "| myboston | linear | 2 | 0 | 0 | 0 | 0 | 0 | 2 | 0 |" <<<"$dry" || fail "dry run does not count the stale jobs: $dry"
mine run ./myexp.toml --results mystore --no-report 2>run.err
grep -q "2 job(s) computed again because their data (a data or split file) changed since they were stored" run.err ||
  fail "run did not say the data changed: $(cat run.err)"
[ -z "$(mine run ./myexp.toml --results mystore --dry-run 2>/dev/null | grep '| myboston | linear | 2 | 2 |')" ] &&
  fail "the recomputed jobs are not finished"

# A row deleted from the store: verify finds it, and the report counts what it averages.
"$B" run pbp-table1 --methods linear --datasets boston --splits 0-2 --results deleted -q --no-report
sqlite3 deleted/bnnbench.sqlite "DELETE FROM metrics WHERE split = 1 AND name = 'rmse'"
set +e
"$B" verify pbp-table1 --methods linear --datasets boston --results deleted -q >verify.out 2>&1
status=$?
set -e
[ "$status" -eq 1 ] || fail "verify passed a store with a deleted row: $(cat verify.out)"
grep -q 'metric rmse missing in the store' verify.out || fail "verify did not name the deleted row: $(cat verify.out)"
csv=$("$B" report pbp-table1 --methods linear --datasets boston --results deleted --format csv 2>/dev/null)
grep -q '^boston,linear,rmse,[^,]*,[^,]*,2,' <<<"$csv" || fail "the report does not count 2 splits for rmse: $csv"
grep -q '^boston,linear,test_ll,[^,]*,[^,]*,3,' <<<"$csv" || fail "the report does not count 3 splits for test_ll: $csv"
# A seed that is not the one the job's key derives
sqlite3 deleted/bnnbench.sqlite "UPDATE jobs SET seed = '7' WHERE split = 0"
set +e
"$B" verify pbp-table1 --methods linear --datasets boston --splits 0 --results deleted -q >seed.out 2>&1
set -e
grep -q "stored seed 7, but the job's key derives" seed.out || fail "verify did not check the seed: $(cat seed.out)"

# A selection of splits is not marked against the paper's mean of all of them.
md=$("$B" report pbp-table1 --methods linear --datasets boston --results deleted 2>/dev/null)
grep -q '(3/20)' <<<"$md" || fail "a 3-split cell does not say 3/20: $md"
grep -q '`(k/N)`: our value is the mean of k of the protocol' <<<"$md" || fail "the header does not explain k/N"

# A target constant but for one row is warned about.
awk 'BEGIN { for (i = 0; i < 250; ++i) print i, (i == 17 ? 5.1 : 5.0) }' > flat.txt
"$B" fit linear --header no --train flat.txt --test flat.txt >/dev/null 2>flat.err || true
grep -q 'warning: flat.txt: the target is 5 on 249 of its 250 rows (1 row(s) differ)' flat.err ||
  fail "no warning of a target constant but for one row: $(cat flat.err)"

# The README's `datasets fetch --from MIRROR` with no names: what the mirror lacks is listed, exit 0.
"$B" datasets fetch --from "$MIRROR" --data-dir all-data 2>all.err || fail "fetching everything failed: $(tail -3 all.err)"
grep -q 'data set(s) not at the source' all.err || fail "the sets missing from the mirror were not listed: $(tail -3 all.err)"
# ... but a named one that is missing fails.
if "$B" datasets fetch --from "$MIRROR" --data-dir all-data year 2>year.err; then fail "a named missing set passed"; fi

# A report of a committed experiment without a store renders from its splits.csv.
mkdir -p committed && cp "$BNNBENCH_HOME_DIR/results/epnn-table1/splits.csv" "$BNNBENCH_HOME_DIR/results/epnn-table1/jobs.csv" committed/
"$B" report epnn-table1 --results committed >committed.md 2>committed.err || fail "report from splits.csv failed: $(cat committed.err)"
grep -q 'rendering from the committed committed/splits.csv' committed.err || fail "no note: $(cat committed.err)"
grep -q '^## boston (n train/test 455/51, d 13)' committed.md || fail "no boston table: $(head -30 committed.md)"

# A relative [reference] path in a user's spec is the file beside it.
mkdir -p mine
printf 'dataset,rmse_linear\nboston,4.5\n' > mine/paper.csv
cat > mine/mine.toml <<'TOML'
name = "mine"
datasets = ["boston"]
protocol = { kind = "published" }
[[method]]
method = "linear"
paper_name = "linear"
[[reference]]
file = "paper.csv"
values = { rmse = "rmse_{paper}" }
TOML
"$B" run ./mine/mine.toml --splits 0 --results mine/r -q 2>/dev/null >mine.md || fail "a spec with its own reference file failed"
grep -q '| 4.5' mine.md || fail "the reference beside the spec was not read: $(cat mine.md)"

# The store's run that was killed: its jobs count in the header.
sqlite3 deleted/bnnbench.sqlite "UPDATE runs SET finished_at = NULL, jobs_run = 0, wall_seconds = 0"
header=$("$B" report pbp-table1 --methods linear --datasets boston --results deleted 2>/dev/null | grep '^- Results:')
grep -q '1 run(s) (1 stopped before its end: its stored jobs counted), 3 job(s) run' <<<"$header" ||
  fail "a killed run's jobs are not counted: $header"
echo "misuse: every quiet-wrong case is said or refused"
