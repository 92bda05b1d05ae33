import numpy as np
import pytest

from sklearn_linsep._base import LinearClassifierBase
from sklearn_linsep._rows import one_vs_rest, rows_of


class _NearestCentroidOvR(LinearClassifierBase):
    """Toy binary rule run one-vs-rest (the seam's loop): the bisector of the two
    class centroids."""

    def fit(self, X, y, sample_weight=None):
        rows = rows_of(X, y, sample_weight, name="toy", estimator=self)
        self.classes_ = rows.classes
        fits = []
        for problem in one_vs_rest(rows):
            X, c = problem.X, problem.c
            plus, minus = X[c > 0].mean(axis=0), X[c < 0].mean(axis=0)
            coef = plus - minus
            fits.append((coef, -coef @ (plus + minus) / 2))
        self.coef_ = np.vstack([coef for coef, _ in fits])
        self.intercept_ = np.array([b for _, b in fits])
        return self


def test_binary_shapes_and_sign_convention():
    X = np.array([[0.0], [1.0], [4.0], [5.0]])
    clf = _NearestCentroidOvR().fit(X, ["no", "no", "yes", "yes"])
    assert clf.coef_.shape == (1, 1) and clf.intercept_.shape == (1,)
    scores = clf.decision_function(X)
    assert scores.shape == (4,)
    # > 0 means classes_[1]
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, "yes", "no"))
    np.testing.assert_array_equal(clf.predict(X), ["no", "no", "yes", "yes"])


def test_one_vs_rest_multiclass_shapes_and_argmax():
    rng = np.random.RandomState(0)
    centres = np.array([[0, 0], [10, 0], [0, 10]])
    y = np.repeat([0, 1, 2], 20)
    X = centres[y] + rng.normal(size=(60, 2))
    clf = _NearestCentroidOvR().fit(X, y)
    assert clf.coef_.shape == (3, 2) and clf.intercept_.shape == (3,)
    scores = clf.decision_function(X)
    assert scores.shape == (60, 3)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(scores, axis=1))
    assert clf.score(X, y) == 1.0


def test_predict_checks_fitted_and_feature_count():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        _NearestCentroidOvR().predict(np.zeros((2, 1)))
    clf = _NearestCentroidOvR().fit(
        np.array([[0.0], [1.0], [4.0], [5.0]]), [0, 0, 1, 1]
    )
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.zeros((2, 3)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: __import__("sklearn_linsep").FisherDiscriminant(),
        lambda: __import__("sklearn_linsep").SeparabilityAngle(),
        lambda: __import__("sklearn_linsep").HardMarginSVM(),
    ],
    ids=["FisherDiscriminant", "SeparabilityAngle", "HardMarginSVM"],
)
def test_a_failed_fit_leaves_no_fitted_state(make):
    from sklearn.exceptions import NotFittedError

    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(20, 3)), np.arange(20) % 2
    estimator = make().fit(X, y)
    with pytest.raises(ValueError):
        estimator.fit(X, np.zeros(20))  # one class
    # Only what validate_data records of the new X (as scikit-learn's own do).
    left = {name for name in vars(estimator) if name.endswith("_")}
    assert left <= {"n_features_in_", "feature_names_in_"}
    answer = getattr(estimator, "predict", None) or estimator.transform
    with pytest.raises(NotFittedError):
        answer(X)
