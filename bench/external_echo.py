# bench_external's program: answers every point set with N(0, 1) at once, so that a run's time
# is the protocol's own (start-up, reading the arrays, writing the answer).
import numpy as np

import bnnbench_method as bm


def fit(X, y, seed, settings):
    return lambda Xs: bm.Gaussian(np.zeros(len(Xs)), np.ones(len(Xs)))


bm.serve(fit)
