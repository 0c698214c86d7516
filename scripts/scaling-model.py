#!/usr/bin/env python3
"""Wall time of each committed experiment on P cores, from the CPU times its jobs took.

Reads results/*/jobs.csv (or jobs.csv.gz) and replays the schedule `bnnbench run` and the MPI
run use: jobs sorted by training data size, rows x (inputs + 1), largest first (stable in the
file's order); each thread takes the next job. The cores are processes (MPI ranks) of
--threads threads each, as `bnnbench slurm --cpus-per-task` lays them out. A job's time is
its fit CPU seconds plus its predict seconds; NN-MC's and HMC's chains are independent pieces
of it, which threads of the same process take up once no job is left to take (see pieces_of).
Prints, per experiment, the wall time on each core count, the bound max(total / P, longest
job), and the longest job with its chains spread over its process: the critical path, which no
number of cores shortens (a table whose longest job is most of its wall time needs finer jobs
to scale further).

  scripts/scaling-model.py [--cores 1,8,64,512] [--threads T] [results/EXPERIMENT ...]
"""
import argparse
import csv
import gzip
import heapq
import io
import math
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


def pieces_of(job):
    """The independent pieces of a job's fit that idle threads of its process can take up.

    NN-MC's and HMC's chains are the pieces counted: each runs the same number of leapfrog
    steps, so each is an equal share of the fit's CPU time. A method's other pieces (a GP's or
    Laplace's optimizer starts, tuning's initial points) differ in length by amounts jobs.csv
    does not record, and count with the rest of the fit as one piece: for those the model is
    an upper bound.
    """
    if job["method_name"] in ("nn-mc", "hmc"):
        for option in job["config"].split("|options=", 1)[-1].split("|", 1)[0].split(";"):
            name, _, value = option.partition("=")
            if name == "chains" and value.isdigit():
                return int(value)
    return 1


class Job:
    def __init__(self, fit, tail, pieces):
        self.piece = fit / pieces  # CPU seconds of each piece
        self.tail = tail  # after the pieces, on the job's own thread: prediction
        self.unstarted = pieces
        self.running = 0
        self.owner = None
        self.rank = None


def schedule(jobs, cores, threads):
    """Replays the run: `cores` threads in processes (MPI ranks) of `threads` threads each.

    Each thread takes the next job in order (largest first) and runs its pieces one after
    another; once no job is left to take, a thread helps with the pieces of a job still
    running in its own process (OpenMP tasks: a process's threads share them, other processes
    do not). Returns the makespan in seconds.
    """
    threads = max(1, min(threads, cores))
    queue = list(jobs)
    queue.reverse()  # pop() takes the next job
    events = [(0.0, t, None, "free") for t in range(cores)]
    heapq.heapify(events)
    running = {r: [] for r in range(cores // threads + 1)}
    end = 0.0

    def start_piece(now, thread, job):
        job.unstarted -= 1
        job.running += 1
        heapq.heappush(events, (now + job.piece, thread, id(job), "piece"))
        by_id[id(job)] = job

    by_id = {}
    while events:
        now, thread, job_id, what = heapq.heappop(events)
        end = max(end, now)
        rank = thread // threads
        if what == "piece":
            job = by_id[job_id]
            job.running -= 1
            if job.unstarted == 0 and job.running == 0:
                # The last piece: the job's own thread runs the tail, then is free.
                running[job.rank].remove(job)
                owner = job.owner
                if owner != thread:
                    heapq.heappush(events, (now + job.tail, owner, None, "free"))
                    heapq.heappush(events, (now, thread, None, "free"))
                else:
                    heapq.heappush(events, (now + job.tail, thread, None, "free"))
                continue
            if job.owner == thread:
                # With no piece left to start it waits; the thread ending the last one resumes it.
                if job.unstarted > 0:
                    start_piece(now, thread, job)
                continue
            # A helper: fall through to look for work.
        if queue:
            job = queue.pop()
            job.owner, job.rank = thread, rank
            running[rank].append(job)
            start_piece(now, thread, job)
            continue
        helpable = [j for j in running[rank] if j.unstarted > 0]
        if helpable:
            start_piece(now, thread, helpable[0])
        # else: idle from now on (no new pieces appear once the queue is empty)
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
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of each process (run --threads, slurm --cpus-per-task; default 1)")
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
        rows = read_jobs(directory)
        if not rows:
            continue
        sized = []
        for order, row in enumerate(rows):
            size = float(row["n_train"] or 0) * (float(row["n_features"] or 0) + 1)
            fit, predict = float(row["fit_cpu_seconds"] or 0), float(row["predict_seconds"] or 0)
            sized.append((-size, order, fit, predict, row))
        sized.sort(key=lambda t: (t[0], t[1]))
        total = sum(t[2] + t[3] for t in sized)
        cells = []
        longest = None
        for c in cores:
            threads = min(args.threads, c)
            jobs = [Job(fit, predict, pieces_of(row)) for _, _, fit, predict, row in sized]
            wall = schedule(jobs, c, threads)
            # A job's shortest time: its pieces spread over its process's threads, then its tail.
            shortest = [(math.ceil(pieces_of(row) / threads) * fit / pieces_of(row) + predict, row)
                        for _, _, fit, predict, row in sized]
            longest = max(shortest, key=lambda t: t[0])
            bound = max(total / c, longest[0])
            cells.append(f"{duration_text(wall)}" + ("" if wall <= 1.05 * bound else f" (bound {duration_text(bound)})"))
        seconds, row = longest
        pieces = pieces_of(row)
        spread = f", {pieces} chains on {min(pieces, args.threads)} threads" if pieces > 1 and args.threads > 1 else ""
        critical = f"{row['dataset']}/{row['method']}/split {row['split']}: {duration_text(seconds)}{spread}"
        print("| " + " | ".join([directory.name, str(len(rows)), duration_text(total)] + cells + [critical]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
