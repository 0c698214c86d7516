# Bayesian ridge regression with a Gaussian predictive: the README's external-method example.
# Spec: options = { command = ["python3", "readme_example.py"], settings = { alpha = 1.0 } }
import numpy as np
import bnnbench_method as bm

class Ridge:
    def __init__(self, X, y, alpha):
        D = np.column_stack([np.ones(len(X)), X])              # intercept and inputs
        self.A = D.T @ D + alpha * np.eye(D.shape[1])           # posterior precision / noise precision
        self.w = np.linalg.solve(self.A, D.T @ y)               # posterior mean of the weights
        self.noise = np.mean((y - D @ self.w) ** 2)             # noise variance, plugged in
        self.diagnostics = {"noise_variance": self.noise}       # optional: stored with the job

    def predict(self, X):
        D = np.column_stack([np.ones(len(X)), X])
        leverage = np.sum(D * np.linalg.solve(self.A, D.T).T, axis=1)
        return bm.Gaussian(mean=D @ self.w, variance=self.noise * (1.0 + leverage))

def fit(X, y, seed, settings):                                  # X (n, d), y (n,): normalized
    return Ridge(X, y, settings.get("alpha", 1.0))

bm.serve(fit)
