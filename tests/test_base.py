import numpy as np
import pytest

from sklearn_linsep._base import LinearClassifierBase
from sklearn_linsep._validation import check_weights, encode_classes


class _NearestCentroidOvR(LinearClassifierBase):
    """Toy binary rule run one-vs-rest: the bisector of the two class centroids."""

    def fit(self, X, y, sample_weight=None):
        X, y_encoded, sample_weight = self._validate_fit_data(X, y, sample_weight)

        def fit_binary(X, c, sample_weight):
            plus, minus = X[c > 0].mean(axis=0), X[c < 0].mean(axis=0)
            coef = plus - minus
            return coef, -coef @ (plus + minus) / 2

        self._fit_one_vs_rest(X, y_encoded, sample_weight, fit_binary)
        return self


def test_one_class_error_names_one_class():
    with pytest.raises(ValueError, match="1 class"):
        encode_classes(np.array(["a", "a", "a"]), "Est")


def test_regression_targets_are_refused():
    with pytest.raises(ValueError, match="Unknown label type"):
        encode_classes(np.linspace(0, 1, 10), "Est")


def test_weights_must_be_positive_somewhere_and_in_every_class():
    X, y = np.zeros((4, 1)), np.array([0, 0, 1, 1])
    assert check_weights(None, X, y, 2) is None
    with pytest.raises(ValueError, match="non-zero"):
        check_weights(np.zeros(4), X, y, 2)
    with pytest.raises(ValueError, match="class indices \\[1\\]"):
        check_weights(np.array([1.0, 1.0, 0.0, 0.0]), X, y, 2)
    with pytest.raises(ValueError, match="Negative"):
        check_weights(np.array([1.0, -1.0, 1.0, 1.0]), X, y, 2)


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
    "y",
    [
        np.array([5, 3, 3, 9, 5]),
        np.array([-7, 2, -7, 2, 2], dtype=np.int8),
        np.array([True, False, True]),
        np.array([0, 10**12, 10**12]),  # too wide for the lookup table
        np.array(["b", "a", "b"]),
        np.array([1.0, 2.0, 1.0]),
    ],
)
def test_encoding_equals_numpy_unique(y):
    classes, codes = encode_classes(y, "Est")
    expected_classes, expected_codes = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, expected_classes)
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(codes, expected_codes)


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
