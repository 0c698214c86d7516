#!/usr/bin/env bash
# `bnnbench slurm --submit` against a real Slurm: a one-node cluster on this machine
# (local-slurm.sh: munge, slurmctld, slurmd; as root), both forms of the job script: the MPI
# form (srun, 2 processes) and the array form (3 shards, then a merge job after afterok). Each
# run's per-split metrics must equal a run of one process, bit for bit, and the merge job's
# report the report of that run; an external method (a Python program) runs under it too. The daemons started are stopped however the test ends.
source "$(dirname "$0")/../cli/lib.sh"
here="$(cd "$(dirname "$0")" && pwd)"
[ "$(id -u)" -eq 0 ] || fail "the Slurm test starts slurmd, which needs root"
for tool in sbatch slurmctld slurmd munged srun; do
  command -v "$tool" >/dev/null || fail "$tool not found (scripts/install-deps.sh installs Slurm and munge)"
done
cluster="$work/cluster"
trap '"$here/local-slurm.sh" stop "$cluster" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
eval "$("$here/local-slurm.sh" start "$cluster")"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht 2>/dev/null
selection=(pbp-table1 --methods linear,pbp --datasets yacht,boston)

"$BNNBENCH" run "${selection[@]}" --threads 2 -q --no-report --results one
splits_without_time "${selection[@]}" --results one > one.csv
[ "$(wc -l < one.csv)" -eq $((80 * 6)) ] || fail "expected 80 jobs x 6 metrics, got $(wc -l < one.csv) lines"
"$BNNBENCH" report "${selection[@]}" --results one > one-report.md

state() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
wait_for() {  # job id: until it has ended; fails unless COMPLETED
  local s=""
  for _ in $(seq 1 $((3000 * time_scale))); do
    s=$(state "$1")
    case "$s" in COMPLETED | FAILED | CANCELLED | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL) break ;; esac
    sleep 0.1
  done
  [ "$s" = COMPLETED ] || { cat "$2"/slurm/*.out >&2 2>/dev/null; fail "job $1 ended $s"; }
}

# --cores lays the run out in processes of the spec's [cluster] threads, which Slurm places.
printf 'name = "cores"\ndatasets = ["boston"]\nprotocol = { kind = "kfold", folds = 2 }\n[[method]]\nmethod = "linear"\n[cluster]\nthreads = 3\n' > cores.toml
"$BNNBENCH" slurm ./cores.toml --cores 7 --time 00:20:00 --results "$work/cores" >/dev/null 2>cores.err
grep -q '^#SBATCH --ntasks=2$' "$work/cores/slurm/cores.sbatch" || fail "--cores 7 of 3 threads: not 2 processes"
grep -q '^#SBATCH --cpus-per-task=3$' "$work/cores/slurm/cores.sbatch" || fail "the spec's 3 threads were not used"
grep -q '(2 MPI processes x 3, 1 of the cores unused)' cores.err || fail "no note of the unused core: $(cat cores.err)"

# The MPI form: one job, 2 processes of the spec's 1 thread started by srun.
out=$("$BNNBENCH" slurm "${selection[@]}" --cores 2 --time 00:20:00 --results "$work/mpi" --submit)
id=$(sed -n 's/^submitted job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$id" ] || fail "no job id: $out"
wait_for "$id" "$work/mpi"
log="$work/mpi/slurm/bnnbench-pbp-table1-$id.out"
grep -q 'MPI run over 2 processes on 1 host' "$log" || fail "the job did not run over MPI: $(cat "$log")"
grep -q 'ran 80 job(s)' "$log" || fail "the job did not run the 80 jobs: $(cat "$log")"
splits_without_time "${selection[@]}" --results "$work/mpi" | cmp -s - one.csv || fail "the MPI job's results differ"

# The array form: 3 shards, then the merge job, which prints the report.
out=$("$BNNBENCH" slurm "${selection[@]}" --form array --shards 3 --cpus-per-task 1 --time 00:20:00 \
  --results "$work/array" --submit)
id=$(sed -n 's/^submitted job \([0-9]*\) .*/\1/p' <<<"$out")
merge=$(sed -n 's/^submitted merge job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$id" ] && [ -n "$merge" ] || fail "no job ids: $out"
grep -q "Dependency=afterok:${id}_\*" <(scontrol show job -o "$merge") || fail "the merge job does not wait for $id"
wait_for "$merge" "$work/array"
for k in 1 2 3; do
  [ -s "$work/array/shards/$k/bnnbench.sqlite" ] || fail "shard $k left no store"
done
splits_without_time "${selection[@]}" --results "$work/array" | cmp -s - one.csv || fail "the merged results differ"
merge_log="$work/array/slurm/bnnbench-pbp-table1-merge-$merge.out"
grep -q 'ran 0 job(s) .* 80 already done' "$merge_log" || fail "the merge job ran jobs: $(cat "$merge_log")"
# its report is that of the single run, but for the line that names the store and the times
tables() { sed -e '/^## seconds per split/,$d' "$1" | grep -v -e '^- Results:' -e '^merged ' -e '^pbp-table1: '; }
[ "$(grep -c '^| boston ' "$merge_log")" -ge 2 ] || fail "the merge job printed no report: $(cat "$merge_log")"
diff <(tables one-report.md) <(tables "$merge_log") >&2 || fail "the merge job's report differs (above)"

# An external method (the README's Python example) under Slurm's MPI form: the bits of one process.
external=("${BNNBENCH_HOME_DIR:?}/methods/external/examples/readme.toml")
"$BNNBENCH" run "${external[@]}" --threads 2 -q --no-report --results "$work/external-one"
out=$("$BNNBENCH" slurm "${external[@]}" --nodes 1 --ntasks-per-node 2 --cpus-per-task 1 --time 00:20:00 \
  --results "$work/external-mpi" --submit)
id=$(sed -n 's/^submitted job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$id" ] || fail "no job id for the external method: $out"
wait_for "$id" "$work/external-mpi"
splits_without_time "${external[@]}" --results "$work/external-mpi" |
  cmp -s - <(splits_without_time "${external[@]}" --results "$work/external-one") ||
  fail "the external method's Slurm job differs from one process"

# A bad option fails at once, before anything is queued.
if out=$("$BNNBENCH" slurm "${selection[@]}" --time 25:99:00 --results "$work/bad" 2>&1); then
  fail "a bad --time was accepted"
fi
grep -q -- "--time '25:99:00' must look like HH:MM:SS" <<<"$out" || fail "bad --time: $out"
[ -z "$(squeue -h)" ] || fail "jobs left in the queue: $(squeue)"
echo "slurm: all checks passed"
