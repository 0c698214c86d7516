#!/usr/bin/env bash
# The README's worked example: a user's own data set is one registry entry plus the file.
source "$(dirname "$0")/lib.sh"
mkdir -p mydata/concrete2
{
  echo "c0,c1,c2,c3,c4,c5,c6,c7,strength"
  for i in $(seq 1 60); do
    echo "$i,$((i % 7)),$((i % 5)),$((i % 3)),$((i * 2)),$((i % 11)),$((i % 13)),$((i % 4)),$((3 * i + i % 7 - i % 5)).5"
  done
} > mydata/concrete2/data.csv
sum=$(sha256sum mydata/concrete2/data.csv | cut -d' ' -f1)
cat > my-registry.toml <<TOML
[[dataset]]
name = "concrete2"
title = "My concrete measurements"
availability = "public"
folder = "concrete2"
url_base = "https://example.org/concrete2/"
files = [ { path = "data.csv", sha256 = "$sum" } ]
table = { file = "data.csv", delimiter = "comma", header = true, features = "0..7", target = 8 }
TOML
"$BNNBENCH" datasets fetch concrete2 --registry my-registry.toml --from mydata 2>/dev/null
"$BNNBENCH" datasets list --registry my-registry.toml | grep -E '^concrete2 .*present, verified' >/dev/null || fail "concrete2 not listed as verified"
# the README's experiment, verbatim
awk '/^# my-experiment.toml$/{on=1} on && /^```$/{exit} on' "$BNNBENCH_HOME_DIR/README.md" > my-experiment.toml
grep -q '^\[\[method\]\]' my-experiment.toml || fail "the README's my-experiment.toml was not found"
out=$("$BNNBENCH" run ./my-experiment.toml --registry my-registry.toml -q)
grep -qE '^\| concrete2 \| 48/12 \| 8 \|' <<<"$out" || fail "no concrete2 row in the report: $out"
# a copy of a paper's spec with its name and data sets changed runs too: per_dataset entries of
# data sets it no longer uses are checked, not refused
sed -e 's/^name = "pbp-table1"/name = "copied"/' -e 's/^datasets = .*/datasets = ["concrete2"]/' \
    -e 's/^protocol = .*/protocol = { kind = "kfold", folds = 5 }/' \
    "$BNNBENCH_HOME_DIR/experiments/pbp-table1.toml" > copied.toml
"$BNNBENCH" run ./copied.toml --registry my-registry.toml --methods linear -q | grep -qE '^\| concrete2 \|' ||
  fail "a copied paper spec does not run on concrete2"
# A corrupted copy is detected.
echo "0,0,0,0,0,0,0,0,1" >> "$BNNBENCH_DATA/concrete2/data.csv"
"$BNNBENCH" datasets list --registry my-registry.toml | grep -E '^concrete2 .*checksum mismatch' >/dev/null || fail "corruption not detected"
echo "add_dataset: all checks passed"
