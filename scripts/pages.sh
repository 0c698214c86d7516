#!/usr/bin/env bash
# The HTML page of every committed experiment, rendered from its committed per-job files
# (splits.csv, jobs.csv) with the figures committed beside them:
#   scripts/pages.sh [BNNBENCH]           writes results/<experiment>/report.html
#   scripts/pages.sh --check [BNNBENCH]   fails, naming the page, where a committed page is not what
#                                         the program renders now
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
check=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
B="${1:-$root/build/experiments/bnnbench}"
cd "$root"
# folder | spec | what of the spec the folder holds
pages=(
  "quickstart|quickstart|"
  "pbp-toy|pbp-toy|"
  "pbp-table1|pbp-table1|--methods vi,bp,pbp,vi-diag,vi-full-10,laplace,linear"
  "pbp-table1-extras|pbp-table1|--methods pbp,vi-diag,vi-full-10,laplace,linear --datasets boston,concrete,energy,yacht"
  "pbp-table1-baselines|pbp-table1|--methods mc-dropout,deep-ensemble"
  "pbp-layers|pbp-layers|"
  "pbp-active|pbp-active|"
  "epnn-table1|epnn-table1|"
  "epnn-case1|epnn-case1|"
  "epnn-case2|epnn-case2|"
  "epnn-case3|epnn-case3|"
  "bb-table1|bb-table1|"
  "bb-figure2|bb-figure2|"
  "external-ensemble-yacht|methods/external/examples/ensemble-yacht.toml|"
)
stale=0
for entry in "${pages[@]}"; do
  IFS='|' read -r folder spec selection <<<"$entry"
  page="results/$folder/report.html"
  # A page shows the committed files: a store of your own in the folder would be read instead.
  for f in results/"$folder"/bnnbench.sqlite*; do
    [ -e "$f" ] && { echo "$f: a store in a committed folder; move it away to render its page" >&2; exit 2; }
  done
  # shellcheck disable=SC2086
  text=$("$B" report "$spec" --results "results/$folder" $selection --format html 2>/dev/null)
  if $check; then
    if ! cmp -s <(printf '%s\n' "$text") "$page"; then
      echo "$page is not what 'bnnbench report $spec --results results/$folder $selection --format html' renders now" >&2
      stale=1
    fi
  else
    printf '%s\n' "$text" >"$page"
    echo "wrote $page"
  fi
done
exit $stale
