"""scripts/scaling-model.py: the replayed schedule on cases whose makespan is known by hand."""
import importlib.util
import pathlib

import pytest

_path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "scaling-model.py"
_spec = importlib.util.spec_from_file_location("scaling_model", _path)
model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(model)


def row(method, chains=None):
    options = "hidden_layers=10" + (f";chains={chains}" if chains else "")
    return {"method_name": method, "config": f"method={method}|options={options}|seed=1"}


def jobs(*specs):
    return [model.Job(fit, tail, pieces) for fit, tail, pieces in specs]


def test_chains_are_pieces_and_other_methods_one():
    assert model.pieces_of(row("nn-mc", 16)) == 16
    assert model.pieces_of(row("hmc", 4)) == 4
    assert model.pieces_of(row("gp-ard")) == 1
    assert model.pieces_of(row("nn-mc")) == 1


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
