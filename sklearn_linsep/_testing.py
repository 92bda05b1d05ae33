"""Independent references for the tests (as ``sklearn/utils/_testing.py``): each
solves the whole problem at once with a general solver, none of the package's own
algorithms. cvxpy is a test dependency, imported only when a reference is called.
"""

import functools

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
    """``(least, w, b)``: the least (weighted) total hinge, by one LP (HiGHS, a
    vertex, exact to rounding): its dual, ``max Σ α`` over ``0 ≤ α ≤ weights``
    with ``Σ α_i c_i (x_i, 1) = 0``, p + 1 rows however many samples (the
    primal's n rows and n + p + 1 columns took twice as long at 2 000 x 260);
    ``(w, b)`` the primal's, its equalities' multipliers. From 100 features
    HiGHS's interior point with its crossover to a vertex (1 500 x 260: 1.3 s
    against the dual simplex's 2.8 s; below, the simplex is the faster)."""
    n, p = X.shape
    weights = np.ones(n) if sample_weight is None else np.asarray(sample_weight)
    signed = c[:, None] * np.hstack([X, np.ones((n, 1))])
    lp = linprog(
        -np.ones(n),
        A_eq=signed.T,
        b_eq=np.zeros(p + 1),
        bounds=np.column_stack([np.zeros(n), weights]),
        method="highs-ipm" if p >= 100 else "highs-ds",
    )
    assert lp.status == 0, lp.message
    machine = -lp.eqlin.marginals
    return -lp.fun, machine[:p], machine[p]


def reference_soft_limit(X, c, sample_weight=None):
    """``(w, b, least)`` of the C → ∞ limit: the least total hinge (weighted by
    ``sample_weight``) by one LP on all the rows (:func:`least_total_hinge`,
    exact to rounding), then the largest margin at that total in cvxpy, over ``v = s w``
    with ``s`` the features' spreads (the same problem; Clarabel took 2.0 s
    against 0.6 s where five features are 1e4 apart from the others)."""
    import cvxpy as cp

    n, p = X.shape
    weights = np.ones(n) if sample_weight is None else np.asarray(sample_weight)
    least = least_total_hinge(X, c, weights)[0]
    spread = X.std(axis=0)
    spread[spread == 0] = 1.0
    v, b = cp.Variable(p), cp.Variable()
    hinge = weights @ cp.pos(1 - cp.multiply(c, (X / spread) @ v + b))
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(cp.multiply(1 / spread, v))),
        [hinge <= least * (1 + 1e-12) + 1e-12],
    )
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12)
    return v.value / spread, float(b.value), least


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


def filed_twice(n, p, n_classes, sparse=False, seed=0, copies=3):
    """Issue 56's bad input: ``n_classes`` classes of shifted Gaussians (sparse:
    nonnegative, a tenth of the entries kept, CSR), ``copies`` rows copied under
    another label (a document filed twice)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = 2 * rng.normal(size=(n_classes, p))[y] + rng.normal(size=(n, p))
    if sparse:
        X = np.where(rng.random((n, p)) < 0.1, np.abs(X), 0.0)
    for i, j in rng.choice(n, (copies, 2), replace=False):
        X[j], y[j] = X[i], (y[i] + 1) % n_classes
    return (sp.csr_matrix(X) if sparse else X), y


def facet_case(separable, n=2_000, p=50, gap=2.0**-44, seed=1, n_classes=2):
    """``(X, y)``: near-touching at scale. Two classes 2 apart along a random
    unit normal, then ``p`` rows of class 0 on a facet and one row of class 1
    ``gap`` beyond (``separable``) or short of its centre; with ``n_classes``
    3, a third class of ``n // 10`` rows 40 away along another direction."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=p)
    w /= np.linalg.norm(w)
    X = rng.normal(size=(n, p))
    X += np.outer(np.where(X @ w > 0, 1.0, -1.0), w)
    y = (X @ w > 0).astype(int)
    facet = rng.normal(size=(p, p))
    facet -= np.outer(facet @ w, w)
    point = facet.mean(0) + (gap if separable else -gap) * w
    X, y = np.vstack([X, facet, point]), np.r_[y, np.zeros(p, int), 1]
    if n_classes == 3:
        away = rng.normal(size=p)
        away -= (away @ w) * w
        third = rng.normal(size=(n // 10, p)) + 40 * away / np.linalg.norm(away)
        X, y = np.vstack([X, third]), np.r_[y, np.full(n // 10, 2)]
    return X, y


def far_apart_case(seed, n=46, p=10, n_classes=20):
    """``(X, y)``: jointly separable by construction (the labels are a random
    linear machine's argmax, so some of the ``n_classes`` may not occur),
    each feature then times 10^-6, 10^-3, 1, 10^3 or 10^6: the Crammer–Singer
    margin in X's units turns on the small features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.argmax(X @ rng.normal(size=(n_classes, p)).T, axis=1)
    return X * 10.0 ** rng.choice([-6, -3, 0, 3, 6], size=p), y


def near_touching_case(seed):
    """``(X, y, n_classes)``: one case of the near-touching corpus (issue "Exact to
    the last bit"), float64 rows whose classes are separable or inseparable by a
    hair, or touch exactly.

    Dyadic coordinates on a small grid; two classes split by a random hyperplane
    with a gap of ±2^-k of the spread (k from 26 to 44: 1e-8 to 1e-13), or a
    shared point, or a point on the other class's facet; K = 3 "pinwheels" (each
    class a wedge around the origin, one row moved across a boundary by the
    gap); each feature then scaled by 2^s (|s| ≤ 20) and offset by up to 2^30
    spreads. The truth is the float64 array returned, whatever the rounding of
    the offsets made of the gap.
    """
    rng = np.random.default_rng(seed)
    p = int(rng.integers(1, 6))
    n = int(rng.integers(6, 41))
    gap = float(rng.choice([-1.0, 1.0])) * 2.0 ** -int(rng.integers(26, 45))
    family = int(rng.integers(0, 4))
    X = rng.integers(-8, 9, size=(n, p)) / 8.0
    if family == 3:  # K = 3 pinwheel
        angle = np.arctan2(X[:, min(1, p - 1)], X[:, 0] + 1e-3)
        y = np.digitize(angle, [-np.pi / 3, np.pi / 3])
        y[:3] = [0, 1, 2]
        X[0, 0] += gap  # one row nudged across or away by a hair
        n_classes = 3
    else:
        w = rng.integers(-3, 4, size=p).astype(float)
        w[0] = 1.0  # a move along feature 0 moves the score by as much, exactly
        scores = X @ w
        threshold = np.sort(scores)[n // 2]  # a row's own score: touching
        y = (scores > threshold).astype(int)
        y[np.argmin(scores)], y[np.argmax(scores)] = 0, 1
        ones = np.flatnonzero(y == 1)
        if family == 1:  # a shared point of both classes
            X[ones[0]] = X[np.argmin(scores)]
        elif family == 2:  # a row of class 1 on class 0's side by the gap
            X[ones[0], 0] -= scores[ones[0]] - threshold + gap
        else:  # the classes a gap apart along w
            X[ones, 0] += threshold - scores[ones].min() + gap
        n_classes = 2
    scales = 2.0 ** rng.integers(-20, 21, size=p)
    offsets = rng.integers(-(2**30), 2**30, size=p) * scales * rng.integers(0, 2)
    return X * scales + offsets, y, n_classes


def exactly_separates(X, y, coef, intercept):
    """Whether ``c_i (w·x_i + b) > 0`` on every row, in rationals (two classes:
    ``y`` of 0 and 1; K classes: ``coef`` K × p, every pair margin > 0). The
    scores are one product of FLINT's rational matrices."""
    from flint import fmpq_mat

    from ._exact._numbers import as_fmpq

    X = np.asarray(X, float)
    W = np.atleast_2d(np.asarray(coef, dtype=object))
    b = np.ravel(np.asarray(intercept, dtype=object))
    products = _rational_matrix(X) * fmpq_mat(
        W.shape[1], W.shape[0], [as_fmpq(v) for v in W.T.ravel()]
    )
    intercepts = [as_fmpq(value) for value in b]
    y = np.asarray(y)
    for i in range(X.shape[0]):
        scores = [products[i, k] + intercepts[k] for k in range(W.shape[0])]
        if W.shape[0] == 1:
            if (1 if y[i] == 1 else -1) * scores[0] <= 0:
                return False
        elif any(scores[y[i]] <= scores[k] for k in range(W.shape[0]) if k != y[i]):
            return False
    return True


def _rational_matrix(X):
    """A float64 array as FLINT's rational matrix, exactly."""
    from flint import fmpq, fmpq_mat

    entries = [fmpq(*value.as_integer_ratio()) for value in X.ravel().tolist()]
    return fmpq_mat(X.shape[0], X.shape[1], entries)


def exactly_balances(X, y, indices, weights, others=None):
    """Whether the certificate's weights hold in rationals: two classes, ``λ ≥ 0``
    whose normalised combinations of each class coincide; K classes (``others``
    given), ``μ ≥ 0`` on pairs with ``Σ μ (e_own - e_other) ⊗ (x, 1) = 0``."""
    from fractions import Fraction

    if weights is None:  # none were found: no proof
        return False
    weights = [Fraction(w) for w in weights]
    if any(w < 0 for w in weights) or not any(weights):
        return False
    rows = [[Fraction(float(v)) for v in np.asarray(X, float)[i]] + [Fraction(1)]
            for i in indices]  # fmt: skip
    labels = [int(y[i]) for i in indices]
    if others is None:
        sides = {}
        for x, label, w in zip(rows, labels, weights):
            total, point = sides.get(label, (Fraction(0), [Fraction(0)] * len(x)))
            sides[label] = (total + w, [a + w * v for a, v in zip(point, x)])
        if len(sides) != 2 or any(total == 0 for total, _ in sides.values()):
            return False
        (t0, p0), (t1, p1) = sides.values()
        return all(a / t0 == b / t1 for a, b in zip(p0, p1))
    n_classes = int(max(max(labels), max(others))) + 1
    balance = [[Fraction(0)] * len(rows[0]) for _ in range(n_classes)]
    for x, own, other, w in zip(rows, labels, others, weights):
        for f, v in enumerate(x):
            balance[own][f] += w * v
            balance[other][f] -= w * v
    return all(v == 0 for row in balance for v in row)


def exact_mean_in_range(X, y, a, b):
    """The referee of the class-mean distance: whether d = m_b - m_a lies in
    the range of the pooled scatter S = Σ (AᵀA - n mᵀm) of classes a and b (A a
    class's rows, n their count, m their mean), by FLINT's exact ranks of S and
    of ``[S; d]``: equal ranks, d in the range (a finite distance). S = CᵀC for
    the centred rows C, whose row space is S's."""
    from flint import fmpq_mat

    X = np.asarray(X, float)
    y = np.asarray(y)
    parts = [_class_moments(X[y == label].tobytes(), X.shape[1]) for label in (a, b)]
    scatter = sum((gram - total.transpose() * total / count
                   for count, total, gram in parts), fmpq_mat(X.shape[1], X.shape[1]))  # fmt: skip
    d = parts[1][1] / parts[1][0] - parts[0][1] / parts[0][0]
    p = X.shape[1]
    stacked = fmpq_mat(p + 1, p, [*(scatter[i, j] for i in range(p) for j in range(p)),
                                  *(d[0, j] for j in range(p))])  # fmt: skip
    return stacked.rank() == scatter.rank()


@functools.lru_cache(maxsize=64)
def _class_moments(rows, p):
    """``(n, 1ᵀA, AᵀA)`` in rationals of the rows A (float64 bytes, p columns):
    each class is read once for all the pairs it is in."""
    from flint import fmpq_mat

    A = _rational_matrix(np.frombuffer(rows).reshape(-1, p))
    return A.nrows(), fmpq_mat(1, A.nrows(), [1] * A.nrows()) * A, A.transpose() * A


def write_table_files(folder, data, kind, count=3):
    """A pandas DataFrame ``data`` cut into ``count`` files of ``kind`` ("csv" or
    "parquet", ``part00``, ``part01``, ...) in ``folder`` (made here): a table of
    several files for ``linsep report DIR``."""
    folder.mkdir()
    for k, rows in enumerate(np.array_split(np.arange(len(data)), count)):
        part = data.iloc[rows]
        if kind == "parquet":
            part.to_parquet(folder / f"part{k:02d}.parquet", index=False)
        else:
            part.to_csv(folder / f"part{k:02d}.csv", index=False)
    return folder
