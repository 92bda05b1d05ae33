"""The Crammer–Singer maximal margin decided in rationals from a float guess of
its support (``_exact._kkt``), and the fits that need it: features ~1e6 apart
with many classes, where no float64 active set settles in X's units."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq_mat

from sklearn_linsep import HardMarginSVM
from sklearn_linsep._exact._farkas import least_pair_margin
from sklearn_linsep._exact._kkt import (
    exact_machine_of_pairs,
    maximal_machine_on_rows,
    small_problem_budget,
)
from sklearn_linsep._exact._numbers import as_fmpq
from sklearn_linsep._exact._simplex import decide_pairs_on_rows
from sklearn_linsep._kesler import pair_margins
from sklearn_linsep._margin._multiclass import joint_margin_of
from sklearn_linsep._margin._solvers import kesler_support_guess
from sklearn_linsep._rows._memory_pairs import KeslerRows
from sklearn_linsep._testing import far_apart_case


def _pairs(X, codes, n_classes):
    rows = np.repeat(np.arange(len(codes)), n_classes)
    others = np.tile(np.arange(n_classes), len(codes))
    keep = others != codes[rows]
    return rows[keep], codes[rows[keep]], others[keep]


def assert_exact_kkt(X, codes, n_classes, W, b, support, support_classes):
    """The KKT conditions of ``min ½ Σ‖w_k‖²`` s.t. every pair margin ≥ 1, in
    rationals and independently of how ``W``, ``b`` were found: every margin
    ≥ 1, the support's exactly 1, and multipliers α ≥ 0 on the support with
    ``W = Σ α (e_own - e_other) xᵀ`` and ``Σ α (e_own - e_other) = 0`` exactly
    (the consistent system solved by its normal equations in rationals). They
    prove ``W`` optimal (a convex QP)."""
    K, p = n_classes, X.shape[1]
    assert least_pair_margin(X, codes, K, W, b) >= 1
    h = len(support)
    columns = fmpq_mat(K * (p + 1), h)
    for c, (i, k) in enumerate(zip(support, support_classes, strict=True)):
        own = codes[i]
        margin = sum((W[own][f] - W[k][f]) * Fraction(float(X[i, f]))
                     for f in range(p)) + b[own] - b[k]  # fmt: skip
        assert margin == 1
        for cls, sign in ((own, 1), (k, -1)):
            for f in range(p):
                columns[cls * (p + 1) + f, c] = sign * as_fmpq(float(X[i, f]))
            columns[cls * (p + 1) + p, c] = sign
    target = fmpq_mat(K * (p + 1), 1,
                      [as_fmpq(v) for w in W for v in [*w, 0]])  # fmt: skip
    alpha = (columns.transpose() * columns).solve(columns.transpose() * target)
    assert columns * alpha == target
    assert all(alpha[c, 0] >= 0 for c in range(h))


@pytest.mark.parametrize("seed", range(4))
def test_the_exact_machine_is_the_same_from_any_guess(seed):
    """On small problems (K = 3, p = 2) the rationals' machine from Clarabel's
    guess is the one from the exact separator's tight pairs (a poor guess,
    exchanged as a small problem's): the same W, and b keeps every pair
    margin at least 1 with equality somewhere; both satisfy the KKT
    conditions exactly."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 2))
    codes = np.argmax(X @ rng.normal(size=(3, 2)).T + rng.normal(size=3), axis=1)
    K = 3
    rows, own, others = _pairs(X, codes, K)
    guess = kesler_support_guess(X[rows], own, others, K)
    found = exact_machine_of_pairs(X[rows], own, others, K, guess.dual)
    assert found is not None
    W, b, dual = found
    kind, (_, _, tight) = decide_pairs_on_rows(X, codes, K, [], limited=False)
    assert kind == "separator"
    reference = maximal_machine_on_rows(X, codes, K, tight,
                                        small_problem_budget(len(rows)))  # fmt: skip
    assert reference is not None
    assert W == reference[0]  # unique (strictly convex in W); b need not be
    support = sorted(reference[2])
    assert_exact_kkt(X, codes, K, *reference[:2], [i for i, _ in support],
                     [k for _, k in support])  # fmt: skip
    assert least_pair_margin(X, codes, K, W, b) == 1
    assert all(value >= 0 for value in dual)


def test_a_guess_that_misses_the_support_is_exchanged_or_refused():
    """Two pairs of two rows: with the wrong pair guessed the exchanges reach
    the maximal margin; the answer is never a machine the rationals did not
    check."""
    points = np.array([[0.0], [0.0], [2.0], [2.0]])
    own, others = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    W, b, alpha = exact_machine_of_pairs(points, own, others, 2,
                                         np.array([0.0, 5.0, 0.0, 0.0]))  # fmt: skip
    assert W == [[Fraction(-1, 2)], [Fraction(1, 2)]]
    assert sum(b) == 0 and b[0] - b[1] == 1
    margins = pair_margins(points, own, others,
                           np.array([[float(v) for v in w] for w in W]),
                           np.array([float(v) for v in b]))  # fmt: skip
    assert np.all(margins >= 1 - 1e-15)


def assert_exact_fit_of_features_1e6_apart(X, y, result):
    """The joint fit of ``far_apart_case``'s ``X, y``: its KKT conditions
    exactly."""
    classes, codes = np.unique(y, return_inverse=True)
    assert_exact_kkt(X, codes, classes.size, result.exact_coef,
                     result.exact_intercept, result.support,
                     result.support_classes)  # fmt: skip


def test_features_1e6_apart_with_many_classes_fit_exactly():
    """46 rows, K = 15-16, features 10^-6 to 10^6: the float64 active set in
    X's units cycles (its multipliers reach 1e13 and cancel), and the fit was
    refused after 13-14 s. It is now the maximal margin in rationals, said so,
    and its KKT conditions hold exactly (checked here on their own)."""
    X, y = far_apart_case(0)
    classes, codes = np.unique(y, return_inverse=True)
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        result = joint_margin_of(KeslerRows(X, codes, classes.size))
    assert_exact_fit_of_features_1e6_apart(X, y, result)


def test_the_estimator_publishes_the_rational_machine_of_features_1e6_apart(
    monkeypatch,
):
    """Another seed, through ``HardMarginSVM`` (each fit costs seconds): the
    engine's answer (caught on its way) meets the KKT conditions exactly, the
    estimator's ``exact_coef_`` is that answer's, and it classifies every row."""
    from sklearn_linsep import _svm

    answers = []
    monkeypatch.setattr(_svm, "joint_margin_of", lambda *args, **kwargs: answers.append(
        joint_margin_of(*args, **kwargs)) or answers[-1])  # fmt: skip
    X, y = far_apart_case(6)
    with pytest.warns(UserWarning, match="exact rational arithmetic"):
        svm = HardMarginSVM(multi_class="crammer_singer").fit(X, y)
    (result,) = answers
    assert_exact_fit_of_features_1e6_apart(X, y, result)
    assert svm.exact_coef_ == result.exact_coef
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert svm.score(X, y) == 1.0


def test_held_pairs_in_two_unlinked_groups_of_classes_still_solve():
    """Held pairs 0-1 and 2-3 only: each group's intercepts have their own
    shift, fixed by Σ b = 0 over the group (with one Σ b = 0 for all, the
    system was singular and a right support was declined)."""
    from sklearn_linsep._exact._kkt import _ExactPairs

    points = np.array([[0.0], [2.0], [10.0], [14.0]])
    own, others = np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2])
    exact = _ExactPairs(points, own, others, 4)
    alpha, b = exact.equality_qp([0, 1, 2, 3])
    assert all(value > 0 for value in alpha)
    assert b[0] + b[1] == 0 and b[2] + b[3] == 0
    scores = exact.scores(exact.machine([0, 1, 2, 3], alpha))
    margins = [row[o] - row[k] + b[o] - b[k]
               for row, o, k in zip(scores, own.tolist(), others.tolist())]  # fmt: skip
    assert all(value == 1 for value in margins)


@pytest.mark.parametrize("seed", [0, 3])
def test_independent_pairs_modulo_a_prime_are_the_rationals_ones(seed):
    """``_ExactPairs.independent`` picks pairs by a row echelon form modulo
    2^61 - 1: on far-apart rows (entries of up to 60 bits) it picks the same
    pairs, in order, as the rationals' own row echelon form."""
    from sklearn_linsep._exact._kkt import _ExactPairs

    X, y = far_apart_case(seed)
    y = np.unique(y, return_inverse=True)[1]
    K = int(y.max()) + 1
    rows = np.repeat(np.arange(len(y)), K)
    others = np.tile(np.arange(K), len(y))
    keep = others != y[rows]
    rows, others = rows[keep], others[keep]
    pairs = _ExactPairs(X[rows], y[rows], others, K)
    ids = np.random.default_rng(seed).permutation(len(rows))[:150].tolist()
    p = X.shape[1]
    columns = fmpq_mat(K * (p + 1), len(ids))
    for c, j in enumerate(ids):
        for cls, sign in ((y[rows[j]], 1), (others[j], -1)):
            for f in range(p):
                columns[cls * (p + 1) + f, c] = sign * as_fmpq(X[rows[j], f])
            columns[cls * (p + 1) + p, c] = sign
    echelon, rank = columns.rref()
    expected, c = [], 0
    for r in range(rank):
        while echelon[r, c] == 0:
            c += 1
        expected.append(ids[c])
        c += 1
    assert pairs.independent(ids) == expected


@pytest.mark.parametrize("seed", range(3))
def test_rows_separable_by_rounding_alone_get_their_exact_maximal_margin(seed):
    """40 rows of rank 4 in 120 rounded features, labels at random: in exact
    arithmetic the rows are in general position, so separable by the
    rounding alone (the principal frame decides it, with a separator in
    rationals). ``HardMarginSVM`` fits the maximal margin in rationals from
    the rows that separator holds nearest its margin (the one rational KKT
    solver; it raised SolverError before), its KKT conditions checked here
    exactly as a machine of two classes, ``W = (-w/2, w/2)``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 4)) @ rng.normal(size=(4, 120))
    y = rng.integers(0, 2, 40)
    with pytest.warns(UserWarning, match="maximal-margin hyperplane was computed"):
        svm = HardMarginSVM().fit(X, y)
    assert svm.separable_ and svm.exact_coef_ is not None
    half = [value / 2 for value in svm.exact_coef_]
    b = svm.exact_intercept_
    support = svm.support_
    assert_exact_kkt(X, y, 2, [[-value for value in half], half], [-b / 2, b / 2],
                     support, 1 - y[support])  # fmt: skip


def test_k_classes_separable_by_rounding_alone_get_their_exact_machine():
    """The same for K = 3 jointly (30 rows of rank 4 in 100 features): the
    Crammer–Singer margin in rationals from the pairs the frame's machine
    holds nearest its margin, its KKT conditions exact."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) @ rng.normal(size=(4, 100))
    codes = rng.integers(0, 3, 30)
    with pytest.warns(UserWarning, match="maximal-margin hyperplane was computed"):
        result = joint_margin_of(KeslerRows(X, codes, 3), soft=False)
    assert result.separable and result.exact_coef is not None
    assert_exact_kkt(X, codes, 3, result.exact_coef, result.exact_intercept,
                     result.support, result.support_classes)  # fmt: skip


def test_the_exchanges_stop_at_their_budgets_work():
    """A budget of work (the held pairs' count cubed, summed over exchanges)
    ends the exchanges without an answer, never with a wrong one: the same
    guess that settles within the default budget is refused within one too
    small for its first solve."""
    from sklearn_linsep._exact._kkt import Budget

    points = np.array([[0.0], [0.0], [2.0], [2.0]])
    own, others = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    guess = np.array([5.0, 0.0, 5.0, 0.0])
    assert exact_machine_of_pairs(points, own, others, 2, guess) is not None
    assert exact_machine_of_pairs(points, own, others, 2, guess,
                                  Budget(work=1.0)) is None  # fmt: skip
