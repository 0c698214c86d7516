"""Shared pieces: a request folder laid out as PROTOCOL.md describes, and a program run on it as
bnnbench runs one (a subprocess: `python3 script.py /abs/request.json`, cwd = the folder)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = PYTHON_DIR.parent / "examples"


class Job:
    """A scratch folder holding one request."""

    def __init__(self, folder: Path, request: dict):
        self.folder = folder
        self.request_path = folder / "request.json"
        self.request = request

    def run(self, script, args=None, env=None, timeout=120):
        """Run `script` (source text, or a Path of a file to run) on this request."""
        if isinstance(script, Path):
            program = script
        else:
            program = self.folder.parent / f"{self.folder.name}_method.py"
            program.write_text(textwrap.dedent(script))
        environment = {k: v for k, v in os.environ.items() if k != "BNNBENCH_REQUEST"}
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")]))
        environment["BNNBENCH_REQUEST"] = str(self.request_path)
        environment.update(env or {})
        command = [sys.executable, str(program)] + ([str(self.request_path)] if args is None else args)
        return subprocess.run(
            command, cwd=self.folder, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=timeout,
        )

    def response(self) -> dict:
        return json.loads((self.folder / "response.json").read_text())

    def array(self, name: str) -> np.ndarray:
        return np.load(self.folder / name, allow_pickle=False)


@pytest.fixture
def make_job(tmp_path):
    """make_job(X, y, [("test", Xs), ...], seed=, settings=, ...) -> Job."""
    count = [0]

    def make(X, y, sets, seed=12345, settings=None, threads=1, target_scale=1.0, protocol=1, **extra):
        count[0] += 1
        folder = tmp_path / f"job{count[0]}"
        folder.mkdir(mode=0o700)
        np.save(folder / "train_X.npy", np.asarray(X, dtype="<f8"))
        np.save(folder / "train_y.npy", np.asarray(y, dtype="<f8"))
        predict = []
        for i, (name, Xs) in enumerate(sets):
            np.save(folder / f"predict_{i}_X.npy", np.asarray(Xs, dtype="<f8").reshape(len(Xs), np.shape(X)[1]))
            predict.append({"name": name, "X": f"predict_{i}_X.npy"})
        request = {
            "protocol": protocol,
            "seed": seed,
            "threads": threads,
            "settings": {} if settings is None else settings,
            "train": {"X": "train_X.npy", "y": "train_y.npy", "target_scale": target_scale},
            "predict": predict,
            "response": "response.json",
        }
        request.update(extra)
        (folder / "request.json").write_text(json.dumps(request, indent=2))
        return Job(folder, request)

    return make


@pytest.fixture
def data():
    """A small regression problem: X (20, 3), y (20,), test points (7, 3)."""
    rng = np.random.default_rng(2024)
    X = rng.normal(size=(20, 3))
    y = X @ np.array([0.5, -1.0, 2.0]) + 0.1 * rng.normal(size=20)
    Xs = rng.normal(size=(7, 3))
    return X, y, Xs
