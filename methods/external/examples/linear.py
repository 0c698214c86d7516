#!/usr/bin/env python3
"""Bayesian linear regression as an external method: bnnbench's built-in `linear`, in numpy.

The conjugate Normal-Gamma model of methods/linear/linear.cpp, computed the same way, so that
its predictions match the built-in's to rounding (~1e-13 relative; the harness's test asks for
every per-split RMSE and test log-likelihood within 1e-9):

    tau = 1/sigma^2 ~ Gamma(noise_shape a0, noise_rate b0)
    w | tau ~ N(0, (tau Lambda0)^-1),  Lambda0 = diag(bias_precision, prior_precision, ...)
    design D = [1, X]  (no column of ones with fit_bias = false)

    Lambda_n = D'D + Lambda0 = L L'          m   = Lambda_n^-1 D'y
    a_n = a0 + n/2                           b_n = b0 + (||y - D m||^2 + m' Lambda0 m) / 2
    predictive: location + scale t(2 a_n),   location = D* m,
                scale^2 = (b_n / a_n) (1 + ||L^-1 x*||^2)

Settings (defaults as the built-in's): prior_precision = 1.0, bias_precision = 1e-6,
noise_shape = 1.0, noise_rate = 1.0, fit_bias = true. (The built-in's
optimize_prior_precision is not implemented here.) Diagnostics: log_evidence,
prior_precision, noise_variance_mean = b_n / (a_n - 1), as the built-in reports them.

In a spec (the path is relative to the spec's folder):

    [[method]]
    label = "linear-py"
    method = "external"
    options = { command = ["python3", "methods/external/examples/linear.py"],
                settings = { prior_precision = 1.0 } }

By hand: `PYTHONPATH=methods/external/python python3 linear.py path/to/request.json`.
"""
import math

import numpy as np

import bnnbench_method as bm

DEFAULTS = {"prior_precision": 1.0, "bias_precision": 1e-6, "noise_shape": 1.0, "noise_rate": 1.0, "fit_bias": True}
LOG_2PI = 1.8378770664093453


def forward_substitution(L, B):
    """Solve L Z = B for lower-triangular L (B is (p,) or (p, k)), row by row."""
    Z = np.empty_like(B, dtype=np.float64)
    for i in range(L.shape[0]):
        Z[i] = (B[i] - L[i, :i] @ Z[:i]) / L[i, i]
    return Z


def back_substitution(L, b):
    """Solve L' z = b for lower-triangular L."""
    z = np.empty_like(b, dtype=np.float64)
    for i in reversed(range(L.shape[0])):
        z[i] = (b[i] - L[i + 1 :, i] @ z[i + 1 :]) / L[i, i]
    return z


def design(X, fit_bias):
    return np.column_stack([np.ones(X.shape[0]), X]) if fit_bias else np.asarray(X, dtype=np.float64)


class Posterior:
    def __init__(self, X, y, options):
        self.fit_bias = bool(options["fit_bias"])
        D = design(X, self.fit_bias)
        n, p = D.shape
        prior = np.full(p, float(options["prior_precision"]))
        if self.fit_bias:
            prior[0] = float(options["bias_precision"])
        precision = D.T @ D + np.diag(prior)
        self.L = np.linalg.cholesky(precision)
        self.mean = back_substitution(self.L, forward_substitution(self.L, D.T @ y))
        a0, b0 = float(options["noise_shape"]), float(options["noise_rate"])
        self.shape = a0 + 0.5 * n
        residual = y - D @ self.mean
        self.rate = b0 + 0.5 * (residual @ residual + self.mean @ (prior * self.mean))

        log_det_posterior = 2.0 * np.sum(np.log(np.diag(self.L)))
        log_det_prior = np.sum(np.log(prior))
        log_evidence = (
            -0.5 * n * LOG_2PI
            + 0.5 * (log_det_prior - log_det_posterior)
            + a0 * math.log(b0)
            - self.shape * math.log(self.rate)
            + math.lgamma(self.shape)
            - math.lgamma(a0)
        )
        self.diagnostics = {
            "log_evidence": float(log_evidence),
            "prior_precision": float(options["prior_precision"]),
            "noise_variance_mean": self.rate / (self.shape - 1.0),
        }

    def predict(self, X):
        D = design(X, self.fit_bias)
        half = forward_substitution(self.L, D.T)  # L^-1 D', (p, m)
        leverage = np.sum(half * half, axis=0)
        scale = np.sqrt((1.0 + leverage) * (self.rate / self.shape))
        return bm.StudentT(location=D @ self.mean, scale=scale, dof=2.0 * self.shape)


def fit(X, y, seed, settings):
    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    options = {**DEFAULTS, **settings}
    for name in ("prior_precision", "bias_precision", "noise_shape", "noise_rate"):
        if not options[name] > 0:
            raise ValueError(f"setting {name} must be > 0, got {options[name]!r}")
    return Posterior(X, y, options)  # exact: the seed is not used


if __name__ == "__main__":
    bm.serve(fit)
