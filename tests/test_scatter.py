"""The scatter's forms: centred rows (dense and sparse) against their dense matrix,
and the statistics of sparse X against those of the same X dense."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_linsep._scatter import CentredRows, Scatter
from sklearn_linsep._stats import class_statistics


def _sparse_rows(n, p, n_centres, seed, with_dense=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.2, random_state=seed, format="csr")
    z = rng.integers(0, n_centres, n)
    rows = CentredRows.of_sparse(
        X, z, rng.random(n) + 0.1, rng.normal(size=(n_centres, p))
    )
    if with_dense:
        dense = CentredRows(
            rng.normal(size=(with_dense, p)), rng.integers(0, n_centres, with_dense)
        )
        rows = rows.stacked(dense)
    return rows


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 30),
    p=st.integers(1, 40),
    n_centres=st.integers(1, 4),
    with_dense=st.integers(0, 3),
)
def test_every_product_of_centred_rows_equals_that_of_their_dense_form(
    seed, n, p, n_centres, with_dense
):
    rows = _sparse_rows(n, p, n_centres, seed, with_dense)
    C = rows.to_dense()
    rng = np.random.default_rng(seed + 1)
    b, B = rng.normal(size=p), rng.normal(size=(p, 3))
    u, U = rng.normal(size=rows.n_rows), rng.normal(size=(rows.n_rows, 2))
    scale = rng.random(p) + 0.5
    scale_of = np.abs(C).max(initial=1.0) ** 2 * max(n, p)
    atol = 1e-13 * scale_of
    np.testing.assert_allclose(rows.dot(b), C @ b, atol=atol)
    np.testing.assert_allclose(rows.dot(B), C @ B, atol=atol)
    np.testing.assert_allclose(rows.tdot(u), C.T @ u, atol=atol)
    np.testing.assert_allclose(rows.tdot(U), C.T @ U, atol=atol)
    np.testing.assert_allclose(rows.gram(), C @ C.T, atol=atol)
    np.testing.assert_allclose(rows.gram(scale), (C * scale) @ (C * scale).T, atol=atol)
    np.testing.assert_allclose(rows.matrix(), C.T @ C, atol=atol)
    np.testing.assert_allclose(rows.column_squares(), (C**2).sum(axis=0), atol=atol)
    np.testing.assert_allclose(rows.scaled(scale).to_dense(), C * scale, atol=atol)
    picked = rng.random(rows.n_rows) < 0.5
    np.testing.assert_array_equal(rows.take(picked).to_dense(), C[picked])
    np.testing.assert_array_equal(rows.take(picked).classes, rows.classes[picked])


def test_any_is_exact_where_the_implicit_centring_leaves_rounding():
    X = sp.csr_matrix(np.array([[0.1, 0.0, 0.7], [0.3, 0.2, 0.0]]))
    one_per_class = CentredRows.of_sparse(X, [0, 1], np.ones(2), X.toarray())
    assert not one_per_class.any()
    assert CentredRows.of_sparse(X, [0, 0], np.ones(2), X.toarray()[:1]).any()


def _sparse_data(n, p, n_classes, seed=0, density=0.05, offset=0.0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, random_state=seed, format="csr")
    y = np.arange(n) % n_classes
    X = X + sp.csr_matrix(
        (np.where(y[:, None] == 1, 0.3, 0.0) * (rng.random((n, p)) < 0.02))
    )
    if offset:
        X = sp.hstack(
            [X, sp.csr_matrix(offset + rng.normal(size=(n, 1)))], format="csr"
        )
    return sp.csr_matrix(X), y


def _fitted_with_peak_memory(X, y):
    """The statistics of (X, y) and S(κ)⁻¹d, with the peak of the memory numpy and
    scipy allocated meanwhile (tracemalloc sees their arrays)."""
    tracemalloc.start()
    try:
        stats = class_statistics(X, y, 2)
        stats.regularized_inverse(1.0).solve(stats.mean_difference(1, 0))
        return stats, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("n, p", [(40, 600), (300, 30), (80, 80)])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("per_class", [False, True])
def test_sparse_statistics_equal_the_dense_ones(n, p, n_classes, weighted, per_class):
    X, y = _sparse_data(n, p, n_classes)
    weights = (
        np.random.default_rng(1).integers(0, 3, n).astype(float) if weighted else None
    )
    sparse = class_statistics(X, y, n_classes, weights, per_class=per_class)
    dense = class_statistics(X.toarray(), y, n_classes, weights, per_class=per_class)
    wide = np.count_nonzero(weights if weighted else np.ones(n)) <= p and p > 256
    assert sparse.within.form == ("sparse" if wide else "matrix")
    assert dense.within.form == ("rows" if wide else "matrix")
    np.testing.assert_allclose(sparse.counts, dense.counts)
    np.testing.assert_allclose(sparse.means, dense.means, rtol=1e-12, atol=1e-15)
    scale = np.abs(dense.scatter()).max()
    np.testing.assert_allclose(sparse.scatter(), dense.scatter(), atol=1e-12 * scale)
    assert sparse.n_samples == dense.n_samples
    if n_classes == 3 and (per_class or wide):
        for pair in [(0, 1), (0, 2), (1, 2)]:
            np.testing.assert_allclose(
                sparse.pair(*pair).scatter(), dense.pair(*pair).scatter(),
                atol=1e-12 * scale,
            )  # fmt: skip
    for kappa in [0.1, np.inf]:
        d = dense.mean_difference(1, 0)
        got = sparse.regularized_inverse(kappa).solve(d, atol=dense.mean_noise)
        expected = dense.regularized_inverse(kappa).solve(d, atol=dense.mean_noise)
        assert np.linalg.norm(got - expected) <= 1e-9 * np.linalg.norm(expected)


def test_sparse_statistics_merge_as_dense_ones_do():
    X, y = _sparse_data(60, 500, 2)
    parts = [
        class_statistics(X[rows], y[rows], 2) for rows in (slice(0, 25), slice(25, 60))
    ]
    merged = parts[0].merge(parts[1])
    assert merged.within.form == "sparse"
    whole = class_statistics(X.toarray(), y, 2)
    scale = np.abs(whole.scatter()).max()
    np.testing.assert_allclose(merged.scatter(), whole.scatter(), atol=1e-12 * scale)
    np.testing.assert_allclose(merged.means, whole.means, rtol=1e-12, atol=1e-15)


def test_a_feature_far_from_the_origin_is_centred_explicitly_and_keeps_its_digits():
    """A feature at 1e8 with unit spread: centring by subtraction would keep 8 of
    its 16 digits, so that feature alone is centred explicitly (a dense column of
    the sparse rows); the others stay implicit."""
    X, y = _sparse_data(50, 400, 2, offset=1e8)
    sparse = class_statistics(X, y, 2)
    dense = class_statistics(X.toarray(), y, 2)
    assert sparse.within.form == "sparse"
    assert sparse.within.rows.sparse.nnz <= X.nnz + 50
    np.testing.assert_allclose(
        sparse.scatter_diagonal(), dense.scatter_diagonal(), rtol=1e-12
    )


def test_rows_far_from_the_origin_in_a_subspace_keep_the_dense_rank():
    """Three features at 100 with spread 3, the third the sum of the others: the
    implicit centring's rounding (1e-13 of the scatter) would pass the rank
    tolerance and make a third direction."""
    from sklearn_linsep import FisherDiscriminant

    for seed in range(20):
        rng = np.random.RandomState(seed)
        y = np.repeat([0, 1], 30)
        A = rng.randint(-3, 4, size=(60, 3)).astype(float)
        A[:, 2] = A[:, 0] + A[:, 1]
        A[y == 1, 0] += 1
        A += 100.0
        dense = FisherDiscriminant().fit(A, y)
        sparse = FisherDiscriminant().fit(sp.csr_matrix(A), y)
        assert sparse.rank_ == dense.rank_ == 2
        np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9)


def test_a_constant_feature_does_not_densify_wide_sparse_rows():
    """A bias column of ones is constant within the classes: centred explicitly,
    it adds one dense column, not a dense copy of X."""
    X, y = _sparse_data(500, 20_000, 2, density=2e-3)
    X = sp.hstack([X, np.ones((500, 1))], format="csr")
    stats, peak = _fitted_with_peak_memory(X, y)
    assert stats.within.form == "sparse"
    assert peak < 0.25 * 500 * 20_001 * 8  # X dense: 80 MB


def test_sparse_chunks_merge_without_correction_rows():
    """partial_fit on sparse chunks of 20 rows: the rows are centred again on the
    merged means (exact), so no dense correction row piles up. (Chunks of a few
    rows centre some features explicitly, and those merge with correction rows.)"""
    X, y = _sparse_data(400, 2000, 2)
    stats = None
    for rows in np.array_split(np.arange(400), 20):
        chunk = class_statistics(X[rows], y[rows], 2)
        stats = chunk if stats is None else stats.merge(chunk)
    assert stats.within.form == "sparse" and not stats.within.rows.dense.size
    whole = class_statistics(X.toarray(), y, 2)
    scale = np.abs(whole.scatter()).max()
    np.testing.assert_allclose(stats.scatter(), whole.scatter(), atol=1e-12 * scale)


@pytest.mark.slow  # 4 s: a memory bound at p = 100 000 (run by .ci/run's `pytest -m slow`)
def test_wide_sparse_statistics_never_densify_x():
    """p = 100 000: X dense would be 400 MB; the statistics and S(κ)⁻¹ d use the
    sparse rows and (n, n) Gram matrices only."""
    n, p = 500, 100_000
    X, y = _sparse_data(n, p, 2, density=2e-4)
    stats, peak = _fitted_with_peak_memory(X, y)
    assert stats.within.form == "sparse"
    assert peak < 0.1 * n * p * 8


def test_a_matrix_scatter_refuses_pairs_without_the_scatter_of_each_class():
    with pytest.raises(ValueError, match="per_class=True"):
        Scatter(matrix=np.eye(2)).pair(0, 1)


@pytest.mark.parametrize("chunk", [1, 2])
def test_compaction_keeps_features_on_scales_far_apart(chunk):
    """The issue's repro: two features at 1e4, 298 at 1e-4, given to partial_fit a
    row or two at a time. A cut on the raw Gram's eigenvalues dropped the small
    features' directions (rank 17 instead of 38, coef 60-100% off)."""
    from sklearn_linsep import FisherDiscriminant

    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 300))
    X[:, :2] *= 1e4
    X[:, 2:] *= 1e-4
    y = np.repeat([0, 1], 20)
    rng.shuffle(y)
    full = FisherDiscriminant().fit(X, y)
    part = FisherDiscriminant()
    for start in range(0, 40, chunk):
        part.partial_fit(X[start : start + chunk], y[start : start + chunk], [0, 1])
    assert part.rank_ == full.rank_ == 38
    np.testing.assert_allclose(part.coef_, full.coef_, rtol=1e-9, atol=0)


@pytest.mark.parametrize("n_groups", [3, 200])
def test_group_sums_equal_the_dense_sums_either_way(n_groups):
    """The dense indicator (few groups) and the sparse product (many) give the
    weighted sums of each group's rows."""
    from sklearn_linsep._scatter import group_sums

    rng = np.random.default_rng(0)
    X = sp.random(500, 40, density=0.2, random_state=0, format="csr")
    group = rng.integers(0, n_groups, 500)
    weight = rng.uniform(0.5, 2.0, 500)
    expected = np.zeros((n_groups, 40))
    np.add.at(expected, group, weight[:, None] * X.toarray())
    np.testing.assert_allclose(group_sums(X, group, weight, n_groups), expected)
