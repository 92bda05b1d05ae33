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
from sklearn_linsep._exact import (
    decide_two_class,
    farkas_alternative,
    rational,
    two_class_system,
)
from sklearn_linsep._testing import (
    exactly_balances,
    exactly_separates,
    near_touching_case,
)


@pytest.mark.parametrize("seed", range(12))
def test_farkas_alternative_agrees_with_highs_and_holds_exactly(seed):
    """Either λ ≥ 0 with A λ = e exactly, or y with Aᵀ y ≤ 0 < eᵀ y exactly;
    HiGHS's LP on the same system agrees on which."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 5)), int(rng.integers(2, 9))
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    e = rng.integers(-2, 3, size=m).astype(float)
    tag, found = farkas_alternative([rational(row) for row in A], rational(e))
    exact_A = [rational(row) for row in A]
    if tag == "solution":
        assert all(value >= 0 for value in found)
        for row, target in zip(exact_A, rational(e)):
            assert sum(a * v for a, v in zip(row, found)) == target
    else:
        for j in range(n):
            assert sum(exact_A[i][j] * found[i] for i in range(m)) <= 0
        assert sum(t * y for t, y in zip(rational(e), found)) > 0
    lp = linprog(np.zeros(n), A_eq=A, b_eq=e, bounds=[(0, None)] * n, method="highs")
    assert (lp.status == 0) == (tag == "solution")


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
                                result.certificate_weights_exact, others)  # fmt: skip


def test_an_exact_separator_comes_with_a_warning_and_its_own_margin():
    X, y, _, _ = ISSUE_CASES[0]
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        result = linear_separability(X, y)
    w = np.array([float(v) for v in result.exact_coef])
    assert result.margin == pytest.approx(1 / np.linalg.norm(w))


def test_verify_rejects_a_certificate_that_balances_only_to_a_tolerance():
    """The float route's old answer on the first issue case: rows 0 and 1 of
    class 0 against row 2 of class 1, equal to 1e-12 of the spread, not
    exactly."""
    X, y, _, _ = ISSUE_CASES[0]
    false = SeparabilityResult(
        separable=False,
        classes=np.array([0, 1]),
        certificate_indices=np.array([0, 1, 2]),
        certificate_weights=np.array([0.5, 0.5, 1.0]),
        common_point=np.array([1.0, 1.0]),
        certificate_signs=np.array([-1.0, -1.0, 1.0]),
    )
    assert not false.verify(X, y)
    true = linear_separability(np.array([[0.0], [2.0], [1.0]]), [0, 0, 1])
    assert true.verify(np.array([[0.0], [2.0], [1.0]]), [0, 0, 1])
    assert true.certificate_weights_exact == [Fraction(1, 2)] * 2 + [Fraction(1)]


def test_hard_margin_svm_says_why_it_cannot_fit_a_hair_separable_set():
    """The maximal margin of classes 2^-41 apart cannot be proved in float64: a
    SolverError that names the exact verdict, never a wrong fit."""
    X, y, _, _ = ISSUE_CASES[0]
    try:
        model = HardMarginSVM().fit(X, y)
    except SolverError as error:
        assert "exact rational arithmetic" in str(error)
    else:  # where float64 can prove it, the fit is right
        assert np.all(model.predict(X) == y)


def test_decide_two_class_normalises_the_separator_to_margin_one():
    X = np.array([[0.0], [1.0], [3.0]])
    found, (w, b) = decide_two_class(X, [-1, -1, 1])
    assert found == "separator"
    margins = [
        c * (w[0] * Fraction(x) + b) for x, c in zip([0.0, 1.0, 3.0], [-1, -1, 1])
    ]
    assert min(margins) == 1
    A, e = two_class_system(X, [-1, -1, 1])
    assert len(A) == 3 and e == [0, 1, 1]


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
    weights = result.certificate_weights_exact
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
    assert exact_weights(result) == [
        {"weight_exact": "2/3"},
        {"weight_exact": "1/3"},
        {"weight_exact": "1"},
    ]
    result.certificate_weights_exact = None  # a certificate too large for rationals
    assert exact_weights(result) == [{}] * 3


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
