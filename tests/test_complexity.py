"""Ho & Basu's complexity measures (sklearn_linsep.complexity) against independent
references: the definitions written out here as loops (Lorena et al. 2019, ECoL's
code), ECoL's own published value, HiGHS's least-hinge LP, a brute force of the least
error in one dimension; and their invariances, weights, sparse input and bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.svm import LinearSVC

from sklearn_linsep import (
    ComplexityResult,
    ErrorRateResult,
    linear_separability,
    linearity_complexity,
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
)
from sklearn_linsep import complexity as cx
from sklearn_linsep._report import separability_report

# ---------------------------------------------------------------- references


def reference_f1(X, y):
    """Lorena et al.'s F1, feature by feature and class by class."""
    ratios = []
    for f in range(X.shape[1]):
        column, mean = X[:, f], X[:, f].mean()
        between = sum((y == k).sum() * (column[y == k].mean() - mean) ** 2
                      for k in np.unique(y))  # fmt: skip
        within = sum(((column[y == k] - column[y == k].mean()) ** 2).sum()
                     for k in np.unique(y))  # fmt: skip
        if within > 0:
            ratios.append(between / within)
        elif between > 0:
            ratios.append(np.inf)
    return 1.0 / (1.0 + max(ratios, default=0.0))


def reference_f1v(X, y):
    """problexity's F1v: biased covariances, W's pseudo-inverse."""
    first, second = X[y == 0], X[y == 1]
    W = sum(len(part) / len(y) * np.cov(part, rowvar=False, bias=True)
            for part in (first, second))  # fmt: skip
    delta = first.mean(axis=0) - second.mean(axis=0)
    d = np.linalg.pinv(np.atleast_2d(W)) @ delta
    return 1.0 / (1.0 + (d @ delta) ** 2 / (d @ np.atleast_2d(W) @ d))


def bounds(X, y):
    first, second = X[y == 0], X[y == 1]
    low = np.maximum(first.min(axis=0), second.min(axis=0))
    high = np.minimum(first.max(axis=0), second.max(axis=0))
    return low, high


def reference_f2(X, y):
    low, high = bounds(X, y)
    product = 1.0
    for f in range(X.shape[1]):
        spread = X[:, f].max() - X[:, f].min()
        if spread > 0:
            product *= max(0.0, high[f] - low[f]) / spread
    return product


def reference_f3(X, y):
    low, high = bounds(X, y)
    inside = [np.sum((X[:, f] >= low[f]) & (X[:, f] <= high[f]))
              for f in range(X.shape[1])]  # fmt: skip
    return min(inside) / len(y)


def reference_f4(X, y):
    """ECoL's ``removing``, row by row and feature by feature."""
    rows, features = list(range(len(y))), list(range(X.shape[1]))
    while rows and features and len(set(y[rows])) > 1:
        low, high = bounds(X[rows], y[rows])
        outside = []
        for k, f in enumerate(features):
            column = X[rows, f]
            outside.append(np.sum((column < low[f]) | (column > high[f])))
        best = int(np.argmax(outside))
        if outside[best] == 0:
            break
        f = features.pop(best)
        rows = [i for i in rows if low[f] <= X[i, f] <= high[f]]
    return len(rows) / len(y)


def highs_least_hinge(X, y):
    """min Σ ξ s.t. s_i (w·x_i + b) ≥ 1 - ξ_i, ξ ≥ 0, by HiGHS."""
    n, p = X.shape
    s = np.where(y == 1, 1.0, -1.0)
    A = -np.hstack([s[:, None] * X, s[:, None], np.eye(n)])
    bounds_ = [(None, None)] * (p + 1) + [(0, None)] * n
    c = np.r_[np.zeros(p + 1), np.ones(n)]
    return linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=bounds_, method="highs").fun


def brute_force_errors_1d(x, y):
    """The fewest errors of any threshold, either way round, on one feature."""
    cuts = np.r_[-np.inf, np.sort(np.unique(x)), np.inf]
    best = len(y)
    for cut in cuts:
        for sign in (1, -1):
            best = min(best, int(np.sum((sign * (x - cut) > 0) != (y == 1))))
    return best


def two_class_sets():
    iris_X, iris_y = load_iris(return_X_y=True)
    wine_X, wine_y = load_wine(return_X_y=True)
    digits_X, digits_y = load_digits(return_X_y=True)
    keep = (digits_y == 3) | (digits_y == 8)
    X, y = load_bupa_liver(return_X_y=True)
    return {
        "iris 1-2": (iris_X[iris_y > 0], (iris_y[iris_y > 0] == 2).astype(int)),
        "wine 1-2": (wine_X[wine_y > 0], (wine_y[wine_y > 0] == 2).astype(int)),
        "digits 3-8": (digits_X[keep], (digits_y[keep] == 8).astype(int)),
        "breast cancer": load_breast_cancer(return_X_y=True),
        "bupa": (X, np.unique(y, return_inverse=True)[1]),
    }


SETS = two_class_sets()

# ---------------------------------------------------------------- definitions


@pytest.mark.parametrize("name", SETS)
def test_feature_measures_equal_their_definitions(name):
    X, y = SETS[name]
    assert cx.f1(X, y) == pytest.approx(reference_f1(X, y), rel=1e-12)
    assert cx.f2(X, y) == pytest.approx(reference_f2(X, y), rel=1e-12, abs=1e-300)
    assert cx.f3(X, y) == reference_f3(X, y)
    assert cx.f4(X, y) == reference_f4(X, y)


@pytest.mark.parametrize("seed", range(4))
def test_f4_by_marked_rows_equals_its_definition_in_every_layout(seed):
    """F4 keeps dense rows in place while more than half are left (the rows still
    in marked), then copies them: many rounds of both, on overlapping classes with
    ties, in C and Fortran order, float32 and CSR, against ECoL's ``removing``."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(300, 6)) * 4) / 4
    y = rng.integers(0, 2, 300)
    X[y == 1] += rng.normal(scale=0.3 + seed, size=6)  # apart: fewer than half left
    expected = reference_f4(X, y)
    for layout in (X, np.asfortranarray(X), X.astype(np.float32), sp.csr_matrix(X)):
        assert cx.f4(layout, y) == expected


@pytest.mark.parametrize("name", SETS)
def test_f1v_equals_problexitys_formula(name):
    """Where W is well conditioned, and on digits (constant pixels: W singular,
    the mean difference in its range) too."""
    X, y = SETS[name]
    assert cx.f1v(X, y) == pytest.approx(reference_f1v(X, y), abs=1e-6)


def test_f1_on_iris_is_ecols_published_value():
    X, y = load_iris(return_X_y=True)
    assert cx.f1(X, y) == pytest.approx(0.05862828, abs=1e-8)  # ECoL's tests


def test_f1v_where_the_means_differ_in_ws_null_space_only():
    """A feature constant within each class, different between them; the other
    features' class means equal: Δ lies in W's null space, dF = ∞ and F1v = 0,
    where the pseudo-inverse's ratio is 0/0 (problexity then says 1)."""
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((30, 3))
    X = np.vstack([np.c_[noise, np.zeros(30)], np.c_[noise, np.ones(30)]])
    y = np.repeat([0, 1], 30)
    assert cx.f1v(X, y) == 0.0
    assert cx.f1v(X, y, kappa=10.0) == 0.0


def test_f1v_with_a_finite_kappa_adds_the_null_space_part():
    """Δ partly in the null space: κ = ∞ is the pseudo-inverse's ratio a; finite κ
    gives (a + q/κ)²/a, larger, and tends to a as κ grows."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 3))
    y = np.repeat([0, 1], 20)
    X = np.c_[X, y.astype(float)]  # constant within each class
    X[y == 1, 0] += 1.0
    at_infinity = cx.f1v(X, y)
    assert at_infinity == pytest.approx(reference_f1v(X, y), abs=1e-9)
    values = [cx.f1v(X, y, kappa=k) for k in (0.1, 1.0, 1e3, 1e9)]
    assert values == sorted(values) and values[0] < at_infinity
    assert values[-1] == pytest.approx(at_infinity, abs=1e-6)


def test_constant_features_follow_the_conventions():
    """A feature constant over all rows: no factor of F2, every row in F3's and
    F4's overlap, r = 0 in F1. All constant: nothing tells the classes apart."""
    X, y = SETS["iris 1-2"]
    padded = np.c_[X, np.full(len(y), 7.0)]
    for measure in (cx.f1, cx.f2, cx.f3, cx.f4):
        assert measure(padded, y) == measure(X, y)
    constant = np.ones((10, 2))
    labels = np.repeat([0, 1], 5)
    assert [m(constant, labels) for m in (cx.f1, cx.f2, cx.f3, cx.f4)] == [1, 1, 1, 1]
    assert cx.l2(constant, labels).bounds == (0.5, 0.5)


# ---------------------------------------------------------------- linearity


@pytest.mark.parametrize("name", SETS)
def test_l1_and_l2_are_zero_exactly_where_separable(name):
    X, y = SETS[name]
    separable = linear_separability(X, y).separable
    l1, l2 = cx.l1(X, y), cx.l2(X, y)
    assert (l1 == 0.0) == separable and (l2.bounds[1] == 0.0) == separable
    assert (l2.bounds[0] > 0) == (not separable)
    scores = X @ l2.coef + l2.intercept
    assert int(np.sum((scores > 0) != (y == 1))) == l2.errors
    assert l2.errors == round(l2.bounds[1] * len(y)) == round(float(l2) * len(y))
    assert isinstance(l2, ErrorRateResult) and "ErrorRateResult" in repr(l2)


def test_l1_is_highs_least_hinge():
    X, y = load_breast_cancer_wisconsin(return_X_y=True)
    X, y = X[::3], np.unique(y, return_inverse=True)[1][::3]
    hinge = highs_least_hinge(X, y) / len(y)
    assert cx.l1(X, y) == pytest.approx(hinge / (1 + hinge), rel=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_l2_is_the_brute_force_least_error_in_one_dimension(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 40)
    x = rng.standard_normal(40) + 1.2 * y
    result = cx.l2(x[:, None], y, effort=None)
    assert result.optimal and result.errors == brute_force_errors_1d(x, y)


@pytest.mark.parametrize("name", ["bupa", "iris 1-2"])
def test_l2_is_never_above_linearsvcs_training_error(name):
    X, y = SETS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svm = LinearSVC(random_state=0).fit(X, y)
    assert cx.l2(X, y, effort=2).errors <= np.sum(svm.predict(X) != y)


def test_l3_is_zero_on_separable_data_and_reproducible():
    """Points between two rows of a class lie on its side of a separating
    hyperplane (its margins are convex), so L3 = 0 whatever the draw."""
    X, y = SETS["breast cancer"]
    assert {cx.l3(X, y, random_state=seed) for seed in range(3)} == {0.0}
    X, y = SETS["bupa"]
    first = cx.l3(X, y, random_state=0)
    assert 0 < first < 1 and cx.l3(X, y, random_state=0) == first


# ---------------------------------------------------------------- together


def test_linearity_complexity_equals_the_measures_one_at_a_time():
    X, y = SETS["bupa"]
    result = linearity_complexity(X, y, random_state=0)
    assert isinstance(result, ComplexityResult)
    for name in ("f1", "f1v", "f2", "f3", "f4", "l1"):
        assert getattr(result, name) == getattr(cx, name)(X, y), name
    assert result.l2.bounds == cx.l2(X, y).bounds
    assert result.l3 == cx.l3(X, y, random_state=0)
    assert result.least_total_hinge / len(y) == pytest.approx(
        result.l1 / (1 - result.l1)
    )
    assert set(result.as_dict()) == {"f1", "f1v", "f2", "f3", "f4", "l1", "l2", "l3"}
    assert repr(result).splitlines()[1].startswith("  F1 ")


def test_k_classes_are_the_one_vs_one_mean_with_the_pairs_kept():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    result = linearity_complexity(X, labels, random_state=0)
    assert set(result.per_pair) == {("setosa", "versicolor"),
                                    ("setosa", "virginica"),
                                    ("versicolor", "virginica")}  # fmt: skip
    pairs = cx.f1v(X, labels, average=False)
    assert result.f1v == pytest.approx(np.mean(list(pairs.values())))
    assert result.f1 == cx.f1(X, labels)  # on all classes at once
    keep = labels != "setosa"
    pair = result.per_pair["versicolor", "virginica"]
    assert pair.f1 == cx.f1(X[keep], labels[keep]) and pair.l2.errors == 1
    assert result.l2.bounds == pytest.approx((1 / 300, 1 / 300))
    assert result.l2.per_pair["versicolor", "virginica"].errors == 1


def test_sparse_x_gives_the_dense_answers():
    X, y = SETS["wine 1-2"]
    X = X.copy()
    X[X < np.median(X, axis=0)] = 0.0  # zeros inside and outside the overlaps
    S = sp.csr_matrix(X)
    for name in ("f1", "f1v", "f2", "f3", "f4", "l1"):
        assert getattr(cx, name)(S, y) == pytest.approx(getattr(cx, name)(X, y),
                                                         rel=1e-10), name  # fmt: skip
    assert cx.l2(S, y).bounds == cx.l2(X, y).bounds
    assert cx.l3(S, y, random_state=0) == cx.l3(X, y, random_state=0)


def test_weights_are_frequencies_and_zero_leaves_a_row_out():
    X, y = SETS["iris 1-2"]
    weights = np.tile([1.0, 2.0, 3.0, 0.0], len(y) // 4)
    repeated = np.repeat(np.arange(len(y)), weights.astype(int))
    for name in ("f1", "f1v", "f3", "f4", "l1"):
        weighted = getattr(cx, name)(X, y, sample_weight=weights)
        assert weighted == pytest.approx(getattr(cx, name)(X[repeated], y[repeated]),
                                         rel=1e-9, abs=1e-12), name  # fmt: skip


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), scale=st.integers(-3, 3), shift=st.integers(-8, 8))
def test_invariances(seed, scale, shift):
    """Row order and the labels' names change nothing; a per-feature map x ↦
    2^k x + t (exact in float64) changes no feature measure."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    y[:2] = [0, 1]
    X = np.round(rng.standard_normal((60, 3)) + y[:, None] * 0.7, 3)
    order = rng.permutation(60)
    mapped = X * 2.0**scale + shift
    renamed = np.where(y == 1, "a", "b")  # the classes swap sides too
    for name in ("f1", "f2", "f3", "f4"):
        value = getattr(cx, name)(X, y)
        assert getattr(cx, name)(X[order], y[order]) == pytest.approx(value, rel=1e-12)
        assert getattr(cx, name)(mapped, y) == pytest.approx(value, rel=1e-12)
        assert getattr(cx, name)(X, renamed) == pytest.approx(value, rel=1e-12)
    value = cx.f1v(X, y)
    assert cx.f1v(mapped @ np.diag([1.0, 3.0, 0.5]), y) == pytest.approx(value)
    assert cx.f1v(X, renamed) == pytest.approx(value)
    assert cx.l1(X[order], y[order]) == pytest.approx(cx.l1(X, y), rel=1e-7)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", ["f1", "f1v", "f2", "f3", "f4", "l1", "l2", "l3"])
def test_bad_input_is_refused_with_the_measure_named(name):
    measure = getattr(cx, name)
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match=f"{name} needs at least 2 classes"):
        measure(X, np.zeros(6))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match=rf"^{name}: .*NaN"):
        measure(bad, [0, 1] * 3)
    with pytest.raises(ValueError, match=name):
        measure(X, [0, 1] * 2)  # lengths differ
    with pytest.raises(ValueError, match=name):
        measure(np.empty((0, 2)), [])


def test_a_class_of_one_row():
    """Two rows: W = 0, so the means differ along directions in which no row
    varies, and F1v = 0 (the pseudo-inverse's 0/0, which problexity reads as 1).
    L3 interpolates a lone row with itself."""
    X = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert cx.f1v(X, [0, 1]) == 0.0
    X = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 0.1], [5.0, 1.0]])
    assert cx.l3(X, [0, 0, 0, 1], random_state=0) == 0.0


def test_sparse_rows_beyond_the_densifying_limit_are_refused(monkeypatch):
    from sklearn_linsep import _complexity

    monkeypatch.setattr(_complexity, "DENSE_FALLBACK_ENTRIES", 10)
    X, y = SETS["iris 1-2"]
    with pytest.raises(ValueError, match="DENSE_FALLBACK_ENTRIES"):
        cx.l2(sp.csr_matrix(X), y)
    # Separable, the verdict alone answers: nothing is made dense.
    X, y = SETS["wine 1-2"]
    separable = cx.l2(sp.csr_matrix(X), y)
    assert separable.bounds == (0.0, 0.0) and separable.errors == 0


def test_the_report_prints_the_measures_with_l2_on_the_removal_line():
    X, y = load_hepatitis(return_X_y=True)
    report = separability_report(X, y, cv=0)
    section = report["complexity"]
    measures = linearity_complexity(X, y, random_state=0)
    for name in ("f1", "f1v", "f2", "f3", "f4"):
        assert section["measures"][name] == pytest.approx(getattr(measures, name))
    removal = report["separability"][0]["removal"]
    lower, upper = removal["error_rate"]
    assert section["measures"]["l2"] == upper and 0 < lower <= upper
    assert removal["upper_bound"] == removal["misclassified"] == round(upper * len(y))


def test_f1_at_extreme_scales_and_on_a_feature_constant_within_each_class():
    """F1 does not move with a feature's scale: its squares neither overflow
    (1e155) nor underflow (1e-170); a feature constant within each class whose
    means differ has no spread (r = ∞, F1 = 0), not a rounding residue."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.repeat([0, 1], 10)
    value = cx.f1(X, y)
    assert cx.f1(X * 1e155, y) == pytest.approx(value, rel=1e-12)
    assert cx.f1(X * 1e-170, y) == pytest.approx(value, rel=1e-12)
    assert cx.f1(np.c_[X, np.repeat([0.1, 0.3], 10)], y) == 0.0


def test_weights_of_any_total_and_errors_that_name_the_measure():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.repeat([0, 1], 10)
    assert cx.f1v(X, y, sample_weight=np.full(20, 0.05)) == pytest.approx(cx.f1v(X, y))
    with pytest.raises(ValueError, match=r"^l1: "):
        cx.l1(X * 1e150, y)  # beyond the exact core's scales: said, with the measure


def test_l1_does_not_move_with_an_affine_map():
    X, y = SETS["bupa"]
    rng = np.random.default_rng(2)
    A = rng.standard_normal((X.shape[1], X.shape[1])) + 3 * np.eye(X.shape[1])
    assert cx.l1(X @ A + 5.0, y) == pytest.approx(cx.l1(X, y), rel=1e-6)


def test_the_report_section_of_k_classes_fits_in_80_columns():
    from sklearn_linsep._report._text import format_report

    X, y = load_iris(return_X_y=True)
    text = format_report(separability_report(X, y, cv=0), explain=False)
    section = text[text.index("Complexity"):].split("\n\n")[0].splitlines()
    assert len(section) == 9 and max(map(len, section)) <= 80


def test_l3_is_the_soft_limits_error_on_the_interpolated_points():
    from sklearn_linsep import HardMarginSVM
    from sklearn_linsep._complexity import interpolated, pair_of

    X, y = SETS["bupa"]
    points, labels = interpolated(pair_of(X, y, 0, 1), np.random.RandomState(0))
    assert len(labels) == len(y) and np.array_equal(np.sort(labels), np.sort(y))
    svm = HardMarginSVM().fit(X, y)
    wrong = (points @ svm.coef_[0] + svm.intercept_[0] > 0) != (labels == 1)
    assert cx.l3(X, y, random_state=0) == pytest.approx(wrong.mean())


def test_review_cases_constant_columns_weighted_ties_and_weighted_l3():
    """A feature constant over every row is no separation (F1 as without it),
    whatever its class means round to; weights that tie two features' leftovers
    in exact arithmetic tie in F4 too (the first feature, as on repeated rows);
    L3 takes the weighted hinge's hyperplane, alone as inside
    linearity_complexity."""
    X = np.c_[np.full(5, 0.7), [0, 1, 2, 1, 3.0]]
    y = [0, 0, 0, 1, 1]
    assert cx.f1(X, y) == pytest.approx(cx.f1(X[:, 1:], y))
    X = np.array([[2, 0], [3, 2], [2, 2], [1, 2], [1, 2], [2, 3], [0, 1.0]])
    y = np.array([0, 1, 0, 1, 1, 1, 0])
    w = np.array([2, 3, 2, 2, 3, 1, 2])
    repeated = np.repeat(np.arange(7), w)
    assert cx.f4(X, y, sample_weight=w) == pytest.approx(
        cx.f4(X[repeated], y[repeated])
    )
    X, y = SETS["bupa"]
    w = np.tile([1.0, 3.0], len(y))[: len(y)]
    together = linearity_complexity(X, y, sample_weight=w, random_state=0)
    assert together.l3 == cx.l3(X, y, sample_weight=w, random_state=0)
