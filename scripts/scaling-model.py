#!/usr/bin/env python3
"""Wall time of each committed experiment on P cores, from the CPU times its jobs took.

Reads results/*/jobs.csv (or jobs.csv.gz) and replays the schedule `bnnbench run` and the MPI
run use: jobs sorted by training data size, rows x (inputs + 1), largest first (stable in the
file's order); each thread takes the next job. The cores are processes (MPI ranks) of
--threads threads each, by default the spec's [cluster] threads, as `bnnbench slurm --cores`
lays them out (experiments/EXPERIMENT.toml; 1 if it names none). A job's time is
its fit CPU seconds plus its predict seconds; NN-MC's and HMC's chains and a GP's optimizer
starts are independent pieces of it, which threads of the same process take up once no job is
left to take, and a large GP's tiles let several threads share one piece (see pieces_of).
Prints, per experiment, the wall time on each core count, the bound max(total / P, longest
job), and the longest job alone with its process's threads: the critical path, which no number
of cores shortens (a table whose longest job is most of its wall time needs finer jobs to
scale further).

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
import tomllib


def read_jobs(directory):
    for name in ("jobs.csv", "jobs.csv.gz"):
        path = directory / name
        if path.exists():
            raw = gzip.open(path, "rt", newline="") if name.endswith(".gz") else open(path, newline="")
            with raw:
                return list(csv.DictReader(io.StringIO(raw.read())))
    return None


# GP and GP-ARD with the option tiled_from_rows = N factorize from N training points on by tiles
# of about GP_TILE rows, whose pieces idle threads of the process share (methods/gp/gp.hpp,
# cholesky_inverse.hpp: kTile).
GP_TILE = 384
# The share of a tiled evaluation's one-thread time in the tiled Cholesky factor and inverse;
# the rest (the kernel, its gradient contraction, the solves) runs on the piece's own thread.
# Measured with bench_gp at 5000 x 100 (kin40k): BM_GpCholeskyAndInverse (tiled, 1 thread)
# over BM_GpEvidenceAndGradient (1 thread).
GP_TILED_SHARE = 0.86


def gp_tile_count(n):
    tiles = -(-n // GP_TILE)
    size = (-(-n // tiles) + 7) // 8 * 8
    return -(-n // size)


def rounds_time(rounds, threads):
    """Time of rounds of independent tile operations (weights in tile-sized flops), each round
    after the previous one, each operation to the thread free first (in the given order)."""
    total = 0.0
    for weights in rounds:
        loads = [0.0] * threads
        for w in weights:
            i = loads.index(min(loads))
            loads[i] += w
        total += max(loads)
    return total


def gp_tiled_rounds(n):
    """The rounds of tiled_cholesky.cpp in units of one tile's b^3 flops: gemm 2, syrk,
    trsm and trmm 1, potrf, trtri and lauum 1/3."""
    t = gp_tile_count(n)
    rounds = []
    for k in range(t):
        rounds.append([1 / 3])
        rounds.append([1.0] * (t - k - 1))
        rounds.append([1.0 if i == j else 2.0 for i in range(k + 1, t) for j in range(k + 1, i + 1)])
    rounds.append([1 / 3 + sum(2.0 + 2.0 * (i - j - 1) for i in range(j + 1, t)) for j in range(t)])
    rounds.append([(1 / 3 + (t - 1 - i)) if i == j else (1.0 + 2.0 * (t - 1 - i)) for i in range(t) for j in range(i + 1)])
    return rounds


_speedups = {}


def gp_tiled_speedup(n, threads):
    key = (gp_tile_count(n), threads)
    if key not in _speedups:
        rounds = gp_tiled_rounds(n)
        _speedups[key] = rounds_time(rounds, 1) / rounds_time(rounds, threads)
    return _speedups[key]


def diagnostics_of(job):
    values = {}
    for item in job.get("diagnostics", "").split(";"):
        name, _, value = item.partition("=")
        try:
            values[name] = float(value)
        except ValueError:
            pass
    return values


def options_of(job):
    options = {}
    for option in job["config"].split("|options=", 1)[-1].split("|", 1)[0].split(";"):
        name, _, value = option.partition("=")
        options[name] = value
    return options


def pieces_of(job):
    """The independent pieces of a job's fit that idle threads of its process can take up, as
    shares of its fit CPU time, and how far threads can share one piece.

    NN-MC's and HMC's chains are equal pieces (each runs the same number of leapfrog steps).
    A GP's optimizer starts are pieces in proportion to their evaluations, which its
    diagnostics record (start0_evaluations, ...); with tiled_from_rows (from that many points on)
    each evaluation has GP_TILED_SHARE of its time in tiles that threads share. Other methods' pieces (Laplace's
    starts, tuning's initial points) differ in length by amounts jobs.csv does not record and
    count with the rest of the fit as one piece: for those the model is an upper bound.
    Returns (shares, share of a piece that threads can divide, speed-up on k threads).
    """
    method = job["method_name"]
    options = options_of(job)
    if method in ("nn-mc", "hmc"):
        chains = options.get("chains", "")
        if chains.isdigit():
            return [1.0 / int(chains)] * int(chains), 0.0, None
    if method in ("gp", "gp-ard"):
        diagnostics = diagnostics_of(job)
        counts = []
        while f"start{len(counts)}_evaluations" in diagnostics:
            counts.append(diagnostics[f"start{len(counts)}_evaluations"])
        shares = [c / sum(counts) for c in counts] if counts and sum(counts) > 0 else [1.0]
        n = int(float(job["n_train"] or 0))
        tiled_from_rows = int(options.get("tiled_from_rows", "0") or 0)
        if 0 < tiled_from_rows <= n:
            return shares, GP_TILED_SHARE, lambda k: gp_tiled_speedup(n, k)
        return shares, 0.0, None
    return [1.0], 0.0, None


class Job:
    def __init__(self, fit, tail, shape):
        shares, self.divisible, self.speedup = shape
        self.pieces = [fit * share for share in shares]  # CPU seconds of each piece on one thread
        self.tail = tail  # after the pieces, on the job's own thread: prediction
        self.next_piece = 0
        self.running = []
        self.owner = None
        self.rank = None

    def rate(self, threads):
        """Work done per second by a piece that `threads` threads share."""
        if threads <= 1 or self.speedup is None:
            return 1.0
        return 1.0 / ((1.0 - self.divisible) + self.divisible / self.speedup(threads))


class Piece:
    def __init__(self, job, work, now):
        self.job, self.remaining, self.since, self.threads, self.version = job, work, now, [], 0


def schedule(jobs, cores, threads):
    """Replays the run: `cores` threads in processes (MPI ranks) of `threads` threads each.

    Each thread takes the next job in order (largest first) and runs its pieces one after
    another; once no job is left to take, a thread starts a piece not yet started of a job
    running in its own process, else joins the running piece that threads can share and that
    has the most work left (OpenMP tasks: a process's threads share them, other processes do
    not). A job's own thread, its pieces started, waits for them, then runs the tail. Returns
    the makespan in seconds.
    """
    threads = max(1, min(threads, cores))
    queue = list(jobs)
    queue.reverse()  # pop() takes the next job
    events = []
    sequence = 0

    def push(time, what, payload):
        nonlocal sequence
        sequence += 1
        heapq.heappush(events, (time, sequence, what, payload))

    running = {r: [] for r in range(cores // threads + 1)}

    def advance(piece, now):
        piece.remaining -= (now - piece.since) * piece.job.rate(len(piece.threads))
        piece.since = now

    def reschedule(piece, now):
        piece.version += 1
        push(now + max(0.0, piece.remaining) / piece.job.rate(len(piece.threads)), "piece", (piece, piece.version))

    def start_piece(now, thread, job):
        piece = Piece(job, job.pieces[job.next_piece], now)
        job.next_piece += 1
        piece.threads.append(thread)
        job.running.append(piece)
        reschedule(piece, now)

    def find_work(now, thread):
        rank = thread // threads
        if queue:
            job = queue.pop()
            job.owner, job.rank = thread, rank
            running[rank].append(job)
            start_piece(now, thread, job)
            return
        for job in running[rank]:
            if job.next_piece < len(job.pieces):
                start_piece(now, thread, job)
                return
        shareable = [p for job in running[rank] for p in job.running
                     if job.speedup is not None and job.rate(len(p.threads) + 1) > job.rate(len(p.threads))]
        if shareable:
            piece = max(shareable, key=lambda p: p.remaining / p.job.rate(len(p.threads)))
            advance(piece, now)
            piece.threads.append(thread)
            reschedule(piece, now)
        # else: idle from now on (no new pieces appear once the queue is empty)

    for t in range(cores):
        push(0.0, "free", t)
    end = 0.0
    while events:
        now, _, what, payload = heapq.heappop(events)
        if what == "free":
            end = max(end, now)
            find_work(now, payload)
            continue
        piece, version = payload
        if version != piece.version:
            continue  # rescheduled since
        end = max(end, now)
        job = piece.job
        job.running.remove(piece)
        for thread in piece.threads:
            if thread == job.owner:
                continue
            push(now, "free", thread)
        if job.next_piece < len(job.pieces):
            if job.owner in piece.threads:
                start_piece(now, job.owner, job)
        elif not job.running:
            running[job.rank].remove(job)
            push(now + job.tail, "free", job.owner)  # the last piece: the job's own thread runs the tail
    return end


def duration_text(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def spec_threads(spec):
    """The spec's [cluster] threads: the threads of each process `bnnbench slurm --cores` uses."""
    if not spec.exists():
        return 1
    with open(spec, "rb") as f:
        return int(tomllib.load(f).get("cluster", {}).get("threads", 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default="1,8,64,512", help="core counts, comma-separated")
    parser.add_argument("--threads", type=int,
                        help="threads of each process (run --threads, slurm --cpus-per-task; default: the "
                             "spec's [cluster] threads, as slurm --cores uses)")
    parser.add_argument("experiments", nargs="*", help="results directories (default: results/*)")
    args = parser.parse_args()
    cores = [int(c) for c in args.cores.split(",")]
    root = pathlib.Path(__file__).resolve().parent.parent
    directories = [pathlib.Path(e) for e in args.experiments] or sorted(
        d for d in (root / "results").iterdir() if d.is_dir())
    header = ["experiment", "jobs", "threads", "CPU total"] + [f"{c} core{'s' if c > 1 else ''}" for c in cores] + ["longest job (critical path)"]
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
        process_threads = args.threads or spec_threads(root / "experiments" / f"{directory.name}.toml")
        total = sum(t[2] + t[3] for t in sized)
        cells = []
        longest = None
        for c in cores:
            threads = min(process_threads, c)
            jobs = [Job(fit, predict, pieces_of(row)) for _, _, fit, predict, row in sized]
            wall = schedule(jobs, c, threads)
            # A job's shortest time: alone in its process, its pieces on the process's threads.
            shortest = [(schedule([Job(fit, predict, pieces_of(row))], threads, threads), row)
                        for _, _, fit, predict, row in sized]
            longest = max(shortest, key=lambda t: t[0])
            bound = max(total / c, longest[0])
            cells.append(f"{duration_text(wall)}" + ("" if wall <= 1.05 * bound else f" (bound {duration_text(bound)})"))
        seconds, row = longest
        shares, divisible, _ = pieces_of(row)
        spread = ""
        if process_threads > 1 and (len(shares) > 1 or divisible > 0):
            kind = "chain" if row["method_name"] in ("nn-mc", "hmc") else "start"
            spread = (f", {len(shares)} {kind}{'s' if len(shares) > 1 else ''}" +
                      (" sharing tiles" if divisible > 0 else "") + f" on {process_threads} threads")
        critical = f"{row['dataset']}/{row['method']}/split {row['split']}: {duration_text(seconds)}{spread}"
        print("| " + " | ".join([directory.name, str(len(rows)), str(process_threads), duration_text(total)] + cells + [critical]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
