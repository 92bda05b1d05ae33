"""Calibrate the soft limit's cost model (``sklearn_linsep._margin._solvers._cost``).

The soft limit chooses between two exact routes: rounds of the least-hinge LP
on a growing working set, and an interior point over every row. The model
prices both in seconds from three constants, fitted here by least squares on
one BLAS thread (CI's machines have 2 cores; the model's answer only picks the
faster route, never the result)::

    python benchmarks/calibrate_soft.py

* ``PASS_SECONDS``: one pass over the rows (margins of every row), per entry n·p;
* ``GRAM_SECONDS``, ``IPM_PASS_SECONDS``, ``IPM_STEP_SECONDS``: one iteration
  of the interior point, per entry n·(p + 1)² (its weighted Gram pass), per
  entry n·p (its products, and the centring where Z is not kept) and per
  iteration (Python);
* ``LP_SECONDS``, ``LP_SQUARE_SECONDS``, ``LP_ROW_SECONDS``,
  ``LP_CALL_SECONDS``: HiGHS's dual simplex on the least-hinge LP of w rows,
  per w·(p + 1)², w²·(p + 1), w·(p + 1) and call.
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_linsep._margin._solvers import least_hinge_ipm, total_hinge_lp
from sklearn_linsep._rows._memory_two_class import ScaledRows


def median_time(func, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def noisy_rows(n, p, flip, seed=0):
    """Rows of N(0, I) labelled by a random plane, a fraction ``flip`` flipped."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    c = np.sign(X @ rng.standard_normal(p) + 1e-300)
    c[rng.random(n) < flip] *= -1
    return X, c


def passes():
    rows = []
    for n, p in [(100_000, 20), (1_000_000, 20), (100_000, 100), (50_000, 768)]:
        X, c = noisy_rows(n, p, 0.0)
        two_class = ScaledRows(X, c)
        w = np.ones(p)
        rows.append((n * p, median_time(lambda: two_class.margins(w, 0.0))))
    return rows


def ipm_iterations():
    rows = []
    for n, p in [
        (200, 5),
        (100_000, 20),
        (1_000_000, 20),
        (100_000, 100),
        (20_000, 768),
    ]:
        X, c = noisy_rows(n, p, 0.1)
        two_class = ScaledRows(X, c)
        two_class.keep_centred()

        def run(two_class=two_class, c=c, n=n):
            return least_hinge_ipm(
                gram=two_class.augmented_gram,
                combine=lambda v: two_class.augmented_sum(v * c),
                products=lambda y: c * two_class.scores(y[:-1], y[-1]),
                upper=np.ones(n),
                max_iter=3,
            )

        run()  # the centred blocks, kept when they fit
        rows.append((n * p, n * (p + 1) ** 2, median_time(run) / 3))
    return rows


def lps():
    rows = []
    shapes = [(w, p) for w in (300, 1000, 3000, 10_000) for p in (10, 20, 50, 100, 300)]
    for w, p in shapes + [(1000, 500), (1000, 768), (2000, 768)]:
        if w * (p + 1) ** 2 > 1.2e9:
            continue
        X, c = noisy_rows(w, p, 0.05, seed=w + p)
        seconds = median_time(lambda: total_hinge_lp(X, c), repeats=1)
        rows.append((w, p, seconds))
    return rows


def main():
    with threadpool_limits(1):
        pass_rows = passes()
        per_pass = np.median([t / e for e, t in pass_rows])
        print("passes (n·p, s):", pass_rows, f"\nPASS_SECONDS = {per_pass:.2e}")
        ipm_rows = ipm_iterations()
        for entries, gram_entries, seconds in ipm_rows:
            print(f"  IPM iteration: n·p {entries:.1e}, n(p+1)² {gram_entries:.1e}: "
                  f"{seconds:.3f} s")  # fmt: skip
        A = np.array([[g, e, 1.0] for e, g, _ in ipm_rows])
        t = np.array([s for *_, s in ipm_rows])
        fit, *_ = np.linalg.lstsq(A / t[:, None], np.ones(len(t)))
        print(
            "GRAM_SECONDS = {:.2e}, IPM_PASS_SECONDS = {:.2e}, "
            "IPM_STEP_SECONDS = {:.2e}".format(*fit)
        )
        lp_rows = lps()
        A = np.array(
            [
                [w * (p + 1) ** 2, w**2 * (p + 1), w * (p + 1), 1.0]
                for w, p, _ in lp_rows
            ]
        )
        t = np.array([s for _, _, s in lp_rows])
        # relative least squares: every shape counts alike
        fit, *_ = np.linalg.lstsq(A / t[:, None], np.ones(len(t)))
        for (w, p, seconds), model in zip(lp_rows, A @ fit):
            print(f"  LP {w:>6} x {p:>4}: {seconds:8.4f} s, model {model:8.4f} s")
        print(
            "LP_SECONDS = {:.2e}, LP_SQUARE_SECONDS = {:.2e}, LP_ROW_SECONDS = {:.2e},"
            " LP_CALL_SECONDS = {:.2e}".format(*fit)
        )


if __name__ == "__main__":
    sys.exit(main())
