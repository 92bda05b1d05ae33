"""minimum_error_separation (``_margin/_min_error.py``): the fewest rows to remove,
against a brute force on small data and on the real data sets' pairs."""

from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_linsep import (
    MinimumErrorResult,
    linear_separability,
    minimum_error_separation,
)


def _separable_by_lp(X, c):
    """An independent verdict: is ``c_i (w·x_i + b) ≥ 1`` feasible (HiGHS)?"""
    if np.unique(c).size < 2:
        return True
    n, p = X.shape
    A = -c[:, None] * np.column_stack([X, np.ones(n)])
    result = linprog(
        np.zeros(p + 1), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * (p + 1)
    )
    return result.status == 0


def _brute_force(X, y):
    """The fewest rows to remove, by trying every subset of each size."""
    c = np.where(y == np.unique(y)[1], 1.0, -1.0)
    n = len(y)
    for k in range(n + 1):
        for removed in combinations(range(n), k):
            keep = np.setdiff1d(np.arange(n), removed)
            if _separable_by_lp(X[keep], c[keep]):
                return k
    raise AssertionError("unreachable: one row left always separates")


def _check_removal(result, X, y):
    """The removal leaves rows that separate, by the hyperplane given."""
    keep = np.setdiff1d(np.arange(len(y)), result.removed)
    assert result.removed.size == result.upper_bound
    c = np.where(y[keep] == result.classes[1], 1.0, -1.0)
    margins = c * (X[keep] @ result.coef + result.intercept)
    assert np.all(margins >= 1 - 1e-7)
    if np.unique(y[keep]).size == 2:
        assert linear_separability(X[keep], y[keep]).separable


@pytest.mark.parametrize("seed", range(30))
def test_equals_the_brute_force_on_small_data(seed):
    rng = np.random.default_rng(seed)
    n, p = rng.integers(6, 12), rng.integers(1, 4)
    X = rng.normal(size=(n, p))
    y = (X @ rng.normal(size=p) + rng.normal(scale=1.0, size=n) > 0).astype(int)
    if np.unique(y).size < 2:
        y[0] = 1 - y[0]
    result = minimum_error_separation(X, y, time_limit=60)
    assert result.optimal and result.stopped_by == "optimal"
    assert result.lower_bound == result.upper_bound == _brute_force(X, y)
    _check_removal(result, X, y)


def test_separable_data_need_no_removal():
    X, y = load_iris(return_X_y=True)
    result = minimum_error_separation(X[y < 2], y[y < 2])
    assert (result.lower_bound, result.upper_bound, result.optimal) == (0, 0, True)
    assert result.removed.size == 0 and result.n_certificates == 0
    _check_removal(result, X[y < 2], y[y < 2])


@pytest.mark.parametrize("load", [load_iris, load_wine])
@pytest.mark.parametrize("standardize", [False, True])
def test_every_pair_of_the_bundled_data_is_proved(load, standardize):
    X, y = load(return_X_y=True)
    if standardize:
        X = StandardScaler().fit_transform(X)
    for a, b in combinations(np.unique(y), 2):
        pair = (y == a) | (y == b)
        result = minimum_error_separation(X[pair], y[pair], time_limit=60)
        assert result.optimal
        expected = 1 if (load is load_iris and (a, b) == (1, 2)) else 0
        assert result.upper_bound == expected
        _check_removal(result, X[pair], y[pair])


def test_the_count_ignores_affine_maps_and_row_order():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=40) > 0).astype(int)
    base = minimum_error_separation(X, y, effort=None)
    assert base.optimal
    A = np.array([[1e4, 0, 0], [3.0, 1e-3, 0], [0, 2.0, 5.0]])
    mapped = minimum_error_separation(X @ A.T + 1e3, y, effort=None)
    order = rng.permutation(40)
    shuffled = minimum_error_separation(X[order], 5 * y[order] + 2, effort=None)
    assert mapped.optimal and shuffled.optimal
    assert mapped.upper_bound == shuffled.upper_bound == base.upper_bound
    np.testing.assert_array_equal(shuffled.classes, [2, 7])


def test_an_effort_limit_stops_alike_on_every_run():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    first = minimum_error_separation(X, y, effort=1)
    second = minimum_error_separation(X, y, effort=1)
    assert first.rounds <= 1 and first.lower_bound <= first.upper_bound
    assert (first.lower_bound, first.upper_bound) == (
        second.lower_bound,
        second.upper_bound,
    )
    np.testing.assert_array_equal(first.removed, second.removed)
    _check_removal(first, X, y)
    if not first.optimal:
        assert first.stopped_by == "effort"
        assert "to" in repr(first) and "effort" in repr(first)


def test_bad_input_gets_a_clear_error():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="one class|1 class|2 classes"):
        minimum_error_separation(X[:10], y[:10])
    bad = X[y > 0].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        minimum_error_separation(bad, y[y > 0])
    for limit in (0, -1.0, np.nan):
        with pytest.raises(InvalidParameterError, match="time_limit"):
            minimum_error_separation(X[y > 0], y[y > 0], time_limit=limit)
    with pytest.raises(TypeError, match="[Ss]parse"):
        minimum_error_separation(sp.csr_matrix(X[y > 0]), y[y > 0])
    with pytest.raises(ValueError, match="inconsistent"):
        minimum_error_separation(X[y > 0], y[y > 0][:-1])
    assert isinstance(minimum_error_separation(X[y < 2], y[y < 2]), MinimumErrorResult)


def test_a_certificate_found_is_a_lower_bound_whatever_the_effort():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    y = np.array([0, 0, 1, 1])
    for effort in (1, 2, 3):
        result = minimum_error_separation(X, y, effort=effort)
        assert result.lower_bound >= 1
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    for effort in (2, 5, 50):
        assert minimum_error_separation(X, y, effort=effort).lower_bound >= 1


@pytest.mark.parametrize(
    "X, y, expected",
    [
        (
            np.array([[0.0, 0], [2, 0], [1, -1e-9], [1, 1], [1, -1]]),
            np.array([0, 0, 1, 1, 0]),
            1,
        ),
        (
            np.array(
                [
                    [-2.0, 3],
                    [-2, -1],
                    [1, 2],
                    [1, 3],
                    [-3, -1],
                    [1, 0],
                    [-1, -1],
                    [-3, -3],
                    [0, 0],
                    [3, -2],
                ]  # fmt: skip
            )
            * [1e-8, 1e8],
            np.array([1, 0, 0, 0, 0, 0, 1, 1, 1, 0]),
            2,
        ),
    ],
)
def test_a_step_the_solvers_cannot_certify_does_not_end_the_search(X, y, expected):
    # The greedy's soft limit (or a verdict on a subset) raised SolverError here
    # and the whole search failed; the bounds never rest on those steps.
    result = minimum_error_separation(X, y, time_limit=30)
    assert result.lower_bound <= expected <= result.upper_bound
    _check_removal(result, X, y)


def test_the_library_leaves_stdout_alone_and_the_silencer_restores_it(capfd):
    import os
    import threading

    from sklearn_linsep._report._stdout import native_stdout_silenced

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    threads = [
        threading.Thread(
            target=minimum_error_separation, args=(X, y), kwargs={"effort": 30}
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.write(1, b"after the threads\n")
    with native_stdout_silenced():
        with native_stdout_silenced():
            os.write(1, b"silenced\n")
        os.write(1, b"still silenced\n")
    os.write(1, b"restored\n")
    out = capfd.readouterr().out
    assert "after the threads" in out and "restored" in out
    assert "silenced" not in out.replace("still silenced", "")
    assert "still silenced" not in out


def _jointly_separable_by_lp(X, y):
    """An independent joint verdict: the explicit Kesler LP (HiGHS) of the
    classes present."""
    classes, codes = np.unique(y, return_inverse=True)
    K, (n, p) = len(classes), X.shape
    if K < 2:
        return True
    rows = []
    for i in range(n):
        for k in range(K):
            if k != codes[i]:
                row = np.zeros(K * (p + 1))
                row[codes[i] * (p + 1) : (codes[i] + 1) * (p + 1)] = np.r_[X[i], 1]
                row[k * (p + 1) : (k + 1) * (p + 1)] -= np.r_[X[i], 1]
                rows.append(row)
    result = linprog(
        np.zeros(K * (p + 1)),
        A_ub=-np.array(rows),
        b_ub=-np.ones(len(rows)),
        bounds=[(None, None)] * (K * (p + 1)),
    )
    return result.status == 0


@pytest.mark.parametrize("seed", range(12))
def test_k_classes_equal_the_brute_force_on_small_data(seed):
    """K = 3 or 4 classes jointly, by one linear machine: the fewest rows whose
    removal lets the explicit Kesler LP separate the rest."""
    rng = np.random.default_rng(500 + seed)
    n, p, K = int(rng.integers(7, 11)), int(rng.integers(1, 3)), int(rng.integers(3, 5))
    X = rng.normal(size=(n, p))
    y = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    result = minimum_error_separation(X, y)
    expected = next(
        k
        for k in range(n + 1)
        for removed in combinations(range(n), k)
        if _jointly_separable_by_lp(np.delete(X, removed, 0), np.delete(y, removed))
    )
    assert result.optimal and result.upper_bound == expected
    keep = np.setdiff1d(np.arange(n), result.removed)
    scores = X[keep] @ result.coef.T + result.intercept
    own = scores[np.arange(keep.size), y[keep]]
    scores[np.arange(keep.size), y[keep]] = -np.inf
    assert np.all(own - scores.max(axis=1) >= 1 - 1e-7)


def test_k_classes_of_iris_and_wine_are_proved():
    X, y = load_iris(return_X_y=True)
    iris = minimum_error_separation(X, y)
    assert iris.optimal and iris.upper_bound == 1 and iris.coef.shape == (3, 4)
    X, y = load_wine(return_X_y=True)
    wine = minimum_error_separation(StandardScaler().fit_transform(X), y)
    assert wine.optimal and wine.upper_bound == 0


def test_the_default_search_is_bounded_by_effort_not_the_clock():
    """Found by a user: a default call on the bundled 699 rows blocked a minute,
    its bounds depending on the machine; effort=80 gives the same bounds on any
    machine, the time limit a safety cap."""
    import time

    from sklearn_linsep import load_breast_cancer_wisconsin

    X, y = load_breast_cancer_wisconsin(return_X_y=True)
    start = time.perf_counter()
    first = minimum_error_separation(X, y)
    assert time.perf_counter() - start < 30
    second = minimum_error_separation(X, y)
    assert first.rounds <= 80
    assert (first.lower_bound, first.upper_bound) == (
        second.lower_bound, second.upper_bound)  # fmt: skip
