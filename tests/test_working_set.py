"""Pure-function tests of the working-set machinery (``_working_set``): the rows
protocol on numpy (dense and CSR) against plain numpy, the violator selection, the
seed, and the grow loop with a toy subproblem."""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_linsep import SolverError
from sklearn_linsep._rows._memory_two_class import AugmentedRows, ScaledRows
from sklearn_linsep._working_set import (
    duplicate_owners,
    grow,
    seed_direction,
    worst_violators,
)


def problem(n=120, p=5, seed=0, offset=1e4):
    rng = np.random.RandomState(seed)
    c = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = offset + rng.normal(size=(n, p)) * rng.uniform(0.1, 10, p) + c[:, None]
    weights = rng.uniform(0.5, 2.0, n)
    weights[::7] = 0.0  # inactive samples
    return X, c, weights


@pytest.mark.parametrize("sparse", [False, True])
def test_scaled_rows_are_the_centred_scaled_active_samples(sparse):
    X, c, weights = problem(offset=0.0 if sparse else 1e4)
    rows = ScaledRows(sp.csr_matrix(X) if sparse else X, c, weights)
    active = weights > 0
    centre = X[active].mean(axis=0)
    np.testing.assert_allclose(rows.centre, centre, rtol=1e-12)
    Z = (X - centre) / rows.scale
    assert np.max(np.abs(Z[active])) == pytest.approx(1.0)  # the largest is 1
    np.testing.assert_allclose(rows.rows([3, 0, 5]), Z[[3, 0, 5]], atol=1e-12)
    coef, intercept = np.linspace(-1, 1, X.shape[1]), 0.3
    margins = c * (Z @ coef + intercept)
    np.testing.assert_allclose(rows.margins(coef, intercept), margins, atol=1e-9)
    assert rows.min_margin(coef, intercept) == pytest.approx(margins[active].min())
    hinge = np.sum(weights * np.maximum(0, 1 - margins))
    assert rows.total_hinge(coef, intercept) == pytest.approx(hinge, rel=1e-10)
    # Back to X: the same hyperplane, so the same margins.
    w, b = rows.to_original(coef, intercept)
    np.testing.assert_allclose(c * (X @ w + b), margins, rtol=1e-7, atol=1e-7)
    original = rows.min_margin(w, b, original=True)
    assert original == pytest.approx(margins[active].min(), rel=1e-7)


def test_augmented_gram_and_sum_match_numpy_with_or_without_the_kept_copy():
    X, c, weights = problem(n=90)
    rows = ScaledRows(X, c, weights)
    Z1 = np.column_stack([(X - rows.centre) / rows.scale, np.ones(len(c))])
    theta = np.random.RandomState(1).uniform(0, 2, len(c))
    for _ in range(2):  # the second pass reads the centred copy kept by the first
        np.testing.assert_allclose(
            rows.augmented_gram(theta), Z1.T @ (theta[:, None] * Z1), rtol=1e-10
        )
        np.testing.assert_allclose(rows.augmented_sum(theta), theta @ Z1, rtol=1e-10)
        np.testing.assert_allclose(
            rows.augmented_sum(theta, absolute=True), theta @ np.abs(Z1), rtol=1e-10
        )
        rows.keep_centred()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kept", [False, True])
def test_the_interior_points_passes_read_only_the_rows_they_need(
    monkeypatch, kept, sparse
):
    """The Gram pass skips rows of θ = 0 (centring only the others where Z is not
    kept) and is float32's on request; the fused pass gives the scores and the
    normal matrix's product at once. Z is kept where the free memory allows,
    beyond CENTRED_CACHE_BYTES."""
    from sklearn_linsep import _working_set
    from sklearn_linsep._rows import _memory_two_class

    monkeypatch.setattr(_memory_two_class, "chunk_rows", lambda p: 7)  # many blocks
    monkeypatch.setattr(_working_set, "CENTRED_CACHE_BYTES", 0)
    monkeypatch.setattr(_working_set, "_free_memory", lambda: 10**9 if kept else 0)
    X, c, weights = problem(n=90)
    rows = ScaledRows(sp.csr_array(X) if sparse else X, c, weights)
    rows.keep_centred()
    Z1 = np.column_stack([(X - rows.centre) / rows.scale, np.ones(len(c))])
    theta = np.random.RandomState(1).uniform(0, 2, len(c))
    theta[::3] = 0
    for _ in range(2):  # the second pass reads the centred copy, where kept
        np.testing.assert_allclose(
            rows.augmented_gram(theta), Z1.T @ (theta[:, None] * Z1), rtol=1e-10
        )
        assert (rows._centred is not None) == kept
        np.testing.assert_allclose(rows.augmented_sum(theta), theta @ Z1, rtol=1e-10)
    np.testing.assert_allclose(
        rows.augmented_gram(theta, single=True),
        Z1.T @ (theta[:, None] * Z1),
        rtol=1e-5,
        atol=1e-5,
    )
    coef, intercept = np.linspace(-1, 1, X.shape[1]), 0.3
    scores, product = rows.normal_product(theta, coef, intercept)
    np.testing.assert_allclose(scores, Z1 @ np.r_[coef, intercept], rtol=1e-9)
    np.testing.assert_allclose(product, (theta * scores) @ Z1, rtol=1e-9)


def test_the_centred_copy_is_kept_within_twice_what_x_stores_and_the_free_memory(
    monkeypatch,
):
    """Beyond CENTRED_CACHE_BYTES, a centred copy stays only within twice the
    bytes X stores (a sparse X's entries, not its dense size) and a quarter of
    the free memory."""
    from sklearn_linsep import _working_set
    from sklearn_linsep._working_set import keeps_centred_copy

    assert _working_set._free_memory() >= 0
    assert keeps_centred_copy(1 << 20, 1)  # within CENTRED_CACHE_BYTES, always
    monkeypatch.setattr(_working_set, "CENTRED_CACHE_BYTES", 0)
    monkeypatch.setattr(_working_set, "_free_memory", lambda: 4000)
    assert keeps_centred_copy(1000, 500)
    assert not keeps_centred_copy(1000, 499)  # a sparse X of few entries
    assert not keeps_centred_copy(1001, 10**6)  # beyond a quarter of free memory
    monkeypatch.setattr(_working_set, "_free_memory", lambda: 10**9)
    X, c, weights = problem(n=90)
    sparse = sp.random(90, 5, density=0.2, format="csr", random_state=0)
    for data, kept in ((X, True), (sparse, False)):
        rows = ScaledRows(data, c, weights)
        rows.keep_centred()
        rows.augmented_sum(np.ones(90))
        assert (rows._centred is not None) == kept


def test_augmented_rows_keep_margins_through_the_origin():
    X, c, weights = problem(offset=3.0)
    rows = AugmentedRows(X, c, weights)
    augmented = np.column_stack([X, np.ones(len(c))]) / rows.scale
    np.testing.assert_allclose(rows.rows([1, 2]), augmented[[1, 2]])
    v = np.linspace(1, -1, X.shape[1] + 1)
    np.testing.assert_allclose(rows.scores(v, 0.0), augmented @ v, rtol=1e-12)
    w, b = rows.to_original(v, 0.0)
    np.testing.assert_allclose(np.column_stack([X, np.ones(len(c))]) @ w, augmented @ v)
    assert b == 0.0


def test_worst_violators_leave_out_the_working_set_and_keep_the_worst():
    violation = np.array([0.5, -1.0, 3.0, 2.0, 0.1, 4.0])
    violated, inside = worst_violators(violation, np.array([5]))
    assert sorted(violated) == [0, 2, 3, 4]
    np.testing.assert_array_equal(inside, [4.0])
    violated, _ = worst_violators(violation, np.array([5]), batch=2)
    assert sorted(violated) == [2, 3]
    assert violation[5] == 4.0  # the caller's array is not changed


def test_the_seed_takes_the_samples_nearest_the_bisector_from_each_class():
    X = np.array([[-3.0], [-2.0], [-0.5], [0.4], [1.5], [3.0]])
    c = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
    rows = ScaledRows(X, c)
    np.testing.assert_array_equal(rows.seed(1), [2, 3])
    np.testing.assert_array_equal(rows.seed(2), [1, 2, 3, 4])
    direction, offset = seed_direction(np.array([2.0, 0.0]), np.array([0.0, 0.0]))
    np.testing.assert_array_equal(direction, [2.0, 0.0])
    assert offset == -2.0
    same, _ = seed_direction(np.ones(2), np.ones(2))  # equal means: any direction
    assert np.any(same)


def test_opposite_duplicates_are_found_among_active_rows_only():
    X = np.array([[0.0, 1.0], [2.0, 2.0], [0.0, 1.0], [2.0, 2.0]])
    c = np.array([1.0, 1.0, -1.0, 1.0])
    assert sorted(ScaledRows(X, c).opposite_duplicates()) == [0, 2]
    weights = np.array([1.0, 1.0, 0.0, 1.0])
    assert ScaledRows(X, c, weights).opposite_duplicates() is None



@pytest.mark.parametrize("seed", range(6))
def test_a_dense_row_under_both_labels_is_found_whatever_its_place(seed):
    """Equal rows' projections may differ in their last bits (BLAS sums a block's
    last rows in another order): a row again at the end under the other label is
    found all the same (19 of 40 such sets were missed before)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    X = rng.normal(size=(n, 40))
    c = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X, c = np.vstack([X, X[:1]]), np.r_[c, -c[0]]
    assert sorted(ScaledRows(X, c).opposite_duplicates()) == [0, n]

def toy_interval(points, batch=1):
    """The working-set loop on a toy problem: the smallest interval holding every
    point, solved on subsets (the subproblem) and checked on all (the pass)."""

    def solve(indices):
        chosen = points[indices]
        return SimpleNamespace(feasible=True, low=chosen.min(), high=chosen.max())

    def violators(solution, working):
        violation = np.maximum(solution.low - points, points - solution.high)
        return worst_violators(violation, working, batch=batch)

    return solve, violators


def test_grow_reaches_the_answer_on_all_samples():
    points = np.random.RandomState(0).normal(size=200)
    solve, violators = toy_interval(points)
    solution, working, rounds = grow([0, 1], solve, violators)
    assert (solution.low, solution.high) == (points.min(), points.max())
    assert rounds > 1 and set(working) >= {points.argmin(), points.argmax()}
    dropped, kept, _ = grow([0, 1], solve, violators, drop_above=0.0)
    assert (dropped.low, dropped.high) == (solution.low, solution.high)
    assert kept.size <= working.size


def test_grow_stops_on_an_infeasible_subset_a_budget_and_a_round_limit():
    points = np.arange(50.0)
    solve, all_violators = toy_interval(points, batch=None)

    def violators(solution, working):  # the mildest joins: one point a round
        violated, inside = all_violators(solution, working)
        return violated[np.argsort(points[violated])[:1]], inside

    infeasible = SimpleNamespace(feasible=False)
    assert grow([3], lambda _: infeasible, violators)[0] is infeasible
    solution, working, rounds = grow(
        [0], solve, violators, affordable=lambda working: working.size <= 3
    )
    assert solution is None and working.size == 4 and rounds == 3
    with pytest.raises(SolverError, match="after 2 rounds"):
        grow([0], solve, violators, max_rounds=2)


def test_duplicate_owners_are_the_first_equal_row_of_the_same_label():
    X = np.array([[1.0, 0], [0, 1], [1, 0], [1, 0], [0, 1], [2, 2]])
    c = np.array([1.0, 1, 1, -1, 1, 1])
    active = np.array([True, True, True, True, True, False])
    for rows in (X, sp.csr_matrix(X)):
        owners = duplicate_owners(rows, c, active)
        # row 2 repeats row 0 (same label); row 3 too, but of the other label
        assert owners.tolist() == [0, 1, 0, 3, 1, -1]


def test_float32_rows_are_summed_and_projected_in_float64():
    """The class means and the seed's projections of float32 X are float64 sums
    (a chunk of X converted at a time), equal to those of X as float64."""
    from sklearn_linsep._working_set import _dot64, _masked_mean

    rng = np.random.default_rng(0)
    X = (1e3 + rng.standard_normal((3000, 300))).astype(np.float32)
    mask = rng.random(3000) < 0.4
    v = rng.standard_normal(300)
    wide = X.astype(np.float64)
    np.testing.assert_allclose(
        _masked_mean(X, mask), wide[mask].mean(axis=0), rtol=1e-13
    )
    np.testing.assert_allclose(_dot64(X, v), wide @ v, rtol=1e-10, atol=1e-9)


def test_float32_seed_products_are_taken_about_the_centre():
    """The seed orders float32 rows by products taken about the rows' centre:
    within 1e-6 of the centred rows' products, where the float32 product of the
    raw rows (an offset of 1e4 units) loses digits."""
    from sklearn_linsep._working_set import _dot_about

    rng = np.random.default_rng(2)
    X = (1e4 + rng.standard_normal((5000, 64))).astype(np.float32)
    v = rng.standard_normal(64)
    wide = X.astype(np.float64)
    centre = wide.mean(axis=0)
    exact = wide @ v
    spread = np.abs(wide - centre) @ np.abs(v)  # the centred products' size
    about = np.abs(_dot_about(X, v, centre) - exact) / spread
    assert np.max(about) <= 1e-6
    raw = np.abs((X @ v.astype(np.float32)).astype(np.float64) - exact) / spread
    assert np.max(raw) > 30 * np.max(about)
    # float64 and sparse X: the float64 products of _dot64, unchanged
    np.testing.assert_array_equal(_dot_about(wide, v, centre), wide @ v)
    sparse = sp.csr_matrix(wide)
    np.testing.assert_allclose(_dot_about(sparse, v, centre), exact, rtol=1e-12)
    # float32 rows far from unit scale, against a direction of their scale (the
    # seed's: a difference of means): the products are widened value by value
    # (in float32 they overflowed past 1e19 and underflowed below 1e-22)
    for scale in (1e20, 1e-25):
        tiny = (rng.standard_normal((300, 8)) * scale).astype(np.float32)
        wide_tiny = tiny.astype(np.float64)
        w = rng.standard_normal(8) * scale
        products = _dot_about(tiny, w, wide_tiny.mean(axis=0))
        size = float(np.max(np.abs(wide_tiny) @ np.abs(w)))
        assert np.all(np.isfinite(products))
        np.testing.assert_allclose(products, wide_tiny @ w, rtol=1e-6, atol=1e-9 * size)
