"""Tests of linear_separability, the mistake bound and Cover's probability.

References: the separating LP on all the data (HiGHS, one call), the cvxpy margin QP,
the combinatorial formula of Cover's theorem (math.comb) and a Monte Carlo count.
"""

import math
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris

from sklearn_linsep import (
    HardMarginSVM,
    NotLinearlySeparableError,
    SeparabilityResult,
    SolverError,
    cover_separability_probability,
    linear_separability,
    perceptron_mistake_bound,
)
from sklearn_linsep._testing import iris_setosa, separable_by_one_lp


@st.composite
def labelled_sets(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    if draw(st.booleans()):
        y = (X @ rng.standard_normal(p) > rng.normal(0, 0.3)).astype(int)  # separable
    else:
        y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return X, y


@settings(max_examples=60, deadline=None)
@given(labelled_sets())
def test_verdict_matches_one_lp_and_the_certificate_holds(data):
    X, y = data
    c = np.where(y == 1, 1.0, -1.0)
    result = linear_separability(X, y)
    assert result.separable == separable_by_one_lp(X, c)
    assert result.verify(X, y)
    if result.separable:
        assert np.min(c * (X @ result.coef + result.intercept)) >= 1 - 1e-9
        assert result.margin <= HardMarginSVM().fit(X, y).margin_ * (1 + 1e-7)
    else:
        weights, signs = result.certificate_weights, result.certificate_signs
        assert np.all(weights > 0)
        assert weights[signs > 0].sum() == pytest.approx(1.0)
        assert weights[signs < 0].sum() == pytest.approx(1.0)
        assert len(weights) <= X.shape[1] + 2  # Carathéodory: a basic solution
        np.testing.assert_allclose(
            weights[signs < 0] @ X[result.certificate_indices[signs < 0]],
            result.common_point,
            atol=1e-9,
        )


def test_iris_pairs_and_verification_catches_a_forged_certificate():
    X, y = load_iris(return_X_y=True)
    pairs = linear_separability(X, y)
    assert {pair: r.separable for pair, r in pairs.items()} == {
        (0, 1): True,
        (0, 2): True,
        (1, 2): False,
    }
    inseparable = pairs[1, 2]
    assert inseparable.verify(X, y) and set(y[inseparable.certificate_indices]) == {
        1,
        2,
    }
    inseparable.certificate_weights = inseparable.certificate_weights * 1.1
    assert not inseparable.verify(X, y)
    separable = pairs[0, 1]
    separable.intercept += 100.0
    assert not separable.verify(X, y)


def test_xor_and_opposite_duplicates():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    result = linear_separability(X, [0, 0, 1, 1])
    assert not result.separable
    np.testing.assert_allclose(result.common_point, [0.5, 0.5])
    twins = np.array([[0.0, 0.0], [4.0, 4.0], [2.0, 2.0], [2.0, 2.0], [9.0, 9.0]])
    result = linear_separability(twins, [0, 0, 0, 1, 1])
    assert not result.separable and len(result.certificate_indices) == 2
    assert result.verify(twins, [0, 0, 0, 1, 1])


def test_degenerate_and_large_inputs():
    # One point per class, and all points on a line in R³.
    assert linear_separability([[0.0, 1.0], [1.0, 0.0]], [0, 1]).separable
    t = np.linspace(-1, 1, 30)
    line = np.outer(t, [1.0, 2.0, -1.0])
    assert linear_separability(line, (t > 0).astype(int)).separable
    assert not linear_separability(line, (np.abs(t) > 0.5).astype(int)).separable
    # n = 10⁶ rows with p = 2, both verdicts.
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (10**6, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    assert linear_separability(X, y).separable
    y[0], y[1] = 1 - y[0], 1 - y[1]
    X[1] = X[0]
    inseparable = linear_separability(X, y)
    assert not inseparable.separable and inseparable.verify(X, y)


def test_sparse_input():
    X, y = load_iris(return_X_y=True)
    keep = y > 0
    dense = linear_separability(X[keep], y[keep])
    sparse = linear_separability(sp.csr_matrix(X[keep]), y[keep])
    assert not dense.separable and not sparse.separable
    assert sparse.verify(X[keep], y[keep])


def test_bad_input():
    with pytest.raises(ValueError, match="1 class"):
        linear_separability([[0.0], [1.0]], [1, 1])
    with pytest.raises(ValueError, match="NaN"):
        linear_separability([[0.0], [np.nan]], [0, 1])
    with pytest.raises(ValueError, match="0 sample"):
        linear_separability(np.zeros((0, 2)), [])


# --------------------------------------------------------------- mistake bound


def test_mistake_bounds_reproduce_spec():
    assert perceptron_mistake_bound(*iris_setosa()) == pytest.approx(51387, rel=1e-4)
    textbook = perceptron_mistake_bound(*iris_setosa(), bound="textbook")
    assert textbook == pytest.approx(9567.0, rel=1e-4)
    nudged = iris_setosa(nudged=True)
    assert perceptron_mistake_bound(*nudged) == pytest.approx(7279, rel=1e-3)
    assert perceptron_mistake_bound(*nudged, bound="textbook") == pytest.approx(
        3842.5, rel=1e-4
    )


def test_mistake_bound_is_infinite_when_inseparable_and_needs_two_classes():
    X, y = load_iris(return_X_y=True)
    assert perceptron_mistake_bound(X[y > 0], y[y > 0]) == np.inf
    with pytest.raises(ValueError, match="two classes"):
        perceptron_mistake_bound(X, y)


# ------------------------------------------------------------------- Cover


@pytest.mark.parametrize(
    "Z, N", [(1, 1), (5, 2), (10, 3), (30, 7), (60, 30), (101, 40), (3000, 1400)]
)
def test_cover_equals_the_counting_formula(Z, N):
    """To the docstring's 1e-14 relative, against the count in rationals (the
    ratio of two integers, rounded once)."""
    count = 2 * sum(math.comb(Z - 1, k) for k in range(N))
    exact = count / 2**Z
    assert cover_separability_probability(Z, N, affine=False) == pytest.approx(
        exact, rel=1e-14
    )
    assert cover_separability_probability(Z, N - 1) == pytest.approx(exact, rel=1e-14)


def test_cover_agrees_with_scipy_binomial_for_millions():
    """The incomplete beta function against scipy.stats' binomial (an independent
    evaluation of the same probability) where exact counts are out of reach."""
    rng = np.random.default_rng(0)
    for Z in rng.integers(10**4, 10**7, 40):
        for N in (1, Z // 2 - 1, Z // 2, Z // 2 + 1, int(rng.integers(1, Z))):
            expected = scipy.stats.binom.cdf(N - 1, Z - 1, 0.5)
            assert cover_separability_probability(int(Z), int(N), affine=False) == (
                pytest.approx(expected, rel=1e-13, abs=1e-300)
            )


def test_cover_half_at_twice_the_dimension_and_stable_for_millions():
    for N in (1, 5, 50, 5000):
        assert cover_separability_probability(2 * N, N, affine=False) == pytest.approx(
            0.5, abs=1e-12
        )
    big = cover_separability_probability(4 * 10**6, 2 * 10**6 - 1)
    assert big == pytest.approx(0.5, abs=1e-3)
    assert cover_separability_probability(10**7, 10**6) == 0.0
    assert cover_separability_probability(10**7, 6 * 10**6) == 1.0
    ripley = cover_separability_probability(10**6, 500_100, method="ripley")
    exact = cover_separability_probability(10**6, 500_100)
    assert ripley == pytest.approx(exact, abs=1e-3)


@pytest.mark.parametrize("Z, p", [(6, 2), (8, 2), (10, 3)])
def test_cover_against_monte_carlo(Z, p):
    """Gaussian points are in general position; count separable random labellings."""
    rng = np.random.default_rng(Z * 10 + p)
    trials = 400
    separable = 0
    for _ in range(trials):
        X = rng.standard_normal((Z, p))
        y = rng.integers(0, 2, Z)
        if y.min() == y.max():
            separable += 1
            continue
        separable += linear_separability(X, y).separable
    expected = cover_separability_probability(Z, p)
    assert separable / trials == pytest.approx(expected, abs=4 * np.sqrt(0.25 / trials))


# ------------------------------------------------------- review follow-ups


def test_verify_rejects_a_geometrically_false_certificate():
    X = np.array([[1e9], [1e9 + 0.5]])  # separable, far from the origin
    forged = SeparabilityResult(
        separable=False,
        classes=np.array([0, 1]),
        certificate_indices=np.array([0, 1]),
        certificate_weights=np.array([1.0, 1.0]),
        common_point=X[0],
        certificate_signs=np.array([-1.0, 1.0]),
    )
    assert not forged.verify(X, [0, 1])
    assert linear_separability(X, [0, 1]).verify([[1e9], [1e9 + 0.5]], [0, 1])


@pytest.mark.parametrize("gap", [1e-9, 1e-13, 1e-15, 0.0])
def test_nearly_touching_classes_never_give_a_false_answer(gap):
    X = np.array([[0.0], [1.0], [1.0 + gap], [2.0]])
    try:
        result = linear_separability(X, [0, 0, 1, 1])
    except SolverError as error:
        assert "too close" in str(error)
    else:
        assert result.separable == (1.0 + gap > 1.0)
        assert result.verify(X, [0, 0, 1, 1])


def test_duplicates_with_signed_zeros_and_zero_weights():
    X = np.array([[0.0, 0.0], [-0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    result = linear_separability(X, [0, 1, 0, 1])
    assert not result.separable and len(result.certificate_indices) == 2
    twins = np.array([[0.0], [1.0], [1.0], [3.0], [0.5], [2.5]])
    y = np.array([0, 0, 1, 1, 1, 0])
    weights = np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])  # drop one twin
    with pytest.raises(NotLinearlySeparableError) as caught:
        HardMarginSVM(on_inseparable="raise").fit(twins, y, sample_weight=weights)
    assert 2 not in caught.value.certificate.certificate_indices


def test_mistake_bound_off_the_unit_scale():
    X, y = iris_setosa()
    textbook = perceptron_mistake_bound(X, y, bound="textbook")
    for scale in (1e-4, 1e4, 1e6):
        # The textbook bound is scale-free; the guaranteed one is either computed
        # or refused with a clear error, never inf for separable data.
        assert perceptron_mistake_bound(X * scale, y, bound="textbook") == (
            pytest.approx(textbook, rel=1e-6)
        )
        try:
            value = perceptron_mistake_bound(X * scale, y)
        except SolverError as error:
            assert "too small" in str(error)
        else:
            assert np.isfinite(value) and value >= textbook
    for scale in (1e-20, 1e20):
        # float32 squares overflow past |x| ~ 1e19: the norms are taken in float64.
        for data in (X * scale, sp.csr_matrix(X * scale)):
            assert perceptron_mistake_bound(
                data.astype(np.float32), y, bound="textbook"
            ) == pytest.approx(textbook, rel=1e-5)
    sparse = perceptron_mistake_bound(sp.csr_matrix(X + 1e4), y, bound="textbook")
    assert sparse == pytest.approx(
        perceptron_mistake_bound(X + 1e4, y, bound="textbook"), rel=1e-6
    )


def test_object_labels_of_three_classes_key_the_pairs():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    results = linear_separability(X, labels)
    assert not results["versicolor", "virginica"].separable
    assert results["setosa", "versicolor"].separable
    assert results["versicolor", "virginica"].verify(X, labels)


# ------------------------------------------ far from the origin, units apart


def _certificate(X, rows, weights, signs, common):
    return SeparabilityResult(
        separable=False,
        classes=np.array([0, 1]),
        certificate_indices=np.array(rows),
        certificate_weights=np.array(weights, dtype=float),
        common_point=np.asarray(common, dtype=float),
        certificate_signs=np.array(signs, dtype=float),
    )


def test_verify_refuses_certificates_that_rounding_far_from_the_origin_would_hide():
    # Two points 8 ulps apart at 1e12, half the spread: no common point.
    X = (1e12 + 1e-3 * np.array([-1.0, -0.5, 0.5, 1.0]))[:, None]
    y = np.array([0, 0, 1, 1])
    assert not _certificate(X, [1, 2], [1, 1], [-1, 1], X[1]).verify(X, y)
    # Weights that sum to 1 only to 1e-9 move the combination by 1e-9 · 1e9.
    X = np.array([[1e9], [1e9 + 1]])
    forged = _certificate(X, [0, 1], [1, 1 - 1e-9], [-1, 1], [1e9])
    assert not forged.verify(X, [0, 1])
    # A true certificate there verifies: the same point in both classes.
    X = np.array([[1e12 + 1e-3], [1e12 - 1e-3], [1e12 + 1e-3], [1e12 - 1e-3]])
    true = _certificate(X, [0, 1, 2, 3], [0.5] * 4, [-1, -1, 1, 1], [1e12])
    assert true.verify(X, y)


def test_verify_refuses_an_intercept_that_disagrees_with_the_centred_form():
    rng = np.random.default_rng(0)
    y = np.arange(60) % 2
    Z = rng.normal(size=(60, 3))
    Z[:, 0] = np.where(y == 1, 0.3 + np.abs(Z[:, 0]), -0.3 - np.abs(Z[:, 0]))
    X = 1e12 + 1e-3 * Z
    with pytest.warns(UserWarning, match="far from the origin"):
        result = linear_separability(X, y)
    assert result.center is not None and result.verify(X, y)
    result.intercept += 1e6
    assert not result.verify(X, y)


def test_sparse_rows_with_spreads_far_apart_equal_dense():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 4))
    y = (X[:, 1] > 0).astype(int)
    X[:, 1] += np.where(y == 1, 0.2, -0.2)
    X[rng.random(X.shape) < 0.3] = 0.0
    X *= [1e-8, 1.0, 1e8, 1e3]
    dense, sparse = linear_separability(X, y), linear_separability(sp.csr_matrix(X), y)
    assert (
        dense.separable
        == sparse.separable
        == separable_by_one_lp((X - X.mean(0)) / X.std(0), np.where(y == 1, 1.0, -1.0))
    )
    assert sparse.verify(sp.csr_matrix(X), y) and dense.verify(X, y)
    if dense.separable:
        assert sparse.margin == pytest.approx(dense.margin, rel=1e-9)


# ------------------------------------------------------------------- sparse X


def _sparse_text_like(n, p, seed, gap):
    """Nonnegative sparse rows, two classes told apart by a few features when
    ``gap > 0``, overlapping when it is negative."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.05, random_state=seed, format="csr").toarray()
    y = np.arange(n) % 2
    X[:, 0] = np.where(y == 1, 1.0 + gap, 1.0) + 0.1 * rng.random(n)
    return X, y


@pytest.mark.parametrize("gap", [-0.05, 0.5])
@pytest.mark.parametrize("n, p", [(80, 20), (40, 300)])
def test_sparse_x_gets_the_verdict_and_a_certificate_that_verifies(gap, n, p):
    X, y = _sparse_text_like(n, p, 0, gap)
    dense = linear_separability(X, y)
    sparse = linear_separability(sp.csr_matrix(X), y)
    assert sparse.separable == dense.separable
    assert sparse.verify(X, y) and sparse.verify(sp.csc_matrix(X), y)
    if dense.separable:  # the maximal margin, as on dense X
        assert sparse.margin == pytest.approx(dense.margin, rel=1e-7)


def test_sparse_opposite_duplicates_are_the_certificate():
    X, y = _sparse_text_like(60, 500, 1, 0.5)
    X[7] = X[10]  # rows 7 (class 1) and 10 (class 0): the same document
    result = linear_separability(sp.csr_matrix(X), y)
    assert not result.separable
    assert sorted(result.certificate_indices.tolist()) == [7, 10]
    assert result.verify(X, y)


def test_a_point_in_both_hulls_of_wide_sparse_rows_is_found_by_one_lp():
    """p > n and no duplicate: the certificate is a convex combination (row 1 of
    class 1 is the midpoint of rows 0 and 2 of class 0)."""
    X, y = _sparse_text_like(40, 300, 3, 0.5)
    X[1] = 0.5 * (X[0] + X[2])
    result = linear_separability(sp.csr_matrix(X), y)
    assert not result.separable and result.verify(X, y)
    assert len(result.certificate_indices) >= 3
    assert not linear_separability(X, y).separable


def test_sparse_classes_pair_by_pair_as_dense():
    X, y = _sparse_text_like(90, 200, 2, -0.05)
    y = np.arange(90) % 3
    dense = linear_separability(X, y)
    sparse = linear_separability(sp.csr_matrix(X), y)
    assert {k: v.separable for k, v in sparse.items()} == {
        k: v.separable for k, v in dense.items()
    }
    assert all(result.verify(X, y) for result in sparse.values())


# ------------------------------------------ K classes: the pairs share their passes


def _four_classes(dtype=np.float64, seed=7):
    """Four classes of 150 rows in 6 features: 0 and 1 far apart (separable),
    2 and 3 overlapping (inseparable), a row of class 3 repeated as class 2."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-6.0] * 6, [6.0] * 6, [0.0] * 6, [0.3] * 6])
    y = np.arange(600) % 4
    X = rng.standard_normal((600, 6)) + centres[y]
    X[2] = X[3]  # class 2 (row 2) and class 3 (row 3): opposite duplicates
    return X.astype(dtype), y


def _pairs_side_by_side(monkeypatch, workers):
    """The pairs of K classes on ``workers`` threads, however small, and the
    threads they ran on (recorded)."""
    import threading

    from sklearn_linsep import _certificates

    monkeypatch.setattr("sklearn_linsep._threads.SIDE_BY_SIDE", 0)
    monkeypatch.setattr("sklearn_linsep._threads.worker_count", lambda: workers)
    threads, decide = [], _certificates.separability_of

    def recording(*args):
        threads.append(threading.current_thread())
        return decide(*args)

    monkeypatch.setattr(_certificates, "separability_of", recording)
    return threads


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("workers", [1, 2])
def test_the_pairs_of_k_classes_answer_as_each_pair_alone(
    dtype, sparse, workers, monkeypatch
):
    # The K-class call derives each pair's centre, extremes and seed from one
    # pass over X, and decides the pairs on several threads where they are
    # large (here forced): its answers are those of the pair's rows asked alone.
    X, y = _four_classes(dtype)
    threads = _pairs_side_by_side(monkeypatch, workers)
    data = sp.csr_matrix(X) if sparse else X
    results = linear_separability(data, y)
    assert len(results) == 6
    verdicts = set()
    for (a, b), result in results.items():
        mask = np.isin(y, (a, b))
        alone = linear_separability(data[mask], y[mask])
        assert result.separable == alone.separable
        verdicts.add(result.separable)
        if result.separable:
            assert result.margin == pytest.approx(alone.margin, rel=1e-12)
            scale = np.max(np.abs(alone.coef))
            np.testing.assert_allclose(
                result.coef, alone.coef, rtol=0, atol=1e-12 * scale
            )
            assert result.intercept == pytest.approx(
                alone.intercept, rel=1e-12, abs=1e-12 * scale
            )
        else:  # in X's rows, as the pair's own are in its subset's
            assert result.verify(data, y)
            assert alone.verify(data[mask], y[mask])
    assert verdicts == {True, False}
    # The rows repeated with opposite labels are the (2, 3) certificate.
    assert set(results[2, 3].certificate_indices) == {2, 3}
    ran_on_workers = threading.main_thread() not in threads[:6]
    assert ran_on_workers == (workers > 1)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_pairs_of_k_classes_are_the_same_on_one_thread_and_two(sparse, monkeypatch):
    # Each pair's computation reads nothing another writes: the same bits
    # whatever the schedule, in the pairs' order; and the same warnings.
    X, y = _four_classes(seed=3)
    X = np.vstack([X, X[:4] * 1e9])  # far from the origin: some pairs warn
    y = np.r_[y, y[:4]]
    data = sp.csr_matrix(X) if sparse else X
    answers = {}
    for workers in (1, 2, 1, 2):
        _pairs_side_by_side(monkeypatch, workers)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = linear_separability(data, y)
        said = [(str(w.message), w.category, w.filename) for w in caught]
        answers.setdefault(workers, []).append((results, said))
    (one, said_one), (two, said_two) = answers[1][0], answers[2][1]
    assert list(one) == list(two) and said_one == said_two
    assert all(filename == __file__ for _, _, filename in said_one)
    for pair, result in one.items():
        for field in ("separable", "margin", "coef", "intercept",
                      "certificate_indices", "certificate_weights"):  # fmt: skip
            np.testing.assert_array_equal(
                getattr(result, field, None), getattr(two[pair], field, None)
            )


def test_the_pairs_of_k_classes_with_zero_weights_equal_a_copy_without_them():
    # Rows of weight zero are out of every pair's centre, extremes and seed.
    from sklearn_linsep._rows import class_pairs, rows_of

    X, y = _four_classes()
    weights = np.ones(len(y))
    weights[::7] = 0.0
    kept = weights > 0
    weighted = dict(class_pairs(rows_of(X, y, weights, name="test")))
    plain = dict(class_pairs(rows_of(X[kept], y[kept], name="test")))
    for pair, problem in weighted.items():
        other = plain[pair]
        np.testing.assert_allclose(problem.centre, other.centre, rtol=1e-14)
        np.testing.assert_array_equal(problem.spread, other.spread)
        assert problem.scale == pytest.approx(other.scale, rel=1e-15)


def test_verify_refuses_data_it_cannot_check_and_says_which():
    """Found by a user: verify returned True over zero selected rows (labels
    that are none of the result's classes, no rows) and raised numpy's matmul
    error on another number of features."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1] += 4
    results = [linear_separability(X, y)]  # separable
    results.append(linear_separability(np.r_[X, X[:2]], np.r_[y, 1, 1]))  # not
    iris_X, iris_y = load_iris(return_X_y=True)
    results.append(linear_separability(iris_X, iris_y, multiclass="joint"))
    results.append(linear_separability(iris_X[:100], iris_y[:100], multiclass="joint"))
    for result in results:
        p = result.n_features
        with pytest.raises(ValueError, match="no label of the result's classes"):
            result.verify(rng.normal(size=(40, p)), np.where(y, "b", "a"))
        with pytest.raises(ValueError, match="needs rows to check"):
            result.verify(np.empty((0, p)), np.empty(0))
        with pytest.raises(ValueError, match=f"result's {p} features; got {p - 1}"):
            result.verify(np.zeros((40, p - 1)), y)
        missing = result.classes[0]
        with pytest.raises(ValueError, match="y has none of"):
            result.verify(np.zeros((40, p)), np.full(40, result.classes[-1]))
        assert missing in result.classes
    # A pair's result still checks on the rows of every class (the others ignored),
    # and y may be a column, as scikit-learn takes it.
    pairs = linear_separability(iris_X, iris_y)
    assert all(pair.verify(iris_X, iris_y) for pair in pairs.values())
    assert all(pair.verify(iris_X, iris_y[:, None]) for pair in pairs.values())


def test_verify_on_dask_refuses_alike(dask_client):
    import dask.array as da

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = np.repeat([0, 1], 30)
    X[y == 1] += 5
    result = linear_separability(X, y)
    assert result.verify(da.from_array(X, chunks=20), da.from_array(y, chunks=20))
    with pytest.raises(ValueError, match="y has none of"):
        result.verify(da.from_array(X, chunks=20), da.from_array(np.ones(60, int),
                                                                 chunks=20))  # fmt: skip


def test_certificate_rows_by_a_data_frame_s_index():
    """certificate_indices are positions; a DataFrame's own index labels are
    certificate_index (a user slicing a frame read the positions as labels)."""
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True, as_frame=True)
    keep = y > 0
    result = linear_separability(X[keep], y[keep])
    assert not result.separable
    np.testing.assert_array_equal(
        result.certificate_index, X[keep].index[result.certificate_indices]
    )
    assert result.verify(X[keep].loc[:], y[keep])
    assert linear_separability(X[keep].to_numpy(), y[keep]).certificate_index is None
    joint = linear_separability(X, y, multiclass="joint")
    np.testing.assert_array_equal(joint.certificate_index, joint.certificate_indices)
    assert isinstance(X, pd.DataFrame)


def test_a_certificate_of_sparse_rows_is_proved_in_the_features_they_touch():
    """Text whose certificate's rows touch a fraction of the features: its proof
    reads those features only (each other one's equations are 0 = 0), never a
    dense (features x rows) Farkas system; the certificate is proven and holds,
    its common point in X's features; the dense rows of the used features agree."""
    import tracemalloc

    rng = np.random.default_rng(2)
    n, used, unused = 300, 40, 20000
    words = sp.random(n, used, density=0.15, random_state=2, format="csr")
    X = sp.hstack([words, sp.csr_matrix((n, unused))]).tocsr()
    y = (words @ rng.normal(size=used) > 0).astype(int)
    y = np.where(rng.random(n) < 0.3, 1 - y, y)  # inseparable
    linear_separability(X[:20], y[:20])  # imports, caches
    tracemalloc.start()
    result = linear_separability(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert not result.separable and result.proven and result.verify(X, y)
    rows = result.certificate_indices
    assert result.common_point.shape == (used + unused,)
    assert not np.any(result.common_point[used:])
    dense = linear_separability(X[:, :used].toarray(), y)
    assert not dense.separable
    # The whole system in float64 on every feature: 2 (p + 1) x rows, twice.
    assert peak < 2 * (used + unused + 1) * rows.size * 8, peak


def test_verify_reads_a_sparse_certificate_on_the_features_it_touches():
    """verify and exact_weights on text: the certificate's rows dense on the
    features they touch (and those its common point names), never on all of X's
    features; a common point moved off them, where every row is 0, is refused."""
    import copy
    import tracemalloc

    rng = np.random.default_rng(3)
    n, used, unused = 200, 30, 60000
    words = sp.random(n, used, density=0.2, random_state=3, format="csr")
    X = sp.hstack([words, sp.csr_matrix((n, unused))]).tocsr()
    y = np.where(rng.random(n) < 0.5, 1, 0)  # labels at random: inseparable
    result = linear_separability(X, y)
    joint = linear_separability(X, np.arange(n) % 3, multiclass="joint")
    assert not result.separable and not joint.separable
    for certificate in (result, joint):
        certificate.verify(X, y if certificate is result else np.arange(n) % 3)
        tracemalloc.start()
        labels = y if certificate is result else np.arange(n) % 3
        assert certificate.verify(X, labels)
        assert sum(certificate.exact_weights(X, labels)) > 0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        dense_rows = len(certificate.certificate_indices) * (used + unused) * 8
        assert peak < dense_rows / 4, (peak, dense_rows)
    moved = copy.copy(result)
    moved.common_point = result.common_point.copy()
    moved.common_point[used + 7] = 1e-3  # every row is 0 on that feature
    assert not moved.verify(X, y)
    assert moved.verify(X.toarray(), y) is False
