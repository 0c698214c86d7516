# Shared helpers for the command-line tests. Expects BNNBENCH (the binary), MIRROR (the local
# data mirror) and SCRATCH (a scratch root) in the environment, set by CTest.
set -euo pipefail
: "${BNNBENCH:?}" "${MIRROR:?}" "${SCRATCH:?}"
mkdir -p "$SCRATCH"
work=$(mktemp -d "$SCRATCH/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export BNNBENCH_DATA="$work/data"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Per-split metrics without timings (which legitimately differ between runs).
splits_without_time() { "$BNNBENCH" report "$@" --format splits | grep -v -e ',fit_seconds,' -e '^dataset,' | sort; }
