from functools import partial

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_linsep import FisherDiscriminant
from sklearn_linsep._fisher import accuracy_threshold
from sklearn_linsep._testing import assert_close, two_gaussians


def _pooled(X, y):
    """Reference statistics straight from the definitions (np.cov per class)."""
    classes = np.unique(y)
    n = len(y)
    S = sum((np.sum(y == c) - 1) * np.cov(X[y == c].T, ddof=1) for c in classes)
    S = np.atleast_2d(S) / (n - len(classes))
    means = np.array([X[y == c].mean(axis=0) for c in classes])
    return S, means


def _cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


_two_gaussians = partial(two_gaussians, n=200, p=4, shift=1.5)


def _random_affine(seed, p):
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(p, p)))
    A = Q * rng.uniform(0.2, 5.0, size=p)  # nonsingular, condition number ≤ 25
    return A, rng.normal(size=p) * 10


# --- the direction against independent references ---


def test_nonsingular_direction_is_fishers():
    X, y = _two_gaussians()
    S, means = _pooled(X, y)
    expected = np.linalg.solve(S, means[1] - means[0])
    clf = FisherDiscriminant().fit(X, y)
    assert clf.rank_ == 4 and clf.null_space_dim_ == 0
    assert _cosine(clf.coef_[0], expected) > 1 - 1e-10
    np.testing.assert_allclose(clf.coef_[0], expected, rtol=1e-9)
    # midpoint threshold α = ½ uᵀ(x̄₊ + x̄₋)
    np.testing.assert_allclose(
        -clf.intercept_[0], 0.5 * expected @ means.sum(axis=0), rtol=1e-9
    )


def test_nonsingular_kappa_has_no_effect():
    X, y = _two_gaussians()
    fits = [FisherDiscriminant(kappa=k).fit(X, y) for k in (1e-3, 1.0, 1e3)]
    for clf in fits[1:]:
        np.testing.assert_allclose(clf.coef_, fits[0].coef_, rtol=1e-12)
        np.testing.assert_allclose(clf.intercept_, fits[0].intercept_, rtol=1e-12)


def test_singular_with_d_in_range_is_pinv_direction_and_kappa_free():
    # Data in a 2-D subspace of R^5: S has rank 2 and d lies in its range.
    rng = np.random.RandomState(3)
    basis = rng.normal(size=(2, 5))
    y = np.arange(40) % 2
    Z = rng.normal(size=(40, 2)) + 2.0 * y[:, None]
    X = Z @ basis
    S, means = _pooled(X, y)
    expected = scipy.linalg.pinvh(S) @ (means[1] - means[0])
    fits = [FisherDiscriminant(kappa=k).fit(X, y) for k in (0.01, 1.0, 100.0)]
    assert fits[0].rank_ == 2 and fits[0].null_space_dim_ == 3
    for clf in fits:
        assert _cosine(clf.coef_[0], expected) > 1 - 1e-10
        np.testing.assert_allclose(clf.coef_, fits[0].coef_, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("kappa", [0.01, 1.0, 100.0])
def test_singular_with_d_outside_range_is_regularised_direction(kappa):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 60))
    y = np.repeat([0, 1], 10)
    S, means = _pooled(X, y)
    d = means[1] - means[0]
    null = scipy.linalg.null_space(S, rcond=1e-10)
    expected = scipy.linalg.pinvh(S) @ d + null @ (null.T @ d) / kappa
    clf = FisherDiscriminant(kappa=kappa).fit(X, y)
    assert clf.rank_ == 18 and clf.null_space_dim_ == 42 == null.shape[1]
    assert _cosine(clf.coef_[0], expected) > 1 - 1e-10


def test_kappa_changes_the_fit_exactly_when_s_is_singular():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 60))
    y = np.repeat([0, 1], 10)
    small, large = (FisherDiscriminant(kappa=k).fit(X, y) for k in (0.01, 100.0))
    assert _cosine(small.coef_[0], large.coef_[0]) < 0.99
    S, means = _pooled(X, y)
    infinite = FisherDiscriminant(kappa=np.inf).fit(X, y)
    pinv_direction = scipy.linalg.pinvh(S) @ (means[1] - means[0])
    assert _cosine(infinite.coef_[0], pinv_direction) > 1 - 1e-10
    # κ → ∞ approaches S†d
    assert (
        _cosine(FisherDiscriminant(kappa=1e8).fit(X, y).coef_[0], pinv_direction)
        > 1 - 1e-6
    )


def test_p_greater_than_n_separates_training_data_where_lda_does_not():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 60))
    y = np.repeat([0, 1], 10)
    assert FisherDiscriminant(kappa=1.0).fit(X, y).score(X, y) == 1.0
    lda_accuracy = LinearDiscriminantAnalysis(solver="svd").fit(X, y).score(X, y)
    assert lda_accuracy < 0.9


def test_grid_search_over_kappa():
    # p > n with a signal in five features: κ matters (S is singular), and the
    # held-out accuracy of the best κ beats chance clearly.
    rng = np.random.RandomState(1)
    X = rng.normal(size=(40, 80))
    y = np.repeat([0, 1], 20)
    X[y == 1, :5] += 1.0
    grid = [1e-3, 1e-1, 1.0, 10.0, 1e3]
    search = GridSearchCV(FisherDiscriminant(), {"kappa": grid}, cv=StratifiedKFold(4))
    search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert len(set(np.round(scores, 12))) > 1
    assert search.best_score_ >= 0.7
    assert search.best_estimator_.kappa == search.best_params_["kappa"]
    pipeline_scores = cross_val_score(
        make_pipeline(StandardScaler(), FisherDiscriminant()), X, y, cv=4
    )
    assert pipeline_scores.mean() >= 0.7


def test_agrees_in_direction_with_sklearn_lda():
    X, y = _two_gaussians(p=6, seed=5)
    ours = FisherDiscriminant().fit(X, y).coef_[0]
    for solver in ("lsqr", "eigen"):
        theirs = LinearDiscriminantAnalysis(solver=solver).fit(X, y).coef_[0]
        assert _cosine(ours, theirs) > 1 - 1e-10
    # With LDA's empirical priors the decisions coincide.
    priors = np.bincount(y) / len(y)
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    fisher = FisherDiscriminant(priors=priors).fit(X, y)
    assert np.mean(lda.predict(X) == fisher.predict(X)) > 0.99


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 5))
def test_predictions_invariant_under_affine_maps(seed, p):
    X, y = _two_gaussians(n=80, p=p, shift=1.0, seed=seed % 1000)
    A, b = _random_affine(seed, p)
    clf = FisherDiscriminant().fit(X, y)
    mapped = FisherDiscriminant().fit(X @ A.T + b, y)
    scores = clf.decision_function(X)
    mapped_scores = mapped.decision_function(X @ A.T + b)
    # The invariance is exact; rounding grows with the conditioning of the mapped S.
    condition = np.linalg.cond(np.atleast_2d(_pooled(X @ A.T, y)[0]))
    tolerance = (1e-12 + 1e-13 * condition) * (1 + np.abs(scores).max())
    np.testing.assert_allclose(mapped_scores, scores, atol=tolerance)
    clear = np.abs(scores) > 2 * tolerance
    np.testing.assert_array_equal(
        clf.predict(X)[clear], mapped.predict(X @ A.T + b)[clear]
    )


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariant_to_sample_order_and_label_renaming(seed):
    X, y = _two_gaussians(n=60, p=3, seed=seed % 1000)
    order = np.random.RandomState(seed).permutation(len(y))
    names = np.array(["zebra", "ant"])[y]  # sorted classes_ swap the roles
    clf = FisherDiscriminant().fit(X, y)
    shuffled = FisherDiscriminant().fit(X[order], y[order])
    # Exact in arithmetic; the order changes rounding, amplified by the conditioning,
    # and relative to the whole vector (a small entry keeps the large ones' error:
    # seed 2237 moved an entry of 2.8e-4 by 2.7e-12 of itself, 4e-16 of ‖coef‖).
    rtol = 1e-12 + 1e-14 * np.linalg.cond(_pooled(X, y)[0])
    atol = rtol * np.linalg.norm(clf.coef_)
    np.testing.assert_allclose(shuffled.coef_, clf.coef_, rtol=rtol, atol=atol)
    renamed = FisherDiscriminant().fit(X, names)
    np.testing.assert_allclose(renamed.coef_, -clf.coef_, rtol=rtol, atol=atol)
    np.testing.assert_array_equal(
        renamed.predict(X), np.array(["zebra", "ant"])[clf.predict(X)]
    )


# --- thresholds and priors ---


def test_accuracy_threshold_is_optimal_by_brute_force():
    rng = np.random.RandomState(2)
    X = np.vstack([rng.normal(0, 1, (70, 2)), rng.normal(1.2, 1.5, (30, 2))])
    y = np.repeat([0, 1], [70, 30])
    mid = FisherDiscriminant().fit(X, y)
    acc = FisherDiscriminant(threshold="accuracy").fit(X, y)
    np.testing.assert_allclose(acc.coef_, mid.coef_)
    scores = X @ mid.coef_[0]
    candidates = np.concatenate([[scores.min() - 1], np.sort(scores) + 1e-9])
    best = max(np.mean((scores > t) == (y == 1)) for t in candidates)
    assert acc.score(X, y) == pytest.approx(best)
    assert acc.score(X, y) >= mid.score(X, y)


def test_accuracy_threshold_keeps_the_midpoint_when_it_is_optimal():
    scores = np.array([0.0, 1.0, 5.0, 6.0])
    positive = np.array([False, False, True, True])
    assert accuracy_threshold(scores, positive, np.ones(4), preferred=3.2) == 3.2
    assert accuracy_threshold(scores, positive, np.ones(4), preferred=10.0) == 3.0
    weighted = np.array([1.0, 1.0, 1.0, 10.0])
    # labels crossed, weight 10 on the last sample: calling everything negative wins
    assert accuracy_threshold(scores, ~positive, weighted, preferred=3.0) > 6.0


def test_priors_shift_the_threshold_by_the_log_ratio():
    X, y = _two_gaussians()
    plain = FisherDiscriminant().fit(X, y)
    shifted = FisherDiscriminant(priors=[0.2, 0.8]).fit(X, y)
    np.testing.assert_allclose(shifted.coef_, plain.coef_)
    np.testing.assert_allclose(shifted.intercept_ - plain.intercept_, np.log(0.8 / 0.2))


@pytest.mark.parametrize(
    "priors, message",
    [([0.5, 0.6], "sum to 1"), ([1.0, 0.0], "positive"), ([0.2, 0.3, 0.5], "shape")],
)
def test_bad_priors(priors, message):
    X, y = _two_gaussians()
    with pytest.raises(ValueError, match=message):
        FisherDiscriminant(priors=priors).fit(X, y)


def test_accuracy_threshold_refused_for_more_than_two_classes():
    X = np.random.RandomState(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="two classes only"):
        FisherDiscriminant(threshold="accuracy").fit(X, np.arange(30) % 3)


# --- more than two classes ---


def _three_classes(seed=0, p=4):
    rng = np.random.RandomState(seed)
    centres = rng.normal(scale=3, size=(3, p))
    y = np.repeat([0, 1, 2], [30, 40, 50])
    return centres[y] + rng.normal(size=(120, p)) @ rng.normal(size=(p, p)), y


def test_multiclass_directions_solve_the_generalised_eigenproblem():
    X, y = _three_classes()
    S, means = _pooled(X, y)
    weights = np.bincount(y) / len(y)
    centred = means - weights @ means
    S_B = (centred * weights[:, None]).T @ centred
    eigenvalues, vectors = scipy.linalg.eigh(S_B, S)  # vᵀ S v = 1
    vectors = vectors[:, ::-1][:, :2]
    clf = FisherDiscriminant().fit(X, y)
    assert clf.scalings_.shape == (4, 2)
    for j in range(2):
        assert abs(_cosine(clf.scalings_[:, j], vectors[:, j])) > 1 - 1e-9
    np.testing.assert_allclose(np.abs(clf.scalings_), np.abs(vectors), rtol=1e-7)
    top = eigenvalues[::-1][:2]
    np.testing.assert_allclose(
        clf.explained_variance_ratio_, top / top.sum(), rtol=1e-9
    )


def test_multiclass_prediction_is_nearest_mean_in_discriminant_space():
    X, y = _three_classes(seed=4)
    clf = FisherDiscriminant().fit(X, y)
    Z = clf.transform(X)
    centres = np.array([Z[y == k].mean(axis=0) for k in range(3)])
    nearest = np.argmin(((Z[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(clf.predict(X), nearest)
    assert clf.coef_.shape == (3, 4) and clf.decision_function(X).shape == (120, 3)


def test_transform_shape_names_and_n_components():
    X, y = _three_classes()
    clf = FisherDiscriminant(n_components=1).fit(X, y)
    assert clf.transform(X).shape == (120, 1)
    assert list(clf.get_feature_names_out()) == ["fisherdiscriminant0"]
    with pytest.raises(ValueError, match="n_components"):
        FisherDiscriminant(n_components=3).fit(X, y)
    X2, y2 = _two_gaussians()
    Z = FisherDiscriminant().fit_transform(X2, y2)
    assert Z.shape == (200, 1) and Z[y2 == 1].mean() > Z[y2 == 0].mean()


# --- weights, dtypes, integration ---


def test_integer_weights_equal_repeated_rows():
    X, y = _two_gaussians(n=30, p=3)
    w = np.random.RandomState(0).randint(1, 4, size=30)
    weighted = FisherDiscriminant(store_covariance=True).fit(X, y, sample_weight=w)
    repeated = FisherDiscriminant(store_covariance=True).fit(
        X.repeat(w, axis=0), y.repeat(w)
    )
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10)
    np.testing.assert_allclose(weighted.covariance_, repeated.covariance_, rtol=1e-10)


def test_float32_is_kept():
    X, y = _two_gaussians()
    clf = FisherDiscriminant().fit(X.astype(np.float32), y)
    assert clf.coef_.dtype == clf.intercept_.dtype == np.float32
    assert clf.transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_allclose(
        clf.coef_, FisherDiscriminant().fit(X, y).coef_, rtol=1e-4
    )


def test_stored_covariance_is_the_pooled_one():
    X, y = _two_gaussians()
    clf = FisherDiscriminant(store_covariance=True).fit(X, y)
    S, means = _pooled(X, y)
    np.testing.assert_allclose(clf.covariance_, S, rtol=1e-10)
    np.testing.assert_allclose(clf.means_, means, rtol=1e-12)
    assert not hasattr(FisherDiscriminant().fit(X, y), "covariance_")


# --- bad input ---


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_are_refused(bad):
    X, y = _two_gaussians()
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        FisherDiscriminant().fit(X, y)


def test_empty_one_class_and_one_dimensional_input():
    with pytest.raises(ValueError, match="0 sample"):
        FisherDiscriminant().fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match="1 class"):
        FisherDiscriminant().fit(np.ones((5, 2)), np.zeros(5))
    with pytest.raises(ValueError, match="Expected 2D array"):
        FisherDiscriminant().fit(np.arange(6.0), [0, 0, 0, 1, 1, 1])


def test_wrong_number_of_features_at_predict():
    X, y = _two_gaussians()
    clf = FisherDiscriminant().fit(X, y)
    with pytest.raises(ValueError, match="4 features"):
        clf.predict(X[:, :3])


def test_identical_rows_are_a_clear_error():
    with pytest.raises(ValueError, match="class means coincide"):
        FisherDiscriminant().fit(np.ones((6, 3)), [0, 1, 0, 1, 0, 1])


def test_constant_column_is_harmless():
    X, y = _two_gaussians(p=3)
    with_constant = np.column_stack([X, np.full(len(X), 7.0)])
    clf = FisherDiscriminant().fit(with_constant, y)
    assert clf.rank_ == 3 and clf.null_space_dim_ == 1
    np.testing.assert_allclose(
        clf.coef_[0, :3], FisherDiscriminant().fit(X, y).coef_[0], rtol=1e-9
    )
    assert abs(clf.coef_[0, 3]) < 1e-12 * np.abs(clf.coef_).max()


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_extreme_scales_give_the_same_rule(scale):
    X, y = _two_gaussians()
    reference = FisherDiscriminant().fit(X, y)
    scaled = FisherDiscriminant().fit(X * scale, y)
    assert np.all(np.isfinite(scaled.coef_))
    np.testing.assert_allclose(scaled.coef_ * scale, reference.coef_, rtol=1e-9)
    np.testing.assert_array_equal(scaled.predict(X * scale), reference.predict(X))


def test_beyond_float64_range_is_a_clear_error():
    X, y = _two_gaussians()
    with pytest.raises(ValueError, match="too large in magnitude"):
        FisherDiscriminant().fit(X * 1e200, y)


# --- numerics: units, rounding, degenerate classes ---


@pytest.mark.parametrize("units", [[1e8, 1.0, 1e-8, 1.0], [1e-6, 1e6, 1.0, 1e3]])
def test_features_in_wildly_different_units_keep_fishers_rule(units):
    X, y = _two_gaussians(p=4)
    reference = FisherDiscriminant().fit(X, y)
    scaled = FisherDiscriminant().fit(X * units, y)
    assert scaled.rank_ == 4
    np.testing.assert_allclose(scaled.coef_[0] * units, reference.coef_[0], rtol=1e-7)
    np.testing.assert_array_equal(scaled.predict(X * units), reference.predict(X))


def test_float32_data_in_a_subspace_keep_their_rank():
    rng = np.random.RandomState(3)
    y = np.arange(60) % 2
    X = (rng.normal(size=(60, 2)) + 2.0 * y[:, None]) @ rng.normal(size=(2, 5)) + 100
    single = FisherDiscriminant().fit(X.astype(np.float32), y)
    double = FisherDiscriminant().fit(X, y)
    assert single.rank_ == double.rank_ == 2
    assert _cosine(single.coef_[0].astype(float), double.coef_[0]) > 1 - 1e-4


def _null_space_difference(seed=0):
    """Class 1 is class 0 shifted along a direction with no within-class spread,
    rotated so that the null space is not a coordinate axis."""
    rng = np.random.RandomState(seed)
    Z0 = np.column_stack([rng.normal(size=(20, 2)), np.zeros(20)])
    Z = np.vstack([Z0, Z0 + [0.0, 0.0, 1.0]])
    rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Z @ rotation.T, np.repeat([0, 1], 20), rotation[:, 2]


def test_mean_difference_in_the_null_space():
    X, y, direction = _null_space_difference()
    clf = FisherDiscriminant(kappa=1.0).fit(X, y)
    assert clf.rank_ == 2
    assert _cosine(clf.coef_[0], direction) > 1 - 1e-10
    assert clf.score(X, y) == 1.0
    with pytest.raises(ValueError, match="null space of S and kappa is infinite"):
        FisherDiscriminant(kappa=np.inf).fit(X, y)


def test_means_equal_to_rounding_are_a_clear_error():
    rng = np.random.RandomState(0)
    X0 = rng.normal(size=(20, 3)) @ np.linalg.qr(rng.normal(size=(3, 3)))[0]
    X = np.vstack([X0, X0[::-1]])  # the same points: means differ by rounding only
    with pytest.raises(ValueError, match="class means coincide"):
        FisherDiscriminant().fit(X, np.repeat([0, 1], 20))


def test_tiny_kappa_on_a_large_scale_is_a_clear_error():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 60)) * 1e150
    with pytest.raises(ValueError, match="kappa is too small"):
        FisherDiscriminant(kappa=1e-300).fit(X, np.repeat([0, 1], 10))


def test_normalised_weights_are_refused_with_advice():
    X, y = _two_gaussians()
    with pytest.raises(ValueError, match="frequency weights"):
        FisherDiscriminant().fit(X, y, sample_weight=np.full(len(y), 1 / len(y)))


def test_one_point_per_class_is_the_nearest_mean_rule():
    clf = FisherDiscriminant(kappa=2.0).fit(np.array([[0.0, 0.0], [2.0, 1.0]]), [0, 1])
    assert clf.rank_ == 0
    np.testing.assert_allclose(clf.coef_[0], np.array([2.0, 1.0]) / 2.0)
    np.testing.assert_array_equal(clf.predict([[0.1, 0.0], [1.9, 1.0]]), [0, 1])


def test_multiclass_priors_shift_each_class_score():
    X, y = _three_classes()
    priors = np.array([0.5, 0.3, 0.2])
    plain = FisherDiscriminant().fit(X, y)
    shifted = FisherDiscriminant(priors=priors).fit(X, y)
    np.testing.assert_allclose(shifted.intercept_ - plain.intercept_, np.log(priors))


def test_priors_weight_the_accuracy_threshold():
    rng = np.random.RandomState(5)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal(1.0, 1, (60, 2))])
    y = np.repeat([0, 1], 60)
    priors = np.array([0.9, 0.1])
    clf = FisherDiscriminant(threshold="accuracy", priors=priors).fit(X, y)
    scores = X @ clf.coef_[0]
    weights = priors[y] / 60

    def prior_weighted_accuracy(t):
        return weights @ ((scores > t) == (y == 1))

    candidates = np.concatenate([[scores.min() - 1], np.sort(scores) + 1e-9])
    best = max(prior_weighted_accuracy(t) for t in candidates)
    assert prior_weighted_accuracy(-clf.intercept_[0]) == pytest.approx(best)


def test_accuracy_threshold_picks_the_optimal_interval_nearest_the_midpoint():
    scores = np.array([0.0, 1.0, 2.0, 3.0])
    positive = np.array([False, True, False, True])  # optimal: (0, 1) and (2, 3)
    ones = np.ones(4)
    assert accuracy_threshold(scores, positive, ones, preferred=2.9) == 2.9
    assert accuracy_threshold(scores, positive, ones, preferred=1.6) == 2.5
    assert accuracy_threshold(scores, positive, ones, preferred=1.4) == 0.5
    # all scores equal and huge: the step is relative to their size
    huge = np.full(4, 1e20)
    assert accuracy_threshold(huge, positive | True, ones, preferred=2e20) < 1e20


def test_explained_variance_ratio_of_two_classes_is_one():
    X, y = _two_gaussians()
    np.testing.assert_allclose(
        FisherDiscriminant().fit(X, y).explained_variance_ratio_, [1.0]
    )


@pytest.mark.parametrize("kappa", [0.1, 1.0])
def test_multiclass_singular_directions_solve_the_regularised_eigenproblem(kappa):
    rng = np.random.RandomState(2)
    y = np.repeat([0, 1, 2], 6)
    X = rng.normal(size=(18, 30)) + 2.0 * rng.normal(size=(3, 30))[y]
    S, means = _pooled(X, y)
    null = scipy.linalg.null_space(S, rcond=1e-10)
    S_kappa = S + kappa * null @ null.T
    weights = np.bincount(y) / len(y)
    centred = means - weights @ means
    S_B = (centred * weights[:, None]).T @ centred
    eigenvalues, vectors = scipy.linalg.eigh(S_B, S_kappa)
    clf = FisherDiscriminant(kappa=kappa).fit(X, y)
    assert clf.rank_ == 15
    for j in range(2):
        assert abs(_cosine(clf.scalings_[:, j], vectors[:, -1 - j])) > 1 - 1e-8
    top = eigenvalues[::-1][:2]
    np.testing.assert_allclose(
        clf.explained_variance_ratio_, top / top.sum(), rtol=1e-8
    )


def test_string_labels_give_the_integer_fit():
    X, y = _two_gaussians()
    names = np.array(["benign", "malignant"])
    by_name = FisherDiscriminant().fit(X, names[y])
    by_index = FisherDiscriminant().fit(X, y)
    np.testing.assert_array_equal(by_name.coef_, by_index.coef_)
    np.testing.assert_array_equal(by_name.predict(X), names[by_index.predict(X)])


def test_float32_full_rank_data_keep_full_rank_at_large_n():
    rng = np.random.RandomState(0)
    n, p = 200_000, 20
    mixing = rng.normal(size=(p, p))
    u, _, vt = np.linalg.svd(mixing)
    mixing = u @ np.diag(np.linspace(1.0, np.sqrt(50.0), p)) @ vt  # condition 50 in S
    y = np.arange(n) % 2
    X = (rng.normal(size=(n, p)) @ mixing + 0.2 * y[:, None]).astype(np.float32)
    clf = FisherDiscriminant().fit(X, y)
    assert clf.rank_ == p
    reference = FisherDiscriminant().fit(X.astype(np.float64), y)
    assert _cosine(clf.coef_[0].astype(float), reference.coef_[0]) > 1 - 1e-6


# --- exact streaming: partial_fit, merge, fit_statistics ---


def test_statistics_that_define_no_rule_yet_keep_accumulating():
    X, y = _two_gaussians(n=40)
    w = np.full(40, 0.02)  # total weight below the number of classes so far
    clf = FisherDiscriminant().partial_fit(X[:20], y[:20], [0, 1], w[:20])
    with pytest.raises(NotFittedError, match="frequency weights"):
        clf.predict(X)
    clf.partial_fit(X[20:], y[20:], sample_weight=np.full(20, 5.0))
    full = FisherDiscriminant().fit(X, y, sample_weight=np.r_[w[:20], np.full(20, 5)])
    assert_close(clf.coef_, full.coef_)


def test_partial_fit_errors():
    # The errors every streaming estimator shares are in test_streaming.py.
    X, y = _two_gaussians(n=40)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        FisherDiscriminant().partial_fit(X, y)
    with pytest.raises(ValueError, match="threshold='accuracy'.*partial_fit"):
        FisherDiscriminant(threshold="accuracy").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="n_components=2 exceeds"):
        FisherDiscriminant(n_components=2).partial_fit(X, y, classes=[0, 1])


def test_merge_errors():
    # The errors every streaming estimator shares are in test_streaming.py.
    X, y = _two_gaussians(n=40)
    fitted = FisherDiscriminant().fit(X, y)
    with pytest.raises(ValueError, match="priors"):
        fitted.merge(FisherDiscriminant(priors=[0.3, 0.7]).fit(X, y))
    accuracy = FisherDiscriminant(threshold="accuracy").fit(X, y)
    with pytest.raises(ValueError, match="threshold='accuracy'.*merge"):
        accuracy.merge(FisherDiscriminant(threshold="accuracy").fit(X, y))
    with pytest.raises(ValueError, match="threshold='accuracy'.*fit_statistics"):
        FisherDiscriminant(threshold="accuracy").fit_statistics(
            fitted.statistics_, [0, 1]
        )


# --- FisherDiscriminantCV: the κ path ---


def _wide(n=50, p=90, classes=2, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p))
    y = np.arange(n) % classes
    X[:, :5] += 0.8 * y[:, None]
    return X, y


@pytest.mark.parametrize(
    "params, classes, weighted, p",
    [
        ({}, 2, False, 90),
        ({}, 2, True, 90),
        ({"scoring": "balanced_accuracy", "threshold": "accuracy"}, 2, False, 90),
        ({"priors": [0.2, 0.3, 0.5]}, 3, True, 90),
        ({}, 2, True, 600),  # wide: the statistics in the span of the samples
        ({}, 3, False, 600),
    ],
)
def test_cv_chooses_and_scores_as_grid_search_does(params, classes, weighted, p):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from sklearn_linsep import FisherDiscriminantCV

    X, y = _wide(p=p, classes=classes)
    weights = np.random.RandomState(1).uniform(0.5, 2, len(y)) if weighted else None
    kappas = [1e-3, 0.01, 0.1, 1.0, 10.0, 100.0, np.inf]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scoring = params.get("scoring")
    estimator_params = {k: v for k, v in params.items() if k != "scoring"}
    ours = FisherDiscriminantCV(kappas=kappas, cv=cv, **params)
    ours.fit(X, y, sample_weight=weights)
    search = GridSearchCV(
        FisherDiscriminant(**estimator_params), {"kappa": kappas}, cv=cv,
        scoring=scoring,
    ).fit(X, y, sample_weight=weights)  # fmt: skip
    assert ours.kappa_ == search.best_params_["kappa"]
    for key in ["mean_test_score", "std_test_score", "rank_test_score"] + [
        f"split{k}_test_score" for k in range(5)
    ]:
        np.testing.assert_array_equal(ours.cv_results_[key], search.cv_results_[key])
    assert ours.best_score_ == search.best_score_
    best = search.best_estimator_
    np.testing.assert_array_equal(ours.coef_, best.coef_)
    np.testing.assert_array_equal(ours.intercept_, best.intercept_)
    np.testing.assert_array_equal(ours.predict(X), best.predict(X))


def test_cv_scores_a_failing_kappa_nan_as_grid_search_does():
    from sklearn.exceptions import FitFailedWarning

    from sklearn_linsep import FisherDiscriminantCV

    X, y = _wide()
    # κ = 1e-310 overflows the null-space part of the direction on every fold.
    with pytest.warns(FitFailedWarning, match="overflowed"):
        clf = FisherDiscriminantCV(kappas=[1e-310, 1.0], cv=3).fit(X, y)
    assert np.all(np.isnan(clf.cv_results_["split0_test_score"][:1]))
    assert clf.kappa_ == 1.0 and clf.cv_results_["rank_test_score"].tolist() == [2, 1]
    with pytest.warns(FitFailedWarning), pytest.raises(ValueError, match="fits failed"):
        FisherDiscriminantCV(kappas=[1e-310], cv=3).fit(X, y)


def test_cv_refuses_what_it_cannot_do():
    from sklearn_linsep import FisherDiscriminantCV

    X, y = _wide(n=30, p=10)
    for kappas in ([], [1.0, 0.0], [-1.0], ["1"], [True], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="'kappas' parameter .* positive numbers"):
            FisherDiscriminantCV(kappas=kappas).fit(X, y)
    clf = FisherDiscriminantCV()
    for method in ("partial_fit", "merge", "fit_statistics"):
        assert not hasattr(clf, method)  # the folds need the rows
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match="in memory"):
        clf.fit(da.from_array(X, chunks=10), da.from_array(y, chunks=10))


def test_cv_scores_failed_folds_and_scorings_nan_as_grid_search_does():
    # Found in review: a fold whose training part holds one class, and a scoring
    # the estimator cannot answer (no predict_proba), ended the search.
    from sklearn.exceptions import FitFailedWarning
    from sklearn.model_selection import GridSearchCV

    from sklearn_linsep import FisherDiscriminantCV

    X, y = _wide(n=40, p=30)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    folds = [
        (np.arange(0, 20), np.arange(20, 40)),  # one class only: the fit fails
        (np.arange(10, 40), np.arange(0, 10)),
        (np.r_[0:15, 25:40], np.arange(15, 25)),
    ]
    kappas = [0.1, 1.0, np.inf]
    with pytest.warns(FitFailedWarning):
        ours = FisherDiscriminantCV(kappas=kappas, cv=folds).fit(X, y)
    with pytest.warns(Warning):
        search = GridSearchCV(FisherDiscriminant(), {"kappa": kappas}, cv=folds)
        search.fit(X, y)
    np.testing.assert_array_equal(
        ours.cv_results_["split0_test_score"], search.cv_results_["split0_test_score"]
    )
    assert ours.kappa_ == search.best_params_["kappa"]

    def unanswerable(estimator, X, y):
        raise AttributeError("this scorer needs what FisherDiscriminant lacks")

    # Every scoring fails: GridSearchCV warns, ranks all first and refits the first.
    with pytest.warns(UserWarning, match="lacks"):
        scored = FisherDiscriminantCV(kappas=kappas, cv=3, scoring=unanswerable)
        scored.fit(X, y)
    with pytest.warns(UserWarning):
        search = GridSearchCV(
            FisherDiscriminant(), {"kappa": kappas}, cv=3, scoring=unanswerable
        ).fit(X, y)
    assert scored.kappa_ == search.best_params_["kappa"] == kappas[0]
    assert np.isnan(scored.best_score_) and np.isnan(search.best_score_)
    np.testing.assert_array_equal(
        scored.cv_results_["rank_test_score"], search.cv_results_["rank_test_score"]
    )
    # A probability scoring now has its predict_proba, and scores as the search does.
    by_log_loss = FisherDiscriminantCV(kappas=kappas, cv=3, scoring="neg_log_loss")
    by_log_loss.fit(X, y)
    search = GridSearchCV(
        FisherDiscriminant(), {"kappa": kappas}, cv=3, scoring="neg_log_loss"
    ).fit(X, y)
    np.testing.assert_allclose(
        by_log_loss.cv_results_["mean_test_score"],
        search.cv_results_["mean_test_score"],
        rtol=1e-10,
    )
    assert by_log_loss.kappa_ == search.best_params_["kappa"]


# --- wide data: the same model from the rows as from the (p, p) matrix ---


@pytest.fixture
def square_path(monkeypatch):
    """Force the (p, p) scatter matrix whatever the shape: the reference path."""
    from sklearn_linsep import _pass_plan

    def use():
        monkeypatch.setattr(_pass_plan, "ROWS_FROM_FEATURES", 10**9)

    return use


def _relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kappa", [1e-3, 1.0, np.inf])
@pytest.mark.parametrize("weighted", [False, True])
def test_wide_fit_equals_the_square_path(square_path, classes, kappa, weighted):
    X, y = _wide(n=40, p=400, classes=classes)
    X *= np.logspace(-2, 2, 400)  # units that differ: the rank is decided unit-free
    weights = np.random.RandomState(2).uniform(0.5, 2, 40) if weighted else None
    params = {"kappa": kappa, "store_covariance": True}
    wide = FisherDiscriminant(**params).fit(X, y, sample_weight=weights)
    assert wide.statistics_.holds_rows
    square_path()
    square = FisherDiscriminant(**params).fit(X, y, sample_weight=weights)
    assert not square.statistics_.holds_rows
    assert wide.rank_ == square.rank_ == 40 - classes
    assert wide.null_space_dim_ == square.null_space_dim_
    for name in ["coef_", "intercept_", "scalings_", "covariance_", "means_"]:
        assert _relative(getattr(wide, name), getattr(square, name)) < 1e-10, name
    np.testing.assert_allclose(wide.explained_variance_ratio_,
                               square.explained_variance_ratio_, rtol=1e-10)  # fmt: skip
    assert _relative(wide.transform(X), square.transform(X)) < 1e-10
    np.testing.assert_array_equal(wide.predict(X), square.predict(X))


def test_wide_partial_fit_and_merge_equal_fit():
    X, y = _wide(n=60, p=500, classes=3)
    weights = np.random.RandomState(3).randint(0, 3, 60).astype(float)
    weights[:3] = 1.0
    full = FisherDiscriminant(kappa=0.1).fit(X, y, sample_weight=weights)
    streamed = FisherDiscriminant(kappa=0.1)
    for rows in np.array_split(np.arange(60), 7):
        streamed.partial_fit(X[rows], y[rows], classes=[0, 1, 2],
                             sample_weight=weights[rows])  # fmt: skip
    halves = [
        FisherDiscriminant(kappa=0.1).fit(X[part], y[part], sample_weight=weights[part])
        for part in (np.arange(30), np.arange(30, 60))
    ]
    merged = halves[0].merge(halves[1])
    for other in (streamed, merged):
        assert other.statistics_.holds_rows
        assert other.rank_ == full.rank_
        assert _relative(other.coef_, full.coef_) < 1e-10
        assert _relative(other.intercept_, full.intercept_) < 1e-10


def test_wide_fisher_separates_gene_expression_shapes():
    # p >> n: the training classes are always separable, and u(κ) separates them
    # once κ is small against the spread (SPEC §10).
    X, y = _wide(n=50, p=20_000)
    clf = FisherDiscriminant(kappa=1e-3).fit(X, y)
    assert clf.statistics_.holds_rows and clf.rank_ == 48
    assert clf.score(X, y) == 1.0
    assert clf.transform(X).shape == (50, 1)


def test_wide_partial_fit_row_by_row_keeps_the_rows():
    # Each merge adds a correction row per class: the rows are compacted to the
    # rank of each class's scatter, not turned into a (p, p) matrix.
    X, y = _wide(n=200, p=300, classes=2)
    full = FisherDiscriminant().fit(X, y)
    streamed = FisherDiscriminant()
    for i in range(200):
        streamed.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
        assert streamed.statistics_.holds_rows
    assert streamed.statistics_.scatter_rows.shape[0] <= 1.5 * 200 + 2
    assert streamed.rank_ == full.rank_ == 198
    assert _relative(streamed.coef_, full.coef_) < 1e-10


@pytest.mark.parametrize("scale", [1e-150, 1e150, 1e153])
def test_wide_data_of_extreme_magnitude_fit_as_the_square_path(square_path, scale):
    X, y = _wide(n=20, p=300)
    X = X * scale
    wide = FisherDiscriminant(kappa=scale**2).fit(X, y)
    assert wide.statistics_.holds_rows
    square_path()
    square = FisherDiscriminant(kappa=scale**2).fit(X, y)
    assert wide.rank_ == square.rank_ == 18
    assert _relative(wide.coef_, square.coef_) < 1e-10
    huge = _wide(n=20, p=300)[0] * 1e156  # squares beyond float64: a clear error
    with pytest.raises(ValueError, match="overflowed"):
        FisherDiscriminant().fit(huge, y)


# --- posterior probabilities ---


def _known_gaussians(n, prior, seed):
    """Two Gaussian classes of a known shared covariance, class 1 with probability
    ``prior``, and the true (Bayes) posterior of class 1 at each row."""
    model = np.random.RandomState(2026)  # one model; ``seed`` draws the rows
    p = 5
    mixing = model.normal(size=(p, p)) / np.sqrt(p)
    covariance = mixing @ mixing.T + 0.5 * np.eye(p)
    means = np.vstack([np.zeros(p), model.normal(size=p) * 0.8])
    rng = np.random.RandomState(seed)
    y = (rng.uniform(size=n) < prior).astype(int)
    X = means[y] + rng.multivariate_normal(np.zeros(p), covariance, size=n)
    inverse = np.linalg.inv(covariance)
    d = means[1] - means[0]
    log_odds = X @ inverse @ d - 0.5 * (means[1] @ inverse @ means[1])
    log_odds += np.log(prior / (1 - prior))
    return X, y, 1 / (1 + np.exp(-log_odds))


def test_probabilities_approach_the_bayes_posterior_as_ldas_do():
    X, y, _ = _known_gaussians(2000, prior=0.3, seed=0)
    X_test, _, bayes = _known_gaussians(20_000, prior=0.3, seed=1)
    proportions = np.bincount(y) / len(y)
    ours = FisherDiscriminant(priors=proportions).fit(X, y)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    ours_error = np.mean(np.abs(ours.predict_proba(X_test)[:, 1] - bayes))
    lda_error = np.mean(np.abs(lda.predict_proba(X_test)[:, 1] - bayes))
    # Measured: 0.0056 (ours) and 0.0055 (LDA's).
    assert ours_error < 0.01 and lda_error < 0.01
    np.testing.assert_allclose(ours.priors_, lda.priors_)


def _lda_probabilities(clf, X, n_samples):
    """LDA's posterior from ours: the same model but for the covariance's divisor
    (scikit-learn's LDA divides the within-class scatter by n, ours by n - K), which
    scales the scores without their log priors by n / (n - K)."""
    scores = clf.decision_function(X)
    n_classes = len(clf.classes_)
    log_priors = np.log(clf.priors_)
    if scores.ndim == 1:
        scores = np.column_stack([np.zeros_like(scores), scores])
        log_priors = np.array([0.0, log_priors[1] - log_priors[0]])
    scaled = (scores - log_priors) * n_samples / (n_samples - n_classes) + log_priors
    scaled -= scaled.max(axis=1, keepdims=True)
    return np.exp(scaled) / np.exp(scaled).sum(axis=1, keepdims=True)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_probabilities_are_the_softmax_of_the_scores(n_classes):
    rng = np.random.RandomState(n_classes)
    y = np.arange(150) % n_classes
    X = rng.normal(size=(150, 4)) + 1.5 * np.eye(n_classes, 4)[y]
    priors = np.arange(1, n_classes + 1) / np.sum(np.arange(1, n_classes + 1))
    for clf in (FisherDiscriminant(), FisherDiscriminant(priors=priors)):
        clf.fit(X, y)
        proba, log_proba = clf.predict_proba(X), clf.predict_log_proba(X)
        assert proba.shape == (150, n_classes)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_allclose(np.exp(log_proba), proba, rtol=1e-12)
        np.testing.assert_array_equal(
            clf.classes_[proba.argmax(axis=1)], clf.predict(X)
        )
        lda = LinearDiscriminantAnalysis(priors=clf.priors_).fit(X, y)
        np.testing.assert_allclose(
            _lda_probabilities(clf, X, 150), lda.predict_proba(X), atol=1e-9
        )
        assert not np.allclose(proba, lda.predict_proba(X), atol=1e-4)
    np.testing.assert_allclose(FisherDiscriminant().fit(X, y).priors_, 1 / n_classes)
    given = FisherDiscriminant(priors=priors).fit(X, y).priors_
    assert given.tolist() == priors.tolist()  # as given, not exp(log(priors))


def test_probabilities_of_confident_rows_keep_finite_logarithms():
    X, y = _two_gaussians(n=100, shift=4.0)
    clf = FisherDiscriminant().fit(X, y)
    far = X[:3] + 1e4 * (clf.means_[1] - clf.means_[0])
    log_proba = clf.predict_log_proba(far)
    assert np.all(np.isfinite(log_proba)) and np.all(log_proba[:, 0] < -100)
    np.testing.assert_array_equal(clf.predict_proba(far)[:, 1], 1.0)


def test_a_smaller_kappa_makes_rows_off_the_training_span_more_certain():
    # p > n: S is singular, and the model's variance along its null space is κ.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 60))
    y = np.repeat([0, 1], 10)
    X[y == 1, :5] += 1.0
    new = rng.normal(size=(200, 60)) + 0.5 * np.r_[np.ones(5), np.zeros(55)]
    certainty = [
        np.mean(
            np.abs(FisherDiscriminant(kappa=k).fit(X, y).predict_proba(new)[:, 1] - 0.5)
        )
        for k in (1e-2, 1e-1, 1.0, 10.0)
    ]
    # Measured: 0.498, 0.489, 0.362, 0.164; κ = ∞ (the pseudo-inverse) gives 0.156.
    assert certainty == sorted(certainty, reverse=True) and certainty[0] > 0.49
    pinv = FisherDiscriminant(kappa=np.inf).fit(X, y).predict_proba(new)[:, 1]
    assert np.mean(np.abs(pinv - 0.5)) < certainty[-1]


def test_probabilities_on_dask_blocks_equal_in_memory(dask_sync):
    da = pytest.importorskip("dask.array")
    X, y = _three_classes()
    clf = FisherDiscriminant().fit(X, y)
    lazy = clf.predict_proba(da.from_array(X, chunks=(40, -1)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), clf.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(
        clf.predict_log_proba(da.from_array(X, chunks=(40, -1))).compute(),
        clf.predict_log_proba(X),
        rtol=1e-12,
    )


# ------------------------------------------------------------------- sparse X


def _sparse_problem(n, p, n_classes, seed=0):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.1, random_state=seed, format="csr").toarray()
    y = np.arange(n) % n_classes
    X[y == 1, : min(p, 5)] += 0.5 * (
        rng.random((np.count_nonzero(y == 1), min(p, 5))) < 0.5
    )
    return X, y


@pytest.mark.parametrize("n, p", [(60, 400), (200, 30)])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("kappa", [0.1, np.inf])
def test_sparse_x_fits_as_the_same_x_dense(n, p, n_classes, layout, kappa):
    import scipy.sparse as sp

    X, y = _sparse_problem(n, p, n_classes)
    Xs = sp.csr_matrix(X) if layout == "csr" else sp.csc_matrix(X)
    dense = FisherDiscriminant(kappa=kappa).fit(X, y)
    sparse = FisherDiscriminant(kappa=kappa).fit(Xs, y)
    assert sparse.rank_ == dense.rank_
    for name in ["coef_", "intercept_", "scalings_", "means_", "xbar_"]:
        got, expected = getattr(sparse, name), getattr(dense, name)
        assert np.linalg.norm(got - expected) <= 1e-9 * np.linalg.norm(expected)
    scores = dense.decision_function(X)
    assert (
        np.abs(sparse.decision_function(Xs) - scores).max()
        <= 1e-9 * np.abs(scores).max()
    )
    projected = dense.transform(X)
    assert (
        np.abs(sparse.transform(Xs) - projected).max() <= 1e-9 * np.abs(projected).max()
    )
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))


def test_sparse_chunks_partial_fit_and_the_kappa_path_as_dense():
    import scipy.sparse as sp

    from sklearn_linsep import FisherDiscriminantCV

    X, y = _sparse_problem(90, 500, 2)
    Xs = sp.csr_matrix(X)
    streamed = FisherDiscriminant()
    for rows in np.array_split(np.arange(90), 4):
        streamed.partial_fit(Xs[rows], y[rows], classes=[0, 1])
    whole = FisherDiscriminant().fit(X, y)
    assert np.linalg.norm(streamed.coef_ - whole.coef_) <= 1e-9 * np.linalg.norm(
        whole.coef_
    )
    kappas = [1e-2, 1.0, 100.0]
    cv_sparse = FisherDiscriminantCV(kappas=kappas, cv=3).fit(Xs, y)
    cv_dense = FisherDiscriminantCV(kappas=kappas, cv=3).fit(X, y)
    np.testing.assert_allclose(
        cv_sparse.cv_results_["mean_test_score"],
        cv_dense.cv_results_["mean_test_score"],
    )
    assert cv_sparse.kappa_ == cv_dense.kappa_


def test_sparse_float32_keeps_float32_as_the_tag_says():
    """Found by a user: sparse float32 X was made float64 before its dtype was
    read, against the preserves_dtype tag."""
    import scipy.sparse as sp

    from sklearn_linsep import FisherDiscriminantCV

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5)).astype(np.float32)
    y = np.repeat([0, 1], 30)
    for model in (FisherDiscriminant(), FisherDiscriminantCV(cv=3)):
        fitted = model.fit(sp.csr_matrix(X), y)
        assert fitted.coef_.dtype == np.float32
        assert fitted.transform(sp.csr_matrix(X)).dtype == np.float32
