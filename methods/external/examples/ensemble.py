#!/usr/bin/env python3
"""A small deep ensemble in numpy, as an external method.

`members` networks with one hidden layer of `hidden` ReLU units, each trained on the mean squared
error by Adam (minibatches of `batch_size`, `epochs` passes) from its own initialisation and
shuffling. Each member's noise variance is its mean squared training residual (floored at
1e-8), and the predictive is the equal-weight mixture of the members' Gaussians: per point,
means = the members' outputs, variances = the members' noise variances.

All randomness comes from the job's seed (member k draws from the k-th child of
np.random.SeedSequence(seed)), so the same seed gives the same bits. With the defaults a fit
on yacht (277 x 6) takes about 0.25 s (a whole run, with Python's start-up, about 0.4 s).

Settings (defaults): members = 5, hidden = 50, epochs = 40, learning_rate = 0.01,
batch_size = 32.

In a spec (the path is relative to the spec's folder):

    [[method]]
    label = "ensemble-py"
    method = "external"
    options = { command = ["python3", "methods/external/examples/ensemble.py"],
                settings = { members = 5, epochs = 40 } }

By hand: `PYTHONPATH=methods/external/python python3 ensemble.py path/to/request.json`.
"""
import numpy as np

import bnnbench_method as bm

DEFAULTS = {"members": 5, "hidden": 50, "epochs": 40, "learning_rate": 0.01, "batch_size": 32}


class Network:
    """x -> relu(x W1 + b1) w2 + b2, its parameters views into one flat vector (for Adam)."""

    def __init__(self, d, hidden, rng):
        self.d, self.hidden = d, hidden
        self.theta = np.zeros(d * hidden + 2 * hidden + 1)
        self.W1, self.b1, self.w2, self.b2 = self.views(self.theta)
        self.W1[:] = rng.normal(0.0, np.sqrt(2.0 / d), (d, hidden))  # He initialisation
        self.w2[:] = rng.normal(0.0, np.sqrt(1.0 / hidden), hidden)

    def views(self, flat):
        d, h = self.d, self.hidden
        return flat[: d * h].reshape(d, h), flat[d * h : d * h + h], flat[d * h + h : d * h + 2 * h], flat[-1:]

    def __call__(self, X):
        return np.maximum(X @ self.W1 + self.b1, 0.0) @ self.w2 + self.b2[0]

    def gradient(self, X, y, grad):
        """Fill the flat `grad` with the gradient of mean((f(X) - y)^2)."""
        gW1, gb1, gw2, gb2 = self.views(grad)
        a = X @ self.W1 + self.b1
        h = np.maximum(a, 0.0)
        r = (2.0 / len(y)) * (h @ self.w2 + self.b2[0] - y)
        gw2[:] = h.T @ r
        gb2[0] = r.sum()
        back = np.outer(r, self.w2) * (a > 0.0)
        gW1[:] = X.T @ back
        gb1[:] = back.sum(axis=0)


def train(X, y, hidden, epochs, learning_rate, batch_size, rng):
    net = Network(X.shape[1], hidden, rng)
    grad = np.zeros_like(net.theta)
    m = np.zeros_like(net.theta)
    v = np.zeros_like(net.theta)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    t = 0
    n = len(y)
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            batch = order[start : start + batch_size]
            net.gradient(X[batch], y[batch], grad)
            t += 1
            m *= beta1
            m += (1.0 - beta1) * grad
            v *= beta2
            v += (1.0 - beta2) * grad * grad
            step = learning_rate * np.sqrt(1.0 - beta2**t) / (1.0 - beta1**t)
            net.theta -= step * m / (np.sqrt(v) + eps)
    noise_variance = max(float(np.mean((net(X) - y) ** 2)), 1e-8)
    return net, noise_variance, t


class Ensemble:
    def __init__(self, members, noise_variances, iterations):
        self.members = members
        self.noise_variances = np.asarray(noise_variances)
        self.iterations = iterations
        self.diagnostics = {"train_rmse_member_mean": float(np.mean(np.sqrt(self.noise_variances)))}

    def predict(self, X):
        k = len(self.members)
        means = np.stack([net(X) for net in self.members], axis=1)  # (m, K)
        variances = np.tile(self.noise_variances, (X.shape[0], 1))
        return bm.Mixture(weights=np.full(k, 1.0 / k), means=means, variances=variances)


def fit(X, y, seed, settings):
    unknown = set(settings) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown setting(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    s = {**DEFAULTS, **settings}
    for name in ("members", "hidden", "epochs", "batch_size"):
        if not (isinstance(s[name], int) and s[name] >= 1):
            raise ValueError(f"setting {name} must be a positive integer, got {s[name]!r}")
    if not s["learning_rate"] > 0:
        raise ValueError(f"setting learning_rate must be > 0, got {s['learning_rate']!r}")
    members, noise, steps = [], [], 0
    for child in np.random.SeedSequence(seed).spawn(s["members"]):
        net, noise_variance, t = train(
            X, y, s["hidden"], s["epochs"], float(s["learning_rate"]), s["batch_size"], np.random.default_rng(child)
        )
        members.append(net)
        noise.append(noise_variance)
        steps += t
    return Ensemble(members, noise, steps)


if __name__ == "__main__":
    bm.serve(fit)
