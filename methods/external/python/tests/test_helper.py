"""bnnbench_method against PROTOCOL.md: each test builds a request folder as bnnbench does, runs
a method program on it in a subprocess and reads back response.json and its arrays."""
import json

import numpy as np
import pytest

# Models that compute their predictions from X deterministically, so the test can recompute them.
FORMS = """
import numpy as np
import bnnbench_method as bm

def gaussian(X):
    return bm.Gaussian(mean=X[:, 0] * 2.0, variance=1.0 + X[:, 1] ** 2)

def student_t(X):
    return bm.StudentT(location=X[:, 0] - 1.0, scale=0.5 + np.abs(X[:, 2]), dof=7.5)

def mixture(X):
    means = np.column_stack([X[:, 0], X[:, 1], X[:, 2]])          # (m, 3), Fortran-ordered
    return bm.Mixture(weights=[0.2, 0.3, 0.5], means=means, variances=np.exp(means) + 0.1)

def draws(X):
    return bm.Draws(draws=X[:, :2] @ np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.0, -0.5, 1.0]]), noise_variance=0.25)

def shorthand(X):
    return (X.sum(axis=1), np.full(len(X), 0.3))
"""


def expected(form, X):
    """The arrays and numbers each model of FORMS gives for X."""
    if form == "gaussian":
        return {"mean": X[:, 0] * 2.0, "variance": 1.0 + X[:, 1] ** 2}, {}
    if form == "student_t":
        return {"location": X[:, 0] - 1.0, "scale": 0.5 + np.abs(X[:, 2])}, {"dof": 7.5}
    if form == "mixture":
        means = np.column_stack([X[:, 0], X[:, 1], X[:, 2]])
        return {"weights": np.array([0.2, 0.3, 0.5]), "means": means, "variances": np.exp(means) + 0.1}, {}
    if form == "draws":
        return {"draws": X[:, :2] @ np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.0, -0.5, 1.0]])}, {"noise_variance": 0.25}
    raise AssertionError(form)


def serve_with(predict_name, extra=""):
    return FORMS + extra + f"""
class Model:
    def predict(self, X):
        return {predict_name}(X)

def fit(X, y, seed, settings):
    return Model()

bm.serve(fit)
"""


def check_array(job, name, want):
    a = job.array(name)
    assert a.dtype == np.dtype("<f8")
    assert a.shape == want.shape
    assert a.flags["C_CONTIGUOUS"]
    with open(job.folder / name, "rb") as f:  # format 1.0, C order as the protocol says
        assert f.read(8) == b"\x93NUMPY\x01\x00"
    np.testing.assert_array_equal(a, want)


@pytest.mark.parametrize("form", ["gaussian", "student_t", "mixture", "draws"])
def test_each_form_round_trips(make_job, data, form):
    X, y, Xs = data
    Xg = Xs[:4] + 1.0
    job = make_job(X, y, [("test", Xs), ("grid", Xg)])
    result = job.run(serve_with(form))
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["protocol"] == 1
    assert response["status"] == "ok"
    assert len(response["predictions"]) == 2
    for i, points in enumerate([Xs, Xg]):
        entry = response["predictions"][i]
        arrays, numbers = expected(form, points)
        assert entry["form"] == form
        assert set(entry) == {"form"} | set(arrays) | set(numbers)
        for field, want in arrays.items():
            assert entry[field] == f"p{i}_{field}.npy"
            check_array(job, entry[field], want)
        for field, want in numbers.items():
            assert entry[field] == want


def test_tuple_means_gaussian(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(serve_with("shorthand"))
    assert result.returncode == 0, result.stderr
    entry = job.response()["predictions"][0]
    assert entry == {"form": "gaussian", "mean": "p0_mean.npy", "variance": "p0_variance.npy"}
    check_array(job, "p0_mean.npy", Xs.sum(axis=1))
    check_array(job, "p0_variance.npy", np.full(len(Xs), 0.3))


def test_float32_lists_and_callables_are_accepted(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        """
        import numpy as np, bnnbench_method as bm
        def fit(X, y, seed, settings):
            return lambda Xs: bm.Gaussian(Xs[:, 0].astype(np.float32), [1.5] * len(Xs))  # a function is a model
        bm.serve(fit)
        """
    )
    assert result.returncode == 0, result.stderr
    check_array(job, "p0_mean.npy", Xs[:, 0].astype(np.float32).astype(np.float64))
    check_array(job, "p0_variance.npy", np.full(len(Xs), 1.5))


def test_model_attributes_land_in_the_response(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        """
        import numpy as np, bnnbench_method as bm
        class Model:
            status = "not_converged"
            message = "stopped at the\\niteration limit"
            iterations = np.int64(12)
            diagnostics = {"train_rmse": 0.31, "elbo": np.float64(-4.5), "bad": float("nan")}
            warnings = ["learning rate reduced"]
            def predict(self, X):
                return np.zeros(len(X)), np.ones(len(X))
        bm.serve(lambda X, y, seed, settings: Model())
        """
    )
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["status"] == "not_converged"
    assert response["message"] == "stopped at the iteration limit"
    assert response["iterations"] == 12 and isinstance(response["iterations"], int)
    assert response["diagnostics"] == {"train_rmse": 0.31, "elbo": -4.5}
    assert response["warnings"] == ["learning rate reduced", "diagnostic bad is nan; dropped"]


def test_defaults_without_attributes(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(serve_with("gaussian"))
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert {k: response[k] for k in ("status", "message", "iterations", "diagnostics", "warnings")} == {
        "status": "ok",
        "message": "",
        "iterations": 0,
        "diagnostics": {},
        "warnings": [],
    }


REPORT_ARGUMENTS = """
import json, numpy as np, bnnbench_method as bm
class Model:
    def __init__(self, record):
        self.message = json.dumps(record)
    def predict(self, X):
        return np.zeros(len(X)), np.ones(len(X))
"""


@pytest.mark.parametrize(
    "signature, passed",
    [
        ("X, y, seed, settings", {}),
        ("X, y, seed, settings, target_scale", {"target_scale": 9.19}),
        ("X, y, seed, settings, *, threads", {"threads": 3}),
        ("X, y, seed, settings, threads=None, target_scale=None", {"threads": 3, "target_scale": 9.19}),
    ],
)
def test_fit_receives_arguments_and_optional_keywords(make_job, data, signature, passed):
    X, y, Xs = data
    settings = {"hidden": 50, "nested": {"rate": 0.5, "names": ["a", "b"]}}
    job = make_job(X, y, [("test", Xs)], seed=2**53 - 1, settings=settings, threads=3, target_scale=9.19)
    keywords = [name for name in ("target_scale", "threads") if name in signature]
    record = "{" + ", ".join(f"'{k}': {k}" for k in keywords) + "}"
    result = job.run(
        REPORT_ARGUMENTS
        + f"""
def fit({signature}):
    return Model({{"X": X.tolist(), "y": y.tolist(), "seed": seed, "settings": settings, "kw": {record}}})
bm.serve(fit)
"""
    )
    assert result.returncode == 0, result.stderr
    got = json.loads(job.response()["message"])
    np.testing.assert_array_equal(got["X"], X)
    np.testing.assert_array_equal(got["y"], y)
    assert got["seed"] == 2**53 - 1
    assert got["settings"] == settings
    assert got["kw"] == passed


def test_request_from_environment_when_no_argument(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(serve_with("gaussian"), args=[])
    assert result.returncode == 0, result.stderr
    assert job.response()["status"] == "ok"


@pytest.mark.parametrize("where", ["fit", "predict"])
def test_exception_fails_the_job(make_job, data, where):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        f"""
        import numpy as np, bnnbench_method as bm
        class Model:
            def predict(self, X):
                if "{where}" == "predict":
                    raise ValueError("cannot predict\\nhere")
                return np.zeros(len(X)), np.ones(len(X))
        def fit(X, y, seed, settings):
            if "{where}" == "fit":
                raise ZeroDivisionError("division by zero")
            return Model()
        bm.serve(fit)
        """
    )
    assert result.returncode == 1
    response = job.response()
    assert response["status"] == "failed"
    assert response["predictions"] == []
    message = {"fit": "ZeroDivisionError: division by zero", "predict": "ValueError: cannot predict here"}[where]
    assert response["message"] == message
    assert "Traceback (most recent call last)" in result.stderr
    assert message.split(":")[0] + ": " in result.stderr


INVALID = [
    ("bm.Gaussian(np.where(np.arange(len(X)) == 2, np.nan, 0.0), np.ones(len(X)))", "gaussian.mean: must be finite; point 2 is nan"),
    ("bm.Gaussian(np.zeros(len(X)), -np.ones(len(X)))", "gaussian.variance: must be finite and > 0; point 0 is -1.0"),
    ("bm.Gaussian(np.zeros(len(X)), np.zeros(len(X)))", "gaussian.variance: must be finite and > 0"),
    ("bm.Gaussian(np.zeros(len(X) - 1), np.ones(len(X)))", "gaussian.mean: expected shape (7,), got (6,)"),
    ("(np.zeros(len(X)), np.ones((len(X), 1)))", "gaussian.variance: expected shape (7,), got (7, 1)"),
    ("bm.StudentT(np.zeros(len(X)), np.full(len(X), np.inf), 3.0)", "student_t.scale: must be finite and > 0"),
    ("bm.StudentT(np.zeros(len(X)), np.ones(len(X)), 0.0)", "student_t.dof: must be finite and > 0"),
    ("bm.StudentT(np.zeros(len(X)), np.ones(len(X)), [3.0, 4.0])", "student_t.dof: expected a single number"),
    ("bm.Mixture([0.5, 0.6], np.zeros((len(X), 2)), np.ones((len(X), 2)))", "mixture.weights: must sum to 1"),
    ("bm.Mixture([1.5, -0.5], np.zeros((len(X), 2)), np.ones((len(X), 2)))", "mixture.weights: must be finite and >= 0"),
    ("bm.Mixture([0.5, 0.5], np.zeros((len(X), 3)), np.ones((len(X), 2)))", "mixture.means: expected shape (7, 2), got (7, 3)"),
    ("bm.Mixture([0.5, 0.5], np.zeros((len(X), 2)), np.ones((len(X), 2)) - np.eye(len(X), 2))", "mixture.variances: must be finite and > 0; [0, 0] is 0.0"),
    ("bm.Draws(np.zeros(len(X)), 1.0)", "draws.draws: expected shape (7, S), got (7,)"),
    ("bm.Draws(np.zeros((len(X), 4)), -1.0)", "draws.noise_variance: must be finite and > 0"),
    ("(np.zeros(len(X)), np.ones(len(X)), 3.0)", "a tuple prediction must be (mean, variance)"),
    ("{'mean': np.zeros(len(X))}", "predict returned dict"),
]


@pytest.mark.parametrize("prediction, message", INVALID, ids=[m.split(":")[0] for _, m in INVALID])
def test_invalid_prediction_fails_naming_the_field(make_job, data, prediction, message):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        f"""
        import numpy as np, bnnbench_method as bm
        class Model:
            def predict(self, X):
                return {prediction}
        bm.serve(lambda X, y, seed, settings: Model())
        """
    )
    assert result.returncode == 1
    response = job.response()
    assert response["status"] == "failed"
    assert response["message"].startswith("PredictionError: prediction 0 (test): ")
    assert message in response["message"]
    assert "\n" not in response["message"]
    assert not list(job.folder.glob("p0_*.npy"))  # nothing written for a rejected prediction


def test_weights_within_tolerance_are_accepted(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        """
        import numpy as np, bnnbench_method as bm
        class Model:
            def predict(self, X):
                return bm.Mixture([1 / 3, 1 / 3, 1 / 3 + 5e-10], np.zeros((len(X), 3)), np.ones((len(X), 3)))
        bm.serve(lambda X, y, seed, settings: Model())
        """
    )
    assert result.returncode == 0, result.stderr
    check_array(job, "p0_weights.npy", np.array([1 / 3, 1 / 3, 1 / 3 + 5e-10]))


def test_invalid_report_fails(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    result = job.run(
        """
        import numpy as np, bnnbench_method as bm
        class Model:
            status = "converged"
            def predict(self, X):
                return np.zeros(len(X)), np.ones(len(X))
        bm.serve(lambda X, y, seed, settings: Model())
        """
    )
    assert result.returncode == 1
    assert job.response()["status"] == "failed"
    assert job.response()["message"].startswith("ValueError: model.status must be one of ok, not_converged")


EMPTY_AWARE = FORMS + """
calls = []
class Model:
    def predict(self, X):
        assert len(X) > 0, "predict called with no rows"
        calls.append(len(X))
        return FORM(X)
    @property
    def message(self):
        return "calls " + " ".join(map(str, calls))

def fit(X, y, seed, settings):
    return Model()

bm.serve(fit)
"""


@pytest.mark.parametrize("form", ["gaussian", "student_t", "mixture", "draws"])
def test_empty_point_set_takes_the_form_of_the_others(make_job, data, form):
    X, y, Xs = data
    job = make_job(X, y, [("grid", np.zeros((0, 3))), ("test", Xs), ("pool", np.zeros((0, 3)))])
    result = job.run(EMPTY_AWARE.replace("FORM", form))
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["message"] == "calls 7"  # predict is never called with zero rows
    full_arrays, numbers = expected(form, Xs)
    for i in (0, 2):
        entry = response["predictions"][i]
        assert entry["form"] == form
        for field, want in full_arrays.items():
            if field == "weights":
                check_array(job, entry[field], want)  # K comes from the non-empty set
            else:
                check_array(job, entry[field], np.zeros((0,) + want.shape[1:]))
        for field, want in numbers.items():
            assert entry[field] == want
    for field, want in full_arrays.items():
        check_array(job, response["predictions"][1][field], want)


def test_all_point_sets_empty(make_job, data):
    X, y, _ = data
    job = make_job(X, y, [("test", np.zeros((0, 3)))])
    result = job.run(EMPTY_AWARE.replace("FORM", "mixture"))
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["message"] == "calls"  # fitted, never asked to predict
    assert response["predictions"] == [{"form": "gaussian", "mean": "p0_mean.npy", "variance": "p0_variance.npy"}]
    check_array(job, "p0_mean.npy", np.zeros(0))
    check_array(job, "p0_variance.npy", np.zeros(0))


def test_no_point_sets(make_job, data):
    X, y, _ = data
    job = make_job(X, y, [])
    result = job.run(serve_with("gaussian"))
    assert result.returncode == 0, result.stderr
    assert job.response()["predictions"] == []


def test_one_function_style(make_job, data):
    X, y, Xs = data
    Xg = Xs[:3] * 2.0
    job = make_job(X, y, [("test", Xs), ("grid", np.zeros((0, 3))), ("pool", Xg)], seed=99)
    result = job.run(
        FORMS
        + """
from types import SimpleNamespace
def run(X, y, Xs, seed, settings, threads):
    assert [len(s) for s in Xs] == [7, 3] and seed == 99 and threads == 1
    return SimpleNamespace(predictions=[student_t(s) for s in Xs], iterations=5, diagnostics={"n": len(X)})
bm.serve(predict_fn=run)
"""
    )
    assert result.returncode == 0, result.stderr
    response = job.response()
    assert response["iterations"] == 5 and response["diagnostics"] == {"n": 20.0}
    assert [p["form"] for p in response["predictions"]] == ["student_t"] * 3
    for i, points in [(0, Xs), (2, Xg)]:
        arrays, _ = expected("student_t", points)
        for field, want in arrays.items():
            check_array(job, f"p{i}_{field}.npy", want)
    check_array(job, "p1_location.npy", np.zeros(0))


def test_one_function_style_wrong_count(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs), ("grid", Xs)])
    result = job.run(
        FORMS
        + """
bm.serve(predict_fn=lambda X, y, Xs, seed, settings: [gaussian(Xs[0])])
"""
    )
    assert result.returncode == 1
    assert job.response()["message"] == "PredictionError: predict_fn returned 1 predictions for 2 point sets"


def test_other_protocol_version_is_refused(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)], protocol=2)
    result = job.run(
        FORMS
        + """
def fit(X, y, seed, settings):
    open("fit-was-called", "w").close()
bm.serve(fit)
"""
    )
    assert result.returncode == 1
    assert "protocol 2 is not supported" in result.stderr
    assert not (job.folder / "response.json").exists()
    assert not (job.folder / "fit-was-called").exists()


def test_malformed_request_fails_naming_the_file(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    (job.folder / "predict_0_X.npy").write_bytes(b"not an npy file")
    result = job.run(serve_with("gaussian"))
    assert result.returncode == 1
    response = job.response()
    assert response["status"] == "failed"
    assert response["message"].startswith("RequestError: predict_0_X.npy (predict[0].X): cannot be read")


def test_response_is_written_atomically(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    before = {p.name for p in job.folder.iterdir()}
    result = job.run(
        serve_with(
            "gaussian",
            extra="""
import os
real_replace = os.replace
def logged_replace(src, dst):
    assert os.path.exists(src) and not os.path.exists(dst)
    with open(src) as f:
        json_text = f.read()
    with open(os.path.join(os.path.dirname(str(dst)), "replace.log"), "w") as f:
        f.write(repr((str(src), str(dst), json_text)))
    real_replace(src, dst)
os.replace = logged_replace
""",
        )
    )
    assert result.returncode == 0, result.stderr
    src, dst, text = eval((job.folder / "replace.log").read_text())
    assert dst == str(job.folder / "response.json")
    assert src != dst and str(job.folder) == str(job.folder / src).rsplit("/", 1)[0]
    assert json.loads(text) == job.response()  # the renamed file was complete
    after = {p.name for p in job.folder.iterdir()}
    assert after - before == {"response.json", "p0_mean.npy", "p0_variance.npy", "replace.log"}


def test_failed_response_is_also_atomic_and_leaves_no_temporary(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs)])
    before = {p.name for p in job.folder.iterdir()}
    result = job.run(
        """
        import bnnbench_method as bm
        def fit(X, y, seed, settings):
            raise KeyError("hidden")
        bm.serve(fit)
        """
    )
    assert result.returncode == 1
    assert job.response()["message"] == "KeyError: 'hidden'"
    assert {p.name for p in job.folder.iterdir()} - before == {"response.json"}


def test_a_model_may_reuse_its_output_buffers(make_job, data):
    X, y, Xs = data
    job = make_job(X, y, [("test", Xs), ("grid", Xs + 1.0)])
    result = job.run(
        """
        import numpy as np, bnnbench_method as bm
        class Model:
            def __init__(self):
                self.mean, self.variance = np.empty(7), np.empty(7)
            def predict(self, X):
                self.mean[:] = X[:, 0]
                self.variance[:] = 1.0 + X[:, 1] ** 2
                return bm.Gaussian(self.mean, self.variance)
        bm.serve(lambda X, y, seed, settings: Model())
        """
    )
    assert result.returncode == 0, result.stderr
    check_array(job, "p0_mean.npy", Xs[:, 0])
    check_array(job, "p1_mean.npy", Xs[:, 0] + 1.0)
    check_array(job, "p0_variance.npy", 1.0 + Xs[:, 1] ** 2)
