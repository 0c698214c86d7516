#!/usr/bin/env bash
# `report --paired-against`: on a small run on built-in data (pbp on one data set missing a
# split, on another not run at all), the paired differences and average ranks agree with the
# per-split values of `--format splits` computed here independently; the same from the
# committed per-job files; filters; and one-line errors.
source "$(dirname "$0")/lib.sh"
cat >paired.toml <<'TOML'
name = "paired-small"
seed = 3
datasets = ["pbp-cubic", "epnn-case1", "epnn-case2"]
protocol = { kind = "kfold", folds = 5 }
[[method]]
label = "linear"
method = "linear"
[[method]]
label = "linear-evidence"
method = "linear"
options = { optimize_prior_precision = true }
[[method]]
label = "pbp"
method = "pbp"
options = { hidden_layers = [10], epochs = 5 }
[report]
layout = "dataset-rows"
metrics = ["rmse", "test_ll"]
TOML
run() { "$BNNBENCH" run ./paired.toml --results "$work/r" -q --no-report "$@"; }
run --methods linear,linear-evidence
run --methods pbp --datasets pbp-cubic
run --methods pbp --datasets epnn-case1 --splits 0-3
report() { "$BNNBENCH" report ./paired.toml --results "$work/r" "$@"; }
report --format splits >splits.csv
report --paired-against linear --format csv >paired.csv

# The expected rows from the per-split values: per metric, data set and method, the splits
# both it and linear finished; ranks over the data sets where every method has values.
python3 - splits.csv paired.csv <<'PY' || fail "paired CSV differs from the per-split values"
import csv, math, sys
from collections import defaultdict
values = defaultdict(dict)  # (metric, dataset, method) -> split -> value
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "ok" and r["metric"] in ("rmse", "test_ll"):
        values[(r["metric"], r["dataset"], r["method"])][int(r["split"])] = float(r["value"])
datasets = ["pbp-cubic", "epnn-case1", "epnn-case2"]
methods = ["linear", "linear-evidence", "pbp"]
expected = []
for metric in ("rmse", "test_ll"):
    higher = metric == "test_ll"
    better = (lambda a, b: a > b) if higher else (lambda a, b: a < b)
    for d in datasets:
        base = values[(metric, d, "linear")]
        for m in methods[1:]:
            mine = values[(metric, d, m)]
            shared = sorted(set(mine) & set(base))
            if not shared:
                continue
            diff = [mine[s] - base[s] for s in shared]
            n = len(diff)
            mean = sum(diff) / n
            se = math.sqrt(sum((x - mean) ** 2 for x in diff) / (n - 1) / n) if n > 1 else None
            z = mean / se if se else None
            wins = sum(better(mine[s], base[s]) for s in shared)
            ties = sum(mine[s] == base[s] for s in shared)
            expected.append(("paired", metric, d, m, n, mean, se, z, wins, ties, n - wins - ties))
    sums, ranked = defaultdict(float), 0
    for d in datasets:
        if any(not values[(metric, d, m)] for m in methods):
            continue
        shared = set.intersection(*(set(values[(metric, d, m)]) for m in methods))
        means = {m: sum(values[(metric, d, m)][s] for s in shared) / len(shared) for m in methods}
        for m in methods:
            ahead = sum(better(means[o], means[m]) for o in methods if o != m)
            equal = sum(means[o] == means[m] for o in methods if o != m)
            sums[m] += 1 + ahead + equal / 2
        ranked += 1
    for m in methods:
        expected.append(("rank", metric, "", m, ranked, sums[m] / ranked, None, None, None, None, None))
got = list(csv.DictReader(open(sys.argv[2])))
assert len(got) == len(expected), f"{len(got)} rows, expected {len(expected)}"
assert ranked == 2, "epnn-case2 (no pbp) should be the one data set left out"
def close(text, want):
    if want is None:
        return text == ""
    return abs(float(text) - want) <= 1e-9 * abs(want) + 1e-12
for r, e in zip(got, expected):
    kind, metric, d, m, n, value, se, z, wins, ties, losses = e
    ok = (r["kind"], r["metric"], r["dataset"], r["method"], r["baseline"], int(r["n"])) == (kind, metric, d, m, "linear", n)
    ok = ok and close(r["value"], value) and close(r["se"], se) and close(r["z"], z)
    if kind == "paired":
        ok = ok and (int(r["wins"]), int(r["ties"]), int(r["losses"])) == (wins, ties, losses)
    if not ok:
        sys.exit(f"row {r} expected {e}")
PY
grep -q '^paired,rmse,epnn-case1,pbp,linear,4,' paired.csv || fail "pbp on epnn-case1: not over its 4 splits"
grep -q ',epnn-case2,pbp,' paired.csv && fail "pbp on epnn-case2 has a row but never ran"

# Markdown: the header says which way is better and what n is; the rows are the CSV's.
md=$(report --paired-against linear)
grep -q '^## test RMSE (rmse): method − linear (lower is better)$' <<<"$md" || fail "md: rmse heading"
grep -q '^## test log-likelihood (test_ll): method − linear (higher is better)$' <<<"$md" || fail "md: test_ll heading"
grep -q 'n is the number of shared splits' <<<"$md" || fail "md: what n is"
grep -qE '^\| epnn-case1 \| pbp \| 4 \| -?[0-9.]+ \| [0-9.]+ \| -?[0-9.]+ \| [0-9]+/[0-9]+/[0-9]+ \|$' <<<"$md" ||
  fail "md: epnn-case1/pbp row: $(grep '| epnn-case1 | pbp' <<<"$md")"
grep -q '^No split shared with linear: epnn-case2 (pbp)\.$' <<<"$md" || fail "md: epnn-case2 without pbp"
grep -q '^- rmse: left out of the ranks: epnn-case2 (no finished split of pbp)$' <<<"$md" || fail "md: left out"
report --paired-against linear --format latex | grep -q '\\toprule' || fail "latex"
report --paired-against linear --format html | grep -q '<table>' || fail "html"

# From the committed per-job files (no store): the same numbers.
report --publish "$work/pub" 2>/dev/null
"$BNNBENCH" report ./paired.toml --results "$work/pub" --paired-against linear --format csv 2>/dev/null |
  cmp -s - paired.csv || fail "from the committed splits.csv: paired CSV differs from the store's"

# Filters: the baseline is compared with whatever --methods selects.
part=$(report --paired-against linear --format csv --methods pbp --datasets epnn-case1)
[ "$(grep -c '^paired,' <<<"$part")" -eq 2 ] || fail "filtered: $part"
grep '^paired,' <<<"$part" | grep -qv ',epnn-case1,pbp,linear,' && fail "filtered: other rows: $part"

# Errors: one line naming the option, a non-zero exit.
expect_error() {
  local pattern=$1
  shift
  if "$@" >out.txt 2>err.txt; then fail "'$*' succeeded"; fi
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'$*' printed more than one line: $(cat err.txt)"
  grep -qE -- "$pattern" err.txt || fail "'$*': '$(cat err.txt)' does not match '$pattern'"
}
expect_error "--paired-against 'nope': paired-small has no method of that label \(its labels: linear, linear-evidence, pbp\)" \
  report --paired-against nope
for format in svg splits jobs grid observations; do
  expect_error "--paired-against has no --format '$format' \(it renders as md, csv, latex, html\)" \
    report --paired-against linear --format "$format"
done
expect_error '--paired-against with --publish' report --paired-against linear --publish "$work/pub2"
[ -e "$work/pub2" ] && fail "a refused --publish created its directory"
expect_error '--compare and --paired-against' report --paired-against linear --compare "$work/pub/splits.csv"
echo "paired: all checks passed"
