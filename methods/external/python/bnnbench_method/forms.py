"""The four forms a predictive can take, and their validation (PROTOCOL.md, `response.json`).

A method's ``predict(X)`` returns one of the dataclasses below for the m rows of X (or a plain
tuple ``(mean, variance)``, which means :class:`Gaussian`). Fields may be anything
``numpy.asarray`` accepts (lists, float32 arrays, ...); they are checked and converted to
C-ordered float64 by :func:`check`, so a mistake is reported in Python, naming the field, before
anything is written.

The checks are those the harness makes, plus one: every number must be finite (the harness
requires finiteness of means and locations and positivity of variances and scales; an infinite
variance, scale or dof is refused here too, and a scalar could not be written to JSON anyway).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

import numpy as np

#: Mixture weights must sum to 1 within this (PROTOCOL.md).
WEIGHT_SUM_TOLERANCE = 1e-9


@dataclass
class Gaussian:
    """N(mean, variance) per point: ``mean`` (m,), ``variance`` (m,) > 0."""

    mean: Any
    variance: Any


@dataclass
class StudentT:
    """location + scale * t(dof) per point: ``location`` (m,), ``scale`` (m,) > 0, ``dof`` > 0.

    ``scale`` is the scale, not its square.
    """

    location: Any
    scale: Any
    dof: float


@dataclass
class Mixture:
    """sum_k weights[k] N(means[:, k], variances[:, k]) per point.

    ``weights`` (K,) >= 0 summing to 1 (within 1e-9), ``means`` (m, K), ``variances`` (m, K) > 0.
    """

    weights: Any
    means: Any
    variances: Any


@dataclass
class Draws:
    """(1/S) sum_s N(draws[:, s], noise_variance) per point: ``draws`` (m, S), ``noise_variance`` > 0."""

    draws: Any
    noise_variance: float


class PredictionError(ValueError):
    """A prediction that does not follow the protocol; the message names the field."""


@dataclass
class Checked:
    """A validated prediction: its protocol form name, its arrays (float64, C order) and numbers."""

    form: str
    arrays: Dict[str, np.ndarray]
    numbers: Dict[str, float]


def _array(value: Any, field: str, shape: tuple, where: str, free: str = "K") -> np.ndarray:
    """`value` as a float64 array of `shape` (None in `shape` matches any length >= 1, named `free`)."""
    try:
        a = np.array(value, dtype=np.float64, order="C", copy=True)  # a copy: the model may reuse its buffers
    except (TypeError, ValueError) as e:
        raise PredictionError(f"{where}{field}: not an array of numbers ({e})") from None
    ok = a.ndim == len(shape) and all(
        (want is None and got >= 1) or got == want for got, want in zip(a.shape, shape)
    )
    if not ok:
        wanted = "(" + ", ".join(free if w is None else str(w) for w in shape) + ("," if len(shape) == 1 else "") + ")"
        raise PredictionError(f"{where}{field}: expected shape {wanted}, got {a.shape}")
    return a


def _first_bad(a: np.ndarray, bad: np.ndarray) -> str:
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    label = f"point {index[0]}" if a.ndim == 1 else f"[{', '.join(map(str, index))}]"
    return f"{label} is {a[index]!r}"


def _finite(a: np.ndarray, field: str, where: str) -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        raise PredictionError(f"{where}{field}: must be finite; {_first_bad(a, bad)}")


def _positive(a: np.ndarray, field: str, where: str) -> None:
    bad = ~(np.isfinite(a) & (a > 0))
    if bad.any():
        raise PredictionError(f"{where}{field}: must be finite and > 0; {_first_bad(a, bad)}")


def _number(value: Any, field: str, where: str) -> float:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise PredictionError(f"{where}{field}: not a number ({e})") from None
    if a.shape != () and a.shape != (1,):
        raise PredictionError(f"{where}{field}: expected a single number, got shape {a.shape}")
    x = float(a.reshape(()))
    if not (np.isfinite(x) and x > 0):
        raise PredictionError(f"{where}{field}: must be finite and > 0; it is {x!r}")
    return x


def check(prediction: Any, m: int, where: str = "") -> Checked:
    """Validate `prediction` for a point set of m rows; `where` prefixes error messages."""
    if isinstance(prediction, tuple):
        if len(prediction) != 2:
            raise PredictionError(
                f"{where}a tuple prediction must be (mean, variance), got a tuple of {len(prediction)}"
            )
        prediction = Gaussian(*prediction)
    if isinstance(prediction, Gaussian):
        w = where + "gaussian."
        mean = _array(prediction.mean, "mean", (m,), w)
        variance = _array(prediction.variance, "variance", (m,), w)
        _finite(mean, "mean", w)
        _positive(variance, "variance", w)
        return Checked("gaussian", {"mean": mean, "variance": variance}, {})
    if isinstance(prediction, StudentT):
        w = where + "student_t."
        location = _array(prediction.location, "location", (m,), w)
        scale = _array(prediction.scale, "scale", (m,), w)
        dof = _number(prediction.dof, "dof", w)
        _finite(location, "location", w)
        _positive(scale, "scale", w)
        return Checked("student_t", {"location": location, "scale": scale}, {"dof": dof})
    if isinstance(prediction, Mixture):
        w = where + "mixture."
        weights = _array(prediction.weights, "weights", (None,), w)
        k = weights.shape[0]
        means = _array(prediction.means, "means", (m, k), w)
        variances = _array(prediction.variances, "variances", (m, k), w)
        bad = ~(np.isfinite(weights) & (weights >= 0))
        if bad.any():
            raise PredictionError(f"{w}weights: must be finite and >= 0; {_first_bad(weights, bad)}")
        total = float(weights.sum())
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            raise PredictionError(f"{w}weights: must sum to 1 (within {WEIGHT_SUM_TOLERANCE:g}); they sum to {total!r}")
        _finite(means, "means", w)
        _positive(variances, "variances", w)
        return Checked("mixture", {"weights": weights, "means": means, "variances": variances}, {})
    if isinstance(prediction, Draws):
        w = where + "draws."
        draws = _array(prediction.draws, "draws", (m, None), w, free="S")
        noise_variance = _number(prediction.noise_variance, "noise_variance", w)
        _finite(draws, "draws", w)
        return Checked("draws", {"draws": draws}, {"noise_variance": noise_variance})
    raise PredictionError(
        f"{where}predict returned {type(prediction).__name__}; expected bnnbench_method.Gaussian, "
        "StudentT, Mixture, Draws or a (mean, variance) tuple"
    )


def empty(template: Optional[Checked]) -> Checked:
    """The prediction for an empty point set (m = 0), in the same form as `template`.

    Mixture weights, the number of draws S, dof and noise_variance are copied from `template`
    (a prediction for another point set of the same request); without one it is an empty Gaussian.
    """
    if template is None:
        return Checked("gaussian", {"mean": np.zeros(0), "variance": np.zeros(0)}, {})
    arrays = {}
    for name, a in template.arrays.items():
        if name == "weights":
            arrays[name] = a.copy()
        else:
            arrays[name] = np.zeros((0,) + a.shape[1:])
    return Checked(template.form, arrays, dict(template.numbers))
