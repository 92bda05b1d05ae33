"""Independent references for the tests (as ``sklearn/utils/_testing.py``): each
solves the whole problem at once with a general solver, none of the package's own
algorithms. cvxpy is a test dependency, imported only when a reference is called.
"""

import numpy as np
from scipy.optimize import linprog


def separable_by_one_lp(X, c):
    """Whether ``c_i (w·x_i + b) ≥ 1`` is feasible: one HiGHS LP on all the rows."""
    rows = -np.column_stack([c[:, None] * X, c])
    result = linprog(
        np.zeros(rows.shape[1]),
        A_ub=rows,
        b_ub=-np.ones(len(c)),
        bounds=[(None, None)] * rows.shape[1],
        method="highs",
    )
    assert result.status in (0, 2), result.message
    return result.status == 0


def reference_margin_qp(X, c):
    """``(status, w, b)`` of the whole hard-margin QP in cvxpy (Clarabel at 1e-12)."""
    import cvxpy as cp

    w, b = cp.Variable(X.shape[1]), cp.Variable()
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w)), [cp.multiply(c, X @ w + b) >= 1]
    )
    problem.solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12
    )
    return problem.status, w.value, None if b.value is None else float(b.value)


def least_total_hinge(X, c, sample_weight=None):
    """``(least, w, b)``: the least (weighted) total hinge, by one LP on all the
    rows (HiGHS's simplex, exact to rounding)."""
    n, p = X.shape
    weights = np.ones(n) if sample_weight is None else np.asarray(sample_weight)
    rows = np.hstack([-(c[:, None] * X), -c[:, None], -np.eye(n)])
    lp = linprog(
        np.r_[np.zeros(p + 1), weights],
        A_ub=rows,
        b_ub=-np.ones(n),
        bounds=[(None, None)] * (p + 1) + [(0, None)] * n,
        method="highs-ds",
    )
    assert lp.status == 0, lp.message
    return lp.fun, lp.x[:p], lp.x[p]


def reference_soft_limit(X, c, sample_weight=None):
    """``(w, b, least)`` of the C → ∞ limit: the least total hinge (weighted by
    ``sample_weight``) by one LP on all the rows (HiGHS's simplex, exact to
    rounding), then the largest margin at that total in cvxpy."""
    import cvxpy as cp

    n, p = X.shape
    weights = np.ones(n) if sample_weight is None else np.asarray(sample_weight)
    least = least_total_hinge(X, c, weights)[0]
    w, b = cp.Variable(p), cp.Variable()
    hinge = weights @ cp.pos(1 - cp.multiply(c, X @ w + b))
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w)), [hinge <= least * (1 + 1e-12) + 1e-12]
    )
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12)
    return w.value, float(b.value), least


# --- helpers of several test modules ---


def random_chunks(rng, y, mode):
    """Row indices of the chunks: one row each, sorted by class (so most chunks
    hold one class only), or cut at random; always in a random order."""
    n = len(y)
    if mode == "one row":
        chunks = [np.array([i]) for i in range(n)]
    elif mode == "by class":
        chunks = np.array_split(np.argsort(y, kind="stable"), rng.randint(1, n + 1))
    else:
        cuts = rng.choice(np.arange(1, n), size=rng.randint(0, n - 1), replace=False)
        chunks = np.split(np.arange(n), np.sort(cuts))
    chunks = [chunk for chunk in chunks if chunk.size]
    rng.shuffle(chunks)
    return chunks


def assert_close(actual, expected, rtol=1e-10):
    """Equal to ``rtol`` relative to the largest entry of ``expected``."""
    expected = np.asarray(expected)
    np.testing.assert_allclose(
        actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max()
    )


def iris_setosa(nudged=False):
    """SPEC §6: setosa against the rest on sepal length and width; ``nudged``
    moves the versicolor point (4.5, 2.3) to (4.5, 2.8)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = X[:, :2].copy()
    if nudged:
        X[(X[:, 0] == 4.5) & (X[:, 1] == 2.3), 1] = 2.8
    return X, (y == 0).astype(int)


def two_gaussians(n=100, p=4, shift=1.5, seed=0):
    """Two classes of ``n // 2`` rows, correlated Gaussian features (a random
    mixing matrix), the second class shifted by ``shift`` in every feature; labels
    alternate 0, 1, 0, ..."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p))
    y = np.arange(n) % 2
    X[y == 1] += shift
    return X, y
