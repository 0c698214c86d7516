#!/usr/bin/env bash
# Formats every C++ file of the project with clang-format (.clang-format: Google's style, 120
# columns), or with --check lists the files that are not formatted and exits 1 (what CI runs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (scripts/install-deps.sh)" >&2; exit 1; }
# Tracked files and new ones not yet added (not those .gitignore names), as they are on disk.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' | sort -u |
  while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done)
if [ "${1:-}" = "--check" ]; then
  unformatted=()
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || unformatted+=("$f")
  done
  if [ ${#unformatted[@]} -gt 0 ]; then
    printf 'not formatted (run scripts/format.sh): %s\n' "${unformatted[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
else
  clang-format -i --style=file "${files[@]}"
fi
