"""K classes jointly: ``linear_separability(multiclass="joint")`` and
``HardMarginSVM(multi_class="crammer_singer")`` (``_margin/_multiclass.py``,
``_kesler.py``).

References: the explicit Kesler LP (HiGHS on all n (K - 1) pairs, one call) for
the verdict, cvxpy (Clarabel at 1e-10, on the data centred and scaled, where it is
accurate) for the Crammer-Singer margin and its C -> oo limit, the two-class routes
for K = 2.
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from sklearn_linsep import (
    HardMarginSVM,
    JointSeparabilityResult,
    NotLinearlySeparableError,
    NotLinearlySeparableWarning,
    linear_separability,
)
from sklearn_linsep._kesler import kesler_matrix
from sklearn_linsep._testing import filed_twice
from sklearn_linsep.exceptions import NotLinearlySeparableError, SolverError

PINWHEEL_STICK = np.array([[1.0, -1.0], [1.0, 4.0]])


def pinwheel():
    """Three sticks turned by 120°: every pair of classes separates, no linear
    machine separates all three (SPEC §11)."""
    turns = [2 * np.pi * k / 3 for k in range(3)]
    X = np.vstack(
        [
            PINWHEEL_STICK
            @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T
            for a in turns
        ]
    )
    return X, np.repeat([0, 1, 2], 2)


def kesler_lp_separable(X, y):
    """The verdict of the explicit Kesler LP: all n (K - 1) pairs, HiGHS."""
    classes, codes = np.unique(y, return_inverse=True)
    K = len(classes)
    rows = np.repeat(np.arange(len(y)), K)
    others = np.tile(np.arange(K), len(y))
    keep = others != codes[rows]
    rows, others = rows[keep], others[keep]
    A = kesler_matrix(X[rows], codes[rows], others, K)
    result = linprog(
        np.zeros(A.shape[1]),
        A_ub=-A,
        b_ub=-np.ones(A.shape[0]),
        bounds=(None, None),
        method="highs",
    )
    assert result.status in (0, 2)
    return result.status == 0


def crammer_singer_cvxpy(X, y, soft=False):
    """W of the Crammer-Singer hard margin (or its C -> oo limit: the least total
    hinge by an LP, then the margin with the hinge at most that), by cvxpy on X
    centred and divided by its largest entry, mapped back."""
    centre = X.mean(axis=0)
    scale = np.abs(X - centre).max()
    Z = (X - centre) / scale
    classes, codes = np.unique(y, return_inverse=True)
    K, (n, p) = len(classes), Z.shape
    W, b, xi = cp.Variable((K, p)), cp.Variable(K), cp.Variable(n)
    slack = xi if soft else np.zeros(n)
    constraints = [
        (W[codes[i]] - W[k]) @ Z[i] + b[codes[i]] - b[k] >= 1 - slack[i]
        for i in range(n)
        for k in range(K)
        if k != codes[i]
    ] + [cp.sum(b) == 0]
    if soft:
        constraints.append(xi >= 0)
        least = cp.Problem(cp.Minimize(cp.sum(xi)), constraints)
        least.solve(solver="HIGHS")
        constraints.append(cp.sum(xi) <= least.value * (1 + 1e-10))
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(W)), constraints)
    problem.solve(
        solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10
    )
    # the budget leaves the C -> oo limit's QP almost no interior
    assert problem.status in ("optimal", "optimal_inaccurate" * soft), problem.status
    return W.value / scale


def total_hinge(svm, X, y):
    """Σ max(0, 1 - margin) of a fitted machine, each row's margin its own
    score less the largest other one."""
    scores = svm.decision_function(X)  # about center_ where the fit gives one
    codes = np.searchsorted(svm.classes_, y)
    own = scores[np.arange(len(y)), codes]
    scores[np.arange(len(y)), codes] = -np.inf
    return np.maximum(0.0, 1.0 - (own - scores.max(axis=1))).sum()


def jointly_inseparable_case(seed):
    """A random case with the labels of a linear machine, changed 3 at a time
    until no machine separates them."""
    rng = np.random.default_rng(200 + seed)
    X, y = random_case(rng, separable=True)
    n_classes = len(np.unique(y))
    while linear_separability(X, y, multiclass="joint").separable:
        flipped = rng.choice(len(y), 3, replace=False)
        y[flipped] = (y[flipped] + 1) % n_classes
    return X, y


def random_case(rng, separable, n_features=None):
    K = int(rng.integers(3, 7))
    p = n_features or int(rng.integers(2, 6))
    n = int(rng.integers(3 * K, 10 * K))
    while True:
        X = rng.normal(size=(n, p))
        if separable:  # the labels of a linear machine: jointly separable
            y = np.argmax(X @ rng.normal(size=(K, p)).T + rng.normal(size=K), axis=1)
        else:
            y = rng.integers(0, K, n)
        if np.unique(y).size == K:
            return X, y


@pytest.mark.parametrize("seed", range(24))
def test_the_verdict_is_the_explicit_kesler_lps_and_verifies(seed):
    rng = np.random.default_rng(seed)
    X, y = random_case(rng, separable=seed % 2 == 0)
    result = linear_separability(X, y, multiclass="joint")
    assert result.separable == kesler_lp_separable(X, y)
    assert result.verify(X, y)


@pytest.mark.parametrize("seed", range(8))
def test_the_machine_is_cvxpys_crammer_singer_margin(seed):
    X, y = random_case(np.random.default_rng(100 + seed), separable=True)
    result = linear_separability(X, y, multiclass="joint")
    reference = crammer_singer_cvxpy(X, y)
    assert result.separable
    np.testing.assert_allclose(
        result.coef, reference, rtol=0, atol=1e-6 * np.abs(reference).max()
    )
    differences = [
        np.linalg.norm(result.coef[j] - result.coef[k])
        for j in range(len(result.coef))
        for k in range(j)
    ]
    assert result.margin == pytest.approx(1 / max(differences), rel=1e-12)


def test_pairwise_separable_classes_need_not_separate_jointly():
    X, y = pinwheel()
    assert all(r.separable for r in linear_separability(X, y).values())
    joint = linear_separability(X, y, multiclass="joint")
    assert not joint.separable and joint.verify(X, y)
    assert not kesler_lp_separable(X, y)
    # the certificate's weights balance per class: rows of each of the 3 classes
    assert set(y[joint.certificate_indices]) == {0, 1, 2}


@pytest.mark.slow  # ten one-vs-rest margins of digits: 3 s
def test_digits_separate_jointly_but_not_one_against_the_rest():
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    joint = linear_separability(X, y, multiclass="joint")
    assert joint.separable and joint.verify(X, y)
    scores = X @ joint.coef.T + joint.intercept
    assert np.all(np.argmax(scores, axis=1) == y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        ovr = HardMarginSVM().fit(X, y)
    assert not np.all(ovr.separable_)


@pytest.mark.parametrize("loader", [load_iris, load_wine])
@pytest.mark.parametrize("standardise", [False, True])
def test_bundled_data_raw_and_standardised(loader, standardise):
    X, y = loader(return_X_y=True)
    if standardise:
        X = StandardScaler().fit_transform(X)
    result = linear_separability(X, y, multiclass="joint")
    assert result.separable == kesler_lp_separable(X, y)
    assert result.verify(X, y)
    assert result.separable == (loader is load_wine)  # iris: 1 against 2 overlap


def test_every_cv_fold_of_wine():
    X, y = load_wine(return_X_y=True)
    for train, _ in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        result = linear_separability(X[train], y[train], multiclass="joint")
        assert result.separable and result.verify(X[train], y[train])


def test_two_classes_give_the_two_class_result():
    X, y = load_iris(return_X_y=True)
    pair = y > 0
    joint = linear_separability(X[pair], y[pair], multiclass="joint")
    plain = linear_separability(X[pair], y[pair])
    assert type(joint) is type(plain) and not joint.separable
    np.testing.assert_array_equal(joint.certificate_indices, plain.certificate_indices)
    two = y < 2
    machine = HardMarginSVM(multi_class="crammer_singer").fit(X[two], y[two])
    binary = HardMarginSVM().fit(X[two], y[two])
    assert machine.coef_.shape == (1, 4)
    np.testing.assert_array_equal(machine.coef_, binary.coef_)


def test_a_tampered_certificate_does_not_verify():
    X, y = pinwheel()
    result = linear_separability(X, y, multiclass="joint")
    weights = result.certificate_weights.copy()
    weights[0] *= 1.001
    tampered = JointSeparabilityResult(
        separable=False,
        classes=result.classes,
        certificate_indices=result.certificate_indices,
        certificate_classes=result.certificate_classes,
        certificate_weights=weights / weights.sum(),
    )
    assert not tampered.verify(X, y)
    moved = X.copy()
    moved[result.certificate_indices[0]] += 1e-6
    assert not result.verify(moved, y)
    relabelled = y.copy()
    relabelled[result.certificate_indices[0]] = result.certificate_classes[0]
    assert not result.verify(X, relabelled)


def test_a_machine_that_misses_a_row_does_not_verify():
    X, y = load_wine(return_X_y=True)
    result = linear_separability(X, y, multiclass="joint")
    shrunk = JointSeparabilityResult(
        separable=True,
        classes=result.classes,
        coef=result.coef * (1 - 1e-6),
        intercept=result.intercept * (1 - 1e-6),
        margin=result.margin,
    )
    assert result.verify(X, y) and not shrunk.verify(X, y)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    scales=st.lists(
        st.sampled_from([1e-6, 1e-3, 1.0, 1e3, 1e6]), min_size=3, max_size=3
    ),
    offset=st.sampled_from([0.0, 1e3]),
)
def test_the_verdict_does_not_change_under_affine_maps_order_or_names(
    seed, scales, offset
):
    rng = np.random.default_rng(seed)
    X, y = random_case(rng, separable=bool(seed % 2), n_features=3)
    expected = linear_separability(X, y, multiclass="joint").separable
    mapped = X * np.array(scales) + offset
    result = linear_separability(mapped, y, multiclass="joint")
    assert result.separable == expected and result.verify(mapped, y)
    order = rng.permutation(len(y))
    shuffled = linear_separability(X[order], y[order], multiclass="joint")
    assert shuffled.separable == expected
    names = np.array(["c", "a", "f", "b", "e", "d"])[y]
    renamed = linear_separability(X, names, multiclass="joint")
    assert renamed.separable == expected and renamed.verify(X, names)


def test_features_on_scales_far_apart_keep_their_gap():
    """A gap in a feature of tiny units is a separation, whatever the others."""
    X, y = pinwheel()
    big = np.column_stack([X * 1e5, np.where(y == 0, 1e-5, 0.0)])
    # the tiny feature puts class 0 apart from the rest on its own
    assert not linear_separability(X, y, multiclass="joint").separable
    result = linear_separability(big, y, multiclass="joint")
    assert result.verify(big, y)
    assert result.separable == kesler_lp_separable(big / big.std(axis=0), y)


def near_copied_text(n, p, n_classes, seed, noise):
    """Documents of a few words (three of them their class's), an eighth of them
    again with every count changed by ``noise`` relative: their pairs depend on
    their copies' almost, and the maximal machine's face is degenerate."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rows = []
    for label in y:
        own = label * 7 + rng.integers(0, 7, 3)
        words = np.unique(np.r_[rng.integers(0, p, 10), own])
        counts = rng.random(words.size) + 0.5
        counts /= np.linalg.norm(counts)
        rows.append(sp.csr_matrix((counts, words, [0, words.size]), shape=(1, p)))
    X = sp.vstack(rows).tocsr()
    rng = np.random.default_rng(seed)
    copied = rng.choice(n, n // 8, replace=False)
    copies = X[copied].copy()
    copies.data *= 1 + noise * rng.normal(size=copies.data.size)
    return sp.vstack([X, copies]).tocsr(), np.r_[y, y[copied]]


def test_exchanges_that_cycle_on_near_copied_text_end_fewer_at_a_step(monkeypatch):
    """On near-copied documents the pairs' exchanges at once cycle (pairs in and out
    a step); at most half as many a step, then fewer, they end on the Gram route
    rather than in Clarabel (0.5 s here; 7.3 s on 338 documents), at cvxpy's
    machine."""
    from sklearn_linsep._margin._solvers import _dense_dual, _machine

    X, y = near_copied_text(120, 360, 4, seed=9, noise=1e-3)
    damped, budgets = _dense_dual._damped, []

    def recorded(*args):
        budgets.append(args[-1])
        return damped(*args)

    def no_clarabel(*args, **kwargs):
        raise AssertionError("the pairs' Gram route gave way")

    monkeypatch.setattr(_dense_dual, "_damped", recorded)
    monkeypatch.setattr(_machine, "kesler_margin_qp", no_clarabel)
    result = linear_separability(X, y, multiclass="joint")
    assert result.separable and result.verify(X, y)
    assert any(budget is not None for budget in budgets)
    used = np.unique(X.indices)  # cvxpy on the words the documents use
    reference = crammer_singer_cvxpy(X[:, used].toarray(), y)
    assert not np.any(np.delete(result.coef, used, axis=1))
    np.testing.assert_allclose(
        result.coef[:, used], reference, rtol=0, atol=1e-6 * np.abs(reference).max()
    )


def test_sparse_x_gives_the_dense_answer():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X[np.abs(X) < 0.5] = 0.0
    dense = linear_separability(X, y, multiclass="joint")
    sparse = linear_separability(sp.csr_matrix(X), y, multiclass="joint")
    assert sparse.separable == dense.separable
    assert sparse.verify(sp.csr_matrix(X), y)
    if dense.separable:
        np.testing.assert_allclose(sparse.coef, dense.coef, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize(
    "X, y, error, match",
    [
        ([[0.0], [np.nan], [1.0]], [0, 1, 2], ValueError, "NaN"),
        ([[0.0], [np.inf], [1.0]], [0, 1, 2], ValueError, "infinity"),
        ([[0.0], [1.0], [2.0]], [0, 0, 0], ValueError, "class"),
        (np.zeros((0, 2)), [], ValueError, "0 sample"),
        ([[0.0], [1.0]], [0, 1, 2], ValueError, "inconsistent"),
    ],
)
def test_bad_input_is_a_clear_error(X, y, error, match):
    with pytest.raises(error, match=match):
        linear_separability(X, y, multiclass="joint")
    with pytest.raises(error, match=match):
        HardMarginSVM(multi_class="crammer_singer").fit(X, y)


def test_an_unknown_multiclass_option_is_refused():
    with pytest.raises(ValueError, match="multiclass"):
        linear_separability([[0.0], [1.0], [2.0]], [0, 1, 2], multiclass="ovr")
    with pytest.raises(ValueError, match="multi_class"):
        HardMarginSVM(multi_class="joint").fit([[0.0], [1.0], [2.0]], [0, 1, 2])


# -- the estimator ----------------------------------------------------------


def test_the_machine_classifies_every_row_and_its_duals_give_its_weights():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert svm.separable_ and svm.hinge_violation_ == 0.0
    assert svm.coef_.shape == (3, 13) and svm.intercept_.shape == (3,)
    assert svm.score(X, y) == 1.0
    np.testing.assert_allclose(
        svm.dual_coef_ @ svm.support_vectors_, svm.coef_, atol=1e-9
    )
    np.testing.assert_array_equal(svm.n_support_, np.bincount(y[svm.support_]))
    reference = crammer_singer_cvxpy(X, y)
    np.testing.assert_allclose(
        svm.coef_, reference, atol=1e-6 * np.abs(reference).max()
    )


@pytest.mark.parametrize("seed", range(5))
def test_the_soft_limit_is_the_least_hinge_then_the_largest_margin(seed):
    X, y = jointly_inseparable_case(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert not svm.separable_
    reference = crammer_singer_cvxpy(X, y, soft=True)
    np.testing.assert_allclose(
        svm.coef_, reference, atol=1e-5 * np.abs(reference).max()
    )
    assert svm.hinge_violation_ == pytest.approx(total_hinge(svm, X, y), rel=1e-9)


def test_inseparable_classes_warn_or_raise_with_the_certificate():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(NotLinearlySeparableWarning):
        svm = HardMarginSVM(on_inseparable="warn", multi_class="crammer_singer").fit(X, y)
    assert not svm.separable_ and svm.certificate_.verify(X, y)
    with pytest.raises(NotLinearlySeparableError, match="jointly") as raised:
        HardMarginSVM(multi_class="crammer_singer", on_inseparable="raise").fit(X, y)
    assert raised.value.certificate.verify(X, y)
    refit = HardMarginSVM(multi_class="crammer_singer", on_inseparable="raise")
    with pytest.raises(NotLinearlySeparableError):
        refit.fit(X, y)
    assert not hasattr(refit, "classes_")  # a failed fit leaves nothing behind


def test_sample_weights_leave_out_zeros_and_weigh_the_hinge():
    X, y = load_iris(return_X_y=True)
    weights = np.ones(len(y))
    weights[::7] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        weighted = HardMarginSVM(multi_class="crammer_singer").fit(X, y, weights)
        dropped = HardMarginSVM(multi_class="crammer_singer").fit(
            X[weights > 0], y[weights > 0]
        )
        np.testing.assert_allclose(weighted.coef_, dropped.coef_, rtol=1e-7, atol=1e-9)
        twice = np.where(np.arange(len(y)) % 5 == 0, 2.0, 1.0)
        repeated = np.repeat(np.arange(len(y)), twice.astype(int))
        doubled = HardMarginSVM(multi_class="crammer_singer").fit(X, y, twice)
        copies = HardMarginSVM(multi_class="crammer_singer").fit(
            X[repeated], y[repeated]
        )
    assert doubled.hinge_violation_ == pytest.approx(copies.hinge_violation_, rel=1e-9)
    np.testing.assert_allclose(doubled.coef_, copies.coef_, rtol=1e-6, atol=1e-8)


# -- dask arrays, through the backend seam ---------------------------------


@pytest.mark.usefixtures("dask_sync")
@pytest.mark.parametrize("loader", [load_iris, load_wine])
def test_dask_blocks_give_the_in_memory_answer(loader):
    import dask.array as da

    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    dX, dy = da.from_array(X, chunks=(40, -1)), da.from_array(y, chunks=40)
    memory = linear_separability(X, y, multiclass="joint")
    blocks = linear_separability(dX, dy, multiclass="joint")
    assert blocks.separable == memory.separable
    assert blocks.verify(dX, dy) and blocks.verify(X, y) and memory.verify(dX, dy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        in_memory = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
        on_dask = HardMarginSVM(multi_class="crammer_singer").fit(dX, dy)
    np.testing.assert_allclose(on_dask.coef_, in_memory.coef_, rtol=1e-9, atol=1e-9)
    assert on_dask.hinge_violation_ == pytest.approx(in_memory.hinge_violation_)
    np.testing.assert_array_equal(on_dask.predict(dX).compute(), in_memory.predict(X))
    np.testing.assert_array_equal(on_dask.support_, in_memory.support_)


@pytest.mark.usefixtures("dask_sync")
def test_a_tampered_certificate_fails_on_dask_too():
    import dask.array as da

    X, y = pinwheel()
    result = linear_separability(X, y, multiclass="joint")
    moved = X.copy()
    moved[result.certificate_indices[0]] += 1e-6
    assert result.verify(da.from_array(X, chunks=(2, -1)), da.from_array(y, chunks=2))
    assert not result.verify(
        da.from_array(moved, chunks=(2, -1)), da.from_array(y, chunks=2)
    )


def test_warnings_point_at_the_callers_line():
    """Far from the origin the machine is also given about a centre, with a
    UserWarning: it names the user's line, not a line of the package's or of
    scikit-learn's wrappers."""
    X, y = load_wine(return_X_y=True)
    X = X + 1e9
    with pytest.warns(UserWarning, match="so far from the origin") as caught:
        result = linear_separability(X, y, multiclass="joint")
    assert {w.filename for w in caught} == {__file__}
    assert result.center is not None and result.verify(X, y)
    with pytest.warns(UserWarning, match="so far from the origin") as caught:
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert {w.filename for w in caught} == {__file__}
    assert svm.score(X, y) == 1.0


def test_the_soft_limit_does_not_depend_on_the_scale_of_the_weights():
    """Weights 1e-12 or 1e9 times larger: the same machine, the hinge in the
    weights' units, and coef_ = dual_coef_ @ support_vectors_ (the face's
    equalities keep signed multipliers)."""
    X, y = load_iris(return_X_y=True)
    fits = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        for scale in (1.0, 1e-12, 1e9):
            svm = HardMarginSVM(multi_class="crammer_singer")
            fits.append(svm.fit(X, y, np.full(len(y), scale)))
    for scale, svm in zip((1.0, 1e-12, 1e9), fits):
        np.testing.assert_allclose(svm.coef_, fits[0].coef_, rtol=1e-7, atol=1e-9)
        assert svm.hinge_violation_ == pytest.approx(5.6 * scale, rel=1e-9)
        np.testing.assert_allclose(
            svm.dual_coef_ @ svm.support_vectors_, svm.coef_, atol=1e-7
        )


def test_a_working_set_clarabel_stalls_on_is_decided_by_the_certificate():
    """Twelve classes on a line, plainly inseparable (class 11 on both sides of
    class 10): Clarabel stalled on a working set of 133 pairs, whose hulls touch;
    the certificate's LP decides it."""
    X = np.array(
        [0.33962000824864264, 0.42377135285334727, 0.37122741773625884,
         0.3827571602707609, 0.08347535610700986, -2.3982328653977714,
         1.816475940881144, 0.9166547888245957, 0.37094683509441023,
         0.6131890778590062, -0.1521929584082903, -1.934959636609707,
         -0.23993667125803605]
    )[:, None]  # fmt: skip
    y = np.array([0, 1, 2, 3, 5, 11, 4, 6, 7, 8, 9, 10, 11])
    result = linear_separability(X, y, multiclass="joint")
    assert not result.separable and result.verify(X, y)
    assert not kesler_lp_separable(X, y)


def test_the_soft_limit_of_a_constant_machine_is_exactly_zero():
    """Every class at every point: the least hinge is attained only by W = 0,
    left exactly 0 (margin nan, with the warning), as for two classes."""
    X = np.array([[0.0], [1.0], [2.0]] * 3)
    y = np.array([0, 1, 2, 1, 2, 0, 2, 0, 1])
    with pytest.warns(NotLinearlySeparableWarning, match="w = 0"):
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert np.all(svm.coef_ == 0) and np.isnan(svm.margin_)


def test_the_least_hinge_lp_of_thousands_of_rows_is_quick():
    """2 000 rows, K = 6, 100 labels changed: the primal least-hinge LP stalled
    HiGHS for its 300 s limit; its dual takes a fraction of a second."""
    rng = np.random.default_rng(0)
    W, b = rng.normal(size=(6, 10)), rng.normal(size=6)
    X = rng.normal(size=(2000, 10))
    y = np.argmax(X @ W.T + b, axis=1)
    y[:100] = rng.integers(0, 6, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert svm.hinge_violation_ == pytest.approx(total_hinge(svm, X, y), rel=1e-9)


def test_verify_refuses_rows_and_labels_that_do_not_match():
    X, y = load_iris(return_X_y=True)
    result = linear_separability(X, y, multiclass="joint")
    with pytest.raises(ValueError, match="verify needs X of shape"):
        result.verify(X[:3], y)
    with pytest.raises(ValueError, match=r"y has none of \[2\]"):
        result.verify(X[:60], y[:60])  # a class the certificate needs is absent
    assert not result.verify(X[::-1], y[::-1])  # its rows are not those rows


def text_like(n, p, n_classes, seed=0):
    """Sparse rows of 5-15 words each, L2-normalised, a few words a class."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    rows, columns, values = [], [], []
    for i in range(n):
        topic = y[i] * 7 + rng.integers(0, 7, 3)
        words = np.unique(np.r_[rng.integers(0, p, 10), topic])
        weights = rng.random(words.size) + 0.5
        rows.append(np.full(words.size, i))
        columns.append(words)
        values.append(weights / np.linalg.norm(weights))
    X = sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
        shape=(n, p),
    )
    return X, y


def own_and_common_words(n, p, n_classes, words=20, seed=1):
    """Bag-of-words rows as issue 56 draws them: half of each row's words from a
    vocabulary slice of its class's own, half from common Zipf-distributed words;
    log-scaled counts, unit rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    common, own = p // 2, (p - p // 2) // n_classes
    zipf = 1.0 / np.arange(1, common + 1)
    columns = np.concatenate([
        np.r_[rng.integers(common + k * own, common + (k + 1) * own, words // 2),
              rng.choice(common, words // 2, p=zipf / zipf.sum())]
        for k in y
    ])  # fmt: skip
    X = sp.csr_matrix((np.ones(columns.size), (np.repeat(np.arange(n), words),
                                               columns)), shape=(n, p))  # fmt: skip
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    return sp.diags(1 / np.sqrt(X.multiply(X).sum(axis=1).A1)) @ X, y


def assert_crammer_singer_kkt(svm, X, y):
    """The KKT conditions of the Crammer–Singer hard margin, which make its W
    optimal: every pair's margin at least 1, W the duals' combination of the
    support rows, each row's own-class weight positive and the others' negative,
    each class's weights summing to 0 (the intercepts'), and a pair of nonzero
    weight at margin 1."""
    _, codes = np.unique(y, return_inverse=True)
    dual, rows = svm.dual_coef_, svm.support_
    W, b = svm.coef_, svm.intercept_
    scores = np.asarray(X @ W.T) + b
    own = codes[rows]
    scale = np.abs(dual).max()
    combination = np.asarray(svm.support_vectors_.T @ dual.T).T
    np.testing.assert_allclose(combination, W, atol=1e-9 * np.abs(W).max())
    np.testing.assert_allclose(dual.sum(axis=1), 0.0, atol=1e-9 * scale)
    assert np.all(dual[own, np.arange(rows.size)] >= 0)
    others = np.ones_like(dual, dtype=bool)
    others[own, np.arange(rows.size)] = False
    assert np.all(dual[others] <= 1e-12 * scale)
    margins = scores[rows, own][None, :] - scores[rows].T  # K x support
    assert np.all(margins[others] >= 1 - 1e-9)
    held = others & (dual < -1e-9 * scale)
    np.testing.assert_allclose(margins[held], 1.0, atol=1e-9)
    every = scores[np.arange(len(y)), codes][:, None] - scores
    every[np.arange(len(y)), codes] = np.inf
    assert every.min() >= 1 - 1e-9


def test_a_tiny_row_of_text_is_finished_on_the_gram_matrix(monkeypatch):
    """One document of norm 1e-8: its own words' spreads are 1e-8 of the others',
    and the maximal margin in X's units went to the pairs' primal active set and
    Clarabel (7.7 s, a hang at 300 x 2 000). The dual on the Gram matrix answers,
    and its answer meets the KKT conditions in X's units."""
    from sklearn_linsep._margin._solvers import _machine

    def refuse(*args, **kwargs):
        raise AssertionError("the primal QP was asked")

    monkeypatch.setattr(_machine, "kesler_margin_qp", refuse)
    X, y = own_and_common_words(200, 1000, 4)
    X = sp.csr_matrix(sp.diags(np.where(np.arange(200) == 3, 1e-8, 1.0)) @ X)
    result = linear_separability(X, y, multiclass="joint")
    assert result.separable and result.proven and result.verify(X, y)
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert svm.margin_ == pytest.approx(result.margin, rel=1e-12)
    assert 3 in svm.support_
    assert_crammer_singer_kkt(svm, X, y)


def test_text_kept_dense_reaches_the_solvers_as_sparse_rows(monkeypatch):
    """Text as a dense array (3% of entries nonzero), one document under two
    labels: the C -> oo limit's LP and face QP took its rows centred, every zero
    an entry (Clarabel: 3.3 M entries, 36 s at 300 x 2 000). Uncentred, they
    are the CSR fit's rows: the same entries, the same machine."""
    from sklearn_linsep._margin._solvers import _clarabel

    entries, solve = [], _clarabel._solve

    def counted(quadratic, constraints, *args, **kwargs):
        entries.append(constraints.nnz)
        return solve(quadratic, constraints, *args, **kwargs)

    monkeypatch.setattr(_clarabel, "_solve", counted)
    X, y = own_and_common_words(150, 1500, 4)
    X = sp.vstack([X, X[5]]).tocsr()
    y = np.append(y, (y[5] + 1) % 4)
    fits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        for kind, rows in (("sparse", X), ("dense", X.toarray())):
            entries.clear()
            fits[kind] = HardMarginSVM(multi_class="crammer_singer").fit(rows, y)
            fits[kind].entries = list(entries)
    sparse, dense = fits["sparse"], fits["dense"]
    assert dense.entries and dense.entries == sparse.entries
    assert dense.hinge_violation_ == pytest.approx(2.0, rel=1e-12)
    assert sparse.hinge_violation_ == pytest.approx(2.0, rel=1e-12)
    np.testing.assert_allclose(dense.coef_, sparse.coef_,
                               atol=1e-9 * np.abs(sparse.coef_).max())  # fmt: skip


def counting_pair_solves(monkeypatch):
    """Count the calls of the pairs' dual on the Gram matrix."""
    from sklearn_linsep._margin._solvers import _machine as _multiclass

    calls = []
    solve = _multiclass.pair_active_set

    def counted(*args, **kwargs):
        calls.append(len(args[1]))
        return solve(*args, **kwargs)

    monkeypatch.setattr(_multiclass, "pair_active_set", counted)
    return calls


@pytest.mark.parametrize("seed", range(4))
def test_wide_machines_come_from_the_rows_gram_and_are_cvxpys(seed, monkeypatch):
    """p + 1 >= rows: every pair may hold at margin 1, and the dual on the
    rows' Gram matrix (the pairs' Gram C ∘ K, never formed whole) answers."""
    rng = np.random.default_rng(300 + seed)
    K = 3 + seed % 3
    n = 6 * K
    X = rng.normal(size=(n, n + 2 * seed))
    y = np.arange(n) % K
    calls = counting_pair_solves(monkeypatch)
    result = linear_separability(X, y, multiclass="joint")
    reference = crammer_singer_cvxpy(X, y)
    assert calls and result.separable and result.verify(X, y)
    np.testing.assert_allclose(
        result.coef, reference, rtol=0, atol=1e-6 * np.abs(reference).max()
    )
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    np.testing.assert_allclose(svm.coef_, result.coef, rtol=1e-9, atol=1e-12)


def test_a_start_that_cycles_is_retried_from_every_pair(monkeypatch):
    """Exchanges from the last support can cycle where every pair's start settles
    (seen on a TF-IDF of 4 packages: 8 000 held pairs swinging by 300 for 40
    steps). A start short of every pair that fails is retried from all of them,
    and the machine is the one found without the failure."""
    from sklearn_linsep._margin._solvers import _machine

    rng = np.random.default_rng(301)
    X = rng.normal(size=(24, 30))
    y = np.arange(24) % 4
    expected = linear_separability(X, y, multiclass="joint")
    solve, starts = _machine.pair_active_set, []

    def cycling(*args, **kwargs):
        every = len(args[5]) == len(args[1])
        starts.append(every)
        return solve(*args, **kwargs) if every else None

    monkeypatch.setattr(_machine, "pair_active_set", cycling)
    result = linear_separability(X, y, multiclass="joint")
    assert False in starts and starts[starts.index(False) + 1] is True
    assert result.separable and result.verify(X, y)
    np.testing.assert_allclose(result.coef, expected.coef, rtol=1e-9, atol=1e-12)


def test_tall_machines_keep_the_primal_route(monkeypatch):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 3))
    y = np.argmax(X @ rng.normal(size=(4, 3)).T, axis=1)
    calls = counting_pair_solves(monkeypatch)
    assert linear_separability(X, y, multiclass="joint").verify(X, y)
    assert not calls


def seeds_of_the_pairs(monkeypatch):
    """Record the first working sets of in-memory pairs (``KeslerRows.seed``) and
    the pairs they hold first."""
    from sklearn_linsep._rows._memory_pairs import KeslerRows

    seeds = []
    seed = KeslerRows.seed

    def recorded(self, size):
        seeds.append((seed(self, size), self.held_guess))
        return seeds[-1][0]

    monkeypatch.setattr(KeslerRows, "seed", recorded)
    return seeds


def test_wide_machines_start_from_a_guessed_face(monkeypatch):
    """p + 1 < rows <= K (p + 1): the first working set is the pairs that
    coordinate descent on their dual puts near margin 1 (``_kesler.face_guess``),
    on the active rows only; it holds most of the support pairs (those at margin 1
    under the answer), the pairs held first are mostly support pairs, and the
    answer is the nearest-mean seed's (the route before it)."""
    from sklearn_linsep._margin._solvers import _machine
    from sklearn_linsep._rows._memory_pairs import KeslerRows

    rng = np.random.default_rng(0)
    n, p, K = 120, 20, 6
    X = rng.normal(size=(n, p))
    y = np.argmax(X @ rng.normal(size=(K, p)).T, axis=1)
    weight = np.ones(n)
    weight[::7] = 0.0
    seeds = seeds_of_the_pairs(monkeypatch)
    starts, solve = [], _machine.pair_active_set

    def started(*args, **kwargs):
        starts.append((len(args[1]), len(args[5])))  # pairs, held first
        return solve(*args, **kwargs)

    monkeypatch.setattr(_machine, "pair_active_set", started)
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y, sample_weight=weight)
    guessed, held = seeds[0]
    assert starts[0] == (guessed.size, held.size)
    monkeypatch.setattr(KeslerRows, "seed", KeslerRows.nearest_seed)
    before = HardMarginSVM(multi_class="crammer_singer").fit(X, y, weight)
    np.testing.assert_allclose(svm.coef_, before.coef_, rtol=0,
                               atol=1e-9 * np.abs(before.coef_).max())  # fmt: skip
    assert svm.margin_ == pytest.approx(before.margin_, rel=1e-9)
    scores = svm.decision_function(X)
    margins = scores[np.arange(n), y][:, None] - scores
    margins[np.arange(n), y] = np.inf
    margins[weight == 0] = np.inf
    support = np.flatnonzero(margins.ravel() < 1 + 1e-6)  # ids i K + k
    assert not np.isin(guessed // K, np.flatnonzero(weight == 0)).any()
    assert guessed.size <= K * (p + 1) and np.isin(held, guessed).all()
    assert np.isin(support, guessed).mean() > 0.9
    assert np.isin(held, support).mean() > 0.7  # held first: most at margin 1


def test_a_guessed_face_of_wide_classes_is_settled_by_one_factorisation(monkeypatch):
    """600 x 60, K = 10, class means 0.6 apart (rows <= K (p + 1)): the pairs
    coordinate descent leaves at a positive weight are held first and one
    factorisation settles the machine (from a loose LinearSVC's guess with the
    anchors held, 40 factorisations); the answer is the nearest-mean seed's."""
    from sklearn_linsep._margin._solvers import _dense_dual
    from sklearn_linsep._rows._memory_pairs import KeslerRows

    rng = np.random.default_rng(0)
    n, p, K = 600, 60, 10
    means = rng.choice([-0.3, 0.3], size=(K, p))
    y = rng.integers(K, size=n)
    X = means[y] + rng.normal(size=(n, p))
    orders, factor = [], _dense_dual._held_factor

    def counted(block, *args, **kwargs):
        orders.append(len(block))
        return factor(block, *args, **kwargs)

    monkeypatch.setattr(_dense_dual, "_held_factor", counted)
    result = linear_separability(X, y, multiclass="joint")
    assert result.separable and result.verify(X, y)
    assert len(orders) == 1
    monkeypatch.setattr(KeslerRows, "seed", KeslerRows.nearest_seed)
    before = linear_separability(X, y, multiclass="joint")
    assert result.margin == pytest.approx(before.margin, rel=1e-9)
    np.testing.assert_allclose(result.coef, before.coef, rtol=0,
                               atol=1e-9 * np.abs(before.coef).max())  # fmt: skip


def test_the_face_is_guessed_on_rows_of_three_classes_or_more():
    """The guess needs K >= 3 classes all present, room under its limit and a
    machine with every row on its side (wide rows, p + 1 >= n: the machine's wrong
    side is the passes' looseness); dense or sparse rows are guessed, tall ones
    (``FACE_ROWS`` K (p + 1) < n) and wide ones with a row under two labels keep
    the nearest-mean seed."""
    from sklearn_linsep._kesler import face_guess
    from sklearn_linsep._rows._memory_pairs import KeslerRows

    rng = np.random.default_rng(1)
    codes = np.arange(30) % 3
    Z = np.eye(3, 4)[codes] + 0.3 * rng.normal(size=(30, 4))  # classes apart
    shuffled = rng.permutation(codes)
    for labels, K, limit in (
        (codes % 2, 2, 50),  # two classes: the two-class problem, not pairs
        (codes, 4, 50),  # a class without rows
        (codes, 3, 0),  # no room
        (shuffled, 3, 50),  # rows on the wrong side of the fit
    ):
        assert all(ids.size == 0 for ids in face_guess(Z, labels, K, limit))
    assert face_guess(Z, shuffled, 3, 50, wide=True)[0].size

    def refused(*args, **kwargs):
        raise ValueError("int64 sparse indices: liblinear takes int32")

    with pytest.MonkeyPatch.context() as patch:  # a fit that fails guesses nothing
        patch.setattr("sklearn.svm.LinearSVC.fit", refused)
        assert all(ids.size == 0 for ids in face_guess(Z, codes, 3, 50, wide=True))
        assert face_guess(Z, codes, 3, 50)[0].size  # the passes need no LinearSVC

    near, held = face_guess(Z, codes, 3, 7)
    assert near.size == 7 and np.all(near % 3 != codes[near // 3])
    assert np.isin(held, near).all()
    codes = codes[:24]
    X = 3 * np.eye(3, 8)[codes] + rng.normal(size=(24, 8))  # 9 < 24 <= K (p + 1)
    wide = 3 * np.eye(3, 30)[codes] + rng.normal(size=(24, 30))  # p + 1 >= 24
    for rows in (KeslerRows(X, codes, 3), KeslerRows(sp.csr_matrix(X), codes, 3),
                 KeslerRows(sp.csr_matrix(wide), codes, 3)):  # fmt: skip
        assert not np.array_equal(rows.seed(5), rows.nearest_seed(5))
    twice = np.vstack([wide, wide[:1]]), np.r_[codes, (codes[0] + 1) % 3]
    for rows in (KeslerRows(X[:, :2], codes, 3),  # tall: 2 K (p + 1) = 18 < 24
                 KeslerRows(*twice, 3)):  # a row under two labels: inseparable
        np.testing.assert_array_equal(rows.seed(5), rows.nearest_seed(5))


def test_sparse_text_of_several_classes_is_solved_in_the_span_of_its_rows():
    """K > 2 classes of sparse rows: the dense answer, with no dense array of
    the rows' width times their number (X densified would be 9.6 MB)."""
    import tracemalloc

    X, y = text_like(150, 8000, 3)
    dense = linear_separability(X.toarray(), y, multiclass="joint")
    tracemalloc.start()
    result = linear_separability(X, y, multiclass="joint")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.separable and dense.separable and result.verify(X, y)
    assert result.margin == pytest.approx(dense.margin, rel=1e-9)
    np.testing.assert_allclose(result.coef, dense.coef, rtol=0,
                               atol=1e-8 * np.abs(dense.coef).max())  # fmt: skip
    assert peak < 0.5 * X.shape[0] * X.shape[1] * 8, peak


def test_the_gram_of_sparse_rows_is_read_from_the_rows():
    """The K-class routes' Gram matrix of sparse rows (``Z = (X - centre) /
    scale``), never held n x n in float64: its products, blocks and float32 copy
    are numpy's on the dense ``Z``, grown by new rows the same; a fit of text
    whose rows all join peaks well below two float64 n x n arrays (the float32
    rows' inverse is half of one)."""
    import tracemalloc
    from types import SimpleNamespace

    from sklearn_linsep._kesler import SparseGram

    X, y = text_like(120, 900, 4, seed=3)
    rng = np.random.default_rng(0)
    frame = SimpleNamespace(
        centre=rng.normal(size=900), scale=rng.uniform(1, 2, 900), n_features=900,
        stored_rows=lambda rows: X[rows],
    )
    Z = (X.toarray() - frame.centre) / frame.scale
    gram = SparseGram.of(frame, np.arange(50, 120), SparseGram.of(
        frame, np.arange(50), None))  # fmt: skip
    Z = np.vstack([Z[:50], Z[50:]])
    A = rng.normal(size=(7, 120))
    np.testing.assert_allclose(A @ gram, A @ (Z @ Z.T), rtol=1e-12, atol=1e-9)
    rows, columns = np.array([3, 77, 5]), np.array([119, 0, 64, 64])
    np.testing.assert_allclose(gram[np.ix_(rows, columns)], Z[rows] @ Z[columns].T,
                               rtol=1e-12, atol=1e-9)  # fmt: skip
    single = gram.astype(np.float32)
    assert single.dtype == np.float32 and len(gram) == 120
    np.testing.assert_allclose(single, Z @ Z.T, rtol=1e-6, atol=1e-3)
    np.testing.assert_allclose(gram.combination(A), A @ Z, rtol=1e-12, atol=1e-9)
    X, y = own_and_common_words(1000, 5000, 4)
    linear_separability(X[:100], y[:100], multiclass="joint")  # imports, caches
    tracemalloc.start()
    result = linear_separability(X, y, multiclass="joint")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.separable and result.verify(X, y)
    # Held as float64, the rows' Gram matrix was 1.9 of 8 n² at the peak.
    assert peak < 1.5 * 8 * X.shape[0] ** 2, peak / (8 * X.shape[0] ** 2)


def test_a_block_of_pairs_of_sparse_rows_is_made_in_its_own_memory():
    """A held block of pairs (a row once per pair, K - 1 times side by side) is
    made from each distinct product once, with no distinct rows x columns array
    beside it (issue 56's TF-IDF: 288 MB beside a block of 634)."""
    import tracemalloc
    from types import SimpleNamespace

    from sklearn_linsep._kesler import SparseGram

    X, _ = text_like(1000, 4000, 4, seed=4)
    frame = SimpleNamespace(
        centre=np.zeros(4000), scale=np.ones(4000), n_features=4000,
        stored_rows=lambda rows: X[rows],
    )
    gram = SparseGram.of(frame, np.arange(1000), None)
    keys = np.sort(np.r_[np.arange(1000), np.arange(0, 1000, 2)])  # 1 500 pairs
    tracemalloc.start()
    block = gram[np.ix_(keys, keys)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    dense = X.toarray()
    np.testing.assert_allclose(block, dense[keys] @ dense[keys].T, rtol=1e-12,
                               atol=1e-12)  # fmt: skip
    assert peak < 1.3 * block.nbytes, peak / block.nbytes


def test_wide_rows_under_two_labels_are_decided_by_the_certificates_lp(monkeypatch):
    """Where the rows may all be support vectors, only dependent rows (a
    document under two labels) leave no machine: the certificate's LP decides
    the working set, never Clarabel's QP."""
    from sklearn_linsep._margin import _multiclass

    def refused(*args, **kwargs):
        raise AssertionError("Clarabel's QP was called")

    monkeypatch.setattr(_multiclass, "kesler_margin_qp", refused)
    X, y = text_like(60, 400, 3, seed=4)
    X = sp.vstack([X, X[:2]]).tocsr()
    y = np.r_[y, (y[:2] + 1) % 3]
    result = linear_separability(X, y, multiclass="joint")
    assert not result.separable and result.verify(X, y)
    assert set(result.certificate_indices) <= {0, 1, 60, 61}


def test_a_pair_route_is_one_registration(monkeypatch):
    """The pairs' subproblem is solved by the registry of routes, as the rows'
    is: a route of kind "pairs" registered first is asked first; one that gives
    way (None) passes to the usual routes, and the answer is theirs."""
    from sklearn_linsep._margin import _solvers
    from sklearn_linsep._margin._solvers import Route, register

    names = [route.name for route in _solvers.ROUTES if route.kind == "pairs"]
    assert names == ["pairs on the Gram", "certificate LP of wide pairs",
                     "pairs' active set and Clarabel"]  # fmt: skip
    X, y = load_iris(return_X_y=True)
    before = linear_separability(X, y, multiclass="joint")
    monkeypatch.setattr(_solvers, "ROUTES", list(_solvers.ROUTES))
    asked = []

    def gives_way(subproblem, ids, held):
        asked.append(len(ids))

    register(Route("gives way", lambda sub, ids: True, gives_way, 0, kind="pairs"))
    after = linear_separability(X, y, multiclass="joint")
    assert asked and after.separable == before.separable
    assert after.certificate_indices.tolist() == before.certificate_indices.tolist()


# -- the soft limit where the interior point cannot keep the digits ------------


def least_joint_hinge(X, y):
    """The least total hinge of the Crammer-Singer machines (HiGHS on all pairs,
    each feature centred and divided by its largest entry: the least total
    hinge is the same in every affine frame of X)."""
    classes, codes = np.unique(y, return_inverse=True)
    K, n = len(classes), X.shape[0]
    Z = X - X.mean(axis=0)
    Z = Z / np.where(np.abs(Z).max(axis=0) > 0, np.abs(Z).max(axis=0), 1.0)
    rows = np.repeat(np.arange(n), K)
    others = np.tile(np.arange(K), n)
    keep = others != codes[rows]
    rows, others = rows[keep], others[keep]
    A = kesler_matrix(Z[rows], codes[rows], others, K).toarray()
    slack = np.zeros((rows.size, n))
    slack[np.arange(rows.size), rows] = 1.0
    result = linprog(
        np.r_[np.zeros(A.shape[1]), np.ones(n)],
        A_ub=-np.hstack([A, slack]),
        b_ub=-np.ones(rows.size),
        bounds=[(None, None)] * A.shape[1] + [(0, None)] * n,
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10,
                 "dual_feasibility_tolerance": 1e-10},
    )
    assert result.status == 0
    return result.fun


def assert_a_machine_of_its_support(svm):
    """coef_ = dual_coef_ @ support_vectors_, feature by feature, to the
    rounding of the terms (features on scales far apart)."""
    terms = np.abs(svm.dual_coef_) @ np.abs(svm.support_vectors_)
    gap = np.abs(svm.dual_coef_ @ svm.support_vectors_ - svm.coef_)
    assert np.all(gap <= 1e-7 * terms + 1e-300)


@pytest.mark.parametrize("seed", range(5))
def test_the_face_by_the_active_set_is_cvxpys_soft_limit(seed, monkeypatch):
    """The primal active set over the least-hinge face from the LP's machine
    (where Clarabel fails, or features' scales lie far apart), checked where
    cvxpy is accurate: Clarabel made to fail."""
    from sklearn_linsep._margin import _multiclass

    def stalls(*args, **kwargs):
        raise _multiclass.SolverError("stalled")

    X, y = jointly_inseparable_case(seed)
    soft_limit = _multiclass._soft_limit

    def without_clarabel(*args):
        monkeypatch.setattr(_multiclass, "kesler_margin_qp", stalls)
        return soft_limit(*args)

    monkeypatch.setattr(_multiclass, "_soft_limit", without_clarabel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    reference = crammer_singer_cvxpy(X, y, soft=True)
    np.testing.assert_allclose(
        svm.coef_, reference, atol=1e-5 * np.abs(reference).max()
    )
    assert total_hinge(svm, X, y) == pytest.approx(least_joint_hinge(X, y), rel=1e-9)
    assert_a_machine_of_its_support(svm)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_row_under_two_labels_is_the_joint_verdicts_certificate(sparse, seed):
    """The joint verdict's certificate is the row and its copy: its two pairs,
    each the other's reverse, weighed equally (found before any round)."""
    X, y = filed_twice(200, 50, 4, sparse, seed)
    result = linear_separability(X, y, multiclass="joint")
    assert not result.separable and result.verify(X, y)
    i, j = result.certificate_indices
    dense = X.toarray() if sparse else X
    np.testing.assert_array_equal(dense[i], dense[j])
    assert y[i] != y[j]
    assert list(result.certificate_classes) == [y[j], y[i]]
    np.testing.assert_array_equal(result.certificate_weights, [0.5, 0.5])
    lost = y.copy()  # the copy given its row's label: the loop's own certificate
    lost[j] = y[i]
    assert linear_separability(X, lost, multiclass="joint").verify(X, lost)


def test_the_soft_limit_of_rows_under_two_labels_is_cvxpys_in_few_lps(monkeypatch):
    """Crammer–Singer's C -> oo limit where rows are filed twice: cvxpy's, its LP
    rounds ending once half of all pairs are in (29 LPs on the dense set before)."""
    from sklearn_linsep._margin import _multiclass

    sizes, least_hinge = [], _multiclass.kesler_hinge_lp
    monkeypatch.setattr(
        _multiclass, "kesler_hinge_lp",
        lambda *args: sizes.append(args[0].shape[0]) or least_hinge(*args),
    )  # fmt: skip
    X, y = filed_twice(120, 30, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotLinearlySeparableWarning)
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert not svm.separable_ and svm.certificate_.verify(X, y)
    assert len(sizes) <= 10 and max(sizes) <= 3 * len(y)
    reference = crammer_singer_cvxpy(X, y, soft=True)
    np.testing.assert_allclose(
        svm.coef_, reference, atol=1e-5 * np.abs(reference).max()
    )
    assert svm.hinge_violation_ == pytest.approx(total_hinge(svm, X, y), rel=1e-9)


@pytest.mark.parametrize("seed", [4, 6, 201, 409, 493, 785])
def test_the_soft_limit_on_scales_far_apart_is_an_answer(seed):
    """Near-touching K = 3 cases of the corpus with features scaled by 2^±20
    and offsets up to 2^30 spreads, jointly inseparable: Clarabel lost their
    small features' digits (the machine then missed the least total hinge, or
    the face came out empty), and the face's active set cycled where pairs
    depend on each other (409: one feature). Each is now a fit whose total
    hinge is HiGHS's least and whose weights are its support's."""
    from sklearn_linsep._testing import near_touching_case

    X, y, n_classes = near_touching_case(seed)
    assert n_classes == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert not svm.separable_
    least = least_joint_hinge(X, y)
    assert svm.hinge_violation_ == pytest.approx(least, rel=1e-9)
    # about its centre: X is up to 2^30 spreads from the origin
    assert total_hinge(svm, X, y) == pytest.approx(least, rel=1e-9)
    assert_a_machine_of_its_support(svm)
    # the least-norm machine has no part common to every class (no margin sees
    # one): a QR's rounding left one as large as the largest weight
    column = np.abs(svm.coef_).max(axis=0)
    assert np.all(np.abs(svm.coef_.sum(axis=0)) <= 1e-6 * column)


def test_the_pairs_matrix_of_sparse_rows_is_the_dense_ones():
    rng = np.random.default_rng(3)
    Z = sp.random(40, 30, density=0.1, random_state=3, format="csr")
    own = rng.integers(0, 4, 40)
    others = (own + rng.integers(1, 4, 40)) % 4
    sparse, dense = kesler_matrix(Z, own, others, 4), kesler_matrix(Z.toarray(), own,
                                                                    others, 4)  # fmt: skip
    expected = np.zeros((40, 4 * 31))
    augmented = np.c_[Z.toarray(), np.ones(40)]
    for j in range(40):
        expected[j, own[j] * 31 : own[j] * 31 + 31] += augmented[j]
        expected[j, others[j] * 31 : others[j] * 31 + 31] -= augmented[j]
    np.testing.assert_array_equal(sparse.toarray(), expected)
    np.testing.assert_array_equal(dense.toarray(), expected)
    assert sparse.nnz == 2 * (Z.nnz + 40)  # sparse rows stay sparse


def test_the_pairs_held_factor_is_the_one_large_array():
    """The held block ``C ∘ (K + 1 1ᵀ)`` is formed in place and factored in
    place: a fit of k held pairs holds one k x k array, not three, also where
    dependent pairs (the same pair twice) are dropped and it is factored again."""
    import tracemalloc

    from sklearn_linsep._kesler import class_columns
    from sklearn_linsep._margin._solvers._dense_dual import pair_system

    rng = np.random.default_rng(5)
    rows = rng.normal(size=(700, 900))
    gram = rows @ rows.T
    k, K = 2000, 4
    position = rng.integers(0, 700, k)
    own = rng.integers(0, K, k)
    others = (own + rng.integers(1, K, k)) % K
    system = pair_system(gram, position, own, others, K)
    keys = np.unique(rng.choice(k, 1800, replace=False))
    classes = class_columns(own[keys], others[keys], K)
    expected = (classes.T @ classes) * (gram[np.ix_(position[keys],
                                                    position[keys])] + 1.0)  # fmt: skip
    np.testing.assert_array_equal(system.block(keys, keys), expected)
    del expected
    tracemalloc.start()
    solved = system.solve(keys)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert solved is not None and solved[0].size < keys.size  # some dependent
    assert peak < 1.5 * 8 * keys.size**2, peak / (8 * keys.size**2)


def held_pairs(n, K, seed, dropped=0.2):
    """Pairs of n rows (each row with every other class), some dropped, and the
    explicit held block ``M_II = C ∘ (K + 1 1ᵀ)`` with its right sides."""
    from sklearn_linsep._kesler import class_columns

    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, n + 20))
    gram = rows @ rows.T
    classes = rng.integers(0, K, n)
    position, others = np.nonzero(classes[:, None] != np.arange(K))
    kept = rng.random(position.size) >= dropped
    position, others = position[kept], others[kept]
    own = classes[position]
    B = class_columns(own, others, K)
    block = (B.T @ B) * (gram[np.ix_(position, position)] + 1.0)
    return gram, position, own, others, block, np.column_stack([np.ones(own.size), B.T])


@pytest.mark.parametrize("seed", range(3))
def test_the_rows_inverse_solves_the_held_pairs_as_their_block(seed):
    """Most pairs of most rows held, the held system is solved from the inverse
    of the rows' Gram matrix (rows x rows) and the left-out pairs: the same
    solution as the explicit block's (numpy), and its products with the pairs'
    Gram ``C ∘ K`` are the explicit ones; where it does not serve (a pair held
    twice, more pairs left out than held, more rows than its limit), None, before
    its caller's factor is released."""
    from sklearn_linsep._kesler import RowsInverse, pair_products

    K = 3 + seed
    gram, position, own, others, block, right = held_pairs(60, K, seed)
    released = []
    inverse = RowsInverse(largest=10**6)
    solved = inverse.solve(gram, position, own, others, right, K,
                           lambda: released.append(True))  # fmt: skip
    np.testing.assert_allclose(solved, np.linalg.solve(block, right), atol=1e-10)
    assert released
    values = np.random.default_rng(seed).normal(size=right.shape)
    B = right[:, 1:].T
    np.testing.assert_allclose(
        pair_products(gram, position, own, others, values, K),
        (block - (B.T @ B)) @ values, rtol=1e-10, atol=1e-9,
    )  # fmt: skip
    twice = np.r_[np.arange(own.size), 0]
    released.clear()
    for pairs in [(p[twice] for p in (position, own, others)),
                  (p[::3] for p in (position, own, others))]:  # fmt: skip
        pairs = tuple(pairs)
        refused = RowsInverse(largest=10**6).solve(
            gram, *pairs, right[: len(pairs[0])], K, lambda: released.append(True)
        )
        assert refused is None and not released
    too_large = RowsInverse(largest=59)  # 60 rows: past its limit
    assert too_large.solve(gram, position, own, others, right, K,
                           lambda: released.append(True)) is None  # fmt: skip
    assert not released


def test_the_held_pairs_solve_holds_no_pairs_by_pairs_array():
    """The held system of k pairs on n rows, k ≫ n, by the rows' inverse: its
    peak memory is a fraction of the k x k factor the held block would take."""
    import tracemalloc

    from sklearn_linsep._margin._solvers._dense_dual import pair_system

    K = 6
    gram, position, own, others, block, _ = held_pairs(200, K, 7, dropped=0.1)
    del block
    system = pair_system(gram, position, own, others, K)
    tracemalloc.start()
    held, _ = system.solve(np.arange(own.size))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert held.size == own.size and system.factor is None  # the rows' inverse
    assert peak < 0.25 * 8 * own.size**2, peak / (8 * own.size**2)


@pytest.mark.parametrize("seed", [0, 1, 2, "digits"])
def test_the_gram_routes_machine_is_refined_to_the_support_equalities(seed):
    """The Gram route's last machine on dense rows, refined through its held
    system on margins computed from the rows: the solution of its support's
    equalities by one LU of their bordered system (the primal's rounding), to
    3e-12 in X's units (standardised digits: 1.4e-11 unrefined), every support
    pair at margin 1 to 5e-12 (X's units: the frame's offset rounds)."""
    from sklearn_linsep._kesler import pair_margins
    from sklearn_linsep._margin._solvers._active_set import machine_on_support

    if seed == "digits":
        X, y = load_digits(return_X_y=True)
        X, K = StandardScaler().fit_transform(X), 10
    else:
        rng = np.random.default_rng(seed)
        K, n, p = 4 + seed, 300, 60
        y = rng.integers(0, K, n)
        X = rng.normal(size=(n, p)) + 1.5 * rng.normal(size=(K, p))[y]
    svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    rows, others = np.nonzero(y[:, None] != np.arange(K))
    margins = pair_margins(X[rows], y[rows], others, svm.coef_, svm.intercept_)
    on = np.abs(margins - 1) < 1e-9
    coef, _, alpha = machine_on_support(X[rows[on]], y[rows[on]], others[on], K)
    assert svm.separable_ and np.all(alpha > 0)
    np.testing.assert_allclose(svm.coef_, coef, rtol=0,
                               atol=3e-12 * np.abs(coef).max())  # fmt: skip
    np.testing.assert_allclose(margins[on], 1.0, rtol=0, atol=5e-12)


def test_the_refinement_of_no_support_keeps_the_answer():
    """A support of no pair (the intercepts alone meet every margin): nothing to
    refine, the answer as it is, no solve and no error."""
    from sklearn_linsep._margin._solvers._dense_dual import refined_pair_dual

    class NoSolve:
        def right(self, keys):
            return np.zeros((len(keys), 4))

        def solve(self, *args):
            raise AssertionError("a solve for no support")

    alpha, intercept = refined_pair_dual(
        NoSolve(), np.array([], dtype=np.intp), np.array([]), np.arange(3.0),
        lambda alpha, b: (lambda keys: np.zeros(len(keys))),
    )  # fmt: skip
    assert alpha.size == 0 and np.array_equal(intercept, np.arange(3.0))


def test_more_pairs_than_the_factor_limit_are_solved_by_the_rows_inverse(monkeypatch):
    """A working set of more pairs than ``PAIR_DUAL_MAX_PAIRS`` over fewer rows
    (3 000 documents, K = 6: 14 970 pairs) is answered by the rows' inverse, not
    refused: the verdict and machine of an unlimited factor, verified; no held
    factor past the limit is made."""
    from sklearn_linsep import _kesler
    from sklearn_linsep._margin._solvers import _cost, _dense_dual

    X, y = text_like(100, 1000, 5)
    unlimited = linear_separability(X, y, multiclass="joint")
    factorise, solve, factored, served = (
        _dense_dual.HeldSystem._factorise, _kesler.RowsInverse.solve, [], []
    )

    def factorise_counted(system, held):
        factored.append(held.size)
        return factorise(system, held)

    def solve_counted(inverse, gram, position, *args):
        solved = solve(inverse, gram, position, *args)
        served.append(0 if solved is None else position.size)
        return solved

    monkeypatch.setattr(_dense_dual.HeldSystem, "_factorise", factorise_counted)
    monkeypatch.setattr(_kesler.RowsInverse, "solve", solve_counted)
    monkeypatch.setattr(_cost, "PAIR_DUAL_MAX_PAIRS", 150)
    limited = linear_separability(X, y, multiclass="joint")
    assert limited.separable and unlimited.separable and limited.verify(X, y)
    assert max(factored, default=0) <= 150 < max(served)
    np.testing.assert_allclose(limited.margin, unlimited.margin, rtol=1e-9)
    np.testing.assert_allclose(limited.coef, unlimited.coef,
                               atol=1e-9 * np.abs(unlimited.coef).max())  # fmt: skip


def test_the_joint_machine_by_the_rows_inverse_is_the_held_factors(monkeypatch):
    """Text where most pairs are held: the joint machine found through the rows'
    inverse is the one the held block's factor finds (the old route), and
    verified."""
    from sklearn_linsep import _kesler

    X, y = text_like(100, 1000, 5)
    solve = _kesler.RowsInverse.solve
    served = []

    def counted(*args):
        solved = None if refuse else solve(*args)
        served.append(solved is not None)
        return solved

    monkeypatch.setattr(_kesler.RowsInverse, "solve", counted)
    refuse = False
    new = linear_separability(X, y, multiclass="joint")
    refuse = True
    old = linear_separability(X, y, multiclass="joint")
    assert any(served) and new.verify(X, y)
    np.testing.assert_allclose(new.coef, old.coef, atol=1e-9 * np.abs(old.coef).max())
    np.testing.assert_allclose(new.margin, old.margin, rtol=1e-9)


def test_beyond_the_pairs_dual_sparse_rows_are_refused_not_made_dense(monkeypatch):
    """Where the pairs' Gram dual does not take a working set of sparse rows,
    the dense route would densify them: past a stated limit, a SolverError
    that names the limits and how to raise them, never a MemoryError."""
    from sklearn_linsep import _working_set
    from sklearn_linsep._margin._solvers import _cost

    monkeypatch.setattr(_cost, "PAIR_DUAL_MAX_PAIRS", 10)
    monkeypatch.setattr(_working_set, "DENSE_FALLBACK_ENTRIES", 1000)
    X, y = text_like(90, 3000, 3, seed=2)
    from sklearn_linsep.exceptions import SolverError

    with pytest.raises(SolverError, match="Raise PAIR_DUAL_MAX_PAIRS"):
        HardMarginSVM(multi_class="crammer_singer").fit(X, y)


def _text_bad_inputs():
    X, y = text_like(120, 2000, 4, seed=1)
    empty = X.tolil()
    empty[5] = 0
    empty = empty.tocsr()
    return {
        "a document under two labels": (sp.vstack([X, X[:1]]).tocsr(),
                                        np.r_[y, (y[0] + 1) % 4]),
        "an empty row": (empty, y),
        "empty rows of two classes": (sp.vstack([empty, sp.csr_matrix((1, 2000))]),
                                      np.r_[y, (y[5] + 1) % 4]),
        "a class of one row": (X, np.where(np.arange(120) == 7, 9, y)),
        "duplicate rows across classes": (sp.vstack([X, X[:10]]).tocsr(),
                                          np.r_[y, (y[:10] + 2) % 4]),
    }  # fmt: skip


@pytest.mark.parametrize("case", list(_text_bad_inputs()))
def test_text_of_several_classes_answers_awkward_rows_with_proofs(case):
    """The issue's awkward text: every answer a proof either way, on CSR rows."""
    X, y = _text_bad_inputs()[case]
    X = sp.csr_matrix(X)
    joint = linear_separability(X, y, multiclass="joint")
    assert joint.verify(X, y) and joint.proven
    pairs = linear_separability(X, y, multiclass="pairs")
    assert all(result.verify(X, y) for result in pairs.values())
    assert joint.separable == (case in ("an empty row", "a class of one row"))
    if joint.separable:  # the soft limit of wide text takes seconds (issue 56)
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
        np.testing.assert_allclose(svm.coef_, joint.coef, rtol=1e-9, atol=1e-12)


def test_the_soft_limit_of_sparse_text_is_the_dense_one_and_refuses_past_limits(
    monkeypatch, count_calls
):
    """The least-hinge LP and the face's QP read sparse rows uncentred (the same
    hinges and W in every translated frame): the soft limit equals the dense
    rows'; where its face would make sparse rows dense past the limit, an error
    that says what to do."""
    from sklearn_linsep import _working_set

    from sklearn_linsep._margin import _multiclass

    X, y = text_like(60, 400, 3, seed=4)
    X = sp.vstack([X, X[:2]]).tocsr()
    y = np.r_[y, (y[:2] + 1) % 3]
    seen = []
    solve = _multiclass.kesler_margin_qp
    monkeypatch.setattr(
        _multiclass, "kesler_margin_qp",
        lambda Z, *args, **kw: seen.append(sp.issparse(Z)) or solve(Z, *args, **kw),
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sparse = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
        assert seen and all(seen)  # the face's QP on the rows as given
        dense = HardMarginSVM(multi_class="crammer_singer").fit(X.toarray(), y)
    assert not sparse.separable_ and not dense.separable_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0,
                               atol=1e-6 * np.abs(dense.coef_).max())  # fmt: skip
    # The least total hinge, against HiGHS on the explicit LP over (W, b, ξ).
    n, p, K = X.shape[0], X.shape[1], 3
    rows = [(i, k) for i in range(n) for k in range(K) if k != y[i]]
    A = sp.lil_matrix((len(rows), K * (p + 1) + n))
    for r, (i, k) in enumerate(rows):
        for own, sign in ((y[i], -1.0), (k, 1.0)):
            A[r, own * (p + 1) : own * (p + 1) + p] = sign * X[i].toarray()
            A[r, own * (p + 1) + p] = sign
        A[r, K * (p + 1) + i] = -1.0
    lp = linprog(np.r_[np.zeros(K * (p + 1)), np.ones(n)], A_ub=A.tocsr(),
                 b_ub=-np.ones(len(rows)), method="highs",
                 bounds=[(None, None)] * (K * (p + 1)) + [(0, None)] * n)  # fmt: skip
    scores = X @ sparse.coef_.T + sparse.intercept_
    own = scores[np.arange(n), y]
    scores[np.arange(n), y] = -np.inf
    hinge = np.maximum(0.0, 1.0 - (own - scores.max(axis=1))).sum()
    assert lp.status == 0 and hinge == pytest.approx(lp.fun, rel=1e-7)
    monkeypatch.setattr(_working_set, "DENSE_FALLBACK_ENTRIES", 1000)
    lps = count_calls(_multiclass, "kesler_hinge_lp")
    with pytest.raises(SolverError, match="on_inseparable='raise'"):
        HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    assert not lps  # its first working set is past the limit: refused at once
    refusing = HardMarginSVM(multi_class="crammer_singer", on_inseparable="raise")
    with pytest.raises(NotLinearlySeparableError) as raised:
        refusing.fit(X, y)
    assert raised.value.certificate.verify(X, y)


def float32_held_factors(monkeypatch, counted=None):
    """Every held factor of the pairs' system in float32 (``SINGLE_FROM`` 0), its
    dtypes appended to ``counted``; the rows' inverse refused, so that the held
    factor solves."""
    from sklearn_linsep import _kesler
    from sklearn_linsep._margin._solvers import _dense_dual

    monkeypatch.setattr(_dense_dual.HeldSystem, "SINGLE_FROM", 0)
    monkeypatch.setattr(_kesler.RowsInverse, "solve", lambda *args: None)
    factor = _dense_dual._held_factor

    def recorded(block, *args, **kwargs):
        if counted is not None:
            counted.append(block.dtype)
        return factor(block, *args, **kwargs)

    monkeypatch.setattr(_dense_dual, "_held_factor", recorded)


@pytest.mark.parametrize("case", ["text", "digits", "wine", "copied"])
def test_a_float32_held_factor_gives_the_float64_answer(monkeypatch, case):
    """A held set factored in float32 (half the memory of its one k x k array),
    each solve refined in float64: the joint verdict, margin and machine of the
    float64 factor, verified, on text, standardised digits and wine, and where a
    row is copied (dependent pairs: the float32 pivots drop more, the float64
    Schur complement keeps those float64 keeps)."""
    from sklearn.preprocessing import StandardScaler

    if case == "text":
        X, y = text_like(100, 1000, 5)
    elif case == "copied":
        X, y = text_like(90, 800, 4, seed=3)
        X = sp.vstack([X, X[:6]]).tocsr()
        y = np.r_[y, y[:6]]
    else:
        X, y = (load_digits if case == "digits" else load_wine)(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        if case == "digits":
            keep = np.isin(y, [0, 3, 5, 8])
            X, y = X[keep][:300], y[keep][:300]
    double = linear_separability(X, y, multiclass="joint")
    dtypes = []
    float32_held_factors(monkeypatch, dtypes)
    single = linear_separability(X, y, multiclass="joint")
    assert np.float32 in dtypes
    assert single.separable == double.separable and single.verify(X, y)
    if double.separable:
        np.testing.assert_allclose(single.margin, double.margin, rtol=1e-9)
        np.testing.assert_allclose(single.coef, double.coef,
                                   atol=1e-8 * np.abs(double.coef).max())  # fmt: skip
    machine = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    if double.separable:
        monkeypatch.undo()
        reference = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
        np.testing.assert_allclose(machine.coef_, reference.coef_,
                                   atol=1e-8 * np.abs(reference.coef_).max())  # fmt: skip


def test_a_float32_held_factor_that_does_not_settle_gives_way_to_float64(monkeypatch):
    """Where refinement cannot bring a float32 factor's solve to float64's accuracy
    (here: no refinement steps at all), the held system factors in float64 from
    then on, and the answer is the float64 one."""
    from sklearn_linsep._margin._solvers import _dense_dual

    X, y = text_like(100, 1000, 5)
    double = linear_separability(X, y, multiclass="joint")
    dtypes = []
    float32_held_factors(monkeypatch, dtypes)
    monkeypatch.setattr(_dense_dual.HeldSystem, "REFINEMENTS", 0)
    single = linear_separability(X, y, multiclass="joint")
    assert dtypes[0] == np.float32 and np.dtype(float) in dtypes
    assert single.verify(X, y)
    np.testing.assert_allclose(single.margin, double.margin, rtol=1e-9)


def test_a_float32_held_factor_holds_half_the_memory(monkeypatch):
    """The float32 held factor of k pairs peaks near 4 k² bytes (tracemalloc), where
    the float64 one holds 8 k² (the block is made a band of rows at a time); its
    solution is the explicit block's to 1e-9."""
    import tracemalloc

    from sklearn_linsep._margin._solvers import _dense_dual
    from sklearn_linsep._margin._solvers._dense_dual import HeldSystem, pair_system

    gram, position, own, others, block, right = held_pairs(700, 4, seed=2)
    monkeypatch.setattr(HeldSystem, "SINGLE_FROM", 0)
    monkeypatch.setattr(_dense_dual, "COPY_BAND", 32)  # bands small beside k
    system = pair_system(gram, position, own, others, 4)
    system.whole = None  # the held factor, not the rows' inverse
    keys = np.arange(len(own))
    tracemalloc.start()
    solved = system.solve(keys)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert solved is not None and system.factor[0].dtype == np.float32
    k = keys.size
    assert peak < 0.65 * 8 * k**2, peak / (8 * k**2)
    expected = np.linalg.solve(block, right)
    np.testing.assert_allclose(solved[1], expected, atol=1e-9 * np.abs(expected).max())


def test_a_float32_factor_with_keys_joined_back_is_a_new_factor_not_an_update(
    monkeypatch,
):
    """Keys a float32 factor leaves out for small pivots (a row copied to 1e-4:
    its pairs' pivots near 1e-8 of the largest) join it by a float64 Schur
    complement, which keeps them as float64's pivoting does; the solve is still a
    new factor's (``by_update`` False: the exchanges give up on a rough one rather
    than factoring it again and again), to the explicit block's residual."""
    from sklearn_linsep._kesler import class_columns
    from sklearn_linsep._margin._solvers._dense_dual import HeldSystem, pair_system

    rng = np.random.default_rng(4)
    rows = rng.normal(size=(300, 320))
    rows[1] = rows[0] + 1e-4 * rng.normal(size=320)
    gram = rows @ rows.T
    classes = rng.integers(0, 4, 300)
    classes[1] = classes[0]
    position, others = np.nonzero(classes[:, None] != np.arange(4))
    own = classes[position]
    B = class_columns(own, others, 4)
    block = (B.T @ B) * (gram[np.ix_(position, position)] + 1.0)
    right = np.column_stack([np.ones(own.size), B.T])
    monkeypatch.setattr(HeldSystem, "SINGLE_FROM", 0)
    system = pair_system(gram, position, own, others, 4)
    system.whole = None
    joined = []
    join = HeldSystem._join_in_float64
    monkeypatch.setattr(HeldSystem, "_join_in_float64",
                        lambda self, low, top: joined.append(low.size)
                        or join(self, low, top))  # fmt: skip
    held, solution = system.solve(np.arange(own.size))
    assert joined and system.factor[0].dtype == np.float32
    assert held.size == own.size and not system.by_update
    # The block's condition number is 4e10: the residual is what a solve answers
    # for (numpy's own: 1.4e-10).
    assert np.max(np.abs(block @ solution - right)) <= 1e-9


def test_a_float32_update_of_near_copies_settles_by_float64_border_solves(monkeypatch):
    """Rows copied to 1e-6: a joining key near the span of the factored ones loses
    its Schur complement to float32's rounding; its border solves are then refined
    to float64, the update settles, and the machine is the float64 factor's."""
    from sklearn_linsep._margin._solvers._dense_dual import HeldSystem

    rng = np.random.default_rng(0)
    X, y = text_like(200, 2000, 4, seed=3)
    dense = X.toarray()
    near = dense[:20] + 1e-6 * rng.standard_normal((20, 2000)) * (dense[:20] != 0)
    X, y = np.vstack([dense, near]), np.r_[y, y[:20]]
    double = linear_separability(X, y, multiclass="joint")
    float32_held_factors(monkeypatch)
    monkeypatch.setattr(HeldSystem, "SINGLE_LOW_SHARE", 0.12)
    refined = []
    refine = HeldSystem._refine_joining
    monkeypatch.setattr(HeldSystem, "_refine_joining",
                        lambda self, held: refined.append(refine(self, held))
                        or refined[-1])  # fmt: skip
    single = linear_separability(X, y, multiclass="joint")
    assert any(refined) and single.verify(X, y)
    np.testing.assert_allclose(single.margin, double.margin, rtol=1e-9)
    np.testing.assert_allclose(single.coef, double.coef,
                               atol=1e-8 * np.abs(double.coef).max())  # fmt: skip
