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
# Waits for a run in the background last up to BNNBENCH_TEST_TIME_SCALE times as long (a
# whole number; scripts/sanitize.sh sets 10, a sanitized program being that much slower).
time_scale="${BNNBENCH_TEST_TIME_SCALE:-1}"
[[ "$time_scale" =~ ^[1-9][0-9]*$ ]] || fail "BNNBENCH_TEST_TIME_SCALE is '$time_scale', but must be a whole number >= 1"
# Per-split metrics without timings (which legitimately differ between runs).
splits_without_time() { "$BNNBENCH" report "$@" --format splits | grep -v -e ',fit_seconds,' -e '^dataset,' | sort; }
# An active-learning spec on yacht (PBP choosing by predictive variance), named $1, with $2
# repeats of $3 additions each.
active_learning_spec() {
  cat <<TOML
name = "$1"
seed = 5
datasets = ["yacht"]
protocol = { kind = "random", n_train = 20, n_test = 100, repeats = $2 }
[active_learning]
additions = $3
[[method]]
label = "pbp-a"
method = "pbp"
selection = "variance"
options = { hidden_layers = [10], epochs = 40 }
TOML
}
