"""scripts/scaling-model.py: the replayed schedule on cases whose makespan is known by hand."""
import importlib.util
import pathlib
import re

import pytest

_path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "scaling-model.py"
_spec = importlib.util.spec_from_file_location("scaling_model", _path)
model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(model)


def row(method, chains=None, n_train=100, diagnostics="", options="hidden_layers=10"):
    options += f";chains={chains}" if chains else ""
    return {"method_name": method, "config": f"method={method}|options={options}|seed=1", "n_train": str(n_train),
            "diagnostics": diagnostics}


def equal_pieces(count):
    return [1.0 / count] * count, 0.0, None


def jobs(*specs):
    return [model.Job(fit, tail, equal_pieces(pieces)) for fit, tail, pieces in specs]


def test_chains_are_pieces_and_other_methods_one():
    assert model.pieces_of(row("nn-mc", 16)) == (equal_pieces(16)[0], 0.0, None)
    assert model.pieces_of(row("hmc", 4))[0] == [0.25] * 4
    assert model.pieces_of(row("gp-ard"))[0] == [1.0]
    assert model.pieces_of(row("nn-mc"))[0] == [1.0]
    assert model.pieces_of(row("bp"))[0] == [1.0]


def test_a_gps_starts_are_pieces_in_proportion_to_their_evaluations():
    gp = row("gp-ard", diagnostics="starts=2;start0_evaluations=30;start1_evaluations=90")
    assert model.pieces_of(gp) == ([0.25, 0.75], 0.0, None)
    # Tiles only with tiled_from_rows, and only from that many training points on.
    tiled = row("gp-ard", n_train=5000, diagnostics="start0_evaluations=1", options="ard=true;tiled_from_rows=4096")
    shares, divisible, speedup = model.pieces_of(tiled)
    assert (shares, divisible) == ([1.0], model.GP_TILED_SHARE) and speedup(1) == pytest.approx(1.0)
    small = row("gp-ard", n_train=4000, options="ard=true;tiled_from_rows=4096")
    assert model.pieces_of(small)[1:] == (0.0, None)


def test_the_tiled_factorizations_speedup_follows_its_rounds():
    # 5000 rows: 14 tiles of 360. Each round waits for the one before, so the speed-up stays
    # below the thread count and grows with it.
    assert model.gp_tile_count(5000) == 14
    speedups = [model.gp_tiled_speedup(5000, k) for k in (1, 2, 4, 8, 64)]
    assert speedups[0] == pytest.approx(1.0)
    assert all(a < b for a, b in zip(speedups, speedups[1:]))
    assert all(s <= k for s, k in zip(speedups, (1, 2, 4, 8, 64)))
    # One round of three 1-unit operations on 2 threads takes 2 units.
    assert model.rounds_time([[1.0, 1.0, 1.0]], 2) == pytest.approx(2.0)


def test_threads_share_a_divisible_piece():
    # 100 s, half of it shared with a speed-up of k on k threads: 50 + 50 / 2 = 75 s on 2
    # threads, 50 + 50 / 4 = 62.5 s on 4.
    job = lambda: [model.Job(100.0, 0.0, ([1.0], 0.5, lambda k: float(k)))]
    assert model.schedule(job(), cores=1, threads=1) == pytest.approx(100.0)
    assert model.schedule(job(), cores=2, threads=2) == pytest.approx(75.0)
    assert model.schedule(job(), cores=4, threads=4) == pytest.approx(62.5)
    # Another process's threads cannot help.
    assert model.schedule(job(), cores=4, threads=1) == pytest.approx(100.0)


def test_one_thread_per_process_runs_pieces_in_turn():
    # 16 pieces of 10 s and a 2 s tail: 162 s on the job's one thread, whatever the cores.
    assert model.schedule(jobs((160.0, 2.0, 16)), cores=64, threads=1) == pytest.approx(162.0)


def test_threads_of_one_process_share_a_jobs_pieces():
    assert model.schedule(jobs((160.0, 2.0, 16)), cores=16, threads=16) == pytest.approx(12.0)
    # 8 threads: two pieces each.
    assert model.schedule(jobs((160.0, 2.0, 16)), cores=8, threads=8) == pytest.approx(22.0)


def test_threads_help_only_once_no_job_is_left_to_take():
    # 2 threads: the chain job (4 x 10 s) and two 15 s jobs. Thread 1 runs the 15 s jobs
    # (0-30 s) while thread 0 runs chains 0-3 until 40 s: it never helps, and nothing is left
    # for it by then.
    assert model.schedule(jobs((40.0, 0.0, 4), (15.0, 0.0, 1), (15.0, 0.0, 1)), cores=2, threads=2) == pytest.approx(40.0)
    # One 10 s job after it: at 10 s thread 0 has run chain 0, and thread 1, with the queue
    # empty, takes chain 2 while thread 0 runs chain 1; chain 3 then ends at 30 s.
    assert model.schedule(jobs((40.0, 0.0, 4), (10.0, 0.0, 1)), cores=2, threads=2) == pytest.approx(30.0)


def test_processes_do_not_share_pieces():
    # Two processes of one thread: the second cannot take the first's chains.
    assert model.schedule(jobs((40.0, 0.0, 4)), cores=2, threads=1) == pytest.approx(40.0)
    assert model.schedule(jobs((40.0, 0.0, 4)), cores=4, threads=2) == pytest.approx(20.0)


def test_without_pieces_it_is_the_largest_first_list_schedule():
    # Jobs of 5, 4, 3, 3 on 2 cores, taken in order: 5 | 4 + 3, then 3 on the first free (5): 8.
    assert model.schedule(jobs((5.0, 0.0, 1), (4.0, 0.0, 1), (3.0, 0.0, 1), (3.0, 0.0, 1)), cores=2, threads=1) == pytest.approx(8.0)


def test_a_thread_joins_a_shared_piece_once_its_own_job_is_done():
    # Thread 0 runs the 100 s shareable job, thread 1 a 20 s job; from 20 s on the two share
    # the 80 s left at speed-up 2: the run ends at 60 s.
    runs = [model.Job(100.0, 0.0, ([1.0], 1.0, lambda k: float(k))), model.Job(20.0, 0.0, ([1.0], 0.0, None))]
    assert model.schedule(runs, cores=2, threads=2) == pytest.approx(60.0)


def test_threads_per_process_come_from_the_specs_cluster_table(tmp_path):
    spec = tmp_path / "table.toml"
    spec.write_text('name = "table"\n[cluster]\nthreads = 16\n')
    assert model.spec_threads(spec) == 16
    spec.write_text('name = "table"\n')
    assert model.spec_threads(spec) == 1
    assert model.spec_threads(tmp_path / "missing.toml") == 1


def test_the_tile_size_is_the_codes():
    # The model copies the C++ tile size (methods/gp/cholesky_inverse.hpp): a change there must
    # change the model too.
    header = (pathlib.Path(__file__).resolve().parents[2] / "methods" / "gp" / "cholesky_inverse.hpp").read_text()
    match = re.search(r"inline constexpr Eigen::Index kTile = (\d+);", header)
    assert match, "kTile not found in cholesky_inverse.hpp"
    assert model.GP_TILE == int(match.group(1))
    # Equal tiles, a multiple of 8 rows: 5000 rows -> 14 tiles of 360 (the last 320).
    assert model.gp_tile_count(5000) == 14
    assert model.gp_tile_count(384) == 1
    assert model.gp_tile_count(385) == 2
