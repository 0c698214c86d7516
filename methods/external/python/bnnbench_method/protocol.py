"""Reading request.json and its arrays, writing response.json and its arrays (protocol 1).

File names in a request or response are resolved in the folder that holds request.json (the
job's scratch folder, which is also the working directory when bnnbench runs the program).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from .forms import Checked

PROTOCOL_VERSION = 1
STATUSES = ("ok", "not_converged", "numerical_error", "failed")
DEFAULT_RESPONSE = "response.json"


class RequestError(ValueError):
    """A request.json (or one of its arrays) that does not follow the protocol."""


class ProtocolVersionError(RequestError):
    """A request in a protocol version this helper does not speak; nothing is written for it."""


@dataclass
class PointSet:
    name: str
    X: np.ndarray


@dataclass
class Request:
    folder: Path
    seed: int
    threads: int
    settings: Dict[str, Any]
    X: np.ndarray
    y: np.ndarray
    target_scale: float
    predict: List[PointSet]
    response: Path


def _load(folder: Path, name: Any, what: str, ndim: int) -> np.ndarray:
    if not isinstance(name, str) or not name:
        raise RequestError(f"request.json: {what} must be a file name, got {name!r}")
    try:
        a = np.load(folder / name, allow_pickle=False)
    except Exception as e:  # missing, truncated, not .npy, object arrays ...
        raise RequestError(f"{name} ({what}): cannot be read: {type(e).__name__}: {e}") from None
    if not isinstance(a, np.ndarray) or a.ndim != ndim or a.dtype.kind not in "fiu":
        raise RequestError(f"{name} ({what}): expected a {ndim}-d array of numbers, got {getattr(a, 'shape', a)!r}")
    return np.ascontiguousarray(a, dtype=np.float64)


def response_path(request_path: Path) -> Optional[Path]:
    """Where the response goes, read from request.json as leniently as possible (for a failure
    to be reported even when the request is malformed); None when the request is not protocol 1."""
    try:
        raw = json.loads(Path(request_path).read_text())
    except Exception:
        return Path(request_path).parent / DEFAULT_RESPONSE
    if not isinstance(raw, dict):
        return Path(request_path).parent / DEFAULT_RESPONSE
    if raw.get("protocol") != PROTOCOL_VERSION or isinstance(raw.get("protocol"), bool):
        return None
    name = raw.get("response")
    return Path(request_path).parent / (name if isinstance(name, str) and name else DEFAULT_RESPONSE)


def read_request(path: os.PathLike | str) -> Request:
    path = Path(path).resolve()
    folder = path.parent
    try:
        raw = json.loads(path.read_text())
    except Exception as e:
        raise RequestError(f"{path.name}: cannot be read as JSON: {type(e).__name__}: {e}") from None
    if not isinstance(raw, dict):
        raise RequestError(f"{path.name}: expected a JSON object")
    version = raw.get("protocol")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"{path.name}: protocol {version!r} is not supported; this bnnbench_method speaks protocol "
            f"{PROTOCOL_VERSION} (update methods/external/python)"
        )

    seed = raw.get("seed")
    if type(seed) is not int or not 0 <= seed < 2**53:
        raise RequestError(f"{path.name}: seed must be an integer in [0, 2^53), got {seed!r}")
    threads = raw.get("threads", 1)
    if type(threads) is not int or threads < 1:
        raise RequestError(f"{path.name}: threads must be a positive integer, got {threads!r}")
    settings = raw.get("settings", {})
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise RequestError(f"{path.name}: settings must be an object, got {settings!r}")

    train = raw.get("train")
    if not isinstance(train, dict):
        raise RequestError(f"{path.name}: train must be an object")
    X = _load(folder, train.get("X"), "train.X", 2)
    y = _load(folder, train.get("y"), "train.y", 1)
    if X.shape[0] != y.shape[0]:
        raise RequestError(f"{path.name}: train.X has {X.shape[0]} rows but train.y has {y.shape[0]}")
    target_scale = train.get("target_scale", 1.0)
    if isinstance(target_scale, bool) or not isinstance(target_scale, (int, float)) or not target_scale > 0:
        raise RequestError(f"{path.name}: train.target_scale must be a number > 0, got {target_scale!r}")

    entries = raw.get("predict", [])
    if not isinstance(entries, list):
        raise RequestError(f"{path.name}: predict must be a list")
    predict = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise RequestError(f"{path.name}: predict[{i}] must be an object")
        Xs = _load(folder, entry.get("X"), f"predict[{i}].X", 2)
        if Xs.shape[1] != X.shape[1]:
            raise RequestError(f"{path.name}: predict[{i}].X has {Xs.shape[1]} columns but train.X has {X.shape[1]}")
        predict.append(PointSet(str(entry.get("name", "")), Xs))

    response = raw.get("response", DEFAULT_RESPONSE)
    if not isinstance(response, str) or not response:
        raise RequestError(f"{path.name}: response must be a file name, got {response!r}")
    return Request(folder, seed, threads, settings, X, y, float(target_scale), predict, folder / response)


def _save(path: Path, a: np.ndarray) -> None:
    """A little-endian float64, C-ordered .npy (format 1.0)."""
    a = np.ascontiguousarray(a, dtype="<f8")
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=(1, 0), allow_pickle=False)


def _write_json_atomically(path: Path, document: Dict[str, Any]) -> None:
    """Write to a temporary name in the same folder, then rename: a reader sees all or nothing."""
    text = json.dumps(document, indent=2, allow_nan=False) + "\n"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_response(
    path: Path,
    status: str,
    message: str = "",
    iterations: int = 0,
    diagnostics: Optional[Dict[str, float]] = None,
    warnings: Optional[List[str]] = None,
    predictions: Optional[List[Checked]] = None,
) -> None:
    """Write each prediction's arrays as p{i}_{field}.npy next to `path`, then `path` itself."""
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {STATUSES}")
    entries = []
    for i, p in enumerate(predictions or []):
        entry: Dict[str, Any] = {"form": p.form}
        for name, a in p.arrays.items():
            file_name = f"p{i}_{name}.npy"
            _save(path.parent / file_name, a)
            entry[name] = file_name
        entry.update(p.numbers)
        entries.append(entry)
    document = {
        "protocol": PROTOCOL_VERSION,
        "status": status,
        "message": message,
        "iterations": int(iterations),
        "diagnostics": dict(diagnostics or {}),
        "warnings": list(warnings or []),
        "predictions": entries,
    }
    _write_json_atomically(path, document)
