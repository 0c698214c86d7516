#!/usr/bin/env bash
# The main job on built-in data, no download: installs dependencies, builds, runs the
# `quickstart` experiment and prints its table. Idempotent (finished jobs are kept).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" bnnbench
cd "$root"
exec "$root/build/experiments/bnnbench" run quickstart "$@"
