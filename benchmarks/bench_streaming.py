"""``FisherDiscriminant.partial_fit`` one row at a time on wide data, against one
``fit`` of the same rows and scikit-learn's LDA fit, in the same run.

Run from the repository root::

    python benchmarks/bench_streaming.py                 # p = 300 and 1 000
    python benchmarks/bench_streaming.py --p 300 --rows 200 --repeats 5

Workload: ``--rows`` Gaussian rows of p features, two classes alternating, given to
``partial_fit`` one row per call, then one ``predict`` of all rows (the issue "The
house, part 2": 200 calls and a predict at p = 300 within 1 s). The answer is
checked: the streamed ``coef_`` against the fit's (largest difference relative to
the largest weight). Medians over ``--repeats``; BLAS at one thread.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line  # noqa: E402

from sklearn_linsep import FisherDiscriminant  # noqa: E402


def streamed(X, y):
    model = FisherDiscriminant()
    for i in range(len(y)):
        model.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    model.predict(X)
    return model


def timed(call, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine_line())
    print(f"{args.rows} one-row partial_fit calls and a predict; medians of "
          f"{args.repeats}; BLAS at 1 thread")  # fmt: skip
    print(f"{'p':>6} {'streamed s':>11} {'fit s':>8} {'LDA s':>8} "
          f"{'streamed/fit':>13} {'coef diff':>10}")  # fmt: skip
    rng = np.random.default_rng(0)
    streamed(rng.normal(size=(4, 3)), np.array([0, 1, 0, 1]))  # warm-up
    with threadpool_limits(1):
        for p in args.p:
            X = rng.normal(size=(args.rows, p))
            y = np.arange(args.rows) % 2
            X[y == 1, :5] += 1.0
            seconds, model = timed(lambda: streamed(X, y), args.repeats)
            fit_seconds, fit = timed(
                lambda: FisherDiscriminant().fit(X, y), args.repeats
            )
            lda_seconds, _ = timed(
                lambda: LinearDiscriminantAnalysis(solver="lsqr").fit(X, y),
                args.repeats,
            )
            diff = np.abs(model.coef_ - fit.coef_).max() / np.abs(fit.coef_).max()
            print(f"{p:>6} {seconds:>11.3f} {fit_seconds:>8.4f} {lda_seconds:>8.4f} "
                  f"{seconds / fit_seconds:>13.0f} {diff:>10.1e}")  # fmt: skip


if __name__ == "__main__":
    main()
