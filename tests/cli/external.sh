#!/usr/bin/env bash
# External methods (methods/external/PROTOCOL.md) through the whole harness:
# - the numpy Bayesian linear regression (methods/external/examples/linear.py) equals the
#   built-in `linear` on every published split of the 9 mirrored pbp-table1 sets, RMSE and test
#   log-likelihood within 1e-9 relative: transport, normalization and scoring are exact;
# - a program that cannot be found stops the run before any job, with one line;
# - a run killed with SIGKILL leaves no method process behind, its scratch folders are swept by
#   the next run, and the resumed store has the bits of an uninterrupted run;
# - two MPI ranks give what one process gives;
# - a figure's grid predicted by the external linear equals the built-in's;
# - an active-learning sequence with an external method, killed mid-sequence, resumes to the
#   bits of an uninterrupted one;
# - verify of a method that ignores its seed lists what differs.
source "$(dirname "$0")/lib.sh"
examples="${BNNBENCH_HOME_DIR:?}/methods/external/examples"
export TMPDIR="$work/tmp"  # the scratch folders, where the test can look at them
mkdir -p "$TMPDIR"
sets=(boston concrete energy kin8nm naval power protein wine yacht)
"$BNNBENCH" datasets fetch --from "$MIRROR" "${sets[@]}" 2>/dev/null

# 1. The linear equivalence, on every split.
cp "$examples/linear-pbp-table1.toml" "$examples/linear.py" "$work/"
"$BNNBENCH" run "$work/linear-pbp-table1.toml" -q --no-report --results "$work/linear"
"$BNNBENCH" report "$work/linear-pbp-table1.toml" --results "$work/linear" --format splits > linear.csv
python3 - linear.csv <<'PY' || fail "the external linear differs from the built-in"
import csv, sys
values = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["metric"] in ("rmse", "test_ll"):
        assert r["status"] == "ok", r
        values.setdefault((r["dataset"], r["split"], r["metric"]), {})[r["method"]] = float(r["value"])
pairs = [v for v in values.values() if len(v) == 2]
assert len(pairs) == len(values), "a split without both methods"
splits = {(d, s) for d, s, _ in values}
assert len(splits) == 8 * 20 + 5, f"{len(splits)} splits, not 165"  # protein has 5
worst = max(abs(v["linear-py"] - v["linear"]) / abs(v["linear"]) for v in pairs)
print(f"external linear: {len(splits)} splits, largest relative difference {worst:.2e}")
assert worst <= 1e-9, worst
PY
[ -z "$(ls -A "$TMPDIR")" ] || fail "scratch folders left behind: $(ls "$TMPDIR")"

# 2. A command that cannot be found: one line, before any job, nothing written.
sed 's/command = \["python3", "linear.py"\]/command = ["no-such-program-bnnbench"]/' linear-pbp-table1.toml > missing.toml
if out=$("$BNNBENCH" run missing.toml --results "$work/missing" 2>&1); then fail "a missing command ran: $out"; fi
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "more than one line for a missing command: $out"
grep -q "external: command 'no-such-program-bnnbench' is not found" <<<"$out" || fail "missing command: $out"
[ ! -e "$work/missing" ] || fail "a run with a missing command created its results folder"

# 3. SIGKILL mid-run: no orphan, no stale folder after the next run, the same bits.
cat > slow.py <<PY
import runpy, time
time.sleep(0.4)
runpy.run_path("$work/linear.py", run_name="__main__")
PY
cat > kill.toml <<'TOML'
name = "external-kill"
seed = 2
datasets = ["yacht"]
protocol = { kind = "random", n_train = 200, n_test = 100, repeats = 12 }
[[method]]
label = "slow"
method = "external"
options = { command = ["python3", "slow.py"] }
TOML
ok_jobs() { sqlite3 "$1/bnnbench.sqlite" "SELECT count(*) FROM jobs WHERE status = 'ok'" 2>/dev/null || echo 0; }
"$BNNBENCH" run kill.toml --threads 2 -q --no-report --results "$work/killed" &
pid=$!
for _ in $(seq 1 $((600 * time_scale))); do
  [ "$(ok_jobs "$work/killed")" -ge 2 ] && break
  sleep 0.02
done
# the next programs are running (or about to): kill while one sleeps
sleep 0.1
kill -9 "$pid" 2>/dev/null || fail "the run finished before it could be killed"
wait "$pid" 2>/dev/null || true
stopped=$(ok_jobs "$work/killed")
[ "$stopped" -lt 12 ] || fail "the run finished before it was killed"
for _ in $(seq 1 100); do
  pgrep -f "$TMPDIR/bnnbench-external-" >/dev/null || break
  sleep 0.02
done
if pgrep -f "$TMPDIR/bnnbench-external-" >/dev/null; then fail "method processes outlived the killed run: $(pgrep -af "$TMPDIR/bnnbench-external-")"; fi
ls -d "$TMPDIR"/bnnbench-external-* >/dev/null 2>&1 || fail "the killed run left no scratch folder: the sweep is not tested"
"$BNNBENCH" run kill.toml --threads 2 -q --no-report --results "$work/killed"
[ "$(ok_jobs "$work/killed")" -eq 12 ] || fail "the resumed run did not finish every job"
[ -z "$(ls -A "$TMPDIR")" ] || fail "the killed run's scratch folders were not swept: $(ls "$TMPDIR")"
"$BNNBENCH" run kill.toml --threads 1 -q --no-report --results "$work/whole"
splits_without_time kill.toml --results "$work/whole" > whole.csv
splits_without_time kill.toml --results "$work/killed" | cmp -s - whole.csv || fail "killed and resumed != uninterrupted"
out=$("$BNNBENCH" verify kill.toml --results "$work/killed" --splits 0-2 -q) || fail "verify of the resumed store: $out"
grep -q '^3 job(s) identical' <<<"$out" || fail "verify: $out"

# 4. Two MPI ranks give the bits of one process (a build with MPI: not the sanitized one).
if [ "${BNNBENCH_WITH_MPI:-OFF}" = ON ]; then
  command -v mpirun >/dev/null || fail "mpirun not found (scripts/install-deps.sh installs openmpi-bin)"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
  out=$(mpirun -n 2 "$BNNBENCH" run kill.toml --threads 1 --no-report --results "$work/mpi" 2>&1) || fail "mpirun -n 2: $out"
  grep -q 'MPI run over 2 processes' <<<"$out" || fail "no MPI banner: $out"
  splits_without_time kill.toml --results "$work/mpi" | cmp -s - whole.csv || fail "2 MPI ranks differ from one process"
fi

# 5. Active learning with an external method, killed mid-sequence and resumed.
cat > al.toml <<'TOML'
name = "external-active"
seed = 5
datasets = ["yacht"]
protocol = { kind = "random", n_train = 20, n_test = 100, repeats = 1 }
[active_learning]
additions = 15
[[method]]
label = "linear-a"
method = "external"
selection = "variance"
options = { command = ["python3", "linear.py"] }
TOML
steps() { sqlite3 "$1/bnnbench.sqlite" "SELECT count(DISTINCT step) FROM metrics" 2>/dev/null || echo 0; }
"$BNNBENCH" run al.toml --threads 1 -q --no-report --results "$work/al-killed" &
pid=$!
for _ in $(seq 1 $((1500 * time_scale))); do
  [ "$(steps "$work/al-killed")" -ge 4 ] && break
  sleep 0.02
done
kill -9 "$pid" 2>/dev/null || fail "the active-learning run finished before it could be killed"
wait "$pid" 2>/dev/null || true
[ "$(sqlite3 "$work/al-killed/bnnbench.sqlite" "SELECT status FROM jobs")" = partial ] || fail "the killed job is not partial"
"$BNNBENCH" run al.toml --threads 1 -q --no-report --results "$work/al-killed"
"$BNNBENCH" run al.toml --threads 1 -q --no-report --results "$work/al-whole"
"$BNNBENCH" report al.toml --results "$work/al-killed" --format splits > al-killed.csv
out=$("$BNNBENCH" report al.toml --results "$work/al-whole" --compare al-killed.csv) || fail "resumed != whole: $out"
grep -q '1 identical' <<<"$out" || fail "compare: $out"
# the pool was ranked by the program's predictive variance: the first point added is the
# pool's largest variance under the built-in linear fit of the same 20 points
sed -e 's/method = "external"/method = "linear"/' -e '/^options = /d' al.toml > al-builtin.toml
"$BNNBENCH" run al-builtin.toml --threads 1 -q --no-report --results "$work/al-builtin"
added() { sqlite3 "$1/bnnbench.sqlite" "SELECT value FROM metrics WHERE name = 'added_row' ORDER BY step"; }
[ "$(added "$work/al-builtin")" = "$(added "$work/al-whole")" ] || fail "the external method chose other points than the built-in linear"

# 6. A figure: predictions on a grid, equal to the built-in's.
cat > grid.toml <<'TOML'
name = "external-grid"
seed = 1
scale = "original"
datasets = ["pbp-cubic"]
protocol = { kind = "all" }
[grid]
axes = [[-6.0, 6.0, 241]]
[[method]]
label = "linear"
method = "linear"
[[method]]
label = "linear-py"
method = "external"
options = { command = ["python3", "linear.py"] }
TOML
"$BNNBENCH" run grid.toml -q --no-report --results "$work/grid"
"$BNNBENCH" report grid.toml --results "$work/grid" --format grid > grid.csv
python3 - grid.csv <<'PY' || fail "the external method's grid differs from the built-in's"
import csv, sys
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rows.setdefault(r["x1"], {})[r["method"]] = [float(r[k]) for k in ("mean", "sd", "lower95", "upper95")]
assert len(rows) == 241 and all(len(v) == 2 for v in rows.values()), "not 241 points of both methods"
worst = max(abs(a - b) / max(abs(a), 1.0) for v in rows.values() for a, b in zip(v["linear"], v["linear-py"]))
assert worst <= 1e-8, worst  # the CSV has 10 significant digits
PY

# 7. verify of a method that ignores its seed: a clear list of what differs, not a crash.
cat > noisy.py <<'PY'
import os
import numpy as np
import bnnbench_method as bm
def fit(X, y, seed, settings):
    jitter = int.from_bytes(os.urandom(4), "little") / 2**32
    return lambda Xs: bm.Gaussian(np.full(len(Xs), jitter), np.ones(len(Xs)))
bm.serve(fit)
PY
sed -e 's/slow.py/noisy.py/' -e 's/repeats = 12/repeats = 2/' kill.toml > noisy.toml
"$BNNBENCH" run noisy.toml -q --no-report --results "$work/noisy"
if out=$("$BNNBENCH" verify noisy.toml --results "$work/noisy" 2>&1); then fail "verify passed a method that ignores its seed: $out"; fi
grep -q '^0 job(s) identical, 2 differ' <<<"$out" || fail "verify of a nondeterministic method: $out"
grep -q '^- yacht/slow/split 0: [0-9]* of [0-9]* numbers differ; largest relative difference' <<<"$out" ||
  fail "verify does not list what differs: $out"
echo "external: all checks passed"
