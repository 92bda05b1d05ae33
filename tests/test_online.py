"""Tests of the perceptron family (Perceptron, PocketPerceptron, Adaline).

References used: scikit-learn's Perceptron (the same online rule, so the same weights
when neither shuffles), a plain-Python batch perceptron, cvxpy for the margin in
Novikoff's bound, numpy's lstsq for Adaline's limit.
"""

import pickle
import re
import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris, make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_linsep import Adaline, LearningRateSchedule, Perceptron, PocketPerceptron
from sklearn_linsep._testing import iris_setosa

ONLINE_LEARNERS = [Perceptron, PocketPerceptron, Adaline]


def noisy_problem(n=400, p=5, noise=0.5, seed=0, n_classes=2):
    """Linearly generated labels with label noise: not separable."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    if n_classes == 2:
        y = (X @ rng.standard_normal(p) + noise * rng.standard_normal(n) > 0).astype(
            int
        )
    else:
        y = np.argmax(X @ rng.standard_normal((p, n_classes)), axis=1)
        flip = rng.random(n) < 0.1
        y[flip] = rng.integers(0, n_classes, flip.sum())
    return X, y


def augmented_margin(X, c):
    """γ̃: the hard margin of a separator through the origin of (x, 1) space (QP)."""
    Xa = np.column_stack([X, np.ones(len(X))])
    w = cp.Variable(Xa.shape[1])
    problem = cp.Problem(cp.Minimize(cp.sum_squares(w)), [cp.multiply(c, Xa @ w) >= 1])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10)
    assert problem.status == cp.OPTIMAL
    return 1.0 / np.linalg.norm(w.value), np.max(np.linalg.norm(Xa, axis=1))


# ---------------------------------------------------------------- Perceptron


@pytest.mark.parametrize("n_classes", [2, 3])
def test_online_perceptron_equals_sklearn_without_shuffling(n_classes):
    X, y = noisy_problem(n_classes=n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(max_iter=7, shuffle=False).fit(X, y)
        theirs = SklearnPerceptron(max_iter=7, tol=None, shuffle=False).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-12)
    assert ours.n_iter_ == theirs.n_iter_ == 7


def naive_batch_perceptron(X, c, epochs, rate=1.0):
    w = np.zeros(X.shape[1] + 1)
    Xa = np.column_stack([X, np.ones(len(X))])
    history = []
    for _ in range(epochs):
        wrong = [i for i in range(len(X)) if c[i] * (Xa[i] @ w) <= 0]
        history.append(len(wrong))
        if not wrong:
            break
        w = w + rate * sum(c[i] * Xa[i] for i in wrong)
    return w, history


def test_batch_mode_is_the_gradient_step_on_the_perceptron_criterion():
    X, y = noisy_problem(n=60, p=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(mode="batch", max_iter=25, eta0=0.5, tol=None).fit(X, y)
    w, history = naive_batch_perceptron(X, np.where(y == 1, 1.0, -1.0), 25, 0.5)
    np.testing.assert_allclose(ours.coef_[0], w[:-1], rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_[0], w[-1], rtol=1e-10)
    np.testing.assert_array_equal(ours.errors_, history)


def test_batch_mode_converges_on_separable_data_and_ignores_order():
    X, y = iris_setosa(nudged=True)
    clf = Perceptron(mode="batch", max_iter=100_000, tol=None).fit(X, y)
    assert clf.converged_ and clf.errors_[-1] == 0 and clf.score(X, y) == 1.0
    order = np.random.default_rng(0).permutation(len(y))
    again = Perceptron(mode="batch", max_iter=100_000, tol=None).fit(X[order], y[order])
    np.testing.assert_allclose(again.coef_, clf.coef_, rtol=1e-9)


@st.composite
def separable_sets(draw):
    """Points away from a random hyperplane (a guaranteed gap), labelled by it."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 4))
    gap = draw(st.floats(0.05, 1.0))
    offset = draw(st.floats(-2.0, 2.0))
    rng = np.random.default_rng(seed)
    normal = rng.standard_normal(p)
    normal /= np.linalg.norm(normal)
    X = rng.uniform(-3, 3, size=(n, p))
    side = X @ normal - offset
    c = np.where(side >= 0, 1.0, -1.0)
    X += np.outer(c * gap, normal)  # push every point gap further from the plane
    c[:2] = [1.0, -1.0]  # both classes present
    X[0] = (offset + 3 * gap) * normal
    X[1] = (offset - 3 * gap) * normal
    return X, c, draw(st.booleans()), draw(st.integers(0, 10))


@settings(max_examples=40, deadline=None)
@given(separable_sets())
def test_novikoff_bound_holds(data):
    """With w₀ = 0 and a constant rate, updates ≤ (R̃/γ̃)² on separable data."""
    X, c, shuffle, seed = data
    gamma, radius = augmented_margin(X, c)
    clf = Perceptron(
        shuffle=shuffle, random_state=seed, max_iter=10**6, tol=None
    ).fit(X, c)
    assert clf.converged_ and clf.score(X, c) == 1.0
    assert clf.n_updates_ <= (radius / gamma) ** 2 * (1 + 1e-9)


@pytest.mark.parametrize(
    "learner",
    [Perceptron(), Perceptron(mode="batch"), PocketPerceptron()],
    ids=["online", "batch", "pocket"],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_epoch_without_mistakes_means_predict_is_right(learner, dtype):
    """Two antipodal unit points: after one update w = (x₀, -1) scores x₀ with
    ‖x₀‖² - 1, zero up to rounding. Its sign depends on the order of summation, so
    it is a mistake, not convergence (Hypothesis found a fit with converged_ True
    and score 0.5)."""
    rng = np.random.default_rng(1)
    for _ in range(30):
        normal = rng.standard_normal(rng.integers(2, 6))
        normal /= np.linalg.norm(normal)
        X, c = np.array([normal, -normal]).astype(dtype), np.array([1.0, -1.0])
        for shuffle, seed in [(True, 0), (True, 1), (False, 0)]:
            clf = clone(learner).set_params(
                shuffle=shuffle, random_state=seed, max_iter=1000, tol=None
            )
            clf.fit(X, c)
            assert clf.converged_ and clf.score(X, c) == 1.0
            assert np.min(c * clf.decision_function(X)) > 0
            assert clf.errors_[-1] == 0 and np.all(clf.errors_[:-1] > 0)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "X, eta0",
    [
        ([[1e-23], [-1e-23]], 1.0),  # float32 products underflow to 0
        ([[1.0], [-1.0]], 1e-46),  # float32 weights underflow to 0
        ([[4e19, 2e19], [2e19, 4e19]], 1.0),  # float32 products overflow
        ([[1.0, 0.5], [0.5, 1.0]], 1e39),  # float32 weights overflow
    ],
)
def test_converged_holds_in_float32s_range_or_is_not_claimed(X, eta0, sparse):
    """The epochs score in float64; predict in float32. Where float32 cannot hold
    a score, converged_ is not claimed (a reviewer's cases)."""
    X = np.asarray(X, dtype=np.float32)
    X, y = (sp.csr_matrix(X) if sparse else X), np.array([1, 0])
    for learner in (Perceptron(mode="batch"), Perceptron(), PocketPerceptron()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = learner.set_params(
                eta0=eta0, fit_intercept=False, shuffle=False, max_iter=100, tol=None
            ).fit(X, y)
        assert not clf.converged_ or clf.score(X, y) == 1.0


def test_iris_converges_with_the_hyperbolic_schedule_and_faster_when_nudged():
    for seed in range(5):
        params = dict(learning_rate="hyperbolic", a=10, b=1000, random_state=seed)
        plain = Perceptron(max_iter=100_000, tol=None, **params).fit(*iris_setosa())
        nudged = Perceptron(max_iter=100_000, tol=None, **params).fit(
            *iris_setosa(nudged=True)
        )
        assert plain.converged_ and nudged.converged_
        assert plain.score(*iris_setosa()) == 1.0
        assert nudged.n_iter_ < plain.n_iter_
    assert plain.errors_[-1] == 0 and plain.errors_.shape == (plain.n_iter_,)
    # SPEC §6: Novikoff's bound for the augmented perceptron (constant rate, w₀ = 0)
    # is ≈ 51387 on this set; the margin computed here reproduces it.
    gamma, radius = augmented_margin(
        *iris_setosa()[:1], np.where(iris_setosa()[1], 1.0, -1.0)
    )
    assert (radius / gamma) ** 2 == pytest.approx(51387, rel=1e-4)
    for seed in range(5):
        constant = Perceptron(max_iter=100_000, tol=None, random_state=seed).fit(
            *iris_setosa()
        )
        assert constant.converged_ and constant.n_updates_ <= (radius / gamma) ** 2


def test_inseparable_data_warn_and_run_max_iter():
    X, y = noisy_problem()
    with pytest.warns(ConvergenceWarning, match="may not be linearly separable"):
        clf = Perceptron(max_iter=5, random_state=0).fit(X, y)
    assert clf.n_iter_ == 5 and not clf.converged_ and np.all(clf.errors_ > 0)
    assert clf.n_updates_ == clf.errors_.sum()


def test_multiclass_histories_have_one_column_per_class():
    X, y = noisy_problem(n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(max_iter=4, random_state=0).fit(X, y)
    assert clf.coef_.shape == (3, 5) and clf.errors_.shape == (4, 3)
    np.testing.assert_array_equal(clf.n_updates_, clf.errors_.sum(axis=0))


@pytest.mark.parametrize(
    "kind, params, function",
    [
        ("constant", dict(eta0=0.3), lambda t: 0.3 + 0 * t),
        ("hyperbolic", dict(a=10.0, b=1000.0), lambda t: 10.0 / (1000.0 + t)),
        ("invscaling", dict(eta0=2.0, power_t=0.5), lambda t: 2.0 / np.sqrt(t + 1)),
    ],
)
def test_named_schedules_equal_their_callable(kind, params, function):
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        named = Perceptron(learning_rate=kind, max_iter=3, shuffle=False, **params)
        called = Perceptron(learning_rate=function, max_iter=3, shuffle=False)
        scalar = Perceptron(
            learning_rate=lambda t: float(function(np.array(t))),
            max_iter=3,
            shuffle=False,
        )
        named.fit(X, y)
        called.fit(X, y)
        scalar.fit(X, y)
    np.testing.assert_allclose(called.coef_, named.coef_, rtol=1e-12)
    np.testing.assert_allclose(scalar.coef_, named.coef_, rtol=1e-12)
    np.testing.assert_allclose(named.schedule_(np.arange(5)), function(np.arange(5)))


def test_schedule_object():
    schedule = LearningRateSchedule(
        "hyperbolic", eta0=1.0, a=10.0, b=1000.0, power_t=0.5
    )
    assert schedule(0) == pytest.approx(0.01)
    assert schedule(1000) == pytest.approx(0.005)


def test_callable_schedule_must_give_positive_rates():
    X, y = noisy_problem(n=50)
    with pytest.raises(ValueError, match="finite positive rates"):
        Perceptron(learning_rate=lambda t: -1.0 + 0 * t).fit(X, y)


def test_auto_rates_resolve_from_the_data():
    X, y = noisy_problem(n=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(eta0="auto", max_iter=2).fit(X, y)
    expected = 1.0 / np.max(np.sum(X**2, axis=1) + 1.0)
    assert clf.schedule_.eta0 == pytest.approx(expected)


# ------------------------------------------------------- weights and invariances


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_zero_weight_equals_removal_without_shuffling(Learner):
    X, y = noisy_problem(n=80)
    weights = np.ones(len(y))
    weights[::7] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        kept = weights > 0
        params = dict(max_iter=6, shuffle=False)
        if Learner is Adaline:
            params.update(eta0=0.01, learning_rate="constant")
        weighted = Learner(**params).fit(X, y, sample_weight=weights)
        removed = Learner(**params).fit(X[kept], y[kept])
    np.testing.assert_allclose(weighted.coef_, removed.coef_, rtol=1e-12)


def test_class_weight_multiplies_sample_weight():
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        by_class = Perceptron(class_weight={0: 3.0, 1: 0.5}, max_iter=4, shuffle=False)
        by_sample = Perceptron(max_iter=4, shuffle=False)
        by_class.fit(X, y)
        by_sample.fit(X, y, sample_weight=np.where(y == 0, 3.0, 0.5))
    np.testing.assert_allclose(by_class.coef_, by_sample.coef_, rtol=1e-12)


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_sparse_equals_dense(Learner):
    X, y = noisy_problem(n=120, p=8)
    X[np.abs(X) < 0.8] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = Learner(max_iter=5, random_state=1).fit(X, y)
        sparse = Learner(max_iter=5, random_state=1).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_float32_input(Learner):
    X, y = noisy_problem(n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        single = Learner(max_iter=5, random_state=0).fit(X.astype(np.float32), y)
        double = Learner(max_iter=5, random_state=0).fit(
            X.astype(np.float32).astype(float), y
        )
    np.testing.assert_allclose(single.coef_, double.coef_, rtol=1e-6, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), shuffle=st.booleans())
def test_renaming_labels_keeps_the_predictions(seed, shuffle):
    """c → -c negates every update: same mistakes, same predicted labels.

    The pocket starts from w = 0, which predicts classes_[0] everywhere (a score of
    0 is negative), so its first comparisons depend on which class is first; its
    perceptron is still exactly negated.
    """
    X, y = noisy_problem(n=60, seed=seed)
    names = np.array(["zebra", "aardvark"])  # reverses which class is classes_[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        params = dict(max_iter=5, shuffle=shuffle, random_state=seed)
        numeric = Perceptron(**params).fit(X, y)
        named = Perceptron(**params).fit(X, names[y])
        np.testing.assert_array_equal(named.predict(X), names[numeric.predict(X)])
        np.testing.assert_array_equal(named.coef_, -numeric.coef_)
        pocket = PocketPerceptron(**params).fit(X, y)
        renamed = PocketPerceptron(**params).fit(X, names[y])
        np.testing.assert_array_equal(
            renamed.perceptron_coef_, -pocket.perceptron_coef_
        )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), power=st.integers(-200, 200))
def test_scaling_by_a_power_of_two_without_intercept_changes_nothing(seed, power):
    X, y = noisy_problem(n=60, seed=seed)
    scale = 2.0**power
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = Perceptron(fit_intercept=False, max_iter=5, random_state=seed).fit(X, y)
        scaled = Perceptron(fit_intercept=False, max_iter=5, random_state=seed)
        scaled.fit(X * scale, y)
    np.testing.assert_array_equal(scaled.errors_, plain.errors_)
    np.testing.assert_array_equal(scaled.coef_, plain.coef_ * scale)


def test_sample_order_does_not_matter_in_batch_mode():
    X, y = noisy_problem(n=100)
    order = np.random.default_rng(3).permutation(100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Perceptron(mode="batch", max_iter=10).fit(X, y)
        b = Perceptron(mode="batch", max_iter=10).fit(X[order], y[order])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10)


# ------------------------------------------------------------------- state


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_partial_fit_epochs_equal_fit_epochs(Learner):
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        params = dict(shuffle=False)
        if Learner is Adaline:
            params["tol"] = None
        fitted = Learner(max_iter=4, **params).fit(X, y)
        streamed = Learner(**params)
        for _ in range(4):
            streamed.partial_fit(X, y, classes=[0, 1])
    # The pocket's candidates depend on where calls start; the perceptron does not.
    name = "perceptron_coef_" if Learner is PocketPerceptron else "coef_"
    np.testing.assert_allclose(
        getattr(streamed, name), getattr(fitted, name), rtol=1e-12
    )
    assert streamed.n_iter_ == fitted.n_iter_ == 4


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_partial_fit_errors(Learner):
    X, y = noisy_problem(n=50)
    clf = Learner()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    clf.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="labels not in classes"):
        clf.partial_fit(X, np.where(y == 1, 2, 0))
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="is not the same as"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="at least 2 classes"):
        Learner().partial_fit(X, np.zeros(50), classes=[0])
    with pytest.raises(ValueError, match="balanced"):
        Learner(class_weight="balanced").partial_fit(X, y, classes=[0, 1])


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_fit_after_partial_fit_starts_afresh(Learner):
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fresh = Learner(max_iter=3, random_state=0).fit(X, y)
        reused = Learner(max_iter=3, random_state=0)
        for _ in range(3):
            reused.partial_fit(X[::-1], y[::-1], classes=[0, 1])
        reused.fit(X, y)
    np.testing.assert_array_equal(reused.coef_, fresh.coef_)
    assert reused.n_iter_ == fresh.n_iter_


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_random_state_reproducible_and_pickle_round_trip(Learner):
    X, y = noisy_problem(n=100, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Learner(max_iter=3, random_state=42).fit(X, y)
        b = Learner(max_iter=3, random_state=42).fit(X, y)
        c = Learner(max_iter=3, random_state=43).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.predict(X), a.predict(X))
    np.testing.assert_array_equal(restored.decision_function(X), a.decision_function(X))


def test_shuffle_blocks_is_reproducible_and_learns():
    X, y = noisy_problem(n=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Perceptron(shuffle="blocks", max_iter=5, random_state=0).fit(X, y)
        b = Perceptron(shuffle="blocks", max_iter=5, random_state=0).fit(X, y)
        pocket = PocketPerceptron(shuffle="blocks", max_iter=5, random_state=0)
        pocket.fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert pocket.pocket_score_ == pytest.approx(pocket.score(X, y))
    assert pocket.pocket_score_ > 0.85


def test_warm_start_continues_and_coef_init_is_used():
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        twice = Perceptron(max_iter=1, shuffle=False, warm_start=True)
        twice.fit(X, y).fit(X, y)
        once = Perceptron(max_iter=2, shuffle=False).fit(X, y)
        np.testing.assert_allclose(twice.coef_, once.coef_, rtol=1e-12)
        start = Perceptron(max_iter=1, shuffle=False).fit(X, y)
        resumed = Perceptron(max_iter=1, shuffle=False).fit(
            X, y, coef_init=start.coef_, intercept_init=start.intercept_
        )
    np.testing.assert_allclose(resumed.coef_, once.coef_, rtol=1e-12)
    with pytest.raises(ValueError, match="coef_init has shape"):
        Perceptron().fit(X, y, coef_init=np.zeros(3))
    with pytest.raises(ValueError, match="intercept_init has 2 values"):
        Perceptron().fit(X, y, intercept_init=np.zeros(2))


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_a_warm_start_on_data_of_another_shape_is_an_error(Learner):
    """As scikit-learn's Perceptron: a warm start never drops the previous weights
    silently (found by review: a fit on fewer features, or on three classes,
    started afresh without a word)."""
    X, y = noisy_problem(n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Learner(max_iter=3, warm_start=True, random_state=0).fit(X, y)
        for X_other, y_other, needed in ((X[:, :2], y, "(1, 2)"),
                                         (X, np.arange(120) % 3, "(3, 5)")):  # fmt: skip
            with pytest.raises(ValueError, match=rf"shape \(1, 5\).*need {re.escape(needed)}"):
                Learner(max_iter=3, warm_start=True, random_state=0).fit(X, y).fit(
                    X_other, y_other
                )
        clf.set_params(warm_start=False).fit(X[:, :2], y)  # afresh, as asked
        assert clf.coef_.shape == (1, 2)


def test_in_pipeline_cross_validation_and_grid_search():
    X, y = make_classification(300, 6, random_state=0)
    pipe = make_pipeline(StandardScaler(), PocketPerceptron(random_state=0))
    assert cross_val_score(pipe, X, y, cv=5).mean() > 0.8
    search = GridSearchCV(
        make_pipeline(StandardScaler(), Adaline(random_state=0)),
        {"adaline__solver": ["online", "lstsq"]},
        cv=3,
    ).fit(X, y)
    assert search.best_score_ > 0.8


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_bad_input(Learner):
    X, y = noisy_problem(n=30)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Learner().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Learner().fit(bad, y)
    with pytest.raises(ValueError, match="1 class"):
        Learner().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="0 sample"):
        Learner().fit(X[:0], y[:0])
    with pytest.raises(ValueError, match="2D array"):
        Learner().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Learner().fit(X, y[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = Learner(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])
    with pytest.raises(ValueError, match="positive total sample weight"):
        Learner().fit(X, y, sample_weight=np.where(y == 0, 0.0, 1.0))


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_extreme_scales_get_a_clear_error_or_warning(Learner):
    X, y = noisy_problem(n=50)
    with pytest.raises(ValueError, match="overflow"):
        Learner().fit(X * 1e200, y)
    with pytest.raises(ValueError, match="underflow"):
        Learner(fit_intercept=False).fit(X * 1e-200, y)
    with pytest.warns(UserWarning, match="barely count"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            Learner(max_iter=2).fit(X * 1e-200, y)
    exact = Adaline(solver="lstsq").fit(X * 1e200, y)  # LAPACK scales for itself
    assert exact.score(X * 1e200, y) == Adaline(solver="lstsq").fit(X, y).score(X, y)


@pytest.mark.parametrize("scale", [1e-90, 1e90])
def test_perceptron_at_extreme_scales(scale):
    """With w₀ = 0 and no intercept the rule is scale-free: the same mistakes."""
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = Perceptron(fit_intercept=False, max_iter=5, shuffle=False).fit(X, y)
        scaled = Perceptron(fit_intercept=False, max_iter=5, shuffle=False)
        scaled.fit(X * scale, y)
    np.testing.assert_array_equal(scaled.errors_, plain.errors_)
    np.testing.assert_array_equal(scaled.predict(X * scale), plain.predict(X))


# -------------------------------------------------------------------- pocket


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pocket_score_is_the_training_score_and_history_is_monotone(n_classes):
    X, y = noisy_problem(n=300, n_classes=n_classes, seed=5)
    weights = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    for sample_weight in (None, weights):
        clf = PocketPerceptron(max_iter=20, random_state=0)
        clf.fit(X, y, sample_weight=sample_weight)
        assert clf.pocket_score_ == pytest.approx(
            clf.score(X, y, sample_weight=sample_weight), abs=1e-12
        )
        history = clf.pocket_history_
        assert history.shape[0] == clf.n_iter_ == 20
        assert np.all(np.diff(history, axis=0) >= 0)


def test_pocket_on_separable_data_ends_without_training_errors():
    for nudged in (False, True):
        X, y = iris_setosa(nudged)
        clf = PocketPerceptron(max_iter=100_000, random_state=0).fit(X, y)
        assert clf.converged_ and clf.pocket_score_ == 1.0 and clf.score(X, y) == 1.0


def inseparable_sets():
    X, y = load_iris(return_X_y=True)
    keep = y > 0  # versicolor against virginica: inseparable
    yield "iris-versicolor-virginica", X[keep], y[keep]
    X, y = make_blobs(400, centers=2, cluster_std=3.0, random_state=0)
    yield "noisy-blobs", X, y


@pytest.mark.parametrize("name, X, y", list(inseparable_sets()))
def test_pocket_beats_the_plain_perceptrons_on_inseparable_data(name, X, y):
    epochs = 30
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for seed in range(5):
            pocket = PocketPerceptron(max_iter=epochs, random_state=seed).fit(X, y)
            ours = Perceptron(max_iter=epochs, tol=None, random_state=seed).fit(X, y)
            theirs = SklearnPerceptron(max_iter=epochs, tol=None, random_state=seed)
            theirs.fit(X, y)
            # The same trajectory: the pocket keeps the best of its weights.
            np.testing.assert_array_equal(pocket.perceptron_coef_, ours.coef_)
            assert pocket.score(X, y) >= ours.score(X, y)
            assert pocket.score(X, y) >= theirs.score(X, y)


def test_pocket_partial_fit_keeps_a_ratchet_per_call():
    X, y = noisy_problem(n=300)
    clf = PocketPerceptron(random_state=0)
    for _ in range(5):
        clf.partial_fit(X, y, classes=[0, 1])
    assert np.all(np.diff(clf.pocket_history_) >= 0)
    assert clf.pocket_score_ == pytest.approx(clf.score(X, y))


# -------------------------------------------------------------------- Adaline


def augmented_lstsq(X, y, sample_weight=None, fit_intercept=True):
    c = np.where(y == 1, 1.0, -1.0)
    Xa = np.column_stack([X, np.ones(len(X)) * fit_intercept])
    root = np.ones(len(X)) if sample_weight is None else np.sqrt(sample_weight)
    return np.linalg.lstsq(Xa * root[:, None], c * root, rcond=None)[0]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lstsq_solver_equals_numpy_lstsq(sparse, fit_intercept):
    X, y = noisy_problem(n=200, p=6)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, 200)
    data = sp.csr_matrix(X) if sparse else X
    clf = Adaline(solver="lstsq", fit_intercept=fit_intercept)
    clf.fit(data, y, sample_weight=weights)
    expected = augmented_lstsq(X, y, weights, fit_intercept)
    np.testing.assert_allclose(clf.coef_[0], expected[:-1], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], expected[-1], atol=1e-10)
    assert not hasattr(clf, "partial_fit")


def test_lstsq_solver_with_more_features_than_samples_is_minimum_norm():
    X, y = noisy_problem(n=10, p=30)
    clf = Adaline(solver="lstsq").fit(X, y)
    expected = augmented_lstsq(X, y)
    np.testing.assert_allclose(clf.coef_[0], expected[:-1], rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kind", ["rank 10 of 50", "a constant column"])
def test_lstsq_solver_on_rank_deficient_x_is_numpy_minimum_norm(sparse, kind):
    # The cases: a constant column (collinear with the intercept), and a
    # 1000 x 50 X of rank 10, where the dense path returned ‖w‖ ≈ 1e13.
    rng = np.random.default_rng(0)
    if kind == "a constant column":
        X = np.c_[rng.normal(size=(100, 3)), np.full(100, 2.5)]
        y = rng.integers(0, 2, 100)
    else:
        X = rng.normal(size=(1000, 10)) @ rng.normal(size=(10, 50))
        y = (X[:, 0] + rng.normal(size=1000) > 0).astype(int)
    data = sp.csr_matrix(X) if sparse else X
    clf = Adaline(solver="lstsq").fit(data, y)
    expected = augmented_lstsq(X, y)
    scale = np.linalg.norm(expected)
    np.testing.assert_allclose(clf.coef_[0], expected[:-1], atol=1e-8 * scale)
    np.testing.assert_allclose(clf.intercept_[0], expected[-1], atol=1e-8 * scale)
    Xa = np.column_stack([X, np.ones(len(X))])
    np.testing.assert_array_equal(clf.predict(X), (Xa @ expected > 0).astype(int))


def test_online_adaline_approaches_least_squares():
    X, y = make_classification(500, 5, random_state=0)
    exact = augmented_lstsq(X, y)
    errors = []
    for epochs in (3, 30, 300, 3000):
        clf = Adaline(tol=None, max_iter=epochs, random_state=0).fit(X, y)
        weights = np.r_[clf.coef_[0], clf.intercept_]
        errors.append(np.linalg.norm(weights - exact) / np.linalg.norm(exact))
    assert errors[0] > errors[1] > errors[2] > errors[3]
    assert errors[3] < 0.01
    assert clf.loss_.shape == (3000,) and clf.loss_[-1] < clf.loss_[0]


def test_adaline_stops_on_tol():
    X, y = make_classification(500, 5, random_state=0)
    clf = Adaline(tol=1e-3, max_iter=1000, random_state=0).fit(X, y)
    assert clf.converged_ and clf.n_iter_ < 1000


def test_adaline_reduces_a_diverging_rate():
    """Features at loc=100 with eta0=1: the rate is cut, never weights of 1e200."""
    rng = np.random.default_rng(0)
    X = rng.normal(loc=100.0, size=(60, 3))
    y = (X[:, 0] > 100).astype(int)
    with pytest.warns(ConvergenceWarning, match="diverged"):
        clf = Adaline(learning_rate="constant", eta0=1.0, max_iter=20, tol=None)
        clf.fit(X, y)
    assert np.all(np.isfinite(clf.coef_)) and np.max(np.abs(clf.coef_)) < 10
    assert clf.schedule_.scale < 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # auto rate: no reduction
        auto = Adaline(max_iter=20, tol=None).fit(X, y)
    assert auto.schedule_.scale == 1.0


def test_adaline_gives_up_with_a_clear_error():
    X, y = noisy_problem(n=30)
    with pytest.raises(ValueError, match="diverged even after"):
        Adaline(learning_rate="constant", eta0=1e40, max_iter=3).fit(X * 1e10, y)


# ------------------------------------------------------- review follow-ups


def test_multiclass_pocket_ratchets_each_task():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1000, 4))
    y = rng.choice(3, size=1000, p=[0.05, 0.4, 0.55])
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            pocket = PocketPerceptron(max_iter=5, random_state=seed).fit(X, y)
            plain = Perceptron(max_iter=5, random_state=seed).fit(X, y)
        for k in range(3):
            positive = y == k
            task = (X @ pocket.coef_[k] + pocket.intercept_[k] > 0) == positive
            assert pocket.pocket_history_[-1, k] == pytest.approx(task.mean())
            mine = (X @ plain.coef_[k] + plain.intercept_[k] > 0) == positive
            assert task.mean() >= mine.mean()
        assert np.all(np.diff(pocket.pocket_history_, axis=0) >= 0)
        assert pocket.pocket_score_ == pytest.approx(pocket.score(X, y))


def slowly_diverging():
    X = np.random.default_rng(3).standard_normal((4, 5))
    rate = 3.0 / np.max(np.sum(X**2, axis=1) + 1.0)
    return X, np.array([0, 1, 0, 1]), rate


def test_adaline_catches_a_slow_divergence():
    X, y, rate = slowly_diverging()
    with pytest.warns(ConvergenceWarning, match="diverged"):
        clf = Adaline(learning_rate="constant", eta0=rate, tol=None, max_iter=1000)
        clf.fit(X, y)
    assert np.max(np.abs(clf.coef_)) < 100 and np.all(clf.loss_ < 10)
    with pytest.warns(ConvergenceWarning, match="diverged"):
        clf = Adaline(learning_rate="constant", eta0=rate, shuffle=False)
        for _ in range(300):
            clf.partial_fit(X, y, classes=[0, 1])
    assert np.max(np.abs(clf.coef_)) < 100


def test_a_rising_loss_is_not_convergence():
    X, y, rate = slowly_diverging()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Adaline(learning_rate="constant", eta0=rate, max_iter=1000).fit(X, y)
    assert clf.loss_[-1] <= 2 * max(clf.loss_.min(), 1.0)


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_partial_fit_after_a_failed_first_call(Learner):
    X, y = noisy_problem(n=40)
    bad = X.copy()
    bad[0, 0] = np.nan
    clf = Learner()
    with pytest.raises(ValueError, match="NaN"):
        clf.partial_fit(bad, y, classes=[0, 1])
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    clf.partial_fit(X, y, classes=[0, 1])
    assert clf.n_iter_ == 1


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_random_state_none_leaves_numpys_global_generator_alone(Learner):
    X, y = noisy_problem(n=40)
    np.random.seed(0)
    expected = np.random.rand()
    np.random.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Learner(max_iter=2, shuffle="blocks").fit(X, y)
        Learner(max_iter=2).partial_fit(X, y, classes=[0, 1])
    assert np.random.rand() == expected


@pytest.mark.parametrize("Learner", [PocketPerceptron, Adaline])
def test_class_weight_equals_sample_weight(Learner):
    X, y = noisy_problem(n=100)
    params = dict(max_iter=4, shuffle=False)
    if Learner is Adaline:
        params["tol"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        by_class = Learner(class_weight={0: 3.0, 1: 0.5}, **params).fit(X, y)
        by_sample = Learner(**params).fit(
            X, y, sample_weight=np.where(y == 0, 3.0, 0.5)
        )
    np.testing.assert_allclose(by_class.coef_, by_sample.coef_, rtol=1e-12)
    if Learner is PocketPerceptron:
        # pocket_score_ is the score: weighted by sample_weight, not class_weight.
        assert by_class.pocket_score_ == pytest.approx(by_class.score(X, y))
    exact = Adaline(solver="lstsq", class_weight={0: 3.0, 1: 0.5}).fit(X, y)
    weighted = Adaline(solver="lstsq").fit(X, y, sample_weight=np.where(y == 0, 3, 0.5))
    np.testing.assert_allclose(exact.coef_, weighted.coef_, rtol=1e-10)


def test_pocket_warm_start_keeps_the_pocket():
    X, y = noisy_problem(n=300, seed=2)
    clf = PocketPerceptron(max_iter=20, random_state=0, warm_start=True).fit(X, y)
    scores = [clf.pocket_score_]
    for _ in range(5):
        clf.set_params(max_iter=1).fit(X, y)
        scores.append(clf.pocket_score_)
    assert np.all(np.diff(scores) >= 0)


def test_initial_weights_are_checked():
    X, y = noisy_problem(n=30, p=3, n_classes=3)
    with pytest.raises(ValueError, match="coef_init has shape"):
        Perceptron().fit(X, y, coef_init=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="coef_init has shape"):
        Perceptron().fit(X, y, coef_init=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="needs fit_intercept=True"):
        Perceptron(fit_intercept=False).fit(X, y, intercept_init=np.zeros(3))


def test_multiclass_callable_schedule_tabulates_per_task():
    X, y = noisy_problem(n=200, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        named = Perceptron(learning_rate="hyperbolic", max_iter=6, random_state=0)
        called = Perceptron(
            learning_rate=lambda t: 10.0 / (1000.0 + t), max_iter=6, random_state=0
        )
        named.fit(X, y)
        called.fit(X, y)
    np.testing.assert_allclose(called.coef_, named.coef_, rtol=1e-12)


def test_sparse_lstsq_keeps_a_small_scale_feature():
    X, y = noisy_problem(n=200, p=4)
    X[:, 2] *= 1e-9
    dense = Adaline(solver="lstsq").fit(X, y)
    sparse = Adaline(solver="lstsq").fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6)
    # The reference solves with columns of unit norm: numpy's lstsq on X as given
    # (condition ~1e9) is off by 2.7e-8 in the scaled feature on some LAPACKs,
    # where the exact solution in rationals and this package agree to 4e-15.
    scale = np.linalg.norm(X, axis=0)
    reference = augmented_lstsq(X / scale, y)[:-1] / scale
    np.testing.assert_allclose(dense.coef_[0], reference, rtol=1e-11)
    np.testing.assert_allclose(sparse.coef_[0], reference, rtol=1e-6)


@pytest.mark.parametrize("Estimator", [Perceptron, PocketPerceptron, Adaline])
def test_dask_ml_incremental_feeds_partial_fit_block_by_block(Estimator, dask_client):
    """dask-ml's Incremental calls partial_fit once per block, in order: the same
    weights as calling it by hand on the same blocks."""
    import dask.array as da
    from dask_ml.wrappers import Incremental

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = (X @ np.array([1.0, 2.0, -1.0, 0.5]) > 0).astype(int)
    estimator = Estimator(shuffle=False, random_state=0)
    wrapped = Incremental(estimator, scoring="accuracy", shuffle_blocks=False)
    wrapped.fit(
        da.from_array(X, chunks=500), da.from_array(y, chunks=500), classes=[0, 1]
    )
    by_hand = clone(estimator)
    for start in range(0, 3000, 500):
        by_hand.partial_fit(
            X[start : start + 500], y[start : start + 500], classes=[0, 1]
        )
    np.testing.assert_array_equal(wrapped.estimator_.coef_, by_hand.coef_)
    np.testing.assert_array_equal(wrapped.estimator_.intercept_, by_hand.intercept_)
    predicted = wrapped.predict(da.from_array(X, chunks=500))
    np.testing.assert_array_equal(predicted.compute(), by_hand.predict(X))
    assert wrapped.score(da.from_array(X, chunks=500), y) > 0.9


# ------------------------------------------- stopping, averaging, verbose


def expected_stop(losses, tol, n_iter_no_change):
    """The epoch at which scikit-learn's rule stops, from the epoch losses."""
    best, stalled = np.inf, 0
    for epoch, loss in enumerate(losses, start=1):
        stalled = stalled + 1 if loss > best - tol else 0
        best = min(best, loss)
        if stalled >= n_iter_no_change:
            return epoch
    return None


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_tol_stops_where_scikit_learns_rule_says(Learner, n_classes):
    X, y = noisy_problem(n=300, n_classes=n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        free = Learner(tol=None, max_iter=60, random_state=0).fit(X, y)
        stopped = Learner(tol=1e-3, n_iter_no_change=3, max_iter=60, random_state=0)
        stopped.fit(X, y)
    per_epoch = free.loss_ if free.loss_.ndim == 1 else free.loss_.sum(axis=1)
    stop = expected_stop(per_epoch, 1e-3, 3)
    assert stop is not None and stopped.n_iter_ == stop < 60
    np.testing.assert_array_equal(stopped.loss_, free.loss_[:stop])
    assert free.n_iter_ == 60


def test_tol_stops_an_inseparable_perceptron_early_and_no_worse_than_sklearn():
    X, y = make_classification(
        n_samples=20_000, n_features=20, n_informative=10, flip_y=0.05, random_state=0
    )
    ours, averaged, theirs = [], [], []
    for seed in range(5):  # the last iterate's accuracy is noisy: compare means
        plain = Perceptron(tol=1e-3, random_state=seed).fit(X, y)
        assert plain.n_iter_ < 50 and not plain.converged_
        ours.append(plain.score(X, y))
        mean = Perceptron(tol=1e-3, average=True, random_state=seed).fit(X, y)
        averaged.append(mean.score(X, y))
        theirs.append(
            SklearnPerceptron(tol=1e-3, random_state=seed).fit(X, y).score(X, y)
        )
    # Measured: 0.606 (ours), 0.707 (averaged) and 0.636 (scikit-learn's).
    assert np.mean(ours) >= np.mean(theirs) - 0.05
    assert np.mean(averaged) >= np.mean(theirs) + 0.05
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        Perceptron(max_iter=3, random_state=0).fit(X[:2000], y[:2000])


def sgd_perceptron(average, max_iter):
    """scikit-learn's averaged perceptron, on the same epochs as ours."""
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(
        loss="perceptron",
        learning_rate="constant",
        eta0=1.0,
        penalty=None,
        average=average,
        shuffle=False,
        tol=None,
        max_iter=max_iter,
    )


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("average", [True, 1, 50, 10**6])
def test_the_averaged_perceptron_equals_sgd_average(n_classes, average):
    X, y = noisy_problem(n=200, n_classes=n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(average=average, shuffle=False, max_iter=4).fit(X, y)
        theirs = sgd_perceptron(average, max_iter=4).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-10)
    plain = Perceptron(shuffle=False, max_iter=4).fit(X, y)
    if average == 10**6:  # averaging never started: the weights themselves
        np.testing.assert_array_equal(ours.coef_, plain.coef_)
    else:
        assert not np.allclose(ours.coef_, plain.coef_)


def test_averaging_continues_across_partial_fit_and_sparse_equals_dense():
    X, y = noisy_problem(n=150)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = Perceptron(average=True, shuffle=False, max_iter=3).fit(X, y)
        streamed = Perceptron(average=True, shuffle=False)
        for _ in range(3):
            streamed.partial_fit(X, y, classes=[0, 1])
        sparse = Perceptron(average=True, shuffle=False, max_iter=3)
        sparse.fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(streamed.coef_, fitted.coef_, rtol=1e-12)
    np.testing.assert_allclose(sparse.coef_, fitted.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse.intercept_, fitted.intercept_, atol=1e-10)
    with pytest.raises(ValueError, match="average needs mode='online'"):
        Perceptron(mode="batch", average=True).fit(X, y)


def test_the_pocket_is_no_worse_than_the_averaged_perceptron():
    X, y = noisy_problem(n=400, noise=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for seed in range(3):
            averaged = Perceptron(average=True, max_iter=10, random_state=seed)
            pocket = PocketPerceptron(average=True, max_iter=10, random_state=seed)
            averaged.fit(X, y)
            pocket.fit(X, y)
            assert pocket.pocket_score_ >= averaged.score(X, y)
            assert pocket.pocket_score_ == pytest.approx(1 - pocket.loss_[-1])


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_verbose_prints_each_epoch_on_stderr(Learner, capsys):
    X, y = noisy_problem(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        Learner(max_iter=3, verbose=1, tol=None, random_state=0).fit(X, y)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 3 and captured.out == ""
    assert lines[0].startswith("-- Epoch 1: loss ") and lines[2].startswith(
        "-- Epoch 3"
    )
    assert all(" s (total " in line for line in lines)


@pytest.mark.parametrize("Learner", ONLINE_LEARNERS)
def test_a_failed_fit_leaves_no_model_and_a_warm_start_after_it_starts_afresh(Learner):
    # Found in review: the two-class model of an earlier fit answered predict after
    # a failed three-class fit, and a warm start continued from a failed fit's state.
    from sklearn.exceptions import NotFittedError

    X, y = noisy_problem(n=120)
    y3 = np.arange(120) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Learner(max_iter=3, warm_start=True, random_state=0).fit(X, y)
        with pytest.raises(ValueError, match="coef_init has shape"):
            clf.fit(X, y3, coef_init=np.zeros((2, 5)))
        assert not hasattr(clf, "classes_") and not hasattr(clf, "_training")
        with pytest.raises(NotFittedError):
            clf.predict(X)
        with pytest.raises(ValueError, match="non-finite|overflow|diverged"):
            clf.fit(X * 1e150, y, coef_init=np.full((1, 5), 1e150))
        again = clf.fit(X, y)  # warm_start=True, but nothing to continue from
        fresh = Learner(max_iter=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.coef_, fresh.coef_)


def test_batch_tol_follows_the_loss_of_the_weights_each_step_makes():
    # Found in review: the first batch epoch scored the zero weights' criterion, 0,
    # which no later epoch could beat, so tol stopped every fit after 6 epochs.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 5))
    y = (X @ rng.normal(size=5) + 0.3 * rng.normal(size=500) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        free = Perceptron(mode="batch", max_iter=60).fit(X, y)
        stopped = Perceptron(mode="batch", tol=1e-3, max_iter=60).fit(X, y)
    assert free.loss_[0] > 0
    assert stopped.n_iter_ == expected_stop(free.loss_, 1e-3, 5) > 6


def test_an_averaged_fit_does_not_stop_at_an_epoch_without_mistakes():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [3.0, 2.0], [2.0, 3.0]])
    y = np.array([0, 0, 1, 1])
    ours = Perceptron(average=True, shuffle=False, max_iter=50, tol=None).fit(X, y)
    theirs = sgd_perceptron(True, max_iter=50).fit(X, y)
    assert ours.converged_ and ours.n_iter_ == 50 and ours.score(X, y) == 1.0
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    assert Perceptron(shuffle=False, max_iter=50).fit(X, y).n_iter_ < 50


def test_float32_rows_beyond_its_squared_range_get_the_float64_automatic_rate():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [3.0, 2.0], [2.0, 3.0]]) * 1e20
    y = [0, 0, 1, 1]
    single = Perceptron(eta0="auto").fit(X.astype(np.float32), y).schedule_.eta0
    double = Perceptron(eta0="auto").fit(X, y).schedule_.eta0
    assert single == pytest.approx(double, rel=1e-6) and single > 0


# ------------------------------------------------ defaults on inseparable data


def test_default_tol_stops_an_inseparable_fit_early_and_quietly():
    """scikit-learn's rule (tol=1e-3, five epochs) by default: an inseparable fit
    ends in a few epochs, not max_iter, with no warning (scikit-learn's warns
    only at max_iter: a grid search printed one a fit); converged_ says it.
    Reaching max_iter warns, with the best epoch's mistakes and where to get
    the verdict."""
    X, y = noisy_problem(n=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = Perceptron(random_state=0).fit(X, y)
        theirs = SklearnPerceptron(random_state=0).fit(X, y)
    assert clf.tol == 1e-3 and clf.n_iter_ < 100 and not clf.converged_
    assert clf.n_iter_ <= 3 * theirs.n_iter_
    with pytest.warns(ConvergenceWarning) as record:
        capped = Perceptron(max_iter=3, random_state=0).fit(X, y)
    best = int(np.min(capped.errors_))
    message = str(record[0].message)
    assert "did not converge in max_iter=3 epochs" in message
    assert f"made {best})" in message and "linear_separability" in message


def test_default_tol_keeps_the_easy_separable_case():
    X, y = iris_setosa(nudged=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        for seed in range(5):
            clf = Perceptron(random_state=seed).fit(
                StandardScaler().fit_transform(X), y
            )
            assert clf.converged_ and clf.errors_[-1] == 0


def test_a_separable_fit_stopped_by_tol_says_so_and_tol_none_finishes_it():
    """Separable data with a tiny margin stall the loss: the default fit stops
    (converged_ False), and tol=None runs to the epoch without mistakes Novikoff
    promises."""
    X, y = iris_setosa()
    stopped = Perceptron(random_state=0).fit(X, y)
    assert stopped.errors_.min() > 0 and stopped.n_iter_ < 1000
    assert not stopped.converged_
    finished = Perceptron(tol=None, max_iter=100_000, random_state=0).fit(X, y)
    assert finished.converged_ and finished.score(X, y) == 1.0


@pytest.mark.parametrize("Learner", [Perceptron, PocketPerceptron, Adaline])
def test_float32_x_gives_float32_weights_as_scikit_learn_s(Learner):
    X, y = noisy_problem(n=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for form in (X.astype(np.float32), sp.csr_matrix(X.astype(np.float32))):
            model = Learner(random_state=0).fit(form, y)
            assert model.coef_.dtype == model.intercept_.dtype == np.float32
        assert SklearnPerceptron().fit(X.astype(np.float32), y).coef_.dtype == np.float32
        assert Learner(random_state=0).fit(X, y).coef_.dtype == np.float64


@pytest.mark.parametrize("Learner", [Perceptron, PocketPerceptron, Adaline])
@pytest.mark.parametrize("weight", [np.nan, np.inf, 0.0, -1.0])
def test_class_weight_must_be_positive_and_finite(Learner, weight):
    """Found by a user: class_weight={0: nan} gave zero weights silently; the
    same sample weights are refused."""
    X, y = noisy_problem(n=60)
    with pytest.raises(ValueError, match=r"class_weight must be positive and finite"):
        Learner(class_weight={0: weight, 1: 1.0}).fit(X, y)


def test_lstsq_adaline_keeps_its_accuracy_far_from_the_origin():
    """Found by a user: two classes shifted by 1e8 scored 0.45-0.65 where
    RidgeClassifier scores as on the data at the origin; the least squares are
    now solved about the column means."""
    from sklearn.linear_model import RidgeClassifier

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(100, 3)), rng.normal(size=(100, 3)) + 3.0]
    y = np.repeat([0, 1], 100)
    at_origin = Adaline(solver="lstsq").fit(X, y)
    for offset in (1e8, -1e12):
        far = Adaline(solver="lstsq").fit(X + offset, y)
        ridge = RidgeClassifier(alpha=1e-12).fit(X + offset, y)
        assert far.score(X + offset, y) == at_origin.score(X, y) == ridge.score(
            X + offset, y)  # fmt: skip
        # X + offset itself rounds each value to a spacing of the offset.
        rtol = 1e-6 + 100 * np.spacing(abs(offset))
        np.testing.assert_allclose(far.coef_, at_origin.coef_, rtol=rtol)


def test_lstsq_adaline_does_not_fit_the_rounding_of_a_shifted_copy():
    """Found in review: x2 = x1 + 1e6 is exact nowhere in float64; centred, the
    rounding looked like a direction and the weights grew to 1e9."""
    from sklearn.linear_model import RidgeClassifier

    rng = np.random.default_rng(1)
    C, other = rng.normal(20, 5, 300), rng.normal(size=300)
    y = (C - 20 + other + rng.normal(size=300) > 0).astype(int)
    X = np.c_[C, C + 1e6, other]
    fitted = Adaline(solver="lstsq").fit(X, y)
    assert np.abs(fitted.coef_).max() < 1.0
    assert fitted.score(X, y) == RidgeClassifier().fit(X, y).score(X, y)
    pocket = PocketPerceptron(random_state=0).fit(X[:, :1].astype(np.float32), y)
    assert pocket.perceptron_coef_.dtype == pocket.coef_.dtype == np.float32


@pytest.mark.parametrize("name", ["Perceptron", "PocketPerceptron", "Adaline"])
def test_unfitted_schedule_names_itself(name):
    """``schedule_`` before fit: an AttributeError naming ``schedule_``, as
    ``coef_``'s does (it named a private attribute)."""
    import sklearn_linsep

    model = getattr(sklearn_linsep, name)()
    assert not hasattr(model, "schedule_")
    with pytest.raises(AttributeError, match="has no attribute 'schedule_'"):
        _ = model.schedule_


@pytest.mark.parametrize("name", ["Perceptron", "Adaline"])
def test_a_rate_callable_of_the_wrong_shape_is_said_so(name):
    """A callable returning three rates for one update count: said, not numpy's
    "cannot reshape array of size 123 into shape (1,41)"."""
    import sklearn_linsep

    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(20, 2) + [2, 0], rng.randn(20, 2) - [2, 0]]
    y = np.repeat([0, 1], 20)
    model = getattr(sklearn_linsep, name)(learning_rate=lambda t: np.ones(3))
    with pytest.raises(ValueError, match="one rate per update count"):
        model.fit(X, y)
