"""Tests of HardMarginSVM and the maximal-margin mathematics in ``_margin``.

The independent reference is cvxpy (Clarabel) on the full QP at tight tolerance, and
the closed-form Iris numbers of SPEC §6.
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score

from sklearn_linsep import (
    HardMarginSVM,
    NotLinearlySeparableError,
    NotLinearlySeparableWarning,
    linear_separability,
)
from sklearn_linsep import SolverError
from sklearn_linsep._margin import maximal_margin_of
from sklearn_linsep._rows._memory_two_class import ScaledRows
from sklearn_linsep._testing import (
    iris_setosa,
    reference_margin_qp,
    reference_soft_limit,
)


def reference_qp(X, c):
    """The full hard-margin QP in cvxpy at tight tolerance."""
    status, w, b = reference_margin_qp(X, c)
    assert status == cp.OPTIMAL
    return w, b


def separable_set(seed, n=200, p=5, gap=0.3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 3, p)
    normal = rng.standard_normal(p)
    normal /= np.linalg.norm(normal)
    side = X @ normal - rng.uniform(-0.5, 0.5)
    X += np.outer(np.sign(side) * gap, normal)
    return X, (side > 0).astype(int)


def test_iris_reproduces_spec():
    svm = HardMarginSVM().fit(*iris_setosa())
    np.testing.assert_allclose(svm.coef_[0], [-60 / 7, 50 / 7], rtol=1e-8)
    np.testing.assert_allclose(svm.intercept_[0], 162 / 7, rtol=1e-8)
    assert svm.margin_ == pytest.approx(7 / np.sqrt(6100), rel=1e-9)
    X, _ = iris_setosa()
    vectors = {tuple(row) for row in X[svm.support_]}
    assert vectors == {(5.5, 3.5), (4.5, 2.3), (4.9, 2.5)}
    assert svm.separable_ and svm.hinge_violation_ == 0.0
    assert svm.certificate_ is None
    nudged = HardMarginSVM().fit(*iris_setosa(nudged=True))
    np.testing.assert_allclose(nudged.coef_[0], [-5, 5], rtol=1e-8)
    np.testing.assert_allclose(nudged.intercept_[0], 11, rtol=1e-8)
    assert nudged.margin_ == pytest.approx(1 / np.sqrt(50), rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_equals_the_full_qp(seed):
    X, y = separable_set(seed, p=2 + seed)
    c = np.where(y == 1, 1.0, -1.0)
    w, b = reference_qp(X, c)
    svm = HardMarginSVM().fit(X, y)
    assert svm.margin_ == pytest.approx(1 / np.linalg.norm(w), rel=1e-7)
    np.testing.assert_allclose(svm.coef_[0], w, rtol=1e-6, atol=1e-8)
    on_margin = np.flatnonzero(np.abs(c * (X @ w + b) - 1) < 1e-6)
    assert set(svm.support_) <= set(on_margin)
    np.testing.assert_allclose(svm.dual_coef_ @ svm.support_vectors_, svm.coef_)
    assert np.sum(svm.dual_coef_) == pytest.approx(
        0, abs=1e-8 * np.abs(svm.dual_coef_).sum()
    )
    margins = c * svm.decision_function(X)
    assert margins.min() == pytest.approx(1.0, abs=1e-8)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    scale=st.sampled_from([1e-6, 1e-4, 1.0, 1e4, 1e6]),
    shift=st.sampled_from([0.0, 1e3, -1e6]),
)
def test_affine_maps_scale_the_margin(seed, scale, shift):
    """Moving and scaling X by a scalar moves the hyperplane, scales the margin.

    (Only where the shift leaves the data ~10 digits: X·1e-6 - 1e6 keeps 4.)
    """
    assume(abs(shift) <= 1e6 * scale)
    X, y = separable_set(seed % 1000, n=80, p=3)
    plain = HardMarginSVM().fit(X, y)
    moved = HardMarginSVM().fit(X * scale + shift, y)
    assert moved.margin_ == pytest.approx(plain.margin_ * scale, rel=1e-6)
    np.testing.assert_array_equal(moved.predict(X * scale + shift), plain.predict(X))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_sample_order_and_label_names_do_not_matter(seed):
    X, y = separable_set(seed % 1000, n=60, p=3)
    order = np.random.default_rng(seed).permutation(len(y))
    plain = HardMarginSVM().fit(X, y)
    shuffled = HardMarginSVM().fit(X[order], y[order])
    np.testing.assert_allclose(shuffled.coef_, plain.coef_, rtol=1e-6, atol=1e-9)
    named = HardMarginSVM().fit(X, np.array(["b", "a"])[y])  # classes_ reversed
    np.testing.assert_allclose(named.coef_, -plain.coef_, rtol=1e-6, atol=1e-9)


def test_sparse_equals_dense_and_weights():
    X, y = separable_set(1, n=150, p=6)
    X[np.abs(X) < 0.3] = 0
    dense = HardMarginSVM().fit(X, y)
    sparse = HardMarginSVM().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-10)
    weights = np.ones(len(y))
    weights[dense.support_[0]] = 0  # leave a support vector out
    left_out = HardMarginSVM().fit(X, y, sample_weight=weights)
    removed = HardMarginSVM().fit(
        np.delete(X, dense.support_[0], 0), np.delete(y, dense.support_[0])
    )
    np.testing.assert_allclose(left_out.coef_, removed.coef_, rtol=1e-7)
    assert left_out.margin_ >= dense.margin_


def test_multiclass_is_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(NotLinearlySeparableWarning):
        svm = HardMarginSVM(on_inseparable="warn").fit(X, y)
    assert svm.coef_.shape == (3, 4) and svm.separable_.tolist() == [True, False, False]
    alone = HardMarginSVM().fit(X, (y == 0).astype(int))
    np.testing.assert_allclose(svm.coef_[0], alone.coef_[0], rtol=1e-7)
    np.testing.assert_allclose(
        svm.dual_coef_ @ svm.support_vectors_, svm.coef_, atol=1e-6
    )
    assert svm.n_support_.sum() == len(svm.support_)


def test_inseparable_soft_limit_equals_cvxpy():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal(1.5, 1, (60, 2))])
    y = np.repeat([0, 1], 60)
    with pytest.warns(NotLinearlySeparableWarning, match="C → ∞"):
        svm = HardMarginSVM(on_inseparable="warn").fit(X, y)
    w, b, least = reference_soft_limit(X, np.where(y == 1, 1.0, -1.0))
    assert not svm.separable_
    assert svm.hinge_violation_ == pytest.approx(least, rel=1e-6)
    assert svm.margin_ == pytest.approx(1 / np.linalg.norm(w), rel=1e-7)
    assert svm.certificate_.verify(X, y)


def test_raise_carries_a_certificate():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [3.0, 3.0]])
    y = np.array([0, 0, 1, 1])  # the same point in both classes
    with pytest.raises(NotLinearlySeparableError, match="coincide") as caught:
        HardMarginSVM(on_inseparable="raise").fit(X, y)
    certificate = caught.value.certificate
    assert certificate.verify(X, y) and len(certificate.certificate_indices) == 2
    np.testing.assert_allclose(certificate.common_point, [0.0, 0.0], atol=1e-12)


def test_degenerate_data():
    # All points on a line in R³: S is singular, the QP is not.
    t = np.linspace(-1, 1, 20)
    X = np.outer(t, [1.0, 2.0, -1.0]) + [5.0, 0.0, 1.0]
    y = (t > 0.05).astype(int)
    svm = HardMarginSVM().fit(X, y)
    assert svm.separable_ and svm.score(X, y) == 1.0
    gap = np.linalg.norm(X[y == 1][0] - X[y == 0][-1])
    assert svm.margin_ == pytest.approx(gap / 2, rel=1e-7)
    # One point per class: the perpendicular bisector.
    pair = HardMarginSVM().fit([[0.0, 0.0], [2.0, 0.0]], [0, 1])
    np.testing.assert_allclose(pair.coef_, [[1.0, 0.0]], atol=1e-8)
    assert pair.intercept_[0] == pytest.approx(-1.0) and pair.margin_ == pytest.approx(
        1
    )


def test_a_million_rows_in_two_dimensions():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (10**6, 2))
    score = X @ [1.0, -2.0] + 0.1
    keep = np.abs(score) > 0.01
    X, y = X[keep], (score[keep] > 0).astype(int)
    svm = HardMarginSVM().fit(X, y)
    assert svm.separable_ and svm.score(X, y) == 1.0
    assert svm.n_iter_ < 20 and len(svm.support_) <= 3


def test_bad_input():
    X, y = separable_set(0, n=30, p=3)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        HardMarginSVM().fit(bad, y)
    with pytest.raises(ValueError, match="1 class"):
        HardMarginSVM().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="0 sample"):
        HardMarginSVM().fit(X[:0], y[:0])
    with pytest.raises(ValueError, match="2D array"):
        HardMarginSVM().fit(X[:, 0], y)
    fitted = HardMarginSVM().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])


def test_cross_validation():
    X, y = separable_set(3, n=120, p=4)
    assert cross_val_score(HardMarginSVM(), X, y, cv=4).mean() > 0.9


def test_maximal_margin_without_soft_limit_returns_the_certificate():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    c = np.array([-1.0, 1.0, -1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = maximal_margin_of(ScaledRows(X, c), soft=False)
    assert not result.separable and result.coef is None
    assert result.certificate.verify(X, (c > 0).astype(int))


# ------------------------------------------------------- review follow-ups


def test_sparse_data_with_an_offset():
    X, y = separable_set(0, n=200, p=3)
    for offset in (1e4, 1e6):
        dense = HardMarginSVM().fit(X + offset, y)
        sparse = HardMarginSVM().fit(sp.csr_matrix(X + offset), y)
        assert sparse.margin_ == pytest.approx(dense.margin_, rel=1e-7)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e7])
def test_dual_coefficients_reproduce_coef_at_an_offset(offset):
    X, y = separable_set(2, n=200, p=3)
    svm = HardMarginSVM().fit(X + offset, y)
    rebuilt = svm.dual_coef_ @ svm.support_vectors_
    # X's offset costs about offset · eps digits, nothing more.
    allowed = 1e-9 + 1e3 * np.finfo(float).eps * offset
    assert np.linalg.norm(rebuilt - svm.coef_) <= allowed * np.linalg.norm(svm.coef_)


@pytest.mark.parametrize("labels", [[1, 2, 1, 2], ["a", "b", "a", "b"], [5, 3, 5, 3]])
def test_certificates_name_the_classes(labels):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(NotLinearlySeparableError) as caught:
        HardMarginSVM(on_inseparable="raise").fit(X, labels)
    assert caught.value.certificate.verify(X, labels)
    assert {f"class {label!r}" for label in labels} <= {
        f"class {word}" for word in str(caught.value).replace(",", " ").split()}


def test_multiclass_raise_gives_a_one_against_the_rest_certificate():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(
        NotLinearlySeparableError, match="Class 1 and the rest"
    ) as caught:
        HardMarginSVM(on_inseparable="raise").fit(X, y)
    assert caught.value.certificate.verify(X, y == 1)


def test_classes_1e9_apart_are_decided_exactly():
    # A gap of 1e-9 in a spread of 2 is far above float precision: decided.
    X = np.array([[0.0], [1.0], [1.0 + 1e-9], [2.0]])
    svm = HardMarginSVM(on_inseparable="raise").fit(X, [0, 0, 1, 1])
    assert svm.margin_ == pytest.approx(0.5e-9, rel=1e-6)
    assert svm.decision_function(X[1:3]) == pytest.approx([-1, 1], rel=1e-6)


@pytest.mark.parametrize("ulps", [1, 2, 8])
def test_classes_a_few_ulps_apart_are_decided_or_refused(ulps):
    # Never a wrong answer: either the exact margin or a SolverError that says so.
    touching = np.nextafter(1.0, 2.0)
    for _ in range(ulps - 1):
        touching = np.nextafter(touching, 2.0)
    X = np.array([[0.0], [1.0], [touching], [2.0]])
    try:
        svm = HardMarginSVM(on_inseparable="raise").fit(X, [0, 0, 1, 1])
    except SolverError as error:
        assert "too close" in str(error)
    else:
        assert svm.margin_ == pytest.approx((touching - 1.0) / 2, rel=1e-3)
        assert np.all(svm.predict(X) == [0, 0, 1, 1])


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_unrepresentable_scales_are_refused(scale):
    X, y = iris_setosa()
    with pytest.raises(ValueError, match="outside"):
        HardMarginSVM().fit(X * scale, y)


@pytest.mark.parametrize("scale", [1e-8, 1e8])
def test_far_scales_still_equal_the_reference(scale):
    X, y = separable_set(4, n=100, p=3)
    c = np.where(y == 1, 1.0, -1.0)
    w, _ = reference_qp(X, c)
    svm = HardMarginSVM().fit(X * scale, y)
    assert svm.margin_ == pytest.approx(scale / np.linalg.norm(w), rel=1e-7)


@pytest.mark.parametrize("nudged", [False, True])
def test_support_vectors_equal_the_references(nudged):
    X, y = iris_setosa(nudged)
    c = np.where(y == 1, 1.0, -1.0)
    w, b = cp.Variable(2), cp.Variable()
    constraints = [cp.multiply(c, X @ w + b) >= 1]
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), constraints).solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12
    )
    dual = constraints[0].dual_value
    expected = np.flatnonzero(dual > 1e-6 * dual.max())
    svm = HardMarginSVM().fit(X, y)
    if nudged:
        # Six points on the margin in the plane: the dual is not unique. The
        # interior point's is the analytic centre (all six); ours is a basic one
        # (as few as fix the hyperplane), and both give w = Σ α c x.
        assert set(svm.support_) <= set(expected) and len(svm.support_) >= 3
        np.testing.assert_allclose(
            svm.dual_coef_ @ svm.support_vectors_, svm.coef_, rtol=1e-9
        )
    else:
        np.testing.assert_array_equal(np.sort(svm.support_), expected)
    if not nudged:  # three support vectors in the plane: the dual is unique
        np.testing.assert_allclose(
            np.abs(svm.dual_coef_[0]), dual[expected], rtol=1e-6, atol=1e-9
        )


def test_a_fit_that_raises_leaves_the_estimator_unfitted():
    X, y = load_iris(return_X_y=True)
    svm = HardMarginSVM(on_inseparable="raise").fit(X[y < 2], y[y < 2])
    with pytest.raises(NotLinearlySeparableError):
        svm.fit(X[y > 0], y[y > 0])
    with pytest.raises(NotFittedError):  # not the model of the first fit
        svm.predict(X)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_total_hinge_dual_equals_the_primal_lp(fit_intercept):
    """The first stage of the soft limit solves the dual LP; the primal, solved
    directly, has the same optimum, and the recovered (w, b) attains it."""
    from sklearn_linsep._margin._solvers import total_hinge_lp

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(300, 4))
    c = np.where(Z[:, 0] + rng.normal(size=300) > 0, 1.0, -1.0)
    weights = rng.uniform(0.5, 2.0, size=300)
    solution = total_hinge_lp(Z, c, fit_intercept=fit_intercept, weights=weights)
    n_free = 5 if fit_intercept else 4
    columns = [-(c[:, None] * Z)] + ([-c[:, None]] if fit_intercept else [])
    primal = linprog(
        np.r_[np.zeros(n_free), weights],
        A_ub=np.hstack(columns + [-np.eye(300)]),
        b_ub=-np.ones(300),
        bounds=[(None, None)] * n_free + [(0, None)] * 300,
        method="highs",
    )
    assert solution.total == pytest.approx(primal.fun, rel=1e-9)
    attained = weights @ np.maximum(
        0.0, 1.0 - c * (Z @ solution.coef + solution.intercept)
    )
    assert attained == pytest.approx(primal.fun, rel=1e-9)


# ------------------------------------------------------- far from the origin


def _far(classes, seed, overlap):
    rng = np.random.default_rng(seed)
    n = 100 * (classes - 1)
    y = np.arange(n) % classes
    Z = rng.normal(size=(n, 5))
    Z[:, 0] = 3.0 * y + np.where(rng.random(n) < 0.5, 1, -1) * (
        np.abs(Z[:, 0]) - overlap
    )
    return Z, y


@pytest.mark.parametrize("classes, seed", [(2, 0), (2, 3), (3, 1)])
def test_fits_far_from_the_origin_predict_as_the_fit_on_centred_data(classes, seed):
    """1e12 + 1e-3 Z: float64 cannot add the intercept to coef · x there. Whether
    a task is separable or falls into the soft limit, the fit is given about a
    centre (with a warning) and predicts as the fit on the data shifted back."""
    Z, y = _far(classes, seed, overlap=0.25)
    X = 1e12 + 1e-3 * Z
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        far = HardMarginSVM().fit(X, y)
        near = HardMarginSVM().fit(X - 1e12, y)
    assert any("far from the origin" in str(w.message) for w in caught)
    assert far.center_ is not None and far.intercept_at_center_.shape == (
        far.coef_.shape[0],
    )
    assert np.array_equal(far.separable_, near.separable_)
    assert np.allclose(far.margin_, near.margin_, rtol=1e-6, equal_nan=True)
    scale = np.abs(near.decision_function(X - 1e12)).max()
    gap = np.abs(far.decision_function(X) - near.decision_function(X - 1e12))
    assert gap.max() <= 1e-6 * scale
    scores = near.decision_function(X - 1e12)
    if scores.ndim == 2:  # rows whose two best classes tie to that precision aside
        ordered = np.sort(scores, axis=1)
        clear = ordered[:, -1] - ordered[:, -2] > 1e-5 * scale
    else:
        clear = np.abs(scores) > 1e-5 * scale
    assert np.array_equal(far.predict(X)[clear], near.predict(X - 1e12)[clear])
    assert clear.mean() > 0.9


def test_one_vs_rest_names_its_classes_and_points_to_the_joint_machine():
    """Found by a user: the error named the classes "True" and "False", and the
    soft fit warned "not linearly separable" on classes one machine separates."""
    X, y = load_iris(return_X_y=True)
    names = load_iris().target_names[y]
    with pytest.raises(NotLinearlySeparableError) as raised:
        HardMarginSVM(on_inseparable="raise").fit(X, names)
    message = str(raised.value)
    assert "Class 'versicolor' and the rest" in message
    assert "of class 'versicolor' and" in message and "of the other classes" in message
    assert "True" not in message and "False" not in message
    with pytest.warns(NotLinearlySeparableWarning) as record:
        HardMarginSVM(on_inseparable="warn").fit(X, names)
    text = str(record[0].message)
    assert "one-vs-rest (classes 'versicolor', 'virginica' against the rest)" in text
    assert "multi_class='crammer_singer'" in text


def test_the_soft_limit_is_quiet_by_default_as_svc_is():
    """A grid search over real data printed a warning a fit: the default fits
    the C → ∞ limit quietly and says it in separable_."""
    X, y = load_iris(return_X_y=True)
    pair = y > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        svm = HardMarginSVM().fit(X[pair], y[pair])
    assert not svm.separable_ and svm.hinge_violation_ > 0


def _inseparable_by_a_hair(seed, offset):
    """A row of class 0 placed 1e-8 of the spread inside class 1's hull, near a
    vertex; at an offset of 2^30 it rounds onto that vertex (twin rows, both labels),
    at 2^20 it stays a hair inside, or off a flat hull (then separable)."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(2, 4))
    X = rng.normal(size=(int(rng.integers(p + 3, 12)), p))
    y = (X[:, 0] > 0).astype(int)
    y[:2] = 1
    ones = np.flatnonzero(y == 1)[: p + 1]
    inside = rng.dirichlet(np.full(ones.size, 0.2 if seed % 3 else 5.0)) @ X[ones]
    inward = X[ones].mean(axis=0) - inside
    point = inside + 1e-8 * inward / np.linalg.norm(inward)
    return np.vstack([X, point]) + offset, np.r_[y, 0]


def _a_hair_off_a_hull_on_scales_far_apart(p, seed, inside):
    """Rows on a 2^-12 grid: class 1 a hull of p vertices, a point of class 0 2^-27
    inside or outside it (its first coordinate), 30 rows of each class beyond;
    2^30 added (the point rounds onto the hull: inseparable), then each feature
    times its own power of ten, 1e-95 to 1e95 (every centred entry within
    [1e-100, 1e100])."""
    rng = np.random.default_rng(seed)

    def grid(values):
        return np.round(values * 2**12) / 2**12

    hull = grid(rng.uniform(-1, 1, (p, p)))
    hull[:, 0] = 0
    beyond = grid(rng.uniform(-1, 1, (30, p)))
    beyond[:, 0] = grid(rng.uniform(0.5, 1, 30))
    others = grid(rng.uniform(-1, 1, (30, p)))
    others[:, 0] = grid(rng.uniform(-1, -0.5, 30))
    point = np.r_[2.0 ** -np.arange(1, p), 2.0 ** -(p - 1)] @ hull
    point[0] = (1 if inside else -1) * 2**-27
    X = np.vstack([others, point, hull, beyond]) + 2.0**30
    scales = 10.0 ** np.random.default_rng(seed + 100).integers(-95, 95, p)
    return X * scales, np.r_[np.zeros(31, int), np.ones(p + 30, int)]


@pytest.mark.parametrize("inside", [True, False])
@pytest.mark.parametrize("p", [4, 5])
def test_features_184_decades_apart_get_an_answer_or_a_clear_error(p, inside):
    """Features 1e91 and 1e-88 a unit: in the rows' one scale the small one's
    weight is 1e184, and the soft limit's face finish divided it by its column's
    1e-184 (an overflow, then scipy's "array must not contain infs or NaNs"). Now
    that finish gives way, and the fit ends in its documented SolverError: the
    margin's dual, about ‖w‖², is beyond float64."""
    X, y = _a_hair_off_a_hull_on_scales_far_apart(p, 6, inside)
    assert linear_separability(X, y).verify(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(SolverError, match="Standardising the features"):
            HardMarginSVM().fit(X, y)


@pytest.mark.parametrize("offset", [2.0**20, 2.0**30])
@pytest.mark.parametrize("seed", [0, 75, 267, 516])
def test_the_soft_limit_answers_data_inseparable_by_a_hair_far_out(seed, offset):
    """The interior point's α reached its bound to the last bit on these (2^30):
    s - α rounded to 0 and the Newton system divided by it (a NaN, then a
    ValueError). Now every fit answers, its certificate balances in rationals
    and its hinge is HiGHS's least on the rows shifted exactly to the origin."""
    from sklearn_linsep._testing import (
        exactly_balances,
        exactly_separates,
        least_total_hinge,
    )

    X, y = _inseparable_by_a_hair(seed, offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("error", RuntimeWarning)
        model = HardMarginSVM().fit(X, y)
    if model.separable_:  # the hull was flat: the rounding moved the row off it
        assert exactly_separates(X, y, model.exact_coef_ or model.coef_[0],
                                 model.exact_intercept_ or model.intercept_[0])
        return
    certificate = model.certificate_
    assert exactly_balances(X, y, certificate.certificate_indices,
                            certificate.exact_weights(X, y))  # fmt: skip
    c = np.where(y == 1, 1.0, -1.0)
    least, _, _ = least_total_hinge(X - X[0], c)  # exact: rows within 2x of X[0]
    assert model.hinge_violation_ == pytest.approx(least, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("n_classes", [2, 5])
def test_float32_rows_get_a_float64_hyperplane_that_keeps_every_margin(n_classes):
    """``coef_`` and ``intercept_`` are float64 whatever X's dtype (as LinearSVC's):
    cast to float32, the rows held at margin 1 fell about 1e-8 below it, past
    ``tol``."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, 600)
    X = (rng.normal(size=(n_classes, 40))[y] + 0.3 * rng.normal(size=(600, 40)))
    X = X.astype(np.float32)
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert svm.coef_.dtype == svm.intercept_.dtype == np.float64
    scores = X.astype(np.float64) @ svm.coef_.T + svm.intercept_
    if n_classes == 2:
        margins = np.where(y == 1, 1.0, -1.0) * scores[:, 0]
    else:
        own = scores[np.arange(len(y)), y]
        scores[np.arange(len(y)), y] = -np.inf
        margins = own - scores.max(axis=1)
    assert margins.min() >= 1 - svm.tol
    assert margins.min() <= 1 + 1e-9  # the support at 1


def test_the_w_zero_warning_says_smallest_not_only():
    """Found by review: on these rows w = (1, 1), b = 0 attains the least total
    hinge 2 as w = 0 does; the warning said "only by w = 0". The fit is the
    smallest minimiser (the C -> oo limit's), w = 0, and the warning says so."""
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    y = np.array([0, 1, 1, 1])
    with pytest.warns(NotLinearlySeparableWarning, match="attained by w = 0, the "
                      "smallest") as record:  # fmt: skip
        svm = HardMarginSVM().fit(X, y)
    assert not any("only by" in str(w.message) for w in record)
    assert np.all(svm.coef_ == 0) and svm.hinge_violation_ == pytest.approx(2.0)
    c = np.where(y == 1, 1.0, -1.0)
    other = np.maximum(0.0, 1.0 - c * (X @ np.array([1.0, 1.0]))).sum()
    assert other == pytest.approx(svm.hinge_violation_)  # another minimiser


@pytest.mark.parametrize(
    "weights",
    [[1e-300, 1, 1, 1, 1], [1e-320, 1, 1, 1, 1], [1e-320] * 5, [1e-320, 1e300, 1, 1, 1]],
)
def test_weights_far_below_the_others_give_the_least_hinge_without_overflow(weights):
    """Found by review: a weight of 1e-320 beside 1 made the soft limit's interior
    point divide by α ~ 1e-320 (a ValueError from scipy inside; at 1e-300 some
    300 overflow warnings). The guess now sees the weights over the largest; the
    answer is HiGHS's least hinge, and nothing warns."""
    from sklearn_linsep._testing import least_total_hinge

    X = np.array([[0.0], [1.0], [2.0], [3.0], [2.5]])
    y = np.array([0, 0, 1, 1, 0])
    weights = np.array(weights)
    c = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        svm = HardMarginSVM().fit(X, y, sample_weight=weights)
    least = least_total_hinge(X, c, weights / weights.max())[0]  # HiGHS's scale
    assert svm.hinge_violation_ / weights.max() == pytest.approx(least, rel=1e-12)
    hinge = np.maximum(0.0, 1.0 - c * (X @ svm.coef_.ravel() + svm.intercept_[0]))
    assert weights @ hinge == pytest.approx(svm.hinge_violation_, rel=1e-12)
