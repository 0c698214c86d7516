#!/usr/bin/env python3
"""Fresh published-style splits with their index files in ascending row order.

    make_splits.py MIRROR OUT

For boston, concrete and yacht: copies the data files of MIRROR/<folder> (the layout of
../shared/datasets) to OUT/<name>-asc/, draws 20 random 90/10 splits of the rows with the
test sizes of the PBP splits (boston 51, concrete 103, yacht 31) from a fixed seed, writes
each split's index files with the rows in ascending order (as most tools write them), and
a SHA256SUMS manifest of the 40 index files. registry.toml describes the result.
"""
import hashlib
import random
import shutil
import sys
from pathlib import Path

SETS = {"boston": ("bostonHousing", 51), "concrete": ("concrete", 103), "yacht": ("yacht", 31)}
COUNT = 20
SEED = 48


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    mirror, out = Path(sys.argv[1]), Path(sys.argv[2])
    rng = random.Random(SEED)
    for name, (folder, n_test) in SETS.items():
        source, target = mirror / folder, out / f"{name}-asc"
        target.mkdir(parents=True, exist_ok=True)
        for file in ("data.txt", "index_features.txt", "index_target.txt"):
            shutil.copyfile(source / file, target / file)
        rows = sum(1 for line in (source / "data.txt").read_text().splitlines() if line.strip())
        sums = []
        for k in range(COUNT):
            test = sorted(rng.sample(range(rows), n_test))
            train = sorted(set(range(rows)) - set(test))
            for part, indices in (("train", train), ("test", test)):
                path = target / f"index_{part}_{k}.txt"
                path.write_text("".join(f"{i}\n" for i in indices))
                sums.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n")
        (target / "SHA256SUMS").write_text("".join(sums))
        print(f"{target}: {rows} rows, {COUNT} splits of {rows - n_test}/{n_test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
