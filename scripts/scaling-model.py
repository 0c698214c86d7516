#!/usr/bin/env python3
"""Wall time of each committed experiment on P cores, from the CPU times its jobs took.

Reads results/*/jobs.csv (or jobs.csv.gz) and replays the schedule `bnnbench run` and the MPI
run use: jobs sorted by training data size, rows x (inputs + 1), largest first (stable in the
file's order); each free core takes the next job. A job's time is its fit CPU seconds plus its
predict seconds (as if every job ran on one core; NN-MC's chains, which the harness can spread
over idle cores, count as one piece of work). Prints, per experiment, the wall time on each core
count, the bound max(total / P, longest job), and the longest job: the critical path, which no
number of cores shortens (a table whose longest job is most of its wall time needs finer jobs
to scale further).

  scripts/scaling-model.py [--cores 1,8,64,512] [results/EXPERIMENT ...]
"""
import argparse
import csv
import gzip
import heapq
import io
import pathlib
import sys


def read_jobs(directory):
    for name in ("jobs.csv", "jobs.csv.gz"):
        path = directory / name
        if path.exists():
            raw = gzip.open(path, "rt", newline="") if name.endswith(".gz") else open(path, newline="")
            with raw:
                return list(csv.DictReader(io.StringIO(raw.read())))
    return None


def schedule(durations, cores):
    """Greedy list schedule in the given order; returns the makespan."""
    free = [0.0] * min(cores, max(1, len(durations)))
    heapq.heapify(free)
    end = 0.0
    for d in durations:
        start = heapq.heappop(free)
        heapq.heappush(free, start + d)
        end = max(end, start + d)
    return end


def duration_text(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default="1,8,64,512", help="core counts, comma-separated")
    parser.add_argument("experiments", nargs="*", help="results directories (default: results/*)")
    args = parser.parse_args()
    cores = [int(c) for c in args.cores.split(",")]
    root = pathlib.Path(__file__).resolve().parent.parent
    directories = [pathlib.Path(e) for e in args.experiments] or sorted(
        d for d in (root / "results").iterdir() if d.is_dir())
    header = ["experiment", "jobs", "CPU total"] + [f"{c} core{'s' if c > 1 else ''}" for c in cores] + ["longest job (critical path)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for directory in directories:
        jobs = read_jobs(directory)
        if not jobs:
            continue
        sized = []
        for order, job in enumerate(jobs):
            size = float(job["n_train"] or 0) * (float(job["n_features"] or 0) + 1)
            seconds = float(job["fit_cpu_seconds"] or 0) + float(job["predict_seconds"] or 0)
            sized.append((-size, order, seconds, job))
        sized.sort(key=lambda t: (t[0], t[1]))
        durations = [t[2] for t in sized]
        total = sum(durations)
        longest = max(sized, key=lambda t: t[2])
        cells = []
        for c in cores:
            wall = schedule(durations, c)
            bound = max(total / c, longest[2])
            cells.append(f"{duration_text(wall)}" + ("" if wall <= 1.05 * bound else f" (bound {duration_text(bound)})"))
        job = longest[3]
        critical = f"{job['dataset']}/{job['method']}/split {job['split']}: {duration_text(longest[2])}"
        print("| " + " | ".join([directory.name, str(len(jobs)), duration_text(total)] + cells + [critical]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
