"""The κ path: ``FisherDiscriminantCV`` against the equivalent ``GridSearchCV``, and
``separability_curve`` against ``separability_angle`` at each κ, in the same run.

Run from the repository root (the ``bench`` extra: threadpoolctl)::

    python benchmarks/bench_kappa_path.py                 # n = 80, p = 1000
    python benchmarks/bench_kappa_path.py --p 3000        # the issue's shape (minutes)

17 values of κ (1e-4 … 1e4 and ∞), 5 stratified folds, BLAS pinned to one thread.
Each candidate runs once after a warm-up on a small problem (these are seconds to
minutes each); the ratio ours / peer is printed (the issue's target for the CV:
≤ 0.5). Both searches are checked to choose the same κ with the same scores.
"""

import argparse
import os
import sys
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line, timed

from sklearn_linsep import (
    FisherDiscriminant,
    FisherDiscriminantCV,
    separability_angle,
    separability_curve,
)

SHIFT = 0.7


def data(n, p, shift, seed=0):
    """Two alternating classes of N(0, I_p) rows, the second moved by ``shift``
    along each of the first 10 features (bench_wide uses it too)."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p))
    y = np.arange(n) % 2
    X[:, :10] += shift * y[:, None]
    return X, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=80)
    parser.add_argument("--p", type=int, default=1000)
    args = parser.parse_args()
    kappas = [*np.logspace(-4, 4, 16), np.inf]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    print(f"# {machine_line()}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; BLAS 1 thread; "
          f"n = {args.n}, p = {args.p}, {len(kappas)} kappas, 5 folds")  # fmt: skip
    X, y = data(args.n, args.p, SHIFT)
    with threadpool_limits(1):
        small_X, small_y = data(40, 30, SHIFT)
        FisherDiscriminantCV(kappas=kappas, cv=cv).fit(small_X, small_y)  # warm-up
        ours_time, ours = timed(
            lambda: FisherDiscriminantCV(kappas=kappas, cv=cv).fit(X, y)
        )
        grid_time, grid = timed(
            lambda: GridSearchCV(FisherDiscriminant(), {"kappa": kappas}, cv=cv).fit(
                X, y
            )
        )
        same = ours.kappa_ == grid.best_params_["kappa"] and np.array_equal(
            ours.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"]
        )
        print(f"FisherDiscriminantCV {ours_time:8.2f} s   GridSearchCV {grid_time:8.2f} s"
              f"   ours / grid = {ours_time / grid_time:.3f} (target <= 0.5)   "
              f"same choice and scores: {same}")  # fmt: skip
        curve_time, curve = timed(lambda: separability_curve(X, y, kappas))
        each_time, each = timed(
            lambda: [separability_angle(X, y, kappa=k) for k in kappas]
        )
        print(f"separability_curve   {curve_time:8.2f} s   angle per kappa "
              f"{each_time:8.2f} s   ours / per kappa = {curve_time / each_time:.3f}"
              f"   equal: {np.array_equal(curve, each)}")  # fmt: skip


if __name__ == "__main__":
    main()
