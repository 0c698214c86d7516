#!/usr/bin/env bash
# The linear baseline on the PBP Table 1 protocol: the report prints the paper's columns
# beside ours in Markdown, tidy CSV and LaTeX.
source "$(dirname "$0")/lib.sh"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht 2>/dev/null
"$BNNBENCH" run pbp-table1 --methods linear --datasets boston,yacht -q --no-report --results "$work/r"
md=$("$BNNBENCH" report pbp-table1 --results "$work/r")
grep -q '| data set | n train/test | d | vi | vi (paper) | bp | bp (paper) | pbp | pbp (paper) | vi-diag | vi-full-10 | laplace | linear |' <<<"$md" || fail "markdown header"
grep -qE '^\| boston \| 455/51 \| 13 \| — \| 4.32 ± 0.29 \| — \| 3.23 ± 0.20 \| — \| 3.01 ± 0.18 \| — \| — \| — \| [0-9.]+ ± [0-9.]+ \|' <<<"$md" || fail "boston RMSE row: $(grep '^| boston' <<<"$md" | head -1)"
csv=$("$BNNBENCH" report pbp-table1 --results "$work/r" --format csv)
head -1 <<<"$csv" | grep -qx 'dataset,method,metric,value,se,n_splits,paper_value,paper_se' || fail "csv header"
grep -qE '^boston,pbp,rmse,,,0,3.014,0.18$' <<<"$csv" || fail "csv paper value for pbp"
grep -qE '^boston,linear,rmse,[0-9.]+,[0-9.]+,20,,$' <<<"$csv" || fail "csv linear rmse"
tex=$("$BNNBENCH" report pbp-table1 --results "$work/r" --format latex)
grep -q '\\toprule' <<<"$tex" || fail "latex has no booktabs rules"
"$BNNBENCH" report pbp-table1 --results "$work/r" -o "$work/out.md" && grep -q 'pbp (paper)' "$work/out.md" || fail "report -o"
# A table experiment as a figure: per data set and compared metric (not the timings) a panel
# with ours beside the paper's; here boston and yacht x RMSE and log-likelihood.
"$BNNBENCH" report pbp-table1 --results "$work/r" --format svg -o "$work/table.svg" || fail "report --format svg (table)"
for title in 'boston: test RMSE' 'yacht: test RMSE' 'boston: test log-likelihood' 'yacht: test log-likelihood'; do
  grep -q ">$title</text>" "$work/table.svg" || fail "table svg has no panel '$title'"
done
[ "$(grep -c 'font-weight="bold">[a-z]*: ' "$work/table.svg")" -eq 4 ] || fail "table svg: not 4 panels"
grep -q '>boston: seconds per split' "$work/table.svg" && fail "table svg draws timings"
# A figure experiment: predictions on its grid and the training points, as CSV.
"$BNNBENCH" run epnn-case3 --methods gp,linear -q --no-report --results "$work/fig"
grid=$("$BNNBENCH" report epnn-case3 --results "$work/fig" --format grid)
head -1 <<<"$grid" | grep -qx 'dataset,method,split,input,x1,mean,sd,lower95,upper95' || fail "grid header"
[ "$(grep -c '^epnn-case3,gp,0,,' <<<"$grid")" -eq 281 ] || fail "gp grid rows"
[ "$(grep -c '^epnn-case3,linear,0,,' <<<"$grid")" -eq 281 ] || fail "linear grid rows"
[ "$("$BNNBENCH" report epnn-case3 --format observations | wc -l)" -eq 101 ] || fail "observations"
# ... and its figure as SVG: one panel per method, each with the 95% band, the mean, the
# synthetic data's true function and the data.
"$BNNBENCH" report epnn-case3 --results "$work/fig" --format svg -o "$work/fig.svg" || fail "report --format svg"
head -2 "$work/fig.svg" | grep -q '<svg xmlns="http://www.w3.org/2000/svg"' || fail "svg header"
tail -1 "$work/fig.svg" | grep -qx '</svg>' || fail "svg not closed"
[ "$(grep -c '<polygon ' "$work/fig.svg")" -eq 2 ] || fail "svg bands: $(grep -c '<polygon ' "$work/fig.svg")"
[ "$(grep -c '<polyline ' "$work/fig.svg")" -eq 4 ] || fail "svg lines: a mean and the true function per panel"
[ "$(grep -c '<polyline [^>]*stroke-dasharray' "$work/fig.svg")" -eq 2 ] || fail "svg true function (dashed)"
[ "$(grep -c '<circle ' "$work/fig.svg")" -eq 201 ] || fail "svg data points (100 per panel, 1 in the legend)"
grep -q '>gp</text>' "$work/fig.svg" && grep -q '>linear</text>' "$work/fig.svg" || fail "svg panel titles"
# --publish writes every format into a directory as results/EXPERIMENT holds them, the same
# bytes as each --format; with --format, -o or --compare it is an error.
"$BNNBENCH" report pbp-table1 --results "$work/r" --publish "$work/pub/table" 2>/dev/null || fail "publish (table)"
for f in md:report.md csv:report.csv latex:report.tex html:report.html svg:report.svg splits:splits.csv jobs:jobs.csv; do
  cmp -s <("$BNNBENCH" report pbp-table1 --results "$work/r" --format "${f%%:*}") "$work/pub/table/${f#*:}" ||
    fail "published ${f#*:} differs from --format ${f%%:*}"
done
[ "$(ls "$work/pub/table" | wc -l)" -eq 7 ] || fail "publish (table): $(ls "$work/pub/table")"
"$BNNBENCH" report epnn-case3 --results "$work/fig" --publish "$work/pub/fig" 2>/dev/null || fail "publish (figure)"
[ "$(ls "$work/pub/fig" | tr '\n' ' ')" = "figure.svg grid.csv jobs.csv observations.csv report.html report.md splits.csv " ] ||
  fail "publish (figure): $(ls "$work/pub/fig")"
cmp -s <("$BNNBENCH" report epnn-case3 --results "$work/fig" --format grid) "$work/pub/fig/grid.csv" || fail "published grid"
# The page holds the figure inline, links every other published file, and needs no network.
grep -q '<svg' "$work/pub/fig/report.html" || fail "html: no inline figure"
for f in grid.csv observations.csv splits.csv jobs.csv report.md; do
  grep -q "href=\"$f\"" "$work/pub/fig/report.html" || fail "html: no link to $f"
done
! grep -Eq '(src|href)="(https?:)?//' "$work/pub/fig/report.html" || fail "html: a link to the network"
! grep -qi '<script' "$work/pub/fig/report.html" || fail "html: a script"
for extra in "--format csv" "-o $work/x.md" "--compare $work/pub/table/report.csv"; do
  # shellcheck disable=SC2086
  if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --publish "$work/pub/again" $extra 2>&1); then
    fail "--publish with $extra accepted"
  fi
  grep -q -e '--publish writes every format' -e '--compare and --publish' <<<"$out" || fail "--publish with $extra: $out"
done
[ -e "$work/pub/again" ] && fail "a refused --publish created its directory"
# Part of an experiment: --methods and --datasets select the table's columns and rows, the
# per-split and job files and the comparison; unknown names are errors that name them.
part=$("$BNNBENCH" report pbp-table1 --results "$work/r" --methods pbp,linear --datasets yacht)
grep -q '^| data set | n train/test | d | pbp | pbp (paper) | linear |$' <<<"$part" || fail "part: header"
[ "$(grep -c '^| yacht |' <<<"$part")" -eq 3 ] || fail "part: one yacht row per metric table"
grep -q '^| boston' <<<"$part" && fail "part: boston shown"
grep -q 'part of the experiment: methods pbp, linear; data sets yacht' <<<"$part" || fail "part: note"
splits=$("$BNNBENCH" report pbp-table1 --results "$work/r" --datasets yacht --format splits)
grep -q '^boston,' <<<"$splits" && fail "part: boston in the per-split file"
[ "$(grep -c '^yacht,linear,' <<<"$splits")" -gt 0 ] || fail "part: yacht per-split rows"
"$BNNBENCH" report pbp-table1 --results "$work/r" --datasets yacht --compare "$work/pub/table/splits.csv" |
  grep -q '^20 job(s) compared .*: 20 identical' || fail "part: comparison of the yacht jobs"
# run's closing report shows what it was asked to run (here all finished already)
ran=$("$BNNBENCH" run pbp-table1 --results "$work/r" --methods linear --datasets yacht -q)
grep -q '^| data set | n train/test | d | linear |$' <<<"$ran" || fail "run's report: header"
[ "$(grep -c '^| [a-z]* |' <<<"$ran")" -eq 3 ] || fail "run's report: one row (yacht) per metric table"
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --methods nn-mc 2>&1); then fail "unknown label accepted"; fi
grep -q "pbp-table1 has no method 'nn-mc'" <<<"$out" || fail "unknown label: $out"
if out=$("$BNNBENCH" report pbp-table1 --results "$work/r" --datasets crime 2>&1); then fail "unused data set accepted"; fi
grep -q "does not use data set 'crime'" <<<"$out" || fail "unused data set: $out"
# NN-MC's chain traces of an epnn-table1 job (shortened), the artifact its spec asks of boston
# fold 0: a line per chain in four panels, a CSV row per chain and kept draw, an R-hat per test point.
short=(--set nn-mc.warmup=200 --set nn-mc.samples=400 --set nn-mc.thin=4)
"$BNNBENCH" run epnn-table1 --methods nn-mc --datasets boston --splits 0,1 "${short[@]}" --results "$work/e" -q --no-report
"$BNNBENCH" report epnn-table1 --results "$work/e" "${short[@]}" --methods nn-mc --datasets boston --publish "$work/traces" 2>/dev/null
head -1 "$work/traces/chain_draws.csv" |
  grep -qx 'dataset,method,split,chain,draw,log_likelihood,noise_sd,f_largest_rhat,f_median_rhat' || fail "traces csv header"
[ "$(wc -l <"$work/traces/chain_draws.csv")" -eq 101 ] || fail "traces csv: 4 chains x 25 draws of fold 0 only"
[ "$(wc -l <"$work/traces/chain_rhat.csv")" -eq 52 ] || fail "rhat csv: one row per test point of boston's fold"
[ "$(grep -c '<polyline ' "$work/traces/chain_traces.svg")" -eq 16 ] || fail "traces svg: 4 panels x 4 chains"
grep -q '^\*\*boston/nn-mc/split 0\*\*' "$work/traces/report.md" || fail "traces report"
# A finished job whose artifacts the spec asks for only now is run again; the others are kept.
sed '/^\[\[artifacts\]\]/,/^splits = /d' "$BNNBENCH_HOME_DIR/experiments/epnn-table1.toml" > plain.toml
! grep -q artifacts plain.toml || fail "plain.toml still asks for artifacts"
"$BNNBENCH" run ./plain.toml --methods nn-mc --datasets boston --splits 0,1 "${short[@]}" --results "$work/p" -q --no-report
out=$("$BNNBENCH" run epnn-table1 --methods nn-mc --datasets boston --splits 0,1 "${short[@]}" --results "$work/p" -n)
grep -q '^| boston | nn-mc | 2 | 1 | 0 | 0 | 0 | 1 | 0 |' <<<"$out" || fail "dry run, fold 0 without its traces: $out"
grep -q '^1 job(s) would run' <<<"$out" || fail "dry run count: $out"
"$BNNBENCH" run epnn-table1 --methods nn-mc --datasets boston --splits 0,1 "${short[@]}" --results "$work/p" -q --no-report
"$BNNBENCH" report epnn-table1 --results "$work/p" "${short[@]}" --format chain_rhat.csv | cmp - "$work/traces/chain_rhat.csv" ||
  fail "traces of the job run again differ from the first run's"
echo "report: all checks passed"
