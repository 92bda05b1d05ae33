"""Proofs true in exact arithmetic (``_exact``): Farkas' alternative in
rationals, certificates checked exactly, and near-touching data decided instead of
refused or answered wrong (issue "Exact to the last bit")."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from sklearn_linsep import (
    HardMarginSVM,
    SeparabilityResult,
    SolverError,
    linear_separability,
)
from sklearn_linsep._exact._farkas import as_hyperplane, pairs_matrix, side_pairs
from sklearn_linsep._exact._kkt import (
    maximal_machine_on_rows,
    small_problem_budget,
)
from sklearn_linsep._exact._numbers import rational, solve_exactly
from sklearn_linsep._exact._simplex import (
    FarkasColumns,
    decide_pairs_on_rows,
    farkas_simplex,
)
from sklearn_linsep._exact._enclosure import enclosed_positive, exact_difference
from sklearn_linsep._proofs import pairs_enclosed
from sklearn_linsep._testing import (
    exactly_balances,
    exactly_separates,
    near_touching_case,
)


@pytest.mark.parametrize("seed", range(12))
def test_farkas_alternative_agrees_with_highs_and_holds_exactly(seed):
    """The simplex in rationals on any system: either λ ≥ 0 with A λ = e
    exactly, or y with Aᵀ y ≤ 0 < eᵀ y exactly; HiGHS's LP on the same system
    agrees on which."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 5)), int(rng.integers(2, 9))
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    e = rng.integers(-2, 3, size=m).astype(float)
    e[0] = e[0] or 1.0  # Farkas' systems have e ≠ 0
    system = FarkasColumns(lambda ids: A[:, ids], n, e)
    tag, found = farkas_simplex(system, [], limited=False)
    exact_A = [rational(row) for row in A]
    if tag == "certificate":
        weights = [Fraction(0)] * n
        for j, value in zip(*found):
            weights[j] = value
        assert all(value >= 0 for value in weights)
        for row, target in zip(exact_A, rational(e)):
            assert sum(a * v for a, v in zip(row, weights)) == target
    else:
        y, _ = found
        for j in range(n):
            assert sum(exact_A[i][j] * y[i] for i in range(m)) <= 0
        assert sum(t * v for t, v in zip(rational(e), y)) > 0
    lp = linprog(np.zeros(n), A_eq=A, b_eq=e, bounds=[(0, None)] * n, method="highs")
    assert (lp.status == 0) == (tag == "certificate")


ISSUE_CASES = [
    # separable by 2^-41 along x2 - x1; the float route offered a false certificate
    (np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0 + 2**-40], [0.0, 1.0]]),
     np.array([0, 0, 1, 1]), "two", True),
    (np.array([[0.0], [1.0], [1.0 + 2**-40], [5.0]]), np.array([0, 0, 1, 2]),
     "joint", True),
    # inseparable, but not by the two near-duplicate rows the float route paired
    (np.array([[0.0], [1.0], [1.0 + 2**-40], [3.0]]), np.array([0, 1, 0, 2]),
     "joint", False),
]  # fmt: skip


@pytest.mark.parametrize("X, y, how, separable", ISSUE_CASES)
def test_the_issue_cases_get_the_right_verdict_with_an_exact_proof(
    X, y, how, separable
):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if how == "joint":
            result = linear_separability(X, y, multiclass="joint")
        else:
            result = linear_separability(X, y)
    assert result.separable is separable and result.verify(X, y)
    if separable:
        assert result.exact_coef is not None
        assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)
    else:
        others = None if how == "two" else result.certificate_classes
        assert exactly_balances(X, y, result.certificate_indices,
                                result.exact_weights(X, y), others)  # fmt: skip


def test_an_exact_separator_comes_with_a_warning_and_its_own_margin():
    X, y, _, _ = ISSUE_CASES[0]
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        result = linear_separability(X, y)
    w = np.array([float(v) for v in result.exact_coef])
    assert result.margin == pytest.approx(1 / np.linalg.norm(w))


def _old_false_certificate():
    """The float route's old answer on the first issue case: rows 0 and 1 of
    class 0 against row 2 of class 1, equal to 1e-12 of the spread, not
    exactly."""
    return SeparabilityResult(
        separable=False,
        classes=np.array([0, 1]),
        certificate_indices=np.array([0, 1, 2]),
        certificate_weights=np.array([0.5, 0.5, 1.0]),
        common_point=np.array([1.0, 1.0]),
        certificate_signs=np.array([-1.0, -1.0, 1.0]),
    )


def test_verify_rejects_a_certificate_that_balances_only_to_a_tolerance():
    """The float route's old answer on the first issue case: rows 0 and 1 of
    class 0 against row 2 of class 1, equal to 1e-12 of the spread, not
    exactly."""
    X, y, _, _ = ISSUE_CASES[0]
    false = _old_false_certificate()
    assert not false.verify(X, y)
    true = linear_separability(np.array([[0.0], [2.0], [1.0]]), [0, 0, 1])
    assert true.verify(np.array([[0.0], [2.0], [1.0]]), [0, 0, 1])
    assert true.exact_weights(np.array([[0.0], [2.0], [1.0]]), [0, 0, 1]) == [
        Fraction(1, 2), Fraction(1, 2), Fraction(1)
    ]


def test_hard_margin_svm_fits_the_exact_maximal_margin_of_a_hair_separable_set():
    """The maximal margin of classes 2^-41 apart cannot be proved in float64:
    it is computed in rationals (a warning says so), KKT holding exactly."""
    X, y, _, _ = ISSUE_CASES[0]
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        model = HardMarginSVM().fit(X, y)
    w, b = model.exact_coef_, model.exact_intercept_
    assert exactly_separates(X, y, w, b)
    c = np.where(y == 1, 1, -1)
    margins = [int(s) * (sum(a * Fraction(v) for a, v in zip(w, x)) + b)
               for x, s in zip(X, c)]  # fmt: skip
    assert min(margins) == 1
    # Stationarity in rationals: w = Σ α_i c_i x_i over the support, Σ α_i c_i = 0.
    alpha = [Fraction(float(v)) for v in model.dual_coef_[0]]
    support = X[model.support_]
    assert all(margins[i] == 1 for i in model.support_)
    assert abs(float(sum(alpha))) < 1e-12 * max(abs(float(a)) for a in alpha)
    rebuilt = [sum(a * Fraction(x[f]) for a, x in zip(alpha, support))
               for f in range(X.shape[1])]  # fmt: skip
    assert np.allclose([float(v) for v in rebuilt], [float(v) for v in w], rtol=1e-9)
    result = linear_separability(X, y)
    assert result.exact_coef == w and result.margin == model.margin_


@pytest.mark.parametrize("seed", range(8))
def test_the_exact_maximal_margin_agrees_with_the_float_route(seed):
    """On ordinary small data, the rational KKT solver (from the exact
    separator's tight rows) lands on the float route's maximal-margin
    hyperplane."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(4, 30)), int(rng.integers(1, 5))
    X = rng.normal(size=(n, p))
    scores = X @ rng.normal(size=p)
    y = (scores > np.median(scores)).astype(int)  # both classes, separable
    float_route = linear_separability(X, y)
    assert float_route.separable
    signs = np.where(y == 1, 1.0, -1.0)
    own = side_pairs(signs)[0]  # two classes: K = 2 pairs, a pair per row
    found, (_, _, tight) = decide_pairs_on_rows(X, own, 2, [], limited=False)
    budget = small_problem_budget(n)
    W, b, multipliers = maximal_machine_on_rows(X, own, 2, tight, budget)
    assert all(value >= 0 for value in multipliers.values())
    exact_w, exact_b = as_hyperplane(W, b)
    np.testing.assert_allclose([float(v) for v in exact_w], float_route.coef,
                               rtol=1e-7, atol=1e-9)  # fmt: skip
    assert float(exact_b) == pytest.approx(float_route.intercept, rel=1e-7, abs=1e-9)


def test_the_exact_separator_has_every_margin_at_least_one():
    X = np.array([[0.0], [1.0], [3.0]])
    own = side_pairs([-1, -1, 1])[0]  # two classes: K = 2 pairs, a pair per row
    found, (W, b, _) = decide_pairs_on_rows(X, own, 2, [], limited=False)
    w, b = as_hyperplane(W, b)
    assert found == "separator"
    margins = [
        c * (w[0] * Fraction(x) + b) for x, c in zip([0.0, 1.0, 3.0], [-1, -1, 1])
    ]
    assert min(margins) >= 1
    A, e = pairs_matrix(X, *side_pairs([-1, -1, 1]), 2)  # K = 2: a pair a row
    assert A.shape == (5, 3) and e.tolist() == [0, 0, 0, 0, 1]


def _answer_holds(X, y, n_classes):
    """``"refused"``, or whether the answer's proof holds in rationals."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            if n_classes > 2:
                result = linear_separability(X, y, multiclass="joint")
            else:
                result = linear_separability(X, y)
    except SolverError:
        return "refused"
    if result.separable:
        exact = result.exact_coef is not None
        coef = result.exact_coef if exact else result.coef
        intercept = result.exact_intercept if exact else result.intercept
        return exactly_separates(X, y, coef, intercept)
    weights = result.exact_weights(X, y)
    others = None if n_classes == 2 else result.certificate_classes
    return exactly_balances(X, y, result.certificate_indices, weights, others)


def test_the_near_touching_corpus_has_no_wrong_verdict_and_no_false_proof():
    """A fixed, seeded slice of the corpus (``benchmarks/bench_exact.py`` runs
    1 000 cases): two classes and K = 3 pinwheels, gaps of 2^-44 to 2^-26 of the
    spread either side, exact touching, scales 2^±20, offsets up to 2^30."""
    answers = [_answer_holds(*near_touching_case(seed)) for seed in range(160)]
    assert answers.count(False) == 0
    assert answers.count("refused") <= 0.01 * len(answers)


@settings(max_examples=25, deadline=None)
@given(st.integers(10_000, 2**31))
def test_no_wrong_verdict_and_no_false_proof(seed):
    assert _answer_holds(*near_touching_case(seed)) is not False


def test_the_reports_json_gives_exact_weights_as_strings():
    from sklearn_linsep._report.sections._verdict import exact_weights

    X, y = np.array([[0.0], [3.0], [1.0]]), [0, 0, 1]
    result = linear_separability(X, y)
    assert exact_weights(result) == [{}] * 3  # proved by the enclosure alone
    result.certificate_weights_exact = result.exact_weights(X, y)
    assert exact_weights(result) == [
        {"weight_exact": "2/3"},
        {"weight_exact": "1/3"},
        {"weight_exact": "1"},
    ]


def test_a_certificate_too_large_for_the_quick_solve_is_still_decided_exactly():
    """p = 25: a certificate of 26 rows is beyond the quick solve, but the whole
    problem is small: the float certificate (its means equal to 1e-13) must not
    stand; the classes are exactly separable."""
    p = 25
    X = np.vstack([np.eye(p), np.full(p, (1 + 1e-13) / p)])
    y = np.r_[np.ones(p, int), 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(X, y)
    assert result.separable and result.verify(X, y)
    assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)


@pytest.mark.parametrize("n, p, rank", [(500, 250, 30), (1000, 500, 40)])
def test_an_integer_certificate_of_low_rank_is_proved(n, p, rank):
    """Small integers of rank 30-40 in 250-500 features, 5 labels flipped: the
    certificate's 32-43 rows meet 251-501 equations, of which at most the rows
    + 1 are independent. Its rational solve was refused by the equations' count
    (42³ of work), and after 24-76 s in the principal frame the verdict came
    without proof and a warning; the independent equations (modulo a prime) make
    it a 0.1 s proof."""
    rng = np.random.default_rng(1)
    Z = rng.integers(-10, 11, (n, rank)).astype(float)
    scores = Z @ rng.standard_normal(rank)
    scores -= np.median(scores)
    kept = np.abs(scores) > 0.02 * np.std(scores)
    y = (scores[kept] > 0).astype(int)
    flipped = rng.choice(len(y), 5, replace=False)
    y[flipped] = 1 - y[flipped]
    X = Z[kept] @ rng.integers(-3, 4, (rank, p)).astype(float)  # exact
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        result = linear_separability(X, y)
    assert not result.separable and result.proven
    assert exactly_balances(X, y, result.certificate_indices,
                            result.exact_weights(X, y))  # fmt: skip


def test_a_solve_on_the_independent_equations_is_the_whole_rref():
    """``solve_exactly`` on float64 equations many more than the unknowns reads
    those independent modulo a prime, then checks its one candidate on all: the
    same status and solution as one rref of them all, on consistent, inconsistent
    and dependent systems of every rank (scaled by powers of two, or noisy)."""
    from sklearn_linsep._exact._numbers import _rref_solve, as_fraction

    rng = np.random.default_rng(0)
    statuses = set()
    for trial in range(600):
        k = int(rng.integers(1, 8))
        rank = int(rng.integers(0, k + 1))
        A = (rng.integers(-5, 6, (int(rng.integers(k + 2, 30)), rank))
             @ rng.integers(-3, 4, (rank, k))).astype(float)  # fmt: skip
        if trial % 3 == 0:
            A *= 2.0 ** rng.integers(-40, 40, (1, k))
        if trial % 7 == 0:
            A += rng.normal(size=A.shape)
        consistent = trial % 2 == 1
        e = A @ rng.integers(-4, 5, k) if consistent else rng.integers(-5, 6, len(A))
        status, whole = _rref_solve(A, e.astype(float))
        expected = (status, None if whole is None else [as_fraction(v) for v in whole])
        assert solve_exactly(A, e.astype(float)) == expected
        statuses.add(status)
    assert statuses == {"unique", "none", "dependent"}


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300), min_size=2, max_size=2))
def test_exact_difference_leaves_no_remainder_unaccounted(pair):
    a, b = pair
    d, r = exact_difference(np.array([a]), np.array([b]))
    assert Fraction(a) - Fraction(b) == Fraction(float(d[0])) + Fraction(float(r[0]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_the_enclosure_proves_only_what_holds_in_rationals(seed):
    """Square systems with positive, tiny or negative exact solutions: where
    the enclosure gives weights, the rational solution exists and is
    positive; on well-conditioned positive ones it does give them."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 7))
    A = rng.normal(size=(m, m)) * 2.0 ** rng.integers(-20, 21, size=(m, 1))
    solution = rng.uniform(0.1, 1, m)
    solution[0] = rng.choice([1.0, 2**-45, -(2**-45), 0.0])
    e = A @ solution  # rounded: the exact solution is near, not equal
    enclosed = enclosed_positive(A, np.zeros_like(A), e)
    status, exact = solve_exactly([rational(row) for row in A], rational(e))
    if enclosed is not None:
        assert status == "unique" and all(value > 0 for value in exact)
        assert np.allclose(enclosed, [float(v) for v in exact], rtol=1e-6)
    elif solution[0] == 1.0 and np.linalg.cond(A) < 1e6:
        pytest.fail("a well-conditioned positive system was not enclosed")


def test_the_enclosure_proves_large_and_far_certificates_without_rationals():
    """p = 100 and data 1e9 spreads from the origin: proved by the enclosure
    (no rational weights computed), and those weights exist."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 100)) + 1e9
    y = (X[:, 0] - 1e9 + rng.normal(size=3000) > 0).astype(int)
    result = linear_separability(X, y)
    assert not result.separable and result.proven
    assert result.certificate_weights_exact is None
    points = X[result.certificate_indices]
    own, others = side_pairs(result.certificate_signs)
    assert pairs_enclosed(points, own, others, 2) is not None
    assert result.verify(X, y)


def test_verify_checks_by_proof_by_rationals_or_by_tolerance():
    X, y = np.array([[0.0], [3.0], [1.0]]), [0, 0, 1]
    result = linear_separability(X, y)
    for how in ("proof", "exact", "tolerance"):
        assert result.verify(X, y, check=how)
    with pytest.raises(ValueError, match="check must be one of"):
        result.verify(X, y, check="loose")
    separable = linear_separability(np.array([[0.0], [1.0]]), [0, 1])
    assert separable.verify(np.array([[0.0], [1.0]]), [0, 1], check="exact")
    with pytest.raises(ValueError, match="separable"):
        separable.exact_weights(np.array([[0.0], [1.0]]), [0, 1])


def test_a_certificate_that_balances_only_to_the_tolerance_is_told_apart():
    """The first issue case's old answer holds to the tolerance, not exactly:
    ``check="tolerance"`` accepts it, a proof does not."""
    X, y, _, _ = ISSUE_CASES[0]
    false = _old_false_certificate()
    assert false.verify(X, y, check="tolerance")
    assert not false.verify(X, y) and not false.verify(X, y, check="exact")
    assert false.exact_weights(X, y) is None


def test_exact_weights_of_a_joint_certificate_balance_exactly():
    X = np.array([[0.0], [1.0], [1.0 + 2**-40], [3.0]])
    y = np.array([0, 1, 0, 2])
    result = linear_separability(X, y, multiclass="joint")
    weights = result.exact_weights(X, y)
    assert exactly_balances(X, y, result.certificate_indices, weights,
                            result.certificate_classes)  # fmt: skip
    assert result.verify(X, y, check="exact")


def test_exact_weights_take_what_verify_takes_and_refuse_bad_input_clearly():
    import pandas as pd
    import scipy.sparse as sp

    X = np.array([[0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    result = linear_separability(X, y)
    weights = result.exact_weights(X, y)
    assert exactly_balances(X, y, result.certificate_indices, weights)
    for same in (X.tolist(), pd.DataFrame(X), sp.csr_matrix(X)):
        assert result.exact_weights(same, list(y)) == weights
    for bad_X, bad_y in ((X, y[:2]), (X[:, 0], y)):
        with pytest.raises(ValueError, match="n_samples"):
            result.exact_weights(bad_X, bad_y)
    with pytest.raises(ValueError, match="NaN or infinity"):
        result.exact_weights(np.full_like(X, np.nan), y)


def test_crammer_singer_fits_the_exact_maximal_machine_where_float64_cannot():
    """Corpus case 18 (K = 3, features 2^±20 apart): float64 cannot finish the
    machine in X's units; the exact active set gives it, every pair margin ≥ 1
    in rationals and one equal, and the same machine from fresh rationals."""
    from sklearn_linsep._exact._farkas import least_pair_margin

    X, y, n_classes = near_touching_case(18)
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        model = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    W, b = model.exact_coef_, model.exact_intercept_
    codes = np.searchsorted(model.classes_, y)
    assert least_pair_margin(X, codes, n_classes, W, b) == 1
    assert exactly_separates(X, codes, W, b)
    np.testing.assert_array_equal(model.predict(X), y)


@pytest.mark.parametrize("seed", range(6))
def test_rounded_redundant_features_are_decided_in_the_principal_frame(seed):
    """make_classification's redundant features are rounded linear combinations
    of the others: in exact arithmetic its rows lie in general position.
    Decided in the frame of their principal axes, the near-null ones correctly
    rounded: a certificate whose weights balance exactly, or a separator in
    rationals, never a tolerance passed off as a proof."""
    from sklearn.datasets import make_classification

    X, y = make_classification(100, 20, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(X, y)
    assert result.proven  # before: every one of these held to 1e-9 only
    if result.separable and result.exact_coef is not None:
        assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)
    elif result.separable:
        assert exactly_separates(X, y, result.coef, result.intercept)
    else:
        assert exactly_balances(X, y, result.certificate_indices,
                                result.exact_weights(X, y))  # fmt: skip
    assert result.verify(X, y)


def test_the_principal_frame_rounds_near_null_coordinates_correctly():
    from sklearn_linsep._exact._frames import correctly_rounded_coordinates

    rng = np.random.default_rng(0)
    points = rng.normal(size=(50, 6)) * 1e3
    center, axis = points[0], rng.normal(size=6)
    got = correctly_rounded_coordinates(points, center, axis)
    for x, value in zip(points, got):
        exact = sum((Fraction(a) - Fraction(t)) * Fraction(v)
                    for a, t, v in zip(x, center, axis))  # fmt: skip
        assert value == float(exact)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    scales=st.lists(st.integers(-60, 60), min_size=7, max_size=7),
    offset=st.sampled_from([0.0, 1e6, -3e15]),
)
def test_near_null_coordinates_bound_their_exact_error(seed, scales, offset):
    """The principal frame's coordinates from few-bit slices summed exactly
    (Ozaki's scheme) replaced a ``math.fsum`` per row and axis (979 x 460: 133 s).
    Each value is within its bound of the exact ``(x - t)·v``, in Fractions,
    for features up to 2^120 apart and far from the origin; where the slices
    take every bit the bound is about the value's last bit."""
    from sklearn_linsep._exact._frames import near_null_coordinates

    rng = np.random.default_rng(seed)
    points = rng.normal(size=(12, 7)) * np.ldexp(1.0, scales) + offset
    points[:, 3] = points[:, 0] + points[:, 1]  # a rounded combination
    center = points[0]
    _, _, axes = np.linalg.svd(points - center, full_matrices=False)
    values, bound = near_null_coordinates(points, center, axes)
    for j, axis in enumerate(axes):
        for i, x in enumerate(points):
            exact = sum((Fraction(a) - Fraction(t)) * Fraction(v)
                        for a, t, v in zip(x, center, axis))  # fmt: skip
            assert abs(Fraction(values[i, j]) - exact) <= Fraction(bound[i, j])
            if max(scales) - min(scales) <= 40:  # the slices take every bit
                size = (np.abs(x) + np.abs(center)) @ np.abs(axis)
                assert bound[i, j] <= 4.5e-16 * abs(values[i, j]) + 1e-27 * size


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_near_null_coordinates_refuse_entries_their_slices_cannot_take(scale):
    """A review's cases: rows of 1e-300 gave 5e-324 with a bound of 0 (the exact
    value 0: the slices' products underflow), rows of 1e300 NaN (σ overflows).
    The frame never passes them (``splittable``); called directly, refused."""
    from sklearn_linsep._exact._frames import near_null_coordinates

    points = np.random.default_rng(0).normal(size=(5, 3)) * scale
    with pytest.raises(ValueError, match="splittable"):
        near_null_coordinates(points, points[0], np.eye(3))


def test_float_data_of_low_rank_are_decided_in_the_frame_on_every_axis():
    """A review's case: rows of rank 8 in 100 features, Gaussian, a few labels
    flipped. Every near-null axis needs its coordinates to the last bit (before:
    one fsum per row and axis, 174 s at 979 x 500); the verdict is proved on
    the rows as given."""
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((240, 8))
    score = Z @ rng.standard_normal(8)
    keep = np.abs(score - np.median(score)) > 0.02 * np.std(score)
    Z, y = Z[keep], (score[keep] > np.median(score)).astype(int)
    flips = rng.choice(len(y), 3, replace=False)
    y[flips] = 1 - y[flips]
    X = Z @ rng.standard_normal((8, 100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(X, y)
    assert result.proven and result.verify(X, y)
    if result.separable:
        assert exactly_separates(X, y, result.exact_coef, result.exact_intercept)
    else:
        assert exactly_balances(X, y, result.certificate_indices,
                                result.exact_weights(X, y))  # fmt: skip


def test_the_principal_frame_keeps_out_of_underflow_and_overflow():
    from sklearn_linsep._exact._frames import principal_frame

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    X = np.c_[X, X[:, 0] + X[:, 1]]  # a rounded redundant feature
    assert principal_frame(X) is not None
    assert principal_frame(X * 1e295) is None  # its splits would overflow
    tiny = X.copy()
    tiny[0, 0] = 1e-130  # its products would underflow
    assert principal_frame(tiny) is None


def test_a_joint_certificate_on_rounded_redundant_features_is_proved_in_the_frame():
    """K = 3 jointly on make_classification's data: the frame's flow LP gives
    pairs whose system is proved by the enclosure in the principal frame (the
    coordinates' error bounds its radius); the weights balance exactly."""
    from sklearn.datasets import make_classification

    X, y = make_classification(120, 8, n_classes=3, n_informative=4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = linear_separability(X, y, multiclass="joint")
    assert result.proven and not result.separable and result.verify(X, y)
    assert exactly_balances(X, y, result.certificate_indices,
                            result.exact_weights(X, y),
                            np.searchsorted(result.classes,
                                            result.certificate_classes))  # fmt: skip


def test_the_enclosure_with_a_radius_holds_for_every_matrix_within_it():
    """A radius around A: proved only where every matrix within it has a
    positive solution; a radius wide enough to reach a sign change is not."""
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    e = A @ np.array([1.0, 1e-3])
    assert enclosed_positive(A, np.full_like(A, 1e-12), e, radius=True) is not None
    assert enclosed_positive(A, np.full_like(A, 1e-2), e, radius=True) is None


def test_two_class_certificates_are_measured_at_their_own_size():
    """Two classes are K = 2 pairs, whose system repeats p + 1 class rows: the
    limits measure it at the two classes' p + 2 equations, as before. A
    certificate of 36 rows at p = 34 whose enclosure fails (two rows 2^-47
    apart) is solved in rationals on a large problem; a small problem's
    certificate with dependent columns (a repeated row) is decided, not
    refused."""
    from sklearn_linsep._proofs import pairs_proof

    rng = np.random.default_rng(1)
    p, k = 34, 18
    pos = rng.integers(-50, 50, (k, p)).astype(float)
    pos[1] = pos[0]
    pos[1, 0] += 2.0**-47
    neg = rng.integers(-50, 50, (k, p)).astype(float)
    neg[-1] = pos.sum(0) - neg[:-1].sum(0)  # equal sums: λ = 1/18 each
    X, signs = np.vstack([pos, neg]), np.r_[np.ones(k), -np.ones(k)]
    proved, weights = pairs_proof(X, *side_pairs(signs), 2, problem_rows=10**6)
    assert proved and exactly_balances(X, (signs > 0).astype(int), np.arange(2 * k),
                                       weights)  # fmt: skip
    rng = np.random.default_rng(3)
    p = 27
    pos = rng.integers(-20, 20, (16, p)).astype(float)
    pos[1] = pos[0]  # dependent columns
    neg = rng.integers(-20, 20, (13, p)).astype(float)
    neg[-1] = (pos.sum(0) - neg[:-1].sum(0)) / 4
    X, signs = np.vstack([pos, neg]), np.r_[np.ones(16), -np.ones(13)]
    # 40 (p + 2) ≤ 1 600
    proved, weights = pairs_proof(X, *side_pairs(signs), 2, problem_rows=40)
    assert proved and exactly_balances(X, (signs > 0).astype(int), np.arange(29),
                                       weights)  # fmt: skip
