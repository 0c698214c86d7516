#!/usr/bin/env bash
# The committed pbp-table1 page in a real browser: headless Chromium renders
# results/pbp-table1/report.html to a PNG of the size asked for that is not blank, and the DOM it
# builds holds every row of every table of the Markdown report of the same committed files
# (page_check.py). scripts/pages.sh --check: every committed page is what the program renders now.
source "$(dirname "$0")/../cli/lib.sh"
page="$BNNBENCH_HOME_DIR/results/pbp-table1/report.html"
[ -f "$page" ] || fail "no committed page $page"
browser=$(command -v chromium || true)
[ -n "$browser" ] || fail "chromium is not installed (scripts/install-deps.sh installs it)"
# As root and with no network: no sandbox, no background connections, a profile of its own.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --hide-scrollbars "--user-data-dir=$work/profile")
timeout $((120 * time_scale)) "$browser" "${flags[@]}" --window-size=1280,1600 --screenshot="$work/page.png" \
  "file://$page" >browser.log 2>&1 || { cat browser.log >&2; fail "chromium could not render $page"; }
timeout $((120 * time_scale)) "$browser" "${flags[@]}" --dump-dom "file://$page" >dom.html 2>>browser.log ||
  { cat browser.log >&2; fail "chromium could not dump the DOM of $page"; }
"$BNNBENCH" report pbp-table1 --results "$BNNBENCH_HOME_DIR/results/pbp-table1" \
  --methods vi,bp,pbp,vi-diag,vi-full-10,laplace,linear --format md >report.md 2>/dev/null || fail "report pbp-table1"
python3 "$(dirname "$0")/page_check.py" "$work/page.png" 1280 1600 dom.html report.md
"$BNNBENCH_HOME_DIR/scripts/pages.sh" --check "$BNNBENCH" || fail "a committed page is stale: run scripts/pages.sh"
