"""The streaming contract of ``StatisticsEstimatorMixin``, once for every estimator
that has it: ``partial_fit`` over any chunking, ``merge`` and ``fit_statistics`` give
the model of one ``fit`` on all the rows, and the same errors in the same words."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from sklearn_linsep import ClassStatistics, FisherDiscriminant, SeparabilityAngle
from sklearn_linsep._testing import assert_close, random_chunks, two_gaussians

STREAMING = [FisherDiscriminant, SeparabilityAngle]


def model_of(estimator):
    """The fitted model that must not depend on how the rows arrived."""
    if isinstance(estimator, FisherDiscriminant):
        return {"coef_": estimator.coef_, "means_": estimator.means_}
    return {
        "angle_": np.atleast_1d(estimator.angle_),
        "normal_": estimator.normal_,
        "pairwise_angles_": estimator.pairwise_angles_,
    }


def assert_same_model(actual, expected, X, rtol=1e-10):
    for name, value in model_of(expected).items():
        assert_close(model_of(actual)[name], value, rtol=rtol)
    if isinstance(expected, FisherDiscriminant):
        scale = np.abs(expected.coef_).max() * np.abs(expected.means_).max()
        np.testing.assert_allclose(
            actual.intercept_, expected.intercept_, rtol=1e-9, atol=1e-10 * scale
        )
        np.testing.assert_array_equal(actual.predict(X), expected.predict(X))
    else:
        assert actual.least_separable_pair_ == expected.least_separable_pair_
        assert_close(actual.transform(X), expected.transform(X), rtol=1e-9)


def problem(seed, n_classes, singular, weighted):
    """Classes far from the origin (where a naive update loses digits), unequal
    feature scales, p > n when singular, positive non-integer weights."""
    rng = np.random.RandomState(seed)
    n = rng.randint(2 * n_classes + 1, 16) if singular else rng.randint(10, 60)
    p = n + rng.randint(1, 6) if singular else rng.randint(1, 6)
    y = np.arange(n) % n_classes
    rng.shuffle(y)
    shifts = rng.normal(size=(n_classes, p)) * 1.5
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 2, size=p) + 10.0 + shifts[y]
    weights = rng.uniform(0.5, 3.0, size=n) if weighted else None
    return rng, X, y, weights


def partial(estimator, X, y, chunks, weights, classes):
    for rows in chunks:
        estimator.partial_fit(
            X[rows],
            y[rows],
            classes=classes,
            sample_weight=None if weights is None else weights[rows],
        )
    return estimator


@pytest.mark.parametrize("Estimator", STREAMING)
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_classes=st.sampled_from([2, 3]),
    singular=st.booleans(),
    weighted=st.booleans(),
    mode=st.sampled_from(["one row", "by class", "random"]),
    metric=st.sampled_from(["euclidean", "mahalanobis"]),
)
def test_partial_fit_over_any_chunking_equals_fit(
    Estimator, seed, n_classes, singular, weighted, mode, metric
):
    params = {"metric": metric} if Estimator is SeparabilityAngle else {}
    rng, X, y, w = problem(seed, n_classes, singular, weighted)
    full = Estimator(**params).fit(X, y, sample_weight=w)
    chunks = random_chunks(rng, y, mode)
    streamed = partial(Estimator(**params), X, y, chunks, w, np.arange(n_classes))
    assert_same_model(streamed, full, X)
    assert streamed.statistics_.n_samples == full.statistics_.n_samples == len(y)


@pytest.mark.parametrize("Estimator", STREAMING)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.sampled_from([2, 3]))
def test_merge_of_two_estimators_equals_one_fit_on_the_union(
    Estimator, seed, n_classes
):
    rng, X, y, w = problem(seed, n_classes, singular=False, weighted=True)
    # The first part may hold a single class: it can only be partial_fitted.
    order = np.argsort(y == 0, kind="stable")
    cut = rng.randint(1, len(y))
    first, second = order[:cut], order[cut:]
    classes = np.arange(n_classes)
    a = Estimator().partial_fit(X[first], y[first], classes, w[first])
    b = Estimator().partial_fit(X[second], y[second], classes, w[second])
    before = (
        model_of(a) if hasattr(a, "statistics_") and a.__sklearn_is_fitted__() else None
    )
    merged = a.merge(b)
    assert_same_model(merged, Estimator().fit(X, y, sample_weight=w), X, rtol=1e-9)
    assert a.statistics_.n_samples == cut  # the parts are unchanged
    if before is not None:
        for name, value in before.items():
            np.testing.assert_array_equal(model_of(a)[name], value)


@pytest.mark.parametrize("Estimator", STREAMING)
def test_fit_statistics_of_merged_parts_equals_fit(Estimator):
    X, y = two_gaussians(n=90, p=5)
    X = np.r_[X, X[:30] + 3.0]
    y = np.r_[np.where(y == 1, "yes", "no"), np.full(30, "zzz")]
    classes = ["no", "yes", "zzz"]
    parts = [  # one class a part, merged out of order: a map-reduce
        ClassStatistics.from_data(X[y == k], y[y == k], classes, per_class=True)
        for k in classes
    ]
    stats = parts[2].merge(parts[0]).merge(parts[1])
    fitted = Estimator(kappa=0.3).fit_statistics(stats, classes)
    full = Estimator(kappa=0.3).fit(X, y)
    assert_same_model(fitted, full, X)
    assert fitted.n_features_in_ == 5 and list(fitted.classes_) == classes
    with pytest.raises(ValueError, match="2 classes given for statistics of 3"):
        Estimator().fit_statistics(stats, classes[:2])
    with pytest.raises(ValueError, match="sorted and distinct"):
        Estimator().fit_statistics(stats, classes[::-1])
    with pytest.raises(TypeError, match="ClassStatistics"):
        Estimator().fit_statistics({"counts": [1, 1]}, classes)
    with pytest.raises(ValueError, match=r"classes \['yes', 'zzz'\] have weight zero"):
        Estimator().fit_statistics(parts[0], classes)


@pytest.mark.parametrize("Estimator", STREAMING)
def test_partial_fit_after_fit_adds_rows_and_fit_starts_afresh(Estimator):
    X, y = two_gaussians(n=80)
    est = Estimator().fit(X[:50], y[:50]).partial_fit(X[50:], y[50:])
    assert_same_model(est, Estimator().fit(X, y), X)
    est.fit(X[:50], y[:50])
    assert_same_model(est, Estimator().fit(X[:50], y[:50]), X)
    assert est.statistics_.n_samples == 50


@pytest.mark.parametrize("Estimator", STREAMING)
def test_before_every_class_is_seen_the_estimator_is_not_fitted(Estimator):
    X, y = two_gaussians(n=60)
    est = Estimator().partial_fit(X[y == 1], y[y == 1], classes=[0, 1])
    assert not est.__sklearn_is_fitted__()
    with pytest.raises(NotFittedError, match=r"classes \[0\] have weight zero"):
        est.transform(X)
    with pytest.raises(NotFittedError):
        est.score(X, y)
    est.partial_fit(X[y == 0], y[y == 0])
    assert_same_model(est, Estimator().fit(X, y), X, rtol=1e-12)


@pytest.mark.parametrize("Estimator", STREAMING)
def test_partial_fit_keeps_float32_as_fit_does(Estimator):
    X, y = two_gaussians(n=60)
    X32 = X.astype(np.float32)
    chunks = np.array_split(np.arange(60), 4)
    est = partial(Estimator(), X32, y, chunks, None, [0, 1])
    assert est.transform(X32).dtype == np.float32
    if Estimator is FisherDiscriminant:
        assert est.coef_.dtype == est.intercept_.dtype == np.float32
    assert_same_model(est, Estimator().fit(X32, y), X32, rtol=1e-5)
    mixed = partial(Estimator(), X, y, chunks[:1], None, [0, 1])
    mixed = partial(mixed, X32, y, chunks[1:], None, None)
    assert mixed.transform(X).dtype == np.float64


@pytest.mark.parametrize("Estimator", STREAMING)
def test_partial_fit_errors(Estimator):
    X, y = two_gaussians(n=40, p=4)
    name = Estimator.__name__
    with pytest.raises(ValueError, match="at least 2 classes"):
        Estimator().partial_fit(X, np.zeros(40), classes=[0])
    est = Estimator().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels not in classes \[0, 1\]: \[7\]"):
        est.partial_fit(X[:2], [0, 7])
    with pytest.raises(ValueError, match="not the same as on the first call"):
        est.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=f"X has 3 features, but {name}"):
        est.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="non-negative"):
        Estimator().partial_fit(X, y, [0, 1], -np.ones(40))
    with pytest.raises(ValueError, match="Unknown label type"):
        Estimator().partial_fit(X, np.linspace(0, 1, 40), classes=[0, 1])
    # An error before the chunk is merged leaves the statistics as they were.
    assert est.statistics_.n_samples == 40


@pytest.mark.parametrize("Estimator", STREAMING)
def test_merge_errors(Estimator):
    X, y = two_gaussians(n=40, p=4)
    name = Estimator.__name__
    fitted = Estimator().fit(X, y)
    with pytest.raises(ValueError, match=r"kappa=1.0 and 2.0"):
        fitted.merge(Estimator(kappa=2.0).fit(X, y))
    with pytest.raises(ValueError, match="different classes"):
        fitted.merge(Estimator().fit(X, y + 1))
    with pytest.raises(ValueError, match="4 and 3 features"):
        fitted.merge(Estimator().fit(X[:, :3], y))
    other = SeparabilityAngle if Estimator is FisherDiscriminant else FisherDiscriminant
    with pytest.raises(TypeError, match=f"another {name}"):
        fitted.merge(other().fit(X, y))
    with pytest.raises(NotFittedError, match=f"other {name}"):
        fitted.merge(Estimator())
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=list("abcd"))
    named = Estimator().fit(frame, y)
    with pytest.raises(ValueError, match="different feature names"):
        named.merge(fitted)
    merged = named.merge(Estimator().fit(frame, y))
    assert list(merged.feature_names_in_) == list("abcd")
