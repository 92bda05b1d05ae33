"""The fewest rows to remove for two classes to separate: ``minimum_error_separation``
against HiGHS's big-M MIP and the pocket perceptron, in the same run.

Run from the repository root (the ``bench`` extra)::

    python benchmarks/bench_min_error.py                 # about 12 minutes
    python benchmarks/bench_min_error.py --seconds 20    # shorter limits

One BLAS thread (threadpoolctl). Parts:

1. **Small cases**: the iris and wine pairs (raw and standardised) and 50 random
   cases (n = 20-40, p = 2-4, labels with noise): proven optimal or not, time.
2. **Wisconsin and BUPA, standardised** (the bundled UCI files): our bounds within
   ``--seconds`` (120 by default), against

   - HiGHS's branch and bound on the big-M MIP (``scipy.optimize.milp``, the same
     limit): ``min Σ z`` s.t. ``c_i (w·x_i + b) ≥ 1 - M_i z_i``, ``|w_j|, |b| ≤ B``
     and ``M_i = 1 + B (Σ_j |x_ij| + 1)``, with ``B = --big-m-bound``. Its
     incumbent is an upper bound; its dual bound is a lower bound only of the
     bounded problem (a smaller ``B`` cuts hyperplanes off), so it is printed, not
     trusted;
   - ``PocketPerceptron`` (5 seeds, 1 000 epochs): the errors of its hyperplane, an
     upper bound.

The gap of each method is ``upper - lower``.
"""

import argparse
import os
import sys
import time
import warnings
from itertools import combinations

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import print_machine  # noqa: E402


def big_m_mip(X, c, seconds, bound):
    """HiGHS on the big-M MIP: ``(incumbent, dual bound, seconds)``."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n, p = X.shape
    big_m = 1.0 + bound * (np.abs(X).sum(axis=1) + 1.0)
    # columns: w (p), b, z (n)
    A = np.hstack([c[:, None] * X, c[:, None], np.diag(big_m)])
    cost = np.concatenate([np.zeros(p + 1), np.ones(n)])
    lower = np.concatenate([np.full(p + 1, -bound), np.zeros(n)])
    upper = np.concatenate([np.full(p + 1, bound), np.ones(n)])
    integrality = np.concatenate([np.zeros(p + 1), np.ones(n)])
    start = time.perf_counter()
    result = milp(
        cost,
        constraints=LinearConstraint(A, 1.0, np.inf),
        integrality=integrality,
        bounds=Bounds(lower, upper),
        options={"time_limit": seconds},
    )
    elapsed = time.perf_counter() - start
    incumbent = None if result.x is None else int(round(result.fun))
    dual = getattr(result, "mip_dual_bound", np.nan)
    return incumbent, dual, elapsed


def pocket_errors(X, y, seeds=5):
    from sklearn_linsep import PocketPerceptron

    errors = []
    for seed in range(seeds):
        model = PocketPerceptron(max_iter=1000, random_state=seed, shuffle=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        errors.append(int(np.sum(model.predict(X) != y)))
    return errors


def small_cases():
    from sklearn.datasets import load_iris, load_wine
    from sklearn.preprocessing import StandardScaler

    from sklearn_linsep import minimum_error_separation

    print("## Small cases: proven optimal?")
    for name, load in (("iris", load_iris), ("wine", load_wine)):
        X, y = load(return_X_y=True)
        for standardize in (False, True):
            Z = StandardScaler().fit_transform(X) if standardize else X
            for a, b in combinations(np.unique(y), 2):
                pair = (y == a) | (y == b)
                start = time.perf_counter()
                result = minimum_error_separation(Z[pair], y[pair])
                print(
                    f"   {name} {a} vs {b} {'std' if standardize else 'raw'}: "
                    f"{result.upper_bound} rows, optimal {result.optimal}, "
                    f"{time.perf_counter() - start:.2f} s"
                )
    times, proven = [], 0
    for seed in range(50):
        rng = np.random.default_rng(seed)
        n, p = rng.integers(20, 41), rng.integers(2, 5)
        X = rng.normal(size=(n, p))
        y = (X @ rng.normal(size=p) + rng.normal(size=n) > 0).astype(int)
        start = time.perf_counter()
        result = minimum_error_separation(X, y, time_limit=60)
        times.append(time.perf_counter() - start)
        proven += result.optimal
    print(
        f"   50 random cases (n 20-40, p 2-4): {proven} proven optimal; median "
        f"{np.median(times):.2f} s, slowest {max(times):.2f} s"
    )


def large_cases(seconds, bound):
    from sklearn.preprocessing import StandardScaler

    from sklearn_linsep import (
        load_breast_cancer_wisconsin,
        load_bupa_liver,
        minimum_error_separation,
    )

    print(f"\n## Wisconsin and BUPA, standardised, {seconds:g} s each")
    for name, load in (
        ("Wisconsin", load_breast_cancer_wisconsin),
        ("BUPA", load_bupa_liver),
    ):
        X, y = load(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        c = np.where(y == np.unique(y)[1], 1.0, -1.0)
        start = time.perf_counter()
        ours = minimum_error_separation(X, y, time_limit=seconds)
        elapsed = time.perf_counter() - start
        incumbent, dual, mip_seconds = big_m_mip(X, c, seconds, bound)
        pocket = pocket_errors(X, y)
        print(f"   {name} ({len(y)} rows, {X.shape[1]} features):")
        print(
            f"     ours        : lower {ours.lower_bound}, upper {ours.upper_bound} "
            f"(gap {ours.upper_bound - ours.lower_bound}), optimal {ours.optimal}, "
            f"{ours.n_certificates} certificates, {ours.rounds} MIPs, "
            f"{elapsed:.1f} s"
        )
        print(
            f"     big-M MIP   : incumbent {incumbent}, dual bound {dual:.2f} "
            f"(of |w|, |b| <= {bound:g}), {mip_seconds:.1f} s"
        )
        print(f"     pocket      : errors {pocket} (5 seeds)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--big-m-bound", type=float, default=1e3)
    parser.add_argument("--only", choices=["small", "large"])
    args = parser.parse_args()
    import scipy
    from threadpoolctl import threadpool_limits

    print_machine(versions=[f"scipy {scipy.__version__}"])
    with threadpool_limits(1):
        if args.only in (None, "small"):
            small_cases()
        if args.only in (None, "large"):
            large_cases(args.seconds, args.big_m_bound)


if __name__ == "__main__":
    main()
