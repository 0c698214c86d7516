#!/usr/bin/env python3
"""The folders of experiments/src form layers: no folder includes a folder that includes it back;
and the command line over them stays thin: no file of experiments/cli over 150 lines.

    scripts/check-layers.py [SOURCE_ROOT]

Reads every #include "experiments/src/FOLDER/..." of the .cpp and .hpp files under
experiments/src (a folder's own subfolders, such as cluster/mpi, count as the folder), prints
the folder graph from the bottom layer up and exits 1 naming the folders of any cycle, with
the files that make each of its edges, or naming any command-line file over the limit.
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

INCLUDE = re.compile(r'#include "experiments/src/([a-z_]+)/')
CLI_MOST_LINES = 150  # a command parses its options and calls experiments/src


def long_cli_files(root: Path) -> list:
    """The files of experiments/cli over CLI_MOST_LINES lines, as 'path: N lines'."""
    found = []
    for path in sorted((root / "experiments" / "cli").glob("*.[ch]pp")):
        lines = len(path.read_text(errors="replace").splitlines())
        if lines > CLI_MOST_LINES:
            found.append(f"{path.relative_to(root)}: {lines} lines (at most {CLI_MOST_LINES})")
    return found


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    src = root / "experiments" / "src"
    edges = defaultdict(lambda: defaultdict(list))  # folder -> folder it includes -> files
    folders = set()
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp"):
            continue
        folder = path.relative_to(src).parts[0]
        folders.add(folder)
        for target in INCLUDE.findall(path.read_text(errors="replace")):
            if target != folder:
                edges[folder][target].append(str(path.relative_to(root)))
    # Tarjan's strongly connected components: a component of more than one folder is a cycle.
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for folder in sorted(folders):
        if folder not in index:
            visit(folder)
    cycles = [c for c in components if len(c) > 1]
    # Layers: a folder's layer is one above the highest it includes.
    layer = {}

    def level(v, seen=()):
        if v in layer:
            return layer[v]
        if v in seen:
            return 0
        layer[v] = 1 + max((level(w, seen + (v,)) for w in edges[v]), default=-1)
        return layer[v]

    for folder in folders:
        level(folder)
    for n in range(max(layer.values(), default=0) + 1):
        names = sorted(f for f in folders if layer[f] == n)
        print(f"layer {n}: " + ", ".join(f"{f} -> {{{', '.join(sorted(edges[f]))}}}" for f in names))
    long_files = long_cli_files(root)
    for line in long_files:
        print(f"experiments/cli is to parse only: {line}", file=sys.stderr)
    if not cycles:
        print(f"experiments/src: {len(folders)} folders, no folder-level include cycle")
        return 1 if long_files else 0
    for cycle in cycles:
        print(f"cycle among {', '.join(cycle)}:", file=sys.stderr)
        for a in cycle:
            for b in cycle:
                for f in edges[a].get(b, []):
                    print(f"  {a} -> {b}: {f}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
