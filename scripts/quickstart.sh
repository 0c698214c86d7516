#!/usr/bin/env bash
# The main job on built-in data, no download: installs dependencies, builds, and reruns two
# figures that show what the harness is for, each in seconds:
#   pbp-toy     the PBP paper's Figure 1: PBP, BP and VI against HMC on the cubic toy problem
#   bb-figure2  Barber & Bishop's Figure 2: Laplace and ensemble-learning Gaussians against
#               the exact two-weight posterior, KL(Q||P) beside the paper's
# then prints the bb-figure2 table and where the figures are. Idempotent (finished jobs are kept).
#   scripts/quickstart.sh [OUT_DIR]     (default: build/quickstart)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" bnnbench
cd "$root"
out="${1:-$root/build/quickstart}"
B="$root/build/experiments/bnnbench"
for experiment in pbp-toy bb-figure2; do
  "$B" run "$experiment" --results "$out/$experiment" --no-report
  "$B" report "$experiment" --results "$out/$experiment" --publish "$out/$experiment" 2>/dev/null
done
cat "$out/bb-figure2/report.md"
echo
echo "Figures (SVG, open in a browser):"
echo "  $out/pbp-toy/figure.svg                 predictive mean and 95% band of PBP, BP, VI and HMC"
echo "  $out/bb-figure2/gaussian_posterior.svg  the posterior's contours and each Gaussian fit"
echo "Their data: $out/pbp-toy/grid.csv, $out/bb-figure2/{gaussian_posterior,posterior_density}.csv"
echo "Next: bnnbench datasets fetch; bnnbench run pbp-table1 --methods pbp (see README.md)"
