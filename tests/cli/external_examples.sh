#!/usr/bin/env bash
# The external-method examples as a user meets them:
# - the README's "Your own method in Python" shows methods/external/examples/readme_example.py
#   and readme.toml verbatim, and the table it shows is what running them reports;
# - the numpy deep ensemble on yacht (ensemble-yacht.toml) gives, split by split, the bits
#   committed in results/external-ensemble-yacht/splits.csv.
# The two comparisons with committed numbers need the Release build (not the sanitized one).
source "$(dirname "$0")/lib.sh"
home="${BNNBENCH_HOME_DIR:?}"
examples="$home/methods/external/examples"
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
"$BNNBENCH" datasets fetch --from "$MIRROR" boston yacht 2>/dev/null

# The README's blocks marked "verbatim: FILE" are FILE's text; the block marked "shown" is saved.
python3 - "$home/README.md" "$home" shown.txt <<'PY' || fail "the README's example is not the files it names"
import re, sys
readme, home, shown_file = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
blocks = re.findall(r"<!-- verbatim: (\S+) -->\n```\w*\n(.*?)```", readme, re.S)
assert len(blocks) == 2, f"{len(blocks)} verbatim blocks"
for path, text in blocks:
    assert open(f"{home}/{path}").read() == text, f"README's block differs from {path}"
shown = re.findall(r"<!-- shown: the README example's report -->\n```\n(.*?)```", readme, re.S)
assert len(shown) == 1
open(shown_file, "w").write(shown[0])
PY
"$BNNBENCH" run "$examples/readme.toml" --results "$work/my-ridge" -q > report.md || fail "the README example's run failed"
out=$("$BNNBENCH" report "$examples/readme.toml" --results "$work/my-ridge" --paired-against pbp) ||
  fail "the README's paired comparison: $out"
"$BNNBENCH" run "$examples/ensemble-yacht.toml" --results "$work/ensemble" -q --no-report
if [ "${BNNBENCH_RELEASE_BITS:-OFF}" = ON ]; then
  # What the README shows and what is committed are the Release build's numbers.
  while IFS= read -r line; do
    grep -qxF "$line" report.md || fail "the README shows '$line', the report does not: $(cat report.md)"
  done < shown.txt
  out=$("$BNNBENCH" report "$examples/ensemble-yacht.toml" --results "$work/ensemble" \
    --compare "$home/results/external-ensemble-yacht/splits.csv") || fail "ensemble-yacht != committed: $out"
  grep -q '40 identical' <<<"$out" || fail "ensemble-yacht compare: $out"
else
  echo "external_examples: not a Release build: the README's table and the committed bits are not compared"
fi
[ -z "$(ls -A "$TMPDIR")" ] || fail "scratch folders left behind: $(ls "$TMPDIR")"
echo "external_examples: all checks passed"
