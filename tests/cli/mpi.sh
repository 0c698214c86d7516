#!/usr/bin/env bash
# MPI runs (`mpirun -n 3 bnnbench run`, oversubscribing 2 cores): the per-split metrics of a
# mixed experiment (PBP, BP, GP-ARD, NN-MC) are those of a run of one process, bit for bit; a
# worker, then rank 0, killed mid-run ends the run with the finished jobs kept, and a new MPI
# run does only what is missing, with the same bits; an active-learning job stopped part way resumes from its
# stored steps on whichever rank gets it; one rank that cannot plan stops the run at once.
source "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || fail "mpirun not found (scripts/install-deps.sh installs openmpi-bin)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# In a container without a network interface OpenMPI needs only shared memory on one host.
export OMPI_MCA_btl=self,vader
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht 2>/dev/null
cat > mixed.toml <<'TOML'
name = "mpi-mixed"
seed = 3
scale = "original"
datasets = ["boston", "yacht"]
protocol = { kind = "published" }
[[method]]
label = "pbp"
method = "pbp"
options = { hidden_layers = [50], epochs = 10 }
[[method]]
label = "bp"
method = "bp"
options = { hidden_layers = [50], epochs = 10, tune = false }
[[method]]
label = "gp-ard"
method = "gp-ard"
options = { max_iterations = 30, restarts = 0 }
[[method]]
label = "nn-mc"
method = "nn-mc"
options = { hidden_layers = [5], warmup = 300, samples = 600, thin = 2, leapfrog_steps = 10 }
TOML
mpi() { mpirun -n "$1" "$BNNBENCH" run mixed.toml --splits 0-5 --threads 1 --no-report "${@:2}"; }
"$BNNBENCH" run mixed.toml --splits 0-5 --threads 2 -q --no-report --results one
splits_without_time mixed.toml --results one > one.csv
[ "$(wc -l < one.csv)" -eq $((48 * 6)) ] || fail "expected 48 jobs x 6 metrics, got $(wc -l < one.csv) lines"

out=$(mpi 3 --results three 2>&1) || fail "mpirun -n 3: $out"
grep -q 'MPI run over 3 processes on 1 host' <<<"$out" || fail "no MPI banner: $out"
[ "$(grep -c 'ran 48 job(s)' <<<"$out")" -eq 1 ] || fail "the summary must come from rank 0 alone: $out"
splits_without_time mixed.toml --results three | cmp -s - one.csv || fail "3 MPI ranks differ from one process"
ranks=$(sqlite3 three/bnnbench.sqlite "SELECT machine FROM runs")
grep -q 'MPI: 3 processes on 1 host, 1 thread(s) each' <<<"$ranks" || fail "run record: $ranks"

# Kill a worker (rank 1) once some jobs are stored: mpirun ends the run, the stored jobs stay.
# Then kill rank 0, the store's owner, in a second run; a third run does only what is missing.
jobs() { sqlite3 "$1/bnnbench.sqlite" "SELECT count(*) FROM jobs WHERE status = 'ok'" 2>/dev/null || echo 0; }
here=$(pwd -P)
own_pids() {  # processes whose command line matches $1 and that run in this test's folder
  for p in $(pgrep -f "$1"); do
    [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$here" ] && echo "$p"
  done
  return 0
}
rank_pid() {  # the process of MPI rank $1 (mpirun starts the local ranks itself)
  for p in $(own_pids "bnnbench run mixed.toml"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
  done
}
kill_rank_after() {  # rank, jobs stored before the kill
  mpi 3 --results killed -q > killed.log 2>&1 &
  local launcher=$! victim
  for _ in $(seq 1 $((1500 * time_scale))); do
    [ "$(jobs killed)" -ge "$2" ] && break
    sleep 0.02
  done
  victim=$(rank_pid "$1")
  [ -n "$victim" ] || fail "rank $1 not found (the run finished too early?): $(cat killed.log)"
  kill -9 "$victim"
  if wait "$launcher"; then fail "mpirun succeeded although rank $1 was killed"; fi
}
kill_rank_after 1 6
stored=$(jobs killed)
[ "$stored" -ge 6 ] && [ "$stored" -lt 48 ] || fail "expected part of the jobs stored, found $stored"
kill_rank_after 0 $((stored + 6))
stored=$(jobs killed)
[ "$stored" -lt 48 ] || fail "the run whose rank 0 was killed finished all jobs"
out=$(mpi 2 --results killed 2>&1) || fail "rerun after the kills: $out"
grep -q "ran $((48 - stored)) job(s) in .* $stored already done" <<<"$out" || fail "the rerun did not run only what was missing: $out"
splits_without_time mixed.toml --results killed | cmp -s - one.csv || fail "killed + rerun differs from one process"

# Active learning over MPI: two repeats killed part way (SIGKILL to both ranks: the run takes
# about a second, less than mpirun needs to pass a SIGTERM on), then resumed by two ranks, one
# of which gets its job's stored steps from rank 0; the same bits as one process.
active_learning_spec al-mpi 2 120 > al.toml
steps() { sqlite3 "$1/bnnbench.sqlite" "SELECT count(*) FROM (SELECT DISTINCT split, step FROM metrics)" 2>/dev/null || echo 0; }
"$BNNBENCH" run al.toml --threads 2 -q --no-report --results al-one
mpirun -n 2 "$BNNBENCH" run al.toml --threads 1 -q --no-report --results al-mpi > al.log 2>&1 &
launcher=$!
for _ in $(seq 1 $((1500 * time_scale))); do
  [ "$(steps al-mpi)" -ge 12 ] && break
  sleep 0.02
done
victims=$(own_pids "bnnbench run al.toml")
[ -n "$victims" ] || fail "the active-learning run finished before it could be killed"
kill -9 $victims 2>/dev/null || true
wait "$launcher" 2>/dev/null || true
partial=$(sqlite3 al-mpi/bnnbench.sqlite "SELECT count(*) FROM jobs WHERE status = 'partial'")
[ "$partial" -ge 1 ] || fail "no active-learning job stopped part way (steps stored: $(steps al-mpi))"
mpirun -n 2 "$BNNBENCH" run al.toml --threads 1 -q --no-report --results al-mpi || fail "resumed MPI run"
"$BNNBENCH" report al.toml --results al-one --format splits > al-one.csv
out=$("$BNNBENCH" report al.toml --results al-mpi --compare al-one.csv) || fail "resumed MPI != one process: $out"
grep -q '2 identical' <<<"$out" || fail "compare: $out"
out=$("$BNNBENCH" verify al.toml --results al-mpi -q) || fail "verify of the resumed MPI jobs: $out"

# One rank that cannot plan (its data directory lacks boston) stops every rank at once, with
# its message.
mkdir -p partial-data && cp -r "$BNNBENCH_DATA/yacht" partial-data/
set +e
out=$(mpirun -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export BNNBENCH_DATA=$PWD/partial-data; fi;
  exec "$0" run mixed.toml --splits 0 --threads 1 --no-report --results bad' "$BNNBENCH" 2>&1)
status=$?
set -e
[ "$status" -ne 0 ] || fail "a run whose rank 1 lacks a data set succeeded"
grep -q 'rank 1 on .*: error: this process plans 4 job(s), rank 0 8 .*boston' <<<"$out" || fail "rank 1's error is not shown: $out"
[ ! -e bad/bnnbench.sqlite ] || [ "$(jobs bad)" -eq 0 ] || fail "jobs ran although rank 1 could not plan"
echo "mpi: all checks passed"
