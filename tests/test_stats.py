from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_linsep import ClassStatistics
from sklearn_linsep._covariance import regularized_covariance
from sklearn_linsep._stats import class_statistics


def _naive(X, y, n_classes, w=None):
    """Two-pass reference: weighted means, then the centred scatter, per class."""
    w = np.ones(len(X)) if w is None else w
    counts = np.array([w[y == k].sum() for k in range(n_classes)])
    means = np.array([w[y == k] @ X[y == k] / counts[k] for k in range(n_classes)])
    centred = X - means[y]
    return counts, means, (centred * w[:, None]).T @ centred


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 60),
    p=st.integers(1, 6),
    n_classes=st.integers(2, 4),
    chunk_rows=st.integers(1, 70),
    weighted=st.booleans(),
)
def test_one_pass_statistics_match_two_pass_reference(
    seed, n, p, n_classes, chunk_rows, weighted
):
    rng = np.random.RandomState(seed)
    X = (
        rng.normal(size=(n, p)) * 10 + 1e3
    )  # large means: raw sums of squares would fail
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    w = rng.randint(0, 4, size=n).astype(float) if weighted else None
    if w is not None:
        w[np.arange(n_classes)] += 1  # every class keeps some weight
        y[np.arange(n_classes)] = np.arange(n_classes)
    stats = class_statistics(X, y, n_classes, w, chunk_rows=chunk_rows)
    counts, means, scatter = _naive(X, y, n_classes, w)
    np.testing.assert_allclose(stats.counts, counts, rtol=1e-12)
    np.testing.assert_allclose(stats.means, means, rtol=1e-12)
    # Rounding is relative to the data, not to the (possibly vanishing) scatter.
    atol = 1e-12 * n * np.abs(X).max() ** 2
    np.testing.assert_allclose(stats.within_scatter, scatter, rtol=1e-9, atol=atol)
    assert stats.n_samples == (n if w is None else np.count_nonzero(w))  # weight > 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), split=st.floats(0.0, 1.0))
def test_merge_of_two_parts_equals_statistics_of_the_union(seed, split):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(40, 3))
    y = rng.randint(0, 3, size=40)
    cut = int(split * 40)
    whole = class_statistics(X, y, 3)
    merged = class_statistics(X[:cut], y[:cut], 3).merge(
        class_statistics(X[cut:], y[cut:], 3)
    )
    np.testing.assert_allclose(merged.counts, whole.counts)
    np.testing.assert_allclose(merged.means, whole.means, atol=1e-13)
    np.testing.assert_allclose(merged.within_scatter, whole.within_scatter, atol=1e-11)


def test_merge_refuses_other_shapes():
    a = class_statistics(np.ones((4, 2)), np.array([0, 1, 0, 1]), 2)
    b = class_statistics(np.ones((4, 3)), np.array([0, 1, 0, 1]), 2)
    with pytest.raises(ValueError, match="different shapes"):
        a.merge(b)


def test_pooled_covariance_divides_by_weight_minus_classes():
    X = np.array([[0.0], [2.0], [10.0], [14.0]])
    stats = class_statistics(X, np.array([0, 0, 1, 1]), 2)
    np.testing.assert_allclose(stats.pooled_covariance(), [[(2 + 8) / 2]])


def test_pooled_covariance_one_point_per_class_is_zero():
    stats = class_statistics(np.array([[0.0, 1.0], [3.0, 4.0]]), np.array([0, 1]), 2)
    np.testing.assert_array_equal(stats.pooled_covariance(), np.zeros((2, 2)))


def test_pooled_covariance_with_too_little_weight_is_an_error():
    X = np.array([[0.0], [1.0], [5.0], [6.0]])
    stats = class_statistics(X, np.array([0, 0, 1, 1]), 2, np.full(4, 0.25))
    with pytest.raises(ValueError, match="frequency weights"):
        stats.pooled_covariance()


@pytest.mark.parametrize("estimator", ["FisherDiscriminant", "SeparabilityAngle"])
def test_weights_summing_to_the_classes_to_rounding_are_an_error(estimator):
    """40 weights of 0.05, two classes: Σw - K is 0, summed as 4.4e-16; its
    divisor made S 1e16 times too large (coef_ ~1e-16, every probability 0.5,
    the angle 4e-16) where a sum below K gave the documented error."""
    import sklearn_linsep

    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(20, 3) + [2, 0, 0], rng.randn(20, 3) - [2, 0, 0]]
    y = np.repeat([0, 1], 20)
    model = getattr(sklearn_linsep, estimator)()
    with pytest.raises(ValueError, match=r"which is 0 \(to its sum's rounding\)"):
        model.fit(X, y, sample_weight=np.full(40, 0.05))
    model.fit(X, y, sample_weight=np.full(40, 0.06))  # Σw - K = 0.4: a divisor


def test_overflow_is_reported_not_returned():
    X = np.array([[1e200], [-1e200], [3e200], [5e200]])
    with pytest.raises(ValueError, match="too large"):
        class_statistics(X, np.array([0, 0, 1, 1]), 2)


@pytest.mark.parametrize("kappa", [1e-3, 0.5, 1.0, 7.0, np.inf])
def test_regularized_inverse_is_pinv_plus_null_projector_over_kappa(kappa):
    rng = np.random.RandomState(0)
    A = rng.normal(size=(6, 3))
    S = A @ A.T  # rank 3 in R^6
    reg = regularized_covariance(S, kappa)
    assert (reg.rank, reg.null_space_dim) == (3, 3)
    null = scipy.linalg.null_space(S)
    expected = (
        scipy.linalg.pinvh(S)
        + (0.0 if np.isinf(kappa) else 1.0 / kappa) * null @ null.T
    )
    b = rng.normal(size=6)
    np.testing.assert_allclose(reg.solve(b), expected @ b, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reg.null_projector(), null @ null.T, atol=1e-12)
    # S(κ) = S + κQ and S(κ)⁻¹ are inverses of each other.
    if np.isfinite(kappa):
        S_kappa = S + kappa * reg.null_projector()
        np.testing.assert_allclose(S_kappa @ reg.solve(b), b, rtol=1e-8, atol=1e-10)


def test_whitening_normalises_the_regularised_covariance():
    rng = np.random.RandomState(1)
    A = rng.normal(size=(5, 2))
    S = A @ A.T
    reg = regularized_covariance(S, 0.3)
    W = reg.whitening()
    S_kappa = S + 0.3 * reg.null_projector()
    np.testing.assert_allclose(W.T @ S_kappa @ W, np.eye(5), atol=1e-10)


def test_rank_does_not_depend_on_the_units_of_the_features():
    rng = np.random.RandomState(0)
    A = rng.normal(size=(4, 2))
    S = A @ A.T + np.diag([0, 0, 0, 1.0])  # rank 3 in R^4
    for units in ([1, 1, 1, 1], [1e8, 1e-8, 1, 1e4], [1e-6, 1, 1e6, 1]):
        D = np.diag(units)
        assert regularized_covariance(D @ S @ D, 1.0).rank == 3
    assert regularized_covariance(np.diag([1.0, 1e-9, 0.0]), 1.0).rank == 2
    assert regularized_covariance(np.zeros((3, 3)), 1.0).rank == 0


def test_rank_tolerance_is_relative_settable_and_follows_the_dtype():
    delta = 1e-8  # correlation 1 - δ: eigenvalues 2 - δ and δ of C
    S = np.array([[1.0, 1 - delta], [1 - delta, 1.0]]) * 1e6
    assert regularized_covariance(S, 1.0).rank == 2
    assert regularized_covariance(S, 1.0, tol=1e-6).rank == 1
    # float32 values 1000 times their spread carry errors of about 1e-4 of the
    # spread: a correlation of 1 - 1e-8 can no longer be told from 1.
    offset = [1e6, 1e6]  # magnitude 1000 times the spread of 1e3
    assert regularized_covariance(S, 1.0, feature_scale=offset).rank == 2
    assert (
        regularized_covariance(S, 1.0, dtype=np.float32, feature_scale=offset).rank == 1
    )
    assert regularized_covariance(S, 1.0, dtype=np.float32).rank == 2


def test_variance_below_the_rounding_level_of_the_feature_is_null():
    S = np.diag([2.0, 1e-34])  # e.g. a constant column 7.0 after rounding
    assert regularized_covariance(S, 1.0).rank == 2
    assert regularized_covariance(S, 1.0, feature_scale=[1.0, 7.0]).rank == 1


def test_split_drops_rounding_noise():
    reg = regularized_covariance(np.diag([1.0, 0.0]), kappa=1e-12)
    pinv_part, null_part = reg.split(np.array([1.0, 1e-17]), atol=1e-15)
    np.testing.assert_array_equal(null_part, [0.0, 0.0])
    np.testing.assert_allclose(
        reg.solve(np.array([1.0, 1e-17]), atol=1e-15), [1.0, 0.0]
    )


def test_pair_statistics_equal_the_statistics_of_the_two_classes_alone():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 3))
    y = np.repeat([0, 1, 2], 30)
    stats = class_statistics(X, y, 3, per_class=True, chunk_rows=17)
    rows = y != 1
    alone = class_statistics(X[rows], (y[rows] == 2).astype(int), 2)
    pair = stats.pair(0, 2)
    np.testing.assert_allclose(pair.means, alone.means)
    np.testing.assert_allclose(pair.within_scatter, alone.within_scatter, rtol=1e-12)
    np.testing.assert_allclose(stats.class_scatter.sum(axis=0), stats.within_scatter)
    with pytest.raises(ValueError, match="per_class"):
        class_statistics(X, y, 3).pair(0, 1)


def test_large_offsets_and_sorted_classes_lose_nothing():
    # Values near 1e8 with unit spread, classes sorted (class 1 absent from the early
    # chunks): a raw sum of squares would keep no digit of the scatter.
    rng = np.random.RandomState(0)
    noise = rng.normal(size=(5000, 3))
    y = np.repeat([0, 1], 2500)
    X = 1e8 + noise + 5.0 * y[:, None]
    stats = class_statistics(X, y, 2, chunk_rows=700)
    _, means, scatter = _naive(X - 1e8, y, 2)  # the shift by 1e8 is exact here
    np.testing.assert_allclose(stats.means - 1e8, means, atol=3e-8)  # ulp(1e8) = 1.5e-8
    np.testing.assert_allclose(
        stats.within_scatter, scatter, rtol=1e-9, atol=1e-9 * np.abs(scatter).max()
    )


# --- ClassStatistics as a public, mergeable type ---


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_parts=st.integers(2, 6))
def test_from_data_parts_merge_to_the_statistics_of_all_rows(seed, n_parts):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(50, 3)) * 5 + 1e4
    y = rng.choice(["a", "b", "c"], size=50)
    w = rng.uniform(0, 2, size=50)
    classes = ["a", "b", "c"]
    cuts = np.sort(rng.choice(np.arange(1, 50), size=n_parts - 1, replace=False))
    parts = [
        ClassStatistics.from_data(
            X[rows], y[rows], classes, sample_weight=w[rows], per_class=True
        )
        for rows in np.split(np.arange(50), cuts)
    ]
    rng.shuffle(parts)
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    whole = ClassStatistics.from_data(X, y, classes, sample_weight=w, per_class=True)
    np.testing.assert_allclose(merged.counts, whole.counts, rtol=1e-12)
    np.testing.assert_allclose(merged.means, whole.means, rtol=1e-12)
    scale = np.abs(whole.within_scatter).max()
    np.testing.assert_allclose(
        merged.within_scatter, whole.within_scatter, rtol=1e-9, atol=1e-10 * scale
    )
    np.testing.assert_allclose(
        merged.class_scatter, whole.class_scatter, rtol=1e-9, atol=1e-10 * scale
    )
    assert merged.n_samples == 50


def test_merge_with_a_part_missing_a_class_takes_the_other_part_unchanged():
    X = np.array([[1.0, 2.0], [3.0, 5.0], [7.0, 1.0], [8.0, 4.0]])
    only_zero = ClassStatistics.from_data(X[:2], [0, 0], [0, 1])
    only_one = ClassStatistics.from_data(X[2:], [1, 1], [0, 1])
    merged = only_zero.merge(only_one)
    np.testing.assert_array_equal(merged.counts, [2.0, 2.0])
    np.testing.assert_array_equal(merged.means, [[2.0, 3.5], [7.5, 2.5]])
    np.testing.assert_allclose(
        merged.within_scatter,
        only_zero.within_scatter + only_one.within_scatter,
        rtol=1e-15,
    )


def test_dtype_follows_the_data_and_merging_promotes_it():
    X = np.array([[0.0], [1.0], [3.0], [5.0]])
    y = [0, 0, 1, 1]
    single = ClassStatistics.from_data(X.astype(np.float32), y, [0, 1])
    double = ClassStatistics.from_data(X, y, [0, 1])
    assert single.dtype == np.float32 and double.dtype == np.float64
    assert single.merge(single).dtype == np.float32
    assert single.merge(double).dtype == np.float64
    assert ClassStatistics.from_data(X.astype(int), y, [0, 1]).dtype == np.float64
    assert single.means.dtype == np.float64  # accumulated in float64 regardless


def test_from_data_refuses_unknown_labels_and_unsorted_classes():
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"labels not in classes \[0, 1\]: \[5\]"):
        ClassStatistics.from_data(X, [0, 1, 5], [0, 1])
    with pytest.raises(ValueError, match=r"labels not in classes"):
        ClassStatistics.from_data(X, ["a", "b", "a"], [0, 1])
    with pytest.raises(ValueError, match="sorted and distinct"):
        ClassStatistics.from_data(X, [0, 1, 0], [1, 0])
    with pytest.raises(ValueError, match="sorted and distinct"):
        ClassStatistics.from_data(X, [0, 1, 0], [0, 1, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ClassStatistics.from_data(X, [0, 1], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        ClassStatistics.from_data([[np.nan], [1.0]], [0, 1], [0, 1])


@pytest.mark.parametrize("offset", [1e6, 1e8])
@pytest.mark.parametrize("chunk", [1, 7])
def test_streaming_far_from_the_origin_equals_one_fit(offset, chunk):
    """Means of 1e8 with unit spread: plain means would round by ulp(1e8) at every
    merge (200 merges of a row: up to 1e-6 of the spread, 1e4 times the tolerance);
    the compensated means keep the chunked fit within 1e-10 of one fit."""
    from sklearn_linsep import FisherDiscriminant, SeparabilityAngle

    rng = np.random.RandomState(0)
    n = 200 if chunk == 1 else 500
    y = rng.randint(0, 2, n)
    X = rng.normal(size=(n, 3)) + offset + 2.0 * y[:, None]
    fisher, angle = FisherDiscriminant().fit(X, y), SeparabilityAngle().fit(X, y)
    streamed_fisher, streamed_angle = FisherDiscriminant(), SeparabilityAngle()
    for start in range(0, n, chunk):
        rows = slice(start, start + chunk)
        streamed_fisher.partial_fit(X[rows], y[rows], classes=[0, 1])
        streamed_angle.partial_fit(X[rows], y[rows], classes=[0, 1])
    np.testing.assert_allclose(streamed_fisher.coef_, fisher.coef_, rtol=1e-10)
    np.testing.assert_allclose(
        streamed_fisher.intercept_, fisher.intercept_, rtol=1e-10
    )
    assert streamed_angle.angle_ == pytest.approx(angle.angle_, rel=1e-10)
    exact = [
        [sum(map(Fraction, X[y == k, j])) / int(np.sum(y == k)) for j in range(3)]
        for k in (0, 1)
    ]  # the means in rationals: long double's are short of 1e-12 at 1e8
    difference = streamed_fisher.statistics_.mean_difference(1, 0)
    np.testing.assert_allclose(
        difference, [float(a - b) for a, b in zip(exact[1], exact[0])], rtol=1e-12
    )


def test_a_chunk_of_zero_weight_adds_nothing():
    from sklearn_linsep import FisherDiscriminant

    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(40, 2)), np.repeat([0, 1], 20)
    X[y == 1] += 2.0
    with_zeros = FisherDiscriminant().partial_fit(X, y, classes=[0, 1])
    with_zeros.partial_fit(X[:5], y[:5], sample_weight=np.zeros(5))
    plain = FisherDiscriminant().fit(X, y)
    np.testing.assert_allclose(with_zeros.coef_, plain.coef_, rtol=1e-12)
    stats = ClassStatistics.from_data(X[:5], y[:5], [0, 1], sample_weight=np.zeros(5))
    assert not stats.counts.any()
    with pytest.raises(ValueError, match="non-negative"):
        FisherDiscriminant().partial_fit(
            X, y, classes=[0, 1], sample_weight=-np.ones(40)
        )


@pytest.mark.parametrize("position", [0, 17, 40])
@pytest.mark.parametrize("chunk_rows", [None, 7])
def test_a_far_row_of_zero_weight_changes_nothing(position, chunk_rows):
    # The case: a row at (1e8, 1e8, 1e8) of weight 0 was each chunk's
    # reference for its class, and the other rows lost their digits to it (coef_
    # moved by 44%, θ from 53.84° to 42.24°).
    from sklearn_linsep import FisherDiscriminant, separability_statistics

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1] += 1.0
    far = np.insert(X, position, [1e8, 1e8, 1e8], axis=0)
    labels = np.insert(y, position, 1)
    weights = np.ones(41)
    weights[position] = 0.0
    plain = class_statistics(X, y, 2, chunk_rows=chunk_rows)
    weighted = class_statistics(
        far, labels, 2, sample_weight=weights, chunk_rows=chunk_rows
    )
    np.testing.assert_allclose(weighted.means, plain.means, rtol=1e-13)
    np.testing.assert_allclose(
        weighted.within_scatter, plain.within_scatter, rtol=1e-12, atol=1e-12
    )
    fitted = FisherDiscriminant().fit(far, labels, sample_weight=weights)
    np.testing.assert_allclose(
        fitted.coef_, FisherDiscriminant().fit(X, y).coef_, rtol=1e-10
    )
    assert separability_statistics(
        far, labels, sample_weight=weights
    ).degrees == pytest.approx(separability_statistics(X, y).degrees, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-155, 1e-170, 1e-300])
def test_a_spread_whose_squares_underflow_is_an_error_that_names_it(scale):
    # Before: θ = 0°, rank 0, and FisherDiscriminant's "the class means coincide",
    # which is false.
    from sklearn_linsep import FisherDiscriminant, separability_statistics

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1] += 1.0
    for fit in (
        lambda: separability_statistics(X * scale, y),
        lambda: FisherDiscriminant().fit(X * scale, y),
    ):
        with pytest.raises(ValueError, match=r"spread .* about \d\.\de-\d+ .*Rescale"):
            fit()


def test_small_but_representable_data_keep_their_angles():
    from sklearn_linsep import separability_statistics

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1] += 1.0
    small = separability_statistics(X * 1e-150, y)
    assert small.rank == 3 and small.degrees == 90.0  # θ → 90° as X shrinks
    invariant = separability_statistics(X * 1e-150, y, metric="mahalanobis")
    assert invariant.degrees == pytest.approx(
        separability_statistics(X * 1e150, y, metric="mahalanobis").degrees, rel=1e-12
    )


@pytest.mark.parametrize("split", [[1], [2], [3], [1, 2, 3]])
def test_the_rank_never_exceeds_rows_minus_classes(split):
    # The shape: 4 x 20, weights [1, 1, 2, 0]: three rows of positive
    # weight and two classes hold a scatter of rank 1. Rounding noise above the
    # tolerance (made certain here with tol=1e-300) gave rank 11 and ‖coef‖ ≈ 5e15;
    # partial_fit and fit could decide different ranks on a knife edge.
    from sklearn_linsep import FisherDiscriminant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 20)) * rng.uniform(0.1, 10, 20) + 5
    y, weights = np.array([0, 1, 0, 1]), np.array([1.0, 1.0, 2.0, 0.0])
    reference = FisherDiscriminant().fit(X, y, sample_weight=weights)
    assert reference.rank_ == 1
    for tol in (None, 1e-300):
        fitted = FisherDiscriminant(tol=tol).fit(X, y, sample_weight=weights)
        assert fitted.rank_ == 1
        np.testing.assert_allclose(fitted.coef_, reference.coef_, rtol=1e-9)
        streamed = FisherDiscriminant(tol=tol)
        for rows in np.split(np.arange(4), split):
            streamed.partial_fit(X[rows], y[rows], classes=[0, 1],
                                 sample_weight=weights[rows])  # fmt: skip
        assert streamed.rank_ == 1
        np.testing.assert_allclose(streamed.coef_, reference.coef_, rtol=1e-9)


def test_max_rank_keeps_the_largest_eigenvalues():
    # The rank is decided unit-free, on the correlation matrix C = D^-1/2 S D^-1/2:
    # the cap keeps C's largest eigenvalues, and S† is the pseudo-inverse of the
    # truncated S = D^1/2 V_r Λ_r V_rᵀ D^1/2.
    rng = np.random.default_rng(1)
    basis = np.linalg.qr(rng.normal(size=(5, 5)))[0]
    S = basis @ np.diag([4.0, 2.0, 1.0, 1e-3, 1e-4]) @ basis.T
    capped = regularized_covariance(S, kappa=1.0, tol=1e-12, max_rank=2)
    assert capped.rank == 2 and capped.null_space_dim == 3
    root = np.sqrt(np.diag(S))
    values, vectors = np.linalg.eigh(S / np.outer(root, root))
    top = root[:, None] * vectors[:, -2:]
    truncated = top @ np.diag(values[-2:]) @ top.T
    np.testing.assert_allclose(
        capped.solve(np.eye(5)) - capped.null_projector(),
        np.linalg.pinv(truncated),
        atol=1e-10,
    )
    assert regularized_covariance(S, kappa=1.0, tol=1e-12).rank == 5


# --- wide data: the scatter as rows and S(κ)⁻¹ in the span of the samples ---


def _wide(n, p, n_classes, graded, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p))
    y = np.arange(n) % n_classes
    X[y == 1, ::5] += 1.0
    if graded:
        X *= np.logspace(-graded, graded, p)
    return X, y


def _relative(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


@pytest.mark.parametrize(
    "n, p, n_classes, graded, weighted",
    [
        (30, 80, 2, 0, False),
        (30, 80, 2, 0, True),
        (40, 300, 3, 3, False),
        (40, 300, 3, 3, True),
        (20, 400, 2, 6, False),  # graded 1e12 apart: the Householder route
        (90, 100, 2, 0, False),  # a spread-out spectrum near n = p
        (60, 50, 4, 0, True),  # more rows than features: rows turn into the matrix
    ],
)
def test_rows_form_equals_the_matrix_form(n, p, n_classes, graded, weighted):
    X, y = _wide(n, p, n_classes, graded)
    w = np.random.RandomState(1).uniform(0.5, 2.0, n) if weighted else None
    rows = class_statistics(X, y, n_classes, w, per_class=True, form="rows")
    matrix = class_statistics(X, y, n_classes, w, per_class=True, form="matrix")
    assert rows.holds_rows == (n <= p) and not matrix.holds_rows
    scale = np.abs(matrix.within_scatter).max()
    np.testing.assert_allclose(
        rows.scatter(), matrix.within_scatter, atol=1e-12 * scale
    )
    np.testing.assert_allclose(rows.means, matrix.means, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rows.counts, matrix.counts, rtol=1e-15)
    np.testing.assert_allclose(rows.scatter_diagonal(), np.diag(matrix.within_scatter),
                               rtol=1e-12)  # fmt: skip
    d = matrix.mean_difference(1, 0)
    for kappa in (1e-3, 1.0, np.inf):
        wide, square = (
            rows.regularized_inverse(kappa),
            matrix.regularized_inverse(kappa),
        )
        assert wide.rank == square.rank
        for got, expected in zip(wide.split(d), square.split(d)):
            assert _relative(got, expected) < 1e-10
        assert _relative(wide.solve(d), square.solve(d)) < 1e-10
    pair_rows, pair_matrix = rows.pair(0, 1), matrix.pair(0, 1)
    np.testing.assert_allclose(pair_rows.scatter(), pair_matrix.within_scatter,
                               atol=1e-12 * scale)  # fmt: skip


def test_the_span_route_equals_the_householder_route(monkeypatch):
    from sklearn_linsep import _covariance
    from sklearn_linsep._basis import ExplicitBasis, SpanBasis

    X, y = _wide(40, 500, 2, 2)
    stats = class_statistics(X, y, 2)
    assert stats.holds_rows
    span = stats.regularized_inverse(0.5)
    assert isinstance(span.basis, SpanBasis)  # the Gram route: U is never formed
    monkeypatch.setattr(_covariance, "_SPAN_ERROR_LIMIT", 0.0)
    householder = stats.regularized_inverse(0.5)
    assert isinstance(householder.basis, ExplicitBasis)
    d = stats.mean_difference(1, 0)
    assert span.rank == householder.rank == 38
    assert _relative(span.solve(d), householder.solve(d)) < 1e-12
    basis = span.range_basis
    np.testing.assert_allclose(basis.T @ basis, np.eye(38), atol=1e-12)


def test_rows_are_kept_only_where_they_are_cheaper():
    from sklearn_linsep._pass_plan import ROWS_FROM_FEATURES, rows_are_cheaper

    assert rows_are_cheaper(40, ROWS_FROM_FEATURES + 1)
    assert not rows_are_cheaper(40, ROWS_FROM_FEATURES)  # small p: the matrix is small
    assert not rows_are_cheaper(ROWS_FROM_FEATURES + 2, ROWS_FROM_FEATURES + 1)
    assert rows_are_cheaper(5, 10, form="rows") and not rows_are_cheaper(
        50, 10, form="rows"
    )
    assert not rows_are_cheaper(5, 10**5, form="matrix")
    X, y = _wide(30, 1000, 2, 0)
    assert class_statistics(X, y, 2).holds_rows
    assert not class_statistics(X[:, :200], y, 2).holds_rows


def test_merging_rows_is_exact_and_turns_into_the_matrix_past_the_features():
    X, y = _wide(120, 300, 3, 1)
    whole = class_statistics(X, y, 3, form="matrix")
    merged = None
    for part in np.array_split(np.arange(120), 6):
        chunk = class_statistics(X[part], y[part], 3)
        assert chunk.holds_rows
        merged = chunk if merged is None else merged.merge(chunk)
        # 20 rows and up to 3 corrections per merge: rows, at most p of them
        assert merged.holds_rows and merged.scatter_rows.shape[0] <= 300
    assert merged.n_samples == 120
    scale = np.abs(whole.within_scatter).max()
    np.testing.assert_allclose(
        merged.scatter(), whole.within_scatter, atol=1e-11 * scale
    )
    np.testing.assert_allclose(merged.means, whole.means, atol=1e-13)
    twice = merged.merge(class_statistics(X, y, 3))
    assert twice.holds_rows  # 240 rows (the same means: no correction rows)
    thrice = twice.merge(class_statistics(X, y, 3))
    assert not thrice.holds_rows  # 360 rows: the (300, 300) matrix is cheaper
    assert thrice.n_samples == 360
    np.testing.assert_allclose(thrice.scatter(), 3 * whole.within_scatter,
                               atol=1e-11 * scale)  # fmt: skip


def test_rows_form_leaves_zero_weight_rows_out():
    X, y = _wide(30, 300, 2, 0)
    far = np.vstack([X, np.full((1, 300), 1e8)])
    weights = np.append(np.ones(30), 0.0)
    stats = class_statistics(far, np.append(y, 1), 2, weights)
    plain = class_statistics(X, y, 2)
    assert stats.holds_rows and stats.scatter_rows.shape[0] == 30
    np.testing.assert_array_equal(stats.scatter_rows, plain.scatter_rows)
    np.testing.assert_array_equal(stats.means, plain.means)


def test_rows_form_says_when_the_spread_underflows_or_overflows():
    X, y = _wide(20, 300, 2, 0)
    with pytest.raises(ValueError, match="underflow float64"):
        class_statistics(X * 1e-170, y, 2)
    with pytest.raises(ValueError, match="overflowed float64"):
        class_statistics(X * 1e307, y, 2)


def test_rescaling_is_the_same_in_both_forms():
    X, y = _wide(30, 300, 2, 1)
    shift, scale = X.mean(axis=0), X.std(axis=0)
    direct = class_statistics((X - shift) / scale, y, 2, form="matrix")
    for form in ("rows", "matrix"):
        rescaled = class_statistics(X, y, 2, form=form).rescaled(shift, scale)
        assert rescaled.holds_rows == (form == "rows")
        np.testing.assert_allclose(rescaled.scatter(), direct.within_scatter,
                                   atol=1e-10)  # fmt: skip
        np.testing.assert_allclose(rescaled.means, direct.means, atol=1e-12)


def test_wide_statistics_never_form_a_p_by_p_matrix():
    import tracemalloc

    from sklearn_linsep import FisherDiscriminant, separability_statistics

    X, y = _wide(20, 60_000, 2, 0)  # a (p, p) float64 matrix would be 29 GB
    tracemalloc.start()
    try:
        clf = FisherDiscriminant().fit(X, y)
        result = separability_statistics(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert clf.rank_ == 18 and result.rank == 18
    assert peak <= 4 * X.nbytes


def test_the_full_rank_shortcut_equals_the_unit_free_route(monkeypatch):
    from sklearn_linsep import _covariance
    from sklearn_linsep._scatter import CentredRows

    X, y = _wide(50, 2000, 2, 0)
    stats = class_statistics(X, y, 2)
    calls = []
    real = CentredRows.gram

    def gram(rows, column_scale=None):
        if column_scale is not None:
            calls.append(1)
        return real(rows, column_scale)

    monkeypatch.setattr(CentredRows, "gram", gram)
    short = stats.regularized_inverse(0.3)
    assert not calls  # proved full rank from C Cᵀ alone
    monkeypatch.setattr(_covariance, "_full_rank_span", lambda *args: None)
    unit_free = stats.regularized_inverse(0.3)
    assert calls and short.rank == unit_free.rank == 48
    d = stats.mean_difference(1, 0)
    for got, expected in zip(short.split(d), unit_free.split(d)):
        assert _relative(got, expected) < 1e-12


@pytest.mark.parametrize(
    "case", ["constant", "near constant", "duplicate", "one per class", "float32"]
)
def test_wide_edge_cases_equal_the_matrix_form(case):
    X, y = _wide(30, 300, 2, 1)
    if case == "constant":
        X[:, 7] = 5.0
    elif case == "near constant":  # below its rounding level: constant
        X[:, 7] = 1e8 + np.random.RandomState(0).normal(size=30) * 1e-9
    elif case == "duplicate":  # dependent features
        X[:, 9] = 2 * X[:, 8]
    elif case == "one per class":
        X, y = X[:2], y[:2]
    elif case == "float32":
        X = X.astype(np.float32)
    rows = class_statistics(X, y, 2, form="rows")
    matrix = class_statistics(X, y, 2, form="matrix")
    d = matrix.mean_difference(1, 0)
    for kappa in (0.01, np.inf):
        wide, square = (
            rows.regularized_inverse(kappa),
            matrix.regularized_inverse(kappa),
        )
        assert wide.rank == square.rank
        # The matrix form of float32 X is a float32 pass (chunks accumulated in
        # float64): float32's rounding, not float64's.
        bound = 1e-6 if case == "float32" else 1e-9
        assert _relative(wide.solve(d), square.solve(d)) < bound


def test_a_float32_pass_agrees_with_the_float64_statistics():
    """float32 X is centred and multiplied in float32 a chunk at a time, the chunks
    accumulated in float64: same rank, and the Fisher direction within 1 - cos of
    1e-6 (the issue's bound) of the statistics of the same numbers in float64."""
    rng = np.random.default_rng(0)
    n, p = 20_000, 64
    X = (rng.standard_normal((n, 8)) @ rng.standard_normal((8, p))
         + 0.1 * rng.standard_normal((n, p)) + 50.0).astype(np.float32)  # fmt: skip
    y = np.arange(n) % 3
    X[y == 1, :5] += 0.3
    single = class_statistics(X, y, 3)
    double = class_statistics(X.astype(np.float64), y, 3)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single.counts, double.counts)
    scale = np.abs(double.scatter()).max()
    np.testing.assert_allclose(single.scatter(), double.scatter(), atol=1e-5 * scale)
    for kappa in [1.0, np.inf]:
        reg32 = single.regularized_inverse(kappa, dtype=np.float64)
        reg64 = double.regularized_inverse(kappa)
        assert reg32.rank == reg64.rank
        for i, j in [(1, 0), (2, 0)]:
            u = reg32.solve(single.mean_difference(i, j))
            v = reg64.solve(double.mean_difference(i, j))
            assert 1 - u @ v / np.linalg.norm(u) / np.linalg.norm(v) <= 1e-6


def test_float32_data_in_a_subspace_get_the_float64_rank_from_a_float64_pass():
    """Rows in a 3-D subspace of 6 features, far from the origin: float32 products
    would leave the three zero directions at their rounding (about 1e-6 of the
    largest), above the rank tolerance; the pass is made again in float64."""
    rng = np.random.default_rng(1)
    n = 6000
    y = np.arange(n) % 2
    X = (rng.standard_normal((n, 3)) + y[:, None]) @ rng.standard_normal((3, 6)) + 100
    single = class_statistics(X.astype(np.float32), y, 2)
    double = class_statistics(X.astype(np.float32).astype(np.float64), y, 2)
    assert single.regularized_inverse(1.0).rank == 3
    assert double.regularized_inverse(1.0, dtype=np.float32).rank == 3
    scale = np.abs(double.scatter()).max()
    np.testing.assert_allclose(single.scatter(), double.scatter(), atol=1e-12 * scale)


@pytest.mark.parametrize("condition", [1e2, 1e8, 1e14])
def test_the_cholesky_route_is_the_eigendecomposition_where_the_rank_is_clear(
    condition, monkeypatch, count_calls
):
    """A full rank proved by Cholesky's bounds factors S(κ)⁻¹ as L⁻ᵀL⁻¹, the
    same solve as the eigendecomposition; near the cut (condition 1e14 at the
    default tol) the proof fails and the eigendecomposition decides the rank."""
    from sklearn_linsep import _covariance

    rng = np.random.default_rng(0)
    p = 40
    basis = np.linalg.qr(rng.standard_normal((p, p)))[0]
    values = np.geomspace(1.0, 1.0 / condition, p)
    scale = np.geomspace(1e-3, 1e3, p)  # graded units: the cut is unit-free
    S = scale[:, None] * (basis * values) @ basis.T * scale[None, :]
    b = rng.standard_normal(p)
    taken = count_calls(_covariance, "full_rank_proof")
    ours = _covariance.regularized_covariance(S, 0.5, n_samples=1000)
    monkeypatch.setattr(_covariance, "full_rank_proof", lambda C: None)
    reference = _covariance.regularized_covariance(S, 0.5, n_samples=1000)
    assert taken and ours.rank == reference.rank
    if condition < 1e10:
        assert ours.rank == p
        assert _relative(ours.solve(b), np.linalg.solve(S, b)) < 1e-12 * condition
    assert _relative(ours.solve(b), reference.solve(b)) < 1e-12 * condition
