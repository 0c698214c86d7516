#!/usr/bin/env bash
# Wall time of an MPI run (`mpirun -n P --bind-to none bnnbench run ... --threads 1`) against
# one process with P threads (`bnnbench run ... --threads P`) on the same jobs, side by side:
# the two forms alternate, REPEATS times each, into fresh stores (whole commands timed, MPI's
# start and every process's loading of the data included), and their per-split metrics must
# agree bit for bit. Prints the median wall time of each form and their ratio. Selections (those
# of issue 35): pbp = the PBP column of pbp-table1, housing and crime = epnn-table1's rows.
#   bench/mpi-vs-threads.sh [P] [REPEATS] [SELECTION,...]     (defaults: cores, 3, pbp,housing,crime)
# Needs the data sets fetched (bnnbench datasets fetch) and a build with MPI (build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
B="$root/build/experiments/bnnbench"
P="${1:-$(nproc)}"
repeats="${2:-3}"
selections="${3:-pbp,housing,crime}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
splits() { "$B" report "$@" --format splits | grep -v -e ',fit_seconds,' | sort; }
timed() {  # seconds a command takes
  local start
  start=$(date +%s.%N)
  "$@"
  awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '| selection | jobs | run --threads %s | mpirun -n %s --threads 1 | ratio (MPI / threads) |\n' "$P" "$P"
printf '|---|---|---|---|---|\n'
bench() {
  local label=$1 dir threads="" mpi="" t m
  shift
  for r in $(seq 1 "$repeats"); do
    dir="$work/$label-$r"
    t=$(timed "$B" run "$@" --threads "$P" -q --no-report --results "$dir-threads" 2>/dev/null)
    m=$(timed mpirun -n "$P" --bind-to none "$B" run "$@" --threads 1 -q --no-report --results "$dir-mpi" 2>/dev/null)
    cmp -s <(splits "$@" --results "$dir-threads" 2>/dev/null) <(splits "$@" --results "$dir-mpi" 2>/dev/null) ||
      { echo "$label: the two forms differ" >&2; exit 1; }
    threads="$threads $t"
    mpi="$mpi $m"
  done
  t=$(median <<<"${threads# }")
  m=$(median <<<"${mpi# }")
  printf '| %s | %s | %s s (%s) | %s s (%s) | %s |\n' "$label" \
    "$(sqlite3 "$dir-mpi/bnnbench.sqlite" "SELECT count(*) FROM jobs")" "$t" "${threads# }" "$m" "${mpi# }" \
    "$(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.3f", a / b }')"
}
for s in ${selections//,/ }; do
  case "$s" in
    pbp) bench "pbp-table1, PBP column" pbp-table1 --methods pbp ;;
    housing) bench "epnn-table1, housing" epnn-table1 --datasets boston ;;
    crime) bench "epnn-table1, crime" epnn-table1 --datasets crime ;;
    *) echo "unknown selection '$s' (pbp, housing, crime)" >&2; exit 2 ;;
  esac
done
