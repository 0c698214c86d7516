#!/usr/bin/env bash
# Wall time of an MPI run (`mpirun -n P --bind-to none bnnbench run ... --threads 1`) against
# one process with P threads (`bnnbench run ... --threads P`) on the same jobs, side by side:
# the two forms alternate, REPEATS times each, into fresh stores (whole commands timed, MPI's
# start and every process's loading of the data included), and their per-split metrics must
# agree bit for bit. Prints the median wall time of each form and their ratio, and, to tell a
# slower fit from idle processes, the CPU seconds of each form (user + system, all processes)
# and the sum of its jobs' fit CPU seconds. Selections (those of issue 35): pbp = the PBP column
# of pbp-table1, housing and crime = epnn-table1's rows.
#   bench/mpi-vs-threads.sh [P] [REPEATS] [SELECTION,...]     (defaults: cores, 3, pbp,housing,crime)
# KEEP=DIR keeps the stores of every run there. Needs the data sets fetched (bnnbench datasets
# fetch) and a build with MPI (build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
B="$root/build/experiments/bnnbench"
P="${1:-$(nproc)}"
repeats="${2:-3}"
selections="${3:-pbp,housing,crime}"
if [ -n "${KEEP:-}" ]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
splits() { "$B" report "$@" --format splits | grep -v -e ',fit_seconds,' | sort; }
timed() {  # "wall user+system" seconds of a command and its children
  local TIMEFORMAT='%R %U %S' t
  t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{ printf "%.1f %.0f\n", $1, $2 + $3 }' <<<"$t"
}
job_cpu() { sqlite3 "$1/bnnbench.sqlite" "SELECT printf('%.0f', sum(fit_cpu_seconds)) FROM jobs"; }
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '| selection | jobs | run --threads %s | mpirun -n %s --threads 1 | ratio (MPI / threads) | CPU s, threads / MPI | job fit CPU s, threads / MPI |\n' "$P" "$P"
printf '|---|---|---|---|---|---|---|\n'
bench() {
  local label=$1 dir threads="" mpi="" t m tc mc
  shift
  for r in $(seq 1 "$repeats"); do
    dir="$work/$label-$r"
    read -r t tc < <(timed "$B" run "$@" --threads "$P" -q --no-report --results "$dir-threads")
    read -r m mc < <(timed mpirun -n "$P" --bind-to none "$B" run "$@" --threads 1 -q --no-report --results "$dir-mpi")
    cmp -s <(splits "$@" --results "$dir-threads" 2>/dev/null) <(splits "$@" --results "$dir-mpi" 2>/dev/null) ||
      { echo "$label: the two forms differ" >&2; exit 1; }
    threads="$threads $t"
    mpi="$mpi $m"
  done
  t=$(median <<<"${threads# }")
  m=$(median <<<"${mpi# }")
  printf '| %s | %s | %s s (%s) | %s s (%s) | %s | %s / %s | %s / %s |\n' "$label" \
    "$(sqlite3 "$dir-mpi/bnnbench.sqlite" "SELECT count(*) FROM jobs")" "$t" "${threads# }" "$m" "${mpi# }" \
    "$(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.3f", a / b }')" "$tc" "$mc" "$(job_cpu "$dir-threads")" \
    "$(job_cpu "$dir-mpi")"
}
for s in ${selections//,/ }; do
  case "$s" in
    pbp) bench "pbp-table1, PBP column" pbp-table1 --methods pbp ;;
    housing) bench "epnn-table1, housing" epnn-table1 --datasets boston ;;
    crime) bench "epnn-table1, crime" epnn-table1 --datasets crime ;;
    *) echo "unknown selection '$s' (pbp, housing, crime)" >&2; exit 2 ;;
  esac
done
