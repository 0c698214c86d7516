#!/usr/bin/env bash
# Every malformed input gets a one-line error naming the file and line (or the option) and a
# non-zero exit; nothing crashes.
source "$(dirname "$0")/lib.sh"
cd "$work"
printf '1 2 3\n4 5 6\n7 8 9\n10 11 13\n' > good.txt

# expect_error EXIT_CODE PATTERN COMMAND...: the command fails with that code and one stderr
# line matching PATTERN.
expect_error() {
  local code=$1 pattern=$2; shift 2
  set +e
  "$@" >out.txt 2>err.txt
  local got=$?
  set -e
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code; stderr: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'$*' printed more than one error line: $(cat err.txt)"
  grep -qE -- "$pattern" err.txt || fail "'$*' error '$(cat err.txt)' does not match '$pattern'"
}
fit() { "$BNNBENCH" fit linear --header no "$@"; }

printf '1 2 3\n4 5\n7 8 9\n' > ragged.txt
expect_error 2 'ragged.txt, line 2, column 3: row has 2 columns but line 1 has 3' fit --train ragged.txt --test good.txt
printf '1 2 3\n4 abc 6\n7 8 9\n' > word.txt
expect_error 2 "word.txt, line 2, column 2: non-numeric value 'abc'" fit --train word.txt --test good.txt
printf '1 2 3\n4 nan 6\n7 8 9\n' > nan.txt
expect_error 2 "nan.txt, line 2, column 2: non-finite value 'nan'" fit --train nan.txt --test good.txt
printf '1 2 3\n4 5 6\n7 -inf 9\n' > inf.txt
expect_error 2 "inf.txt, line 3, column 2: non-finite value '-inf'" fit --train inf.txt --test good.txt
printf '1 2 3\n4 5 1e999\n' > overflow.txt
expect_error 2 "overflow.txt, line 2, column 3: non-finite value" fit --train overflow.txt --test good.txt
: > empty.txt
expect_error 2 'empty.txt: the file is empty' fit --train empty.txt --test good.txt
printf '1 2 3\n4 ? 6\n' > missing.txt
expect_error 2 "missing.txt, line 2, column 2: missing value" fit --train missing.txt --test good.txt
printf '1 2 3\n\n4 5 6\n' > blank.txt
expect_error 2 'blank.txt, line 2: blank line inside the table' fit --train blank.txt --test good.txt
expect_error 2 'good.txt: target column 7 \(0-based\) is out of range' fit --train good.txt --test good.txt --target 7
printf '1 2 3\n' > onerow.txt
expect_error 2 'onerow.txt: onerow.txt has 1 rows, but at least 2 are needed' fit --train onerow.txt --test good.txt
printf '1 2 5\n4 5 5\n7 8 5\n' > constant.txt
expect_error 2 'error: constant.txt: the target is constant' fit --train constant.txt --test good.txt
printf '1 2\n4 5\n' > narrow.txt
expect_error 2 'narrow.txt has 1 feature columns but good.txt has 2' fit --train good.txt --test narrow.txt
expect_error 2 "cannot open the file" fit --train does-not-exist.txt --test good.txt
printf '1 2 3\n4 5 -6\n7 8 9\n' > negative.txt
expect_error 2 'negative.txt: .*data row 2 is outside the domain of sqrt\(y\)' fit --train good.txt --test negative.txt --target-transform sqrt
expect_error 2 "--target-transform: target transform 'log' is not one of none, sqrt, log1p" fit --train good.txt --test good.txt --target-transform log
expect_error 2 "--constant-inputs: constant_inputs 'one' is not one of: zero, numpy" fit --train good.txt --test good.txt --constant-inputs one

expect_error 2 "--seed is '-1', but must be an integer from 0 to 2\^64 - 1" fit --train good.txt --test good.txt --seed -1
expect_error 2 "--seed is '18446744073709551616', but must be" fit --train good.txt --test good.txt --seed 18446744073709551616
expect_error 2 "--threads is 0, but must be between 1 and" fit --train good.txt --test good.txt --threads 0
fit --train good.txt --test good.txt --threads 2 --seed 18446744073709551615 > /dev/null || fail "fit with --threads 2 and the largest seed failed"

# --header auto: a first row of text is a header, of numbers data, of both an error; fit says
# what it decided.
printf 'a b c\n1 2 3\n4 5 6\n7 8 10\n' > named.txt
fit_out=$("$BNNBENCH" fit linear --train named.txt --test good.txt)
grep -q '^header *train: first row names the columns; test: none, every row is data' <<<"$fit_out" || fail "fit did not say what it took as header: $fit_out"
grep -q '^train / test  3 / 4 rows' <<<"$fit_out" || fail "rows after the header: $fit_out"
printf '1 chevrolet 3\n4 5 6\n7 8 9\n' > mixed.txt
expect_error 2 "mixed.txt, line 1, column 2: the first row mixes numbers and text \('chevrolet'\): say whether it is a header" "$BNNBENCH" fit linear --train mixed.txt --test good.txt

# Data as people have them (issue 34): quoted text, tab files, binary files, extreme values
printf '18.0   8\t"chevrolet chevelle malibu"\t307\n15.0   8\t"buick skylark 320"\t350\n18.0  8\t"plymouth satellite"\t318\n16 8\t"amc rebel sst"\t304\n' > mpg.txt
expect_error 2 "mpg.txt, line 1, column 3: non-numeric value 'chevrolet chevelle malibu'" fit --train mpg.txt --test mpg.txt
printf 'a\tb\ty\n1\t\t3\n4\t5\t6\n7\t8\t10\n' > gap.tsv
expect_error 2 "gap.tsv, line 2, column 2: empty field" "$BNNBENCH" fit linear --delimiter tab --train gap.tsv --test gap.tsv
printf '\0\0\0\0' > nul.txt
expect_error 2 "nul.txt, line 1: not a text table: byte 0x00 \(a binary or UTF-16 file\?\)" fit --train nul.txt --test good.txt
printf '1 2 3\n4 5 \001\n' > binary.txt
expect_error 2 "binary.txt, line 2: not a text table: byte 0x01" fit --train binary.txt --test good.txt
printf '1 2 3\n4 5 6\n1e200 8 9\n' > huge_test.txt
expect_error 2 "huge_test.txt, line 3, column 1: standardized input .* is beyond 1e150" fit --train good.txt --test huge_test.txt
printf '1 2 3\n4 5 6\n7 8 1e200\n' > huge_target.txt
expect_error 2 "huge_target.txt, line 3: standardized target .* is beyond 1e150" fit --train good.txt --test huge_target.txt
printf '1 2 0.3\n4 5 0.3\n7 8 0.30000000000000004\n' > flat.txt
"$BNNBENCH" fit linear --header no --train flat.txt --test good.txt >/dev/null 2>flat.err || true
grep -q 'warning: flat.txt: the target varies by only .* constant but for rounding' flat.err || fail "no warning of a target constant but for rounding: $(cat flat.err)"

# Good files work, with CRLF and "\r\r\n" endings and blank trailing lines.
printf '1,2,3\r\n4,5,6\r\n7,8,9\r\n10,11,13\r\n\r\n' > crlf.txt
printf '1 2 3\r\r\n4 5 6\r\r\n7 8 9\r\r\n10 11 13\r\r\n' > crcrlf.txt
"$BNNBENCH" fit linear --train crlf.txt --test crcrlf.txt >fit.txt || fail "CRLF files rejected"
grep -q '^rmse' fit.txt || fail "fit printed no rmse"
"$BNNBENCH" fit linear --header no --train good.txt --test good.txt --target-transform sqrt >fit.txt || fail "sqrt target rejected"
grep -q '^target *sqrt(y)' fit.txt || fail "fit did not say the target is transformed"
# A constant column of 0.1 over 3 rows (double-precision mean 0.1 + 2^-56): zeros by default,
# a constant input of -1 with --constant-inputs numpy, a second bias for PBP's hidden units.
printf '0.1 1 2.0\n0.1 2 2.9\n0.1 3 4.2\n' > tenths.txt
for mode in zero numpy; do
  "$BNNBENCH" fit pbp --header no --train tenths.txt --test tenths.txt --set hidden_layers=5 \
    --predictions "$mode.csv" --constant-inputs "$mode" >/dev/null || fail "tenths rejected with --constant-inputs $mode"
done
! cmp -s zero.csv numpy.csv || fail "--constant-inputs numpy changed nothing"

# Bad options name the option.
expect_error 2 'linear: prior_precision is -1, but must be finite and > 0' fit --train good.txt --test good.txt --set prior_precision=-1
expect_error 2 "linear: unknown option 'nope'" fit --train good.txt --test good.txt --set nope=1
expect_error 2 "unknown method 'nope'" "$BNNBENCH" fit nope --train good.txt --test good.txt
expect_error 2 "unknown experiment 'nope'" "$BNNBENCH" run nope
expect_error 2 '--threads is 0, but must be between 1 and 1024' "$BNNBENCH" run quickstart --threads 0 --results r
expect_error 2 '--threads is 100000, but must be between 1 and 1024' "$BNNBENCH" run quickstart --threads 100000 --results r
expect_error 2 '--splits is empty' "$BNNBENCH" run quickstart --splits '' --results r
expect_error 2 '--methods is empty' "$BNNBENCH" run quickstart --methods '' --results r
set +e; "$BNNBENCH" run quickstart --splits 999 --results r >out.txt 2>err.txt; code=$?; set -e
[ "$code" -eq 2 ] && grep -q 'nothing to run: no job of quickstart matches' err.txt || fail "an empty selection ran: $code $(cat err.txt)"
[ ! -e r ] || fail "an empty selection created the results directory"
expect_error 2 "--shard '3' must look like K/N" "$BNNBENCH" run quickstart --shard 3 --results r
expect_error 2 'need 1 <= K <= N' "$BNNBENCH" run quickstart --shard 3/2 --results r
expect_error 2 "no method of quickstart has an option 'epochs'" "$BNNBENCH" run quickstart --set epochs=3 --results r
expect_error 2 "unrecognised option '--bogus'" "$BNNBENCH" run quickstart --bogus
expect_error 2 "unknown data set 'nope'" "$BNNBENCH" run quickstart --datasets nope --results r
expect_error 2 "does not use data set 'boston'" "$BNNBENCH" run quickstart --datasets boston --results r
expect_error 1 "no results store in missing-dir" "$BNNBENCH" report quickstart --results missing-dir
expect_error 1 "no results store in missing-dir" "$BNNBENCH" report quickstart --results missing-dir --publish pub
[ -e pub ] && fail "report --publish without a store created its directory"

# A malformed experiment spec names its file and line.
printf 'name = "x"\nprotocol = { kind = "bogus" }\ndatasets = ["boston"]\n' > bad.toml
expect_error 2 "bad.toml, line 2, column 12: protocol kind 'bogus'" "$BNNBENCH" run ./bad.toml --results r
# A registry entry that points at a column that does not exist.
mkdir -p mydata/toy
printf '1 2\n3 4\n5 7\n' > mydata/toy/t.txt
sum=$(sha256sum mydata/toy/t.txt | cut -d' ' -f1)
cat > reg.toml <<TOML
[[dataset]]
name = "toy"
availability = "public"
folder = "toy"
files = [ { path = "t.txt", sha256 = "$sum" } ]
table = { file = "t.txt", features = [0], target = 5 }
TOML
printf 'name = "toy-exp"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["toy"]\n[[method]]\nmethod = "linear"\n' > toy.toml
"$BNNBENCH" datasets fetch toy --from mydata --registry reg.toml --data-dir "$work/data" 2>/dev/null
expect_error 2 'target column 5 \(0-based\) is out of range: .*t.txt has 2 columns' "$BNNBENCH" run ./toy.toml --registry reg.toml --results r

# Loader: a UTF-8 byte-order mark is not a header; headers of train and test must agree;
# values whose sd overflows and a directory are named.
printf '\xef\xbb\xbf1 2 3\n4 5 6\n7 8 9\n10 11 13\n' > bom.txt
"$BNNBENCH" fit linear --train bom.txt --test good.txt >fit.txt || fail "a file with a byte-order mark was rejected"
grep -q '^train / test  4 / 4 rows' fit.txt || fail "the byte-order mark cost a row: $(grep train fit.txt)"
printf 'a,b,y\n1,2,3\n4,5,6\n7,8,10\n' > ab.csv
printf 'b,a,y\n1,2,3\n4,5,6\n' > ba.csv
expect_error 2 "ba.csv: feature column 1 is 'b' but in ab.csv it is 'a'" "$BNNBENCH" fit linear --train ab.csv --test ba.csv
printf '1 2 3\n4 1e200 6\n7 8 9\n' > huge.txt
expect_error 2 'huge.txt, column 2: input values too large to standardize' fit --train huge.txt --test good.txt
mkdir -p adir
expect_error 2 'adir: is a directory, not a file' fit --train adir --test good.txt
expect_error 2 'target column 99999999999999999999 \(0-based\) is out of range' fit --train good.txt --test good.txt --target 99999999999999999999
printf 'a,a,y\n1,2,3\n4,5,6\n7,8,10\n' > dup.csv
expect_error 2 "dup.csv: --target 'a' names more than one column" "$BNNBENCH" fit linear --train dup.csv --test dup.csv --target a
expect_error 2 'hmc: chains is 0, but must be >= 1' "$BNNBENCH" fit hmc --header no --train good.txt --test good.txt --set chains=0
expect_error 2 'the data directory good.txt \(--data-dir\) is not a directory' "$BNNBENCH" datasets list --data-dir good.txt
# Artifacts a spec asks for: a kind no method of it offers, a kind that does not exist.
printf 'name = "arts"\nprotocol = { kind = "all" }\ndatasets = ["bb-toy"]\n[[method]]\nmethod = "linear"\n[[artifacts]]\nkind = "chain-traces"\n' > arts.toml
expect_error 2 'arts.toml: \[\[artifacts\]\] chain-traces: no method of the spec offers it; methods that do: nn-mc, hmc' "$BNNBENCH" run ./arts.toml --results r
sed 's/chain-traces/traces/' arts.toml > kind.toml
expect_error 2 "kind.toml, line 7, column 8: unknown artifact kind 'traces'" "$BNNBENCH" run ./kind.toml --results r

# Outputs never overwrite a results store; reading a store never writes it.
"$BNNBENCH" run quickstart -q --no-report --results store
cp store/bnnbench.sqlite before.sqlite
expect_error 2 "no file 'weights.csv' in this store's results of quickstart \(it has none\)" "$BNNBENCH" report quickstart --results store --format weights.csv
expect_error 2 '-o store/bnnbench.sqlite is a results store' "$BNNBENCH" report quickstart --results store -o store/bnnbench.sqlite
expect_error 2 '--predictions store/bnnbench.sqlite is a results store' fit --train good.txt --test good.txt --predictions store/bnnbench.sqlite
cmp -s before.sqlite store/bnnbench.sqlite || fail "the store changed"
"$BNNBENCH" report quickstart --results store >/dev/null
cmp -s before.sqlite store/bnnbench.sqlite || fail "report changed the store"
expect_error 2 "--format 'grid' must be md, csv, latex, html or splits" "$BNNBENCH" run quickstart --results store --format grid
expect_error 2 "--format 'png' must be md, csv, latex, html, svg, splits, jobs, grid, observations or an artifact file such as parameter_marginals.csv" "$BNNBENCH" report quickstart --results store --format png
[ ! -e store/bnnbench.sqlite-wal ] || fail "report left a -wal file"
mkdir -p zero && : > zero/bnnbench.sqlite
expect_error 1 'zero/bnnbench.sqlite is not a complete bnnbench results store' "$BNNBENCH" report quickstart --results zero
[ ! -s zero/bnnbench.sqlite ] || fail "report wrote into an empty file"
printf 'dataset,method,metric,value,se,n_splits,paper_value,paper_se\n' > header-only.csv
set +e; "$BNNBENCH" report quickstart --results store --compare header-only.csv >out.txt 2>err.txt; code=$?; set -e
[ "$code" -eq 1 ] && grep -q 'no value of header-only.csv could be compared' err.txt || fail "--compare with nothing compared: $code"
expect_error 2 'no results store in nowhere' "$BNNBENCH" merge --results merged store nowhere
[ ! -e merged ] || fail "merge created its output before finding a missing input"

# Spec typos and registry paths.
sed 's/^seed = /sede = /' "$BNNBENCH_HOME_DIR/experiments/quickstart.toml" > typo.toml
expect_error 2 "typo.toml, line 7, column [0-9]+: unknown key 'sede' in the experiment" "$BNNBENCH" run ./typo.toml --results r
printf 'name = "twice"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["boston", "housing"]\n[[method]]\nmethod = "linear"\n' > twice.toml
expect_error 2 "twice.toml: 'datasets' names boston twice \(as 'housing'\)" "$BNNBENCH" run ./twice.toml --results r
# A misspelled method stops the run, listing the methods; the name is a plain folder name; a
# missing reference file is found before any job runs.
printf 'name = "typo-method"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["boston"]\n[[method]]\nmethod = "lineer"\n' > lineer.toml
expect_error 2 "lineer.toml, line 4: \[\[method\]\] lineer: unknown method 'lineer'; known: linear, " "$BNNBENCH" run ./lineer.toml --results r
# dataset_options errors name their line: an unknown data set, an option invalid there
printf 'name = "dopt"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["boston"]\n[[method]]\nmethod = "linear"\n[method.dataset_options]\nbostn = { prior_precision = 2 }\n' > dopt.toml
expect_error 2 "dopt.toml, line 7: \[\[method\]\] linear: dataset_options: unknown data set 'bostn'" "$BNNBENCH" run ./dopt.toml --results r
printf 'name = "dopt"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["boston"]\n[[method]]\nmethod = "linear"\n[method.dataset_options]\nyacht = { prior_precision = 1 }\nhousing = { prior_precision = -1 }\n' > dopt.toml
expect_error 2 "dopt.toml, line 8: \[\[method\]\] linear on boston: .*prior_precision is -1" "$BNNBENCH" run ./dopt.toml --results r
for name in '../../escape' '/abs' '' '.hidden'; do
  printf 'name = "%s"\nprotocol = { kind = "kfold", folds = 2 }\ndatasets = ["boston"]\n[[method]]\nmethod = "linear"\n' "$name" > badname.toml
  expect_error 2 "badname.toml, line 1, column 8: 'name' = '.*' must be letters, digits" "$BNNBENCH" run ./badname.toml --results r
done
printf 'name = "noref"\nprotocol = { kind = "all" }\ndatasets = ["bb-toy"]\n[[method]]\nmethod = "linear"\n[reference]\nfile = "absent.csv"\nvalues = { rmse = "rmse" }\n' > noref.toml
expect_error 2 "absent.csv" "$BNNBENCH" run ./noref.toml --results noref
[ ! -e noref/bnnbench.sqlite ] || fail "a run with a missing reference file ran jobs"
# A misspelled key of the registry is an error, not a check turned off (sha265 for sha256).
sed 's/sha256 = /sha265 = /' reg.toml > sha265.toml
expect_error 2 "sha265.toml, line [0-9]+, column [0-9]+: unknown key 'sha265' in an entry of 'files'" "$BNNBENCH" datasets list --registry sha265.toml
sed 's/folder = "toy"/folder = "..\/toy"/' reg.toml > escape.toml
expect_error 2 "escape.toml, line 4, column 10: 'folder' = '../toy' must be a relative path without '..'" "$BNNBENCH" datasets list --registry escape.toml
echo "errors: all checks passed"
