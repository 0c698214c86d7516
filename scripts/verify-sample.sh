#!/usr/bin/env bash
# Reruns one job of every method of every committed table and checks that each comes out bit
# for bit as committed (`bnnbench verify` against the committed splits.csv; no store needed),
# then the committed figures. A check before and after a change to a method's numerics:
# about 15 minutes on 2 cores.
#   scripts/verify-sample.sh [MIRROR]     (default: ../shared/datasets)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mirror="${1:-${BNNBENCH_MIRROR:-$root/../shared/datasets}}"
B="$root/build/experiments/bnnbench"
[ -x "$B" ] || { echo "build bnnbench first (scripts/build.sh bnnbench)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BNNBENCH_DATA="${BNNBENCH_DATA:-$HOME/.cache/bnnbench}"
"$B" datasets fetch --from "$mirror" yacht boston > /dev/null

failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  local start=$SECONDS
  if out=$("$@" 2>&1); then
    printf '%-58s ok   %4d s\n' "$what" $((SECONDS - start))
  else
    printf '%-58s FAIL %4d s\n%s\n' "$what" $((SECONDS - start)) "$out"
    failed=1
  fi
}
check "pbp-table1 yacht split 0: linear, pbp, bp, vi" \
  "$B" verify pbp-table1 --methods linear,pbp,bp,vi --datasets yacht --splits 0 --threads 2 -q
check "pbp-table1-extras yacht split 0: laplace, vi-diag, vi-full-10" \
  "$B" verify pbp-table1 --results results/pbp-table1-extras --methods laplace,vi-diag,vi-full-10 \
  --datasets yacht --splits 0 --threads 2 -q
check "pbp-table1-baselines yacht split 0: mc-dropout, deep-ensemble" \
  "$B" verify pbp-table1 --results results/pbp-table1-baselines --methods mc-dropout,deep-ensemble \
  --datasets yacht --splits 0 --threads 2 -q
check "pbp-layers yacht split 0: pbp-1..4, bp-1..4" \
  "$B" verify pbp-layers --datasets yacht --splits 0 --threads 2 -q
check "epnn-table1 boston fold 0: linear, gp, gp-ard, nn-ep-la, nn-ep-ard" \
  "$B" verify epnn-table1 --methods linear,gp,gp-ard,nn-ep-la,nn-ep-ard --datasets boston --splits 0 --threads 2 -q
check "epnn-table1 boston fold 0: nn-mc, with its chain traces" \
  "$B" verify epnn-table1 --methods nn-mc --datasets boston --splits 0 --threads 2 -q
check "bb-table1 draw 0: every method" "$B" verify bb-table1 --splits 0 --threads 2 -q
check "pbp-active yacht repeat 0: every method, all 10 steps" \
  "$B" verify pbp-active --datasets yacht --splits 0 --threads 2 -q

same_as_committed() {  # same_as_committed OUT_DIR COMMITTED_DIR FILE...
  local out=$1 committed=$2; shift 2
  for file in "$@"; do
    if cmp -s "$out/$file" "$committed/$file"; then
      printf '%-58s ok\n' "$committed/$file"
    else
      printf '%-58s FAIL (differs)\n' "$committed/$file"
      failed=1
    fi
  done
}
for figure in bb-figure2 pbp-toy epnn-case1 epnn-case2 epnn-case3; do
  "$B" run "$figure" --threads 2 --results "$work/$figure" -q --no-report
  "$B" report "$figure" --results "$work/$figure" --publish "$work/$figure" > /dev/null 2>&1
done
check "bb-figure2: KL(Q||P) of every fit" "$B" report bb-figure2 --results "$work/bb-figure2" \
  --compare results/bb-figure2/splits.csv
same_as_committed "$work/bb-figure2" results/bb-figure2 gaussian_posterior.csv posterior_density.csv gaussian_posterior.svg
for figure in pbp-toy epnn-case1 epnn-case2 epnn-case3; do
  same_as_committed "$work/$figure" "results/$figure" grid.csv observations.csv figure.svg
done
same_as_committed "$work/epnn-case1" results/epnn-case1 parameter_marginals.csv parameter_marginals.svg
same_as_committed "$work/epnn-case2" results/epnn-case2 parameter_marginals.csv parameter_marginals.svg
[ "$failed" -eq 0 ] && echo "every sampled job and figure is bit for bit the committed one" || exit 1
