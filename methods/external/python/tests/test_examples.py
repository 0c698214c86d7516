"""The examples in methods/external/examples, run through the helper as bnnbench runs them."""
import importlib.util
import math
import sys
import time

import numpy as np
import pytest

from conftest import EXAMPLES_DIR, PYTHON_DIR


def load_example(name):
    sys.path.insert(0, str(PYTHON_DIR))
    try:
        spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES_DIR / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # the examples serve only under __main__
        return module
    finally:
        sys.path.remove(str(PYTHON_DIR))


def normal_gamma_expectation(X, y, Xs, prior_precision=1.0, bias_precision=1e-6, a0=1.0, b0=1.0, fit_bias=True):
    """The Normal-Gamma posterior predictive and evidence, written independently of linear.py
    (explicit inverses; the evidence as the multivariate Student-t marginal of y)."""
    D = np.column_stack([np.ones(len(X)), X]) if fit_bias else X
    Ds = np.column_stack([np.ones(len(Xs)), Xs]) if fit_bias else Xs
    n, p = D.shape
    prior = np.full(p, prior_precision)
    if fit_bias:
        prior[0] = bias_precision
    covariance = np.linalg.inv(D.T @ D + np.diag(prior))
    mean = covariance @ D.T @ y
    a_n = a0 + n / 2
    b_n = b0 + 0.5 * (np.sum((y - D @ mean) ** 2) + mean @ np.diag(prior) @ mean)
    location = Ds @ mean
    scale = np.sqrt(b_n / a_n * (1.0 + np.einsum("ij,jk,ik->i", Ds, covariance, Ds)))
    nu = 2 * a0
    sigma = (b0 / a0) * (np.eye(n) + D @ np.diag(1 / prior) @ D.T)
    _, log_det = np.linalg.slogdet(sigma)
    quadratic = y @ np.linalg.solve(sigma, y)
    log_evidence = (
        math.lgamma((nu + n) / 2) - math.lgamma(nu / 2) - n / 2 * math.log(nu * math.pi)
        - 0.5 * log_det - (nu + n) / 2 * math.log1p(quadratic / nu)
    )
    return location, scale, 2 * a_n, {
        "log_evidence": log_evidence,
        "prior_precision": prior_precision,
        "noise_variance_mean": b_n / (a_n - 1),
    }


@pytest.mark.parametrize(
    "settings, keywords",
    [
        ({}, {}),
        (
            {"prior_precision": 2.5, "bias_precision": 0.1, "noise_shape": 2.0, "noise_rate": 0.5},
            {"prior_precision": 2.5, "bias_precision": 0.1, "a0": 2.0, "b0": 0.5},
        ),
        ({"fit_bias": False, "prior_precision": 0.3}, {"fit_bias": False, "prior_precision": 0.3}),
    ],
)
def test_linear_matches_the_normal_gamma_posterior(make_job, settings, keywords):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(25, 3))
    y = 0.3 + X @ np.array([1.0, -0.5, 0.25]) + 0.2 * rng.normal(size=25)
    Xs = rng.normal(size=(9, 3))
    job = make_job(X, y, [("test", Xs), ("grid", np.zeros((0, 3)))], settings=settings)
    result = job.run(EXAMPLES_DIR / "linear.py")
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["status"] == "ok"
    location, scale, dof, diagnostics = normal_gamma_expectation(X, y, Xs, **keywords)
    entry = response["predictions"][0]
    assert entry["form"] == "student_t"
    np.testing.assert_allclose(job.array(entry["location"]), location, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(job.array(entry["scale"]), scale, rtol=1e-12)
    assert entry["dof"] == dof
    assert set(response["diagnostics"]) == set(diagnostics)
    for name, want in diagnostics.items():
        assert response["diagnostics"][name] == pytest.approx(want, rel=1e-10), name
    empty = response["predictions"][1]
    assert job.array(empty["location"]).shape == (0,) and empty["dof"] == dof


def test_linear_refuses_unknown_settings(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)], settings={"prior_precison": 2.0})
    result = job.run(EXAMPLES_DIR / "linear.py")
    assert result.returncode == 1
    assert job.response()["message"].startswith("ValueError: unknown setting(s) ['prior_precison']")


def ensemble_job(make_job, seed, settings):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 4))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=60)
    return make_job(X, y, [("test", rng.normal(size=(13, 4)))], seed=seed, settings=settings)


def test_ensemble_is_deterministic_for_a_seed(make_job):
    settings = {"members": 3, "hidden": 8, "epochs": 6}
    runs = []
    for seed in (5, 5, 6):
        job = ensemble_job(make_job, seed, settings)
        result = job.run(EXAMPLES_DIR / "ensemble.py")
        assert result.returncode == 0, result.stderr
        response = job.response()
        entry = response["predictions"][0]
        assert entry["form"] == "mixture"
        assert response["iterations"] == 3 * 6 * 2  # members x epochs x ceil(60 / 32) steps
        runs.append({f: (job.folder / entry[f]).read_bytes() for f in ("weights", "means", "variances")})
        weights, means, variances = (job.array(entry[f]) for f in ("weights", "means", "variances"))
        np.testing.assert_array_equal(weights, np.full(3, 1 / 3))
        assert means.shape == (13, 3) and variances.shape == (13, 3)
        assert np.all(variances == variances[0])  # a member's noise variance at every point
        assert len(set(means[0])) == 3  # members differ
    assert runs[0] == runs[1]
    assert runs[0]["means"] != runs[2]["means"]


def test_ensemble_noise_variance_is_the_training_residual():
    ensemble = load_example("ensemble")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 2))
    y = X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=50)
    model = ensemble.fit(X, y, 42, {"members": 2, "epochs": 3})
    prediction = model.predict(X)
    residual_variance = np.mean((prediction.means - y[:, None]) ** 2, axis=0)
    np.testing.assert_allclose(prediction.variances[0], residual_variance, rtol=1e-12)
    # more training fits better: a sanity check that the gradient is right
    trained = ensemble.fit(X, y, 42, {"members": 2, "epochs": 60})
    assert np.all(trained.predict(X).variances[0] < 0.5 * prediction.variances[0])


def test_ensemble_default_fit_is_fast_on_a_yacht_sized_problem():
    ensemble = load_example("ensemble")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(277, 6))
    y = np.tanh(X @ rng.normal(size=6)) + 0.1 * rng.normal(size=277)
    start = time.perf_counter()
    model = ensemble.fit(X, y, 1, {})
    seconds = time.perf_counter() - start
    assert len(model.members) == 5 and model.iterations == 5 * 40 * 9
    assert seconds < 10.0, f"{seconds:.2f} s per fit"  # about 0.3 s on 2 cores


def test_readme_example(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)], settings={"alpha": 2.0})
    result = job.run(EXAMPLES_DIR / "readme_example.py")
    assert result.returncode == 0, result.stderr
    response = job.response()
    D = np.column_stack([np.ones(len(X)), X])
    Ds = np.column_stack([np.ones(len(Xs)), Xs])
    A_inv = np.linalg.inv(D.T @ D + 2.0 * np.eye(4))
    w = A_inv @ D.T @ y
    noise = np.mean((y - D @ w) ** 2)
    entry = response["predictions"][0]
    assert entry["form"] == "gaussian"
    np.testing.assert_allclose(job.array(entry["mean"]), Ds @ w, rtol=1e-10)
    np.testing.assert_allclose(job.array(entry["variance"]), noise * (1 + np.sum(Ds @ A_inv * Ds, axis=1)), rtol=1e-10)
    assert response["diagnostics"]["noise_variance"] == pytest.approx(noise, rel=1e-12)
