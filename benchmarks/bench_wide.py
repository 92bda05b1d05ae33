"""Wide data (p ≫ n): the statistics family in the span of the samples.

Run from the repository root (the ``bench`` extra: threadpoolctl)::

    python benchmarks/bench_wide.py                # n = 50, p = 1e5, and the square path
    python benchmarks/bench_wide.py --report       # also linsep report on 40 × 10 000

Prints, with BLAS pinned to one thread and medians of ``--repeat`` runs:

* ``FisherDiscriminant().fit`` plus ``separability_statistics`` at (n, p) against one
  ``X @ X.T`` in the same run (the issue's target: within 10×), and the peak memory
  the pair allocates (tracemalloc) against the size of X (target: ≤ 4×);
* the same pair on the (p, p) path (``ROWS_FROM_FEATURES`` raised) at (40, 4000),
  where both run, with the ratio of the two and their largest relative difference;
* with ``--report``, ``linsep report`` on a 40 × 10 000 CSV with ``--cv 2``
  (target: under 60 s).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line, median_seconds, traced_peak
from bench_kappa_path import data

from sklearn_linsep import FisherDiscriminant, _pass_plan, separability_statistics

SHIFT = 1.0  # bench_kappa_path's classes are closer (0.7)


def fit_and_angle(X, y):
    clf = FisherDiscriminant().fit(X, y)
    return clf, separability_statistics(X, y)


def wide_against_gram(n, p, repeat):
    X, y = data(n, p, SHIFT)
    fit_and_angle(X[:, :2000], y)  # warm-up: imports
    gram, _ = median_seconds(lambda: X @ X.T, repeat)
    ours, _ = median_seconds(fit_and_angle, repeat, X, y)
    peak = traced_peak(fit_and_angle, X, y)
    print(f"fit + separability_statistics at ({n}, {p}): {ours * 1e3:.1f} ms; "
          f"X @ X.T {gram * 1e3:.1f} ms; ratio {ours / gram:.1f} (target <= 10)")  # fmt: skip
    print(f"  peak memory allocated {peak / 2**20:.0f} MiB = {peak / X.nbytes:.2f} x "
          f"the size of X (target <= 4)")  # fmt: skip


def wide_against_square(n, p, repeat):
    X, y = data(n, p, SHIFT)
    wide, _ = median_seconds(fit_and_angle, repeat, X, y)
    clf_wide, angle_wide = fit_and_angle(X, y)
    saved = _pass_plan.ROWS_FROM_FEATURES
    _pass_plan.ROWS_FROM_FEATURES = 10**9
    try:
        square, _ = median_seconds(fit_and_angle, max(1, repeat // 3), X, y)
        clf_square, angle_square = fit_and_angle(X, y)
        peak = traced_peak(fit_and_angle, X, y)
    finally:
        _pass_plan.ROWS_FROM_FEATURES = saved
    peak_wide = traced_peak(fit_and_angle, X, y)
    difference = np.linalg.norm(clf_wide.coef_ - clf_square.coef_) / np.linalg.norm(
        clf_square.coef_
    )
    print(f"({n}, {p}): span of the samples {wide * 1e3:.1f} ms, {peak_wide / 2**20:.0f} "
          f"MiB; (p, p) path {square * 1e3:.0f} ms, {peak / 2**20:.0f} MiB; ratio "
          f"{wide / square:.4f}")  # fmt: skip
    print(f"  largest relative difference: coef_ {difference:.1e}, theta "
          f"{abs(angle_wide.angle - angle_square.angle) / angle_square.angle:.1e}")  # fmt: skip


def report(repeat):
    X, y = data(40, 10_000, SHIFT)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "wide.csv")
        header = ",".join([f"g{j}" for j in range(X.shape[1])] + ["target"])
        np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header,
                   comments="", fmt="%.17g")  # fmt: skip
        command = [sys.executable, "-m", "sklearn_linsep", "report", path,
                   "--target", "target", "--cv", "2", "--quiet"]  # fmt: skip
        seconds, _ = median_seconds(
            lambda: subprocess.run(command, check=True, capture_output=True), repeat
        )
    print(f"linsep report, 40 x 10000 CSV, --cv 2: {seconds:.2f} s (target < 60 s)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--p", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    print(f"# {machine_line()}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; BLAS 1 thread")
    with threadpool_limits(1):
        wide_against_gram(args.n, args.p, args.repeat)
        wide_against_square(40, 4000, args.repeat)
    if args.report:
        report(3)


if __name__ == "__main__":
    main()
