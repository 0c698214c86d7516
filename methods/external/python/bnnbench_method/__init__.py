"""Write a bnnbench method in Python: the helper side of the external-method protocol, version 1.

A method is a function that fits a model and a model that predicts::

    import numpy as np
    import bnnbench_method as bm

    def fit(X, y, seed, settings):
        rng = np.random.default_rng(seed)   # all randomness from the job's seed
        ...                                  # X (n, d), y (n,): normalized, float64
        return model                         # has predict(X) -> a prediction

    bm.serve(fit)

and a spec runs it with ``method = "external"`` and
``options = { command = ["python3", "my_method.py"], settings = { ... } }`` (see
methods/external/PROTOCOL.md; bnnbench puts this folder first on PYTHONPATH, or
``pip install methods/external/python``).

fit
    Called once, as ``fit(X, y, seed, settings)``: ``seed`` an int in [0, 2^53), ``settings``
    the spec's ``settings`` table as a dict (empty when there is none). If its signature names
    ``target_scale`` (the standard deviation the targets were divided by, for settings stated in
    original units) or ``threads`` (how many threads it may use), they are passed as keywords;
    otherwise they are not.

the model
    Anything with a ``predict(X)`` method, or a plain function of X. ``predict`` is called once
    per point set of the request, in order, and returns one of :class:`Gaussian`,
    :class:`StudentT`, :class:`Mixture`, :class:`Draws`, or a tuple ``(mean, variance)`` meaning
    Gaussian. Optional attributes of the model, read after the predictions: ``status``
    ("ok", "not_converged" or "numerical_error"; the job is scored either way), ``message``,
    ``iterations`` (int), ``diagnostics`` (dict name -> number; a non-finite value is dropped
    with a warning) and ``warnings`` (list of str).

empty point sets
    ``predict`` is never called with zero rows. A point set with m = 0 gets an empty prediction
    in the form of the first non-empty one of the same request (the same mixture weights, number
    of draws, dof or noise variance); when every point set is empty, an empty Gaussian.

one-function style
    For a program that does not separate fitting from predicting,
    ``bm.serve(predict_fn=f)`` calls ``f(X, y, Xs, seed, settings)`` once, where ``Xs`` is the
    list of non-empty point sets; it returns a list of predictions, one per entry of ``Xs``
    (or an object with that list as ``predictions`` and the optional attributes above).
    ``target_scale`` and ``threads`` are passed as for ``fit``.

checks and failure
    Every prediction is checked (shapes, finite numbers, variances and scales > 0, mixture
    weights >= 0 summing to 1) before anything is written, and a mistake is raised in Python as
    :class:`PredictionError` naming the field. An exception in ``fit`` or ``predict`` (or a
    failed check) writes a response with status "failed" and the one-line message
    "ExceptionType: message", prints the traceback to standard error and exits with status 1.
    A request in a protocol other than 1 is refused: a message on standard error, exit status
    1, no response.

determinism
    The helper seeds nothing. The same seed must give the same answer (``bnnbench verify``
    checks it), so draw every random number from ``np.random.default_rng(seed)`` (or generators
    spawned from ``np.random.SeedSequence(seed)``), never from a global or time-based one.

output
    Arrays are written as little-endian float64 .npy files named ``p{i}_{field}.npy`` next to
    request.json; response.json is written last, atomically (to a temporary name, then renamed).
"""
from __future__ import annotations

import inspect
import math
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import numpy as np

from . import protocol
from .forms import Draws, Gaussian, Mixture, PredictionError, StudentT, check, empty
from .protocol import PROTOCOL_VERSION, ProtocolVersionError, Request, read_request

__all__ = [
    "serve",
    "Gaussian",
    "StudentT",
    "Mixture",
    "Draws",
    "PredictionError",
    "PROTOCOL_VERSION",
    "read_request",
]

_FIT_STATUSES = ("ok", "not_converged", "numerical_error")


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _describe(exc: BaseException) -> str:
    text = _one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _extras(fn: Callable, request: Request) -> Dict[str, Any]:
    """target_scale and threads, for those of them that fn's signature names."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    values = {"target_scale": request.target_scale, "threads": request.threads}
    return {name: value for name, value in values.items() if name in parameters and parameters[name].kind in kinds}


def _report(source: Any) -> Dict[str, Any]:
    """status, message, iterations, diagnostics and warnings from a model's optional attributes."""
    status = getattr(source, "status", "ok")
    if status is None:
        status = "ok"
    if status not in _FIT_STATUSES:
        raise ValueError(
            f"model.status must be one of {', '.join(_FIT_STATUSES)}, got {status!r} (raise an exception to fail the job)"
        )
    message = getattr(source, "message", "")
    iterations = getattr(source, "iterations", 0)
    if iterations is None:
        iterations = 0
    if (
        isinstance(iterations, bool)
        or not isinstance(iterations, (int, float, np.integer, np.floating))
        or not math.isfinite(iterations)
        or iterations != int(iterations)
        or iterations < 0
    ):
        raise ValueError(f"model.iterations must be a non-negative integer, got {iterations!r}")
    warnings_ = getattr(source, "warnings", None) or []
    warnings_ = [_one_line(w) for w in ([warnings_] if isinstance(warnings_, str) else warnings_)]
    diagnostics: Dict[str, float] = {}
    for name, value in dict(getattr(source, "diagnostics", None) or {}).items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"model.diagnostics[{name!r}] must be a number, got {value!r}") from None
        if math.isfinite(number):
            diagnostics[str(name)] = number
        else:
            warnings_.append(f"diagnostic {name} is {number!r}; dropped")
    return {
        "status": status,
        "message": _one_line(message or ""),
        "iterations": int(iterations),
        "diagnostics": diagnostics,
        "warnings": warnings_,
    }


def _where(request: Request, i: int) -> str:
    return f"prediction {i} ({request.predict[i].name}): "


def _run(request: Request, fit: Optional[Callable], predict_fn: Optional[Callable]) -> Dict[str, Any]:
    """Fit and predict; the response's fields with validated predictions."""
    nonempty = [i for i, s in enumerate(request.predict) if s.X.shape[0] > 0]
    checked: Dict[int, Any] = {}
    if fit is not None:
        model = fit(request.X, request.y, request.seed, request.settings, **_extras(fit, request))
        if model is None:
            raise TypeError("fit returned None; it must return a model with a predict(X) method")
        predict = getattr(model, "predict", None)
        if predict is None:
            if not callable(model):
                raise TypeError(f"fit returned a {type(model).__name__}, which has no predict(X) method")
            predict = model
        for i in nonempty:
            Xs = request.predict[i].X
            checked[i] = check(predict(Xs), Xs.shape[0], _where(request, i))
        source = model
    else:
        Xs = [request.predict[i].X for i in nonempty]
        result = predict_fn(request.X, request.y, Xs, request.seed, request.settings, **_extras(predict_fn, request))
        source = result
        if not isinstance(result, (list, tuple)):
            result = getattr(result, "predictions", None)
            if result is None:
                raise TypeError("predict_fn must return a list of predictions (or an object with .predictions)")
        else:
            source = None
        result = list(result)
        if len(result) != len(nonempty):
            raise PredictionError(f"predict_fn returned {len(result)} predictions for {len(nonempty)} point sets")
        for i, prediction in zip(nonempty, result):
            checked[i] = check(prediction, request.predict[i].X.shape[0], _where(request, i))
    template = checked[nonempty[0]] if nonempty else None
    response = _report(source)
    response["predictions"] = [checked[i] if i in checked else empty(template) for i in range(len(request.predict))]
    return response


def serve(
    fit: Optional[Callable] = None,
    *,
    predict_fn: Optional[Callable] = None,
    request: Optional[os.PathLike | str] = None,
) -> None:
    """Answer one bnnbench request with `fit` (or `predict_fn`); see the module's documentation.

    The request is the path `request`, else the program's last argument, else the environment
    variable BNNBENCH_REQUEST. Returns after writing a response; on failure exits with status 1.
    """
    if (fit is None) == (predict_fn is None):
        raise TypeError("serve needs exactly one of fit and predict_fn")
    if request is None:
        request = sys.argv[-1] if len(sys.argv) > 1 else os.environ.get("BNNBENCH_REQUEST")
    if not request:
        print(
            "bnnbench_method: no request: run as `program REQUEST.json` (bnnbench does) "
            "or set BNNBENCH_REQUEST",
            file=sys.stderr,
        )
        sys.exit(2)
    path = Path(request)

    try:
        parsed = read_request(path)
    except ProtocolVersionError as e:
        print(f"bnnbench_method: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:
        _fail(protocol.response_path(path), e)

    try:
        response = _run(parsed, fit, predict_fn)
        protocol.write_response(parsed.response, **response)
    except Exception as e:
        _fail(parsed.response, e)


def _fail(response: Optional[Path], exc: BaseException) -> None:
    traceback.print_exc()
    if response is not None:
        try:
            protocol.write_response(response, "failed", _describe(exc))
        except Exception as e:
            print(f"bnnbench_method: could not write {response}: {_describe(e)}", file=sys.stderr)
    sys.exit(1)
