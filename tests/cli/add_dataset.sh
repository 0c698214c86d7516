#!/usr/bin/env bash
# The README's worked example, pasted verbatim: a user's own data set with a categorical column
# and missing cells is one registry entry plus the file; changing the entry reruns its jobs.
source "$(dirname "$0")/lib.sh"
readme="$BNNBENCH_HOME_DIR/README.md"
# The README's TOML block that starts with the line `# NAME` (a fenced block, verbatim).
from_readme() { awk -v head="# $1" '$0 == head {on=1} on && /^```$/{exit} on' "$readme"; }
mkdir -p mydata/concrete2
{
  echo "c0,c1,c2,c3,c4,c5,c6,c7,cement,strength"
  for i in $(seq 1 62); do
    grade=$(printf '%s' ABCDE | cut -c$((i % 5 + 1)))
    c3=$((i % 3)); [ "$i" = 17 ] && c3='?'   # two rows with a missing value: dropped
    c5=$((i % 11)); [ "$i" = 40 ] && c5=''
    echo "$i,$((i % 7)),$((i % 5)),$c3,$((i * 2)),$c5,$((i % 13)),$((i % 4)),$grade,$((3 * i + i % 7 - i % 5)).5"
  done
} > mydata/concrete2/data.csv
from_readme my-registry.toml > my-registry.toml
grep -q '^categorical = \[8\]' my-registry.toml || fail "the README's my-registry.toml was not found: $(cat my-registry.toml)"
from_readme my-experiment.toml > my-experiment.toml
grep -q '^\[\[method\]\]' my-experiment.toml || fail "the README's my-experiment.toml was not found"

"$BNNBENCH" datasets fetch concrete2 --registry my-registry.toml --from mydata 2>/dev/null
# datasets list loads the table: 60 rows kept, 8 numbers + 5 labels one-hot = 13 inputs
listed=$("$BNNBENCH" datasets list --registry my-registry.toml | grep '^concrete2 ')
grep -qE '^concrete2 +60 +13 .*present' <<<"$listed" || fail "concrete2 not listed with 60 rows, 13 inputs: $listed"
out=$("$BNNBENCH" run ./my-experiment.toml --registry my-registry.toml -q 2>run.err)
grep -q 'concrete2: 2 of 62 rows dropped .* (lines 18, 41)' run.err || fail "run does not say which rows it dropped: $(cat run.err)"
grep -q 'concrete2: column 8 (cement) one-hot encoded: 5 inputs for its labels "A", "B", "C", "D", "E"' run.err ||
  fail "run does not name the one-hot encoding: $(cat run.err)"
grep -qE '^\| concrete2 \| 48/12 \| 13 \|' <<<"$out" || fail "no concrete2 row of 48/12 points, 13 inputs: $out"
grep -q 'concrete2: column 8 one-hot encoded on loading' <<<"$out" || fail "the report header does not name the encoding"
grep -q "rows with '?' or an empty cell in a used column dropped" <<<"$out" || fail "the report header does not name dropped rows"

# The entry changes (the label column left out): its results are computed again, not reused
sed -i -e 's/^features = "0..8".*/features = "0..7"/' -e '/^categorical = /d' my-registry.toml
out=$("$BNNBENCH" run ./my-experiment.toml --registry my-registry.toml 2>&1)
grep -qE ' [1-9][0-9]* already done' <<<"$out" && fail "results of the old definition were reused: $out"
grep -qE '^\| concrete2 \| 48/12 \| 8 \|' <<<"$out" || fail "no concrete2 row with 8 inputs after the change: $out"
# ... and rerunning the same definition reuses them
out=$("$BNNBENCH" run ./my-experiment.toml --registry my-registry.toml 2>&1)
grep -qE '10 already done' <<<"$out" || fail "an unchanged definition was not reused: $out"

# A missing value without drop-rows is an error at its line and column
sed -i '/^missing = /d' my-registry.toml
"$BNNBENCH" run ./my-experiment.toml --registry my-registry.toml -q > /dev/null 2>err.txt && fail "a '?' was accepted"
grep -q 'data.csv, line 18, column 4: missing value' err.txt || fail "no error at the missing value: $(cat err.txt)"

# a copy of a paper's spec with its name and data sets changed runs too: per_dataset entries of
# data sets it no longer uses are checked, not refused; the report says the paper has no numbers here
from_readme my-registry.toml > my-registry.toml
sed -e 's/^name = "pbp-table1"/name = "copied"/' -e '0,/^datasets = .*/s//datasets = ["concrete2"]/' \
    -e 's/^protocol = .*/protocol = { kind = "kfold", folds = 5 }/' \
    "$BNNBENCH_HOME_DIR/experiments/pbp-table1.toml" > copied.toml
out=$("$BNNBENCH" run ./copied.toml --registry my-registry.toml --methods linear -q)
grep -qE '^\| concrete2 \|' <<<"$out" || fail "a copied paper spec does not run on concrete2"
grep -q 'it has no numbers for the data sets shown' <<<"$out" || fail "the copied spec's paper is cited without a word: $out"

# With a checksum, a corrupted copy is detected.
sum=$(sha256sum mydata/concrete2/data.csv | cut -d' ' -f1)
sed -i "s|^files = .*|files = [ { path = \"data.csv\", sha256 = \"$sum\" } ]|" my-registry.toml
"$BNNBENCH" datasets list --registry my-registry.toml | grep -qE '^concrete2 .*present, verified' || fail "concrete2 not verified"
echo "0,0,0,0,0,0,0,0,A,1" >> "$BNNBENCH_DATA/concrete2/data.csv"
"$BNNBENCH" datasets list --registry my-registry.toml | grep -E '^concrete2 .*checksum mismatch' >/dev/null || fail "corruption not detected"
echo "add_dataset: all checks passed"
