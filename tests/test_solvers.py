"""The exact core's solvers (``_margin._solvers``), each against an independent
reference: one HiGHS LP or cvxpy on the whole problem (``_testing``); their
statuses and the registry of routes."""

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_linsep import SolverError
from sklearn_linsep._exact._numbers import solve_exactly
from sklearn_linsep._margin import Hyperplane, Status, _solvers
from sklearn_linsep._margin._kkt import row_terms
from sklearn_linsep._margin._result import read_status
from sklearn_linsep._margin._solvers import (
    Route,
    face_dual_qp,
    face_margin_qp,
    gram_active_set,
    least_hinge_ipm,
    margin_from_feasible,
    margin_of_rows,
    nearest_points,
    nearest_points_margin,
    register,
    total_hinge_lp,
)
from sklearn_linsep._margin._solvers._active_set import (
    _equality_margin,
    support_hyperplane,
)
from sklearn_linsep._margin._solvers._clarabel import CLARABEL
from sklearn_linsep._margin._solvers._dense_dual import dense_dual_margin
from sklearn_linsep._margin._solvers._highs import HIGHS
from sklearn_linsep._testing import least_total_hinge, reference_margin_qp


def _noisy(n, p, seed):
    rng = np.random.default_rng(seed)
    Z = rng.uniform(-1, 1, (n, p))
    c = np.where(Z[:, 0] + rng.normal(0, 0.5, n) > 0, 1.0, -1.0)
    return Z, c


def _operators(Z, c, singles=None):
    augmented = np.column_stack([Z, np.ones(len(c))])

    def gram(theta, single=False):
        if singles is not None:
            singles.append(single)
        weighted = augmented * np.sqrt(theta)[:, None]
        weighted = weighted.astype(np.float32) if single else weighted
        return (weighted.T @ weighted).astype(float)

    def normal(theta, y):
        image = c * (augmented @ y)
        return image, (theta * image * c) @ augmented

    return {
        "gram": gram,
        "combine": lambda v: (v * c) @ augmented,
        "products": lambda y: c * (augmented @ y),
        "normal": normal,
    }


@pytest.mark.parametrize("seed", range(3))
def test_the_interior_point_reaches_the_least_total_hinge(seed):
    Z, c = _noisy(400, 5, seed)
    weights = np.random.default_rng(seed).uniform(0.5, 2, len(c))
    least, _, _ = least_total_hinge(Z, c, weights)
    guess = least_hinge_ipm(upper=weights, **_operators(Z, c))
    hinge = weights @ np.maximum(0, 1 - c * (Z @ guess.coef + guess.intercept))
    assert hinge == pytest.approx(least, rel=1e-7)
    assert guess.dual.sum() == pytest.approx(least, rel=1e-7)  # the dual's value
    assert np.all((guess.dual >= 0) & (guess.dual <= weights))


@pytest.mark.parametrize("kind", ["plain", "collinear"])
def test_the_interior_point_in_float32_refines_to_the_float64_answer(
    monkeypatch, kind
):
    """From SINGLE_FROM_FEATURES on, the normal matrix is float32's and each
    direction is refined against the exact products: the same least hinge as in
    float64. Where the normal matrix is too ill-conditioned for float32 (two
    features 1e-5 from collinear), refinement fails and float64 takes over."""
    from sklearn_linsep._margin._solvers import _ipm

    Z, c = _noisy(600, 8, 0)
    if kind == "collinear":
        Z[:, 1] = Z[:, 0] + 1e-5 * Z[:, 1]
    least = least_total_hinge(Z, c)[0]
    monkeypatch.setattr(_ipm, "SINGLE_FROM_FEATURES", 0)
    singles = []
    guess = least_hinge_ipm(upper=np.ones(len(c)), **_operators(Z, c, singles))
    hinge = np.maximum(0, 1 - c * (Z @ guess.coef + guess.intercept)).sum()
    assert hinge == pytest.approx(least, rel=1e-7)
    assert singles[0] is True
    assert (False in singles) == (kind == "collinear")  # where float32 failed
    if kind == "collinear":  # once float64, float64 to the end
        assert not any(singles[singles.index(False) :])


def test_rows_held_at_their_bound_move_to_the_right_hand_side():
    Z, c = _noisy(300, 4, 0)
    whole = total_hinge_lp(Z, c)
    held = whole.dual >= 1 - 1e-9
    held[np.flatnonzero(held)[::2]] = False  # hold half of them
    fixed = (c[held]) @ np.column_stack([Z[held], np.ones(held.sum())])
    part = total_hinge_lp(Z[~held], c[~held], fixed=fixed)
    assert part.feasible
    assert part.total + held.sum() == pytest.approx(whole.total, rel=1e-10)
    # A wrong guess (a row held at α = 1 that the optimum leaves at 0) may make the
    # LP infeasible, which it says rather than raising.
    wrong = np.ones(len(c), bool)
    wrong[:10] = False
    fixed = c[wrong] @ np.column_stack([Z[wrong], np.ones(wrong.sum())])
    assert total_hinge_lp(Z[~wrong], c[~wrong], fixed=fixed).feasible is False


def test_a_least_hinge_lp_of_thousands_of_columns_takes_the_interior_points_vertex(
    monkeypatch,
):
    """From ``IPM_FROM_COLUMNS`` columns and ``IPM_ROWS_FROM`` equalities (p + 1)
    HiGHS's interior point and crossover answer: a vertex (at most p + 1 α
    strictly inside their bounds), the simplex's least total, HiGHS's reference on
    the rows themselves, attained by its hyperplane. An interior point that ends
    in any other status (4: numerical difficulties) hands over to the simplex,
    which answers the same; below either threshold the simplex alone runs."""
    from scipy import optimize

    from sklearn_linsep._margin._solvers import _highs

    Z, c = _noisy(_highs.IPM_FROM_COLUMNS + 100, _highs.IPM_ROWS_FROM, 2)
    least = least_total_hinge(Z, c)[0]
    methods, linprog, status = [], optimize.linprog, {}

    def spy(*args, method, **kwargs):
        methods.append(method)
        result = linprog(*args, method=method, **kwargs)
        if method == "highs-ipm" and "ipm" in status:
            result.status = status["ipm"]
        return result

    monkeypatch.setattr(_highs, "linprog", spy)
    for interior_status, ran in ((None, ["highs-ipm"]), (4, ["highs-ipm", "highs-ds"])):
        methods.clear()
        status.update({} if interior_status is None else {"ipm": interior_status})
        lp = total_hinge_lp(Z, c)
        assert methods == ran
        inside = (lp.dual > 1e-9) & (lp.dual < 1 - 1e-9)
        assert np.count_nonzero(inside) <= Z.shape[1] + 1
        assert lp.total == pytest.approx(least, rel=1e-10)
        hinge = np.maximum(0.0, 1.0 - c * (Z @ lp.coef + lp.intercept)).sum()
        assert hinge == pytest.approx(lp.total, rel=1e-10)
    status.clear()
    methods.clear()
    total_hinge_lp(Z[: _highs.IPM_FROM_COLUMNS - 1], c[: _highs.IPM_FROM_COLUMNS - 1])
    total_hinge_lp(Z[:, : _highs.IPM_ROWS_FROM - 2], c)  # p + 1 = IPM_ROWS_FROM - 1
    assert methods == ["highs-ds", "highs-ds"]


def _face(Z, c):
    lp = total_hinge_lp(Z, c)
    return np.where(lp.dual <= 1e-12, 1, np.where(lp.dual >= 1 - 1e-9, -1, 0))


@pytest.mark.parametrize("scale", [1.0, 1e-4, 1e4])
def test_the_face_qp_meets_its_kkt_conditions(scale):
    # Solver-free proof of optimality (the QP is convex): on the face, w = Σ β c z
    # with β ≥ 0 on "≥ 1" rows, β ≤ 0 on "≤ 1" rows, β = 0 off the margin.
    Z, c = _noisy(200, 3, 1)
    Z[:, 1] *= scale  # one feature on another scale: the exact active set keeps it
    sides = _face(Z, c)
    ours = face_margin_qp(Z, c, sides)
    margins = c * (Z @ ours.coef + ours.intercept)
    assert np.all(margins[sides > 0] >= 1 - 1e-9)
    assert np.all(margins[sides < 0] <= 1 + 1e-9)
    np.testing.assert_allclose(margins[sides == 0], 1, atol=1e-9)
    terms = np.abs(ours.dual) @ np.abs(Z) + np.abs(ours.coef)
    assert np.all(np.abs((ours.dual * c) @ Z - ours.coef) <= 1e-10 * terms)
    assert abs(ours.dual @ c) <= 1e-10 * np.abs(ours.dual).sum()
    assert np.all(ours.dual[sides > 0] >= 0)
    assert np.all(ours.dual[sides < 0] <= 0)
    assert np.all(ours.dual[np.abs(margins - 1) > 1e-9] == 0)


def test_the_face_qp_matches_cvxpy():
    cp = pytest.importorskip("cvxpy")
    Z, c = _noisy(200, 3, 1)
    sides = _face(Z, c)
    ours = face_margin_qp(Z, c, sides)
    w, b = cp.Variable(3), cp.Variable()
    margins = cp.multiply(c, Z @ w + b)
    constraints = [
        margins[sides > 0] >= 1,
        margins[sides == 0] == 1,
        margins[sides < 0] <= 1,
    ]
    cp.Problem(cp.Minimize(cp.sum_squares(w)), constraints).solve(
        solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12
    )
    np.testing.assert_allclose(ours.coef, w.value, rtol=1e-6)
    assert ours.intercept == pytest.approx(float(b.value), rel=1e-6, abs=1e-9)


# ------------------------------------------------ the dense dual and the finish


def _wide(n, p, seed, gap=0.3):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, p)) / np.sqrt(p)
    c = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    Z[:, 0] += c * gap
    return Z - Z.mean(axis=0), c


def _assert_maximal(Z, c, solution, rel=1e-7):
    """KKT on the rows, and the margin of cvxpy (Clarabel at 1e-12)."""
    margins = c * (Z @ solution.coef + solution.intercept)
    assert np.min(margins) >= 1 - 1e-9
    support = solution.dual > 0
    assert np.allclose(margins[support], 1, atol=1e-9)
    assert np.allclose((solution.dual * c) @ Z, solution.coef, atol=1e-9)
    assert abs(solution.dual @ c) <= 1e-9 * solution.dual.sum()
    _, w, _ = reference_margin_qp(Z, c)
    assert np.linalg.norm(solution.coef) == pytest.approx(np.linalg.norm(w), rel=rel)


@pytest.mark.parametrize("n, p", [(40, 400), (120, 120), (60, 61), (200, 2000)])
def test_the_dense_dual_is_the_maximal_margin(n, p):
    Z, c = _wide(n, p, seed=n)
    solution = dense_dual_margin(Z, c, tol=1e-10)
    assert solution is not None and solution.feasible
    _assert_maximal(Z, c, solution)


@pytest.mark.parametrize("n, p", [(400, 200), (160, 40), (300, 120)])
def test_nearest_points_on_rows_near_square_start_from_a_guessed_support(
    n, p, monkeypatch
):
    """Rows not many more than their features (a support of a large share of them)
    start the kernel from the rows coordinate descent holds, at most what its corral
    has room for (160 x 40: the guess holds more, the heaviest are kept): the same
    maximal margin as from a row of each side, in fewer steps."""
    from sklearn_linsep._margin._solvers import _nearest

    Z, c = _wide(n, p, seed=p, gap=0.2)
    Z = np.ascontiguousarray(Z)
    assert _nearest._guess_suits(n, p)
    # Tall rows hold few support vectors (the first working set of 1e4 x 100: 840
    # rows, no gain), few features few rows, and a corral of few rows has no room
    # for a guess: from a row of each side.
    assert not _nearest._guess_suits(4 * p + 1, p) and not _nearest._guess_suits(60, 31)
    assert not _nearest._guess_suits(14, 40)
    guess = _nearest.support_guess(Z, c)
    assert np.all(guess >= 0) and c[guess > 0].min() < 0 < c[guess > 0].max()
    assert np.count_nonzero(guess) <= p + 3 - _nearest.GUESS_ROOM
    steps = []
    kernel = _nearest._kernels.nearest_points_kernel

    def counted(*args):
        answer = kernel(*args)
        steps.append(answer[3])
        return answer

    monkeypatch.setattr(_nearest._kernels, "nearest_points_kernel", counted)
    guessed = _nearest.nearest_points_margin(Z, c, tol=1e-10)
    monkeypatch.setattr(_nearest, "_guess_suits", lambda m, q: False)
    cold = _nearest.nearest_points_margin(Z, c, tol=1e-10)
    assert guessed.feasible and cold.feasible
    assert steps[0] < steps[1]
    _assert_maximal(Z, c, guessed)
    assert np.allclose(guessed.coef, cold.coef, rtol=1e-8, atol=1e-10)
    assert guessed.intercept == pytest.approx(cold.intercept, rel=1e-8, abs=1e-10)


def test_a_wide_margin_is_not_guessed():
    """Classes far apart hold few rows after the first passes (a fifth of the
    features where a near support holds more than their number): no guess, and the
    kernel starts from a row of each side, as fast as from one."""
    from sklearn_linsep._margin._solvers import _nearest

    for gap, guessed in ((8.0, False), (0.2, True)):
        Z, c = _wide(400, 200, seed=1, gap=gap)
        guess = _nearest.support_guess(np.ascontiguousarray(Z), c)
        assert (guess is not None) == guessed


@pytest.mark.parametrize("seed", [0, 15, 58, 100])
def test_margin_from_feasible_answers_at_a_corner_reached_to_rounding(seed):
    """Rows 1e6 from the origin, most of them within 1e-6 to 1e-2 of the margin:
    once p + 1 rows are held, the next target is the current corner to rounding,
    a step that is none (no row blocks it); the answer stands on its margins, in
    rationals within the tolerance of 1 plus the rounding of the hyperplane's own
    float64 coefficients (eps of the terms: the intercept's last bit is 5e-10 at
    1e6). A review found these refused where the rounding of the margins' terms,
    just over the tolerance, was made a refusal; seeds 58 and 100 were refused on
    a CPU without AVX-512, whose float64 sums round otherwise: margins in doubt
    are now judged correctly rounded, the same on every CPU."""
    rng = np.random.default_rng(seed)
    p, n = int(rng.integers(2, 6)), int(rng.integers(30, 200))
    u = rng.normal(size=p)
    u /= np.linalg.norm(u)
    base = rng.normal(size=(n, p))
    score = base @ u
    c = np.where(score > 0, 1.0, -1.0)
    near, gaps = rng.random(n) < 0.7, 10.0 ** rng.uniform(-6, -2, size=n)
    base += np.outer(c * np.where(near, 1 + gaps, 1 + np.abs(score)) - score, u)
    offset = 10.0 ** rng.choice([0, 4, 6, 8, 9]) * rng.choice([-1, 1], size=p)
    offset = offset * (1 + rng.random(p))
    assert 1e6 <= np.max(np.abs(offset)) < 1e7
    w = u / 2 + 0.05 * rng.normal(size=p) / np.sqrt(p)
    Z = base + offset
    found = margin_from_feasible(Z, c, w, -w @ offset, 5e-10)
    centred = margin_from_feasible(base, c, w, 0.0, 5e-10)
    assert found is not None and centred is not None
    least = min(
        c_i * (sum(Fraction(a) * Fraction(b) for a, b in zip(row, found.coef))
               + Fraction(found.intercept))
        for row, c_i in zip(Z, c)
    )  # fmt: skip
    representable = 2 * np.finfo(float).eps * np.max(
        np.abs(Z) @ np.abs(found.coef) + abs(found.intercept)
    )
    assert float(least) >= 1 - 5e-10 - representable
    assert np.linalg.norm(found.coef) == pytest.approx(
        np.linalg.norm(centred.coef), rel=1e-9
    )


@pytest.mark.parametrize("gap", [0.3, 1.0])
def test_the_dense_dual_starts_from_the_face_its_coordinate_descent_guesses(
    gap, monkeypatch
):
    """A tenth to a third of 300 rows are support vectors: from every row held
    the exchanges factored 300 rows, then about half, then five more held sets; from
    the rows a few passes of coordinate descent hold (``face_guess``) they factor
    three at most, each near the support, to the same dual."""
    from sklearn_linsep._margin._solvers import _dense_dual

    Z, c = _wide(300, 400, seed=300, gap=gap)
    gram = Z @ Z.T
    orders, factor = [], _dense_dual._held_factor

    def counted(block, *args, **kwargs):
        orders.append(len(block))
        return factor(block, *args, **kwargs)

    monkeypatch.setattr(_dense_dual, "_held_factor", counted)
    every_row = gram_active_set(gram, c, np.arange(300), tol=1e-10)
    assert len(orders) >= 5 and orders[0] == 300
    support = np.flatnonzero(every_row[0] > 0)
    orders.clear()
    guessed = gram_active_set(gram, c, _dense_dual.face_guess(gram, c), tol=1e-10)
    assert len(orders) <= 3 and max(orders) <= support.size + 5
    assert np.allclose(guessed[0], every_row[0], rtol=1e-10, atol=1e-12)
    assert guessed[1] == pytest.approx(every_row[1], rel=1e-10)


def test_the_dense_dual_gives_way_where_it_cannot_settle():
    """Inseparable rows (two equal with opposite labels) have no answer: None,
    and the nearest points decide."""
    Z, c = _wide(30, 60, seed=1)
    Z[1] = Z[0]
    assert dense_dual_margin(Z, c, tol=1e-10) is None
    assert nearest_points(Z, c).direction @ nearest_points(Z, c).direction < 1e-20


@pytest.mark.parametrize("seed", range(4))
def test_the_primal_active_set_from_any_separator(seed):
    rng = np.random.default_rng(seed)
    Z, c = _wide(80, 6, seed)
    Z[:, 0] = c * (0.5 + np.abs(Z[:, 0]))  # the first feature separates
    start = np.zeros(6)
    start[0] = 1.0  # a separator, not the maximal one
    assert np.min(c * (Z @ start)) > 0
    solution = margin_from_feasible(Z, c, start, 0.0, 1e-10)
    _assert_maximal(Z, c, solution)
    # Features 1e12 apart: each keeps its digits in the equality solves.
    scales = 10.0 ** rng.uniform(-6, 6, 6)
    coef, intercept, alpha = _equality_margin(Z[:5] * scales, c[:5])
    margins = c[:5] * (Z[:5] * scales @ coef + intercept)
    assert np.allclose(margins, 1, atol=1e-12)
    beta = alpha * c[:5]
    terms = np.abs(beta) @ np.abs(Z[:5] * scales)
    assert np.all(np.abs(beta @ (Z[:5] * scales) - coef) <= 1e-9 * terms)


@pytest.mark.parametrize("seed", range(3))
def test_the_support_hyperplane_keeps_each_feature_digits_on_few_rows(seed):
    """Fewer rows than features, on scales 1e12 apart (the semi-normal equations
    lose digits there; the least norm by a QR of Dᵀ, rows sorted, keeps them): w is
    the least-norm solution of its equalities, entry by entry (against rationals)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(4, 8)) * 10.0 ** rng.uniform(-6, 6, 8)
    c = np.array([1.0, -1.0, 1.0, -1.0])
    coef, _, _ = support_hyperplane(Z, c)
    D = [[Fraction(x) - Fraction(y) for x, y in zip(z, Z[0])] for z in Z[1:]]
    gram = [[sum(u * v for u, v in zip(d, e)) for e in D] for d in D]
    status, gamma = solve_exactly(gram, [Fraction(k - 1) for k in c[1:]])
    assert status == "unique"  # w = Dᵀ γ, D Dᵀ γ = c - c_0
    exact = [float(sum(g * d[j] for g, d in zip(gamma, D))) for j in range(8)]
    assert np.allclose(coef, exact, rtol=1e-11, atol=0)


# --------------------------------------------------- statuses and the registry


def test_each_solver_status_maps_to_one_status_or_an_error():
    assert read_status("Clarabel", CLARABEL, "Solved", "QP", "") is Status.OPTIMAL
    assert read_status("Clarabel", CLARABEL, "AlmostSolved", "QP", "") is (
        Status.ALMOST_OPTIMAL
    )
    assert read_status("HiGHS", HIGHS, 2, "LP", "") is Status.INFEASIBLE
    with pytest.raises(SolverError, match="MaxIterations on the margin QP .limits: 9"):
        read_status("Clarabel", CLARABEL, "MaxIterations", "margin QP", "9 steps")
    Z, c = _wide(40, 400, seed=3)
    assert margin_of_rows(Z, c).status is Status.OPTIMAL
    Z[1] = Z[0]
    assert margin_of_rows(Z, c).status is Status.TOUCHING


def test_a_new_route_is_one_registration(monkeypatch):
    """A route registered with a higher priority answers first where it suits; one
    that gives way (None) passes to the next."""
    monkeypatch.setattr(_solvers, "ROUTES", list(_solvers.ROUTES))
    calls = []

    def constant(Z, c, start, tol):
        calls.append(Z.shape)
        return Hyperplane(True, coef=np.zeros(Z.shape[1]), intercept=7.0)

    register(Route("constant", lambda m, q: m == 3, constant, priority=0))
    register(Route("gives way", lambda m, q: True, lambda *a: None, priority=1))
    Z, c = _wide(3, 2, seed=0)
    assert margin_of_rows(Z, c).intercept == 7.0 and calls == [(3, 2)]
    Z, c = _wide(40, 400, seed=3)
    assert margin_of_rows(Z, c).status is Status.OPTIMAL  # on to the usual routes
    assert [route.name for route in _solvers.ROUTES][:2] == ["constant", "gives way"]


def _two_class_system(gram, c):
    """The two-class held system ``K + 1 1ᵀ``, and its solve for β and b."""
    from sklearn_linsep._margin._solvers import _dense_dual

    system = _dense_dual._two_class_system(gram, c)
    system.solve_two_class = lambda held: _dense_dual._two_class_solve(system, held)
    return system


def test_the_held_system_from_its_last_factor_equals_a_new_factorisation():
    Z, c = _wide(900, 1000, seed=5)
    gram = Z @ Z.T
    updated = _two_class_system(gram, c)
    base = np.arange(0, 900, 2)  # 450 rows factored
    updated.solve_two_class(base)
    factored = updated.factored  # base in the factor's order
    assert np.array_equal(np.sort(factored), base)
    rng = np.random.default_rng(0)
    held = np.sort(
        np.r_[np.delete(base, rng.choice(base.size, 20, replace=False)), [1, 3, 5]]
    )
    solved, beta, intercept = updated.solve_two_class(held)
    assert updated.factored is factored  # answered from the factor, not a new one
    fresh = _two_class_system(gram, c)
    fresh.UPDATE_FROM = 10**9
    _, expected_beta, expected_intercept = fresh.solve_two_class(held)
    assert np.array_equal(solved, held)
    assert np.allclose(beta, expected_beta, rtol=1e-9, atol=1e-12 * abs(beta).max())
    assert intercept == pytest.approx(expected_intercept, rel=1e-9)
    # And it solves the held rows' equalities: K β + b = c, Σ β = 0.
    residual = gram[np.ix_(held, held)] @ beta + intercept - c[held]
    assert np.max(np.abs(residual)) <= 1e-8 and abs(beta.sum()) <= 1e-10


def test_a_held_row_that_depends_on_the_others_is_left_out():
    """Two equal rows (short documents) make the held system singular: one of
    them is left out, and the others' solve is the one without it."""
    Z, c = _wide(40, 100, seed=2)
    Z[7], c[7] = Z[3], c[3]
    gram = Z @ Z.T
    system = _two_class_system(gram, c)
    solved, beta, intercept = system.solve_two_class(np.arange(40))
    assert solved.size == 39 and (3 in solved) != (7 in solved)
    residual = gram[np.ix_(solved, solved)] @ beta + intercept - c[solved]
    assert np.max(np.abs(residual)) <= 1e-8 and abs(beta.sum()) <= 1e-10


@pytest.mark.parametrize("nudge", [0.0, 1e-7])
def test_the_held_factor_leaves_out_the_rows_a_complete_pivoting_leaves_out(nudge):
    """Rows equal or within 1e-7 (a Cholesky in order finishes on a pivot of
    1e-14) to earlier ones, early, in the middle and last: one row of each pair is
    left out, those a complete pivoting (pstrf) on a copy of the block leaves out,
    and the factor, made in the block's own memory, is the kept rows' Cholesky in
    pstrf's order.
    A rank-deficient block keeps its rank."""
    from scipy.linalg import cho_solve, lapack

    from sklearn_linsep._margin._solvers import _dense_dual

    rng = np.random.default_rng(3)
    n = 2 * _dense_dual.COPY_BAND + 100
    Z = rng.normal(size=(n, n + 20))
    copies = {5: 2, 300: 17, n - 1: 299}  # row: the earlier row it repeats
    for row, earlier in copies.items():
        Z[row] = Z[earlier] + nudge * rng.normal(size=n + 20)
    kept_of = []
    for block in (Z @ Z.T / n + 1.0, Z[:, : n - 50] @ Z[:, : n - 50].T):
        tolerance = _dense_dual.DEPENDENT_BELOW * np.max(np.diag(block))
        _, pivots, rank, _ = lapack.dpstrf(block.copy().T, tol=tolerance, lower=1)
        memory = block.copy()
        factor, order = _dense_dual._held_factor(memory)
        assert np.array_equal(order, pivots[:rank] - 1)
        assert np.shares_memory(factor[0], memory)
        at_once = _dense_dual._held_factor(block.copy(), pivoting=True)[1]
        assert np.array_equal(at_once, order)  # with no Cholesky in order first
        held = block[np.ix_(order, order)]
        right = rng.normal(size=order.size)
        solution = cho_solve(factor, right)
        assert np.max(np.abs(held @ solution - right)) <= 1e-6 * np.max(np.abs(right))
        kept_of.append(np.sort(order))
    first, low_rank = kept_of
    assert all((row in first) != (earlier in first) for row, earlier in copies.items())
    assert first.size == n - 3 and low_rank.size == n - 50


def test_a_rough_update_at_the_end_is_solved_again_from_its_own_factor(monkeypatch):
    """Exchanges that settle on a held set solved roughly through another set's
    factor (its held margins miss 1) solve that set once more from a factor of its
    own, rather than give up (issue 56's TF-IDF of four packages: the restart from
    every pair took 37 s to reach the same held set)."""
    from sklearn_linsep._margin._solvers import _dense_dual

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 80))
    c = np.where(np.arange(30) % 2, 1.0, -1.0)
    X[c > 0, :20] += 0.5  # some rows off the margin
    gram = X @ X.T
    exact = _dense_dual.gram_active_set(gram, c, np.arange(30))
    support = np.flatnonzero(exact[0] > 0)  # 25 rows: two short of it join by an update
    from_factor, updates = _dense_dual.HeldSystem._from_factor, []

    def rough(self, held, rights):
        another_set = not np.array_equal(self.factored, held)
        solved = from_factor(self, held, rights)
        if solved is not None and another_set:
            updates.append(held.size)
            solved[1][:] *= 1 + 1e-6  # the border's rounding, made visible
        return solved

    monkeypatch.setattr(_dense_dual.HeldSystem, "_from_factor", rough)
    monkeypatch.setattr(_dense_dual.HeldSystem, "UPDATE_FROM", 1)
    answer = _dense_dual.gram_active_set(gram, c, support[2:])
    assert updates and answer is not None
    np.testing.assert_allclose(answer[0], exact[0], rtol=1e-9, atol=1e-12)
    assert answer[1] == pytest.approx(exact[1], rel=1e-9)


def test_a_rough_update_of_pairs_at_the_end_is_refined_not_factored_again(
    monkeypatch,
):
    """The pairs' held system has M's products from the rows: exchanges that settle
    on a held set solved roughly through another set's factor refine that update
    against them, and factor nothing more (issue 56's TF-IDF: a factor of 7 000
    pairs again cost 3.7 s, twice). The answer is the exact one."""
    from sklearn_linsep._margin._solvers import _dense_dual

    rng = np.random.default_rng(6)
    X, K = rng.normal(size=(40, 100)), 3
    codes = np.arange(40) % K
    X[:, :K] += 0.4 * np.eye(K)[codes]
    gram = X @ X.T
    position, others = np.nonzero(codes[:, None] != np.arange(K))
    own = codes[position]
    exact = _dense_dual.pair_active_set(gram, position, own, others, K,
                                        np.arange(position.size))  # fmt: skip
    support = np.flatnonzero(exact[0] > 0)
    from_factor, factorise = (_dense_dual.HeldSystem._from_factor,
                              _dense_dual.HeldSystem._factorise)  # fmt: skip
    updates, factors = [], []

    def rough(self, held, rights):
        another_set = not np.array_equal(np.sort(self.factored), held)
        solved = from_factor(self, held, rights)
        if solved is not None and another_set:
            updates.append(held.size)
            solved[1][:] *= 1 + 1e-6  # the border's rounding, made visible
        return solved

    def counted(self, held, rights):
        factors.append(held.size)
        return factorise(self, held, rights)

    monkeypatch.setattr(_dense_dual.HeldSystem, "_from_factor", rough)
    monkeypatch.setattr(_dense_dual.HeldSystem, "_factorise", counted)
    monkeypatch.setattr(_dense_dual.HeldSystem, "UPDATE_FROM", 1)
    monkeypatch.setattr(_dense_dual.HeldSystem, "UPDATE_SHARE", 1.0)
    system = _dense_dual.pair_system(gram, position, own, others, K)
    system.whole = None  # the held factor's route, not the rows' inverse
    answer = _dense_dual.pair_active_set(gram, position, own, others, K, support[2:],
                                         system=(np.arange(own.size), system))
    assert updates and answer is not None
    assert factors == [support.size - 2]  # the first held set's, and no other
    np.testing.assert_allclose(answer[0], exact[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(answer[1], exact[1], rtol=1e-9, atol=1e-12)


def test_a_refinement_asked_by_exchanges_that_give_up_does_not_outlive_them(
    monkeypatch,
):
    """Exchanges that ask their next update refined, then stop (here: the step
    limit), leave the system's next, unrelated solve unrefined (a review found the
    request left set on a system that serves later rounds)."""
    from sklearn_linsep._margin._solvers import _dense_dual

    class System:
        product, by_update, refine_next = object(), True, False

        def release(self):
            raise AssertionError("a refinement comes first")

    def rough(held):  # every held margin misses 1: the update is refined next
        margins = np.ones(4)
        margins[held] = 1.5
        return held, held, np.zeros(4, dtype=bool), margins, (np.ones(4),)

    system = System()
    monkeypatch.setattr(_dense_dual, "DENSE_DUAL_MAX_ITERATIONS", 1)
    assert _dense_dual._exchanges(np.array([0, 1]), rough, lambda held: True,
                                  system) is None  # fmt: skip
    assert system.refine_next is False


def test_a_held_system_that_met_a_dependent_row_pivots_at_once(count_calls):
    """A Cholesky in order that failed on a dependent row is not tried again by the
    same system: its next factor is pstrf's at once, keeping what pstrf keeps."""
    from scipy.linalg import lapack

    Z, c = _wide(60, 100, seed=4)
    Z[7], c[7] = Z[3], c[3]
    gram = Z @ Z.T
    system = _two_class_system(gram, c)
    first, _, _ = system.solve_two_class(np.arange(50))
    assert first.size == 49 and system.pivoting
    in_order = count_calls(lapack, "dpotrf")
    system.release()
    held = np.arange(1, 60)
    solved, beta, intercept = system.solve_two_class(held)
    assert not in_order and solved.size == 58 and (3 in solved) != (7 in solved)
    residual = gram[np.ix_(solved, solved)] @ beta + intercept - c[solved]
    assert np.max(np.abs(residual)) <= 1e-8 and abs(beta.sum()) <= 1e-10
    fresh = _two_class_system(gram, c)
    assert np.array_equal(fresh.solve_two_class(held)[0], solved)
    assert in_order  # a new system tries the Cholesky in order first


def test_an_equality_row_left_out_as_dependent_is_not_left_off_its_face():
    """Row 2 (side 0: margin = 1) is the midpoint of rows 0 and 1: held with
    them, it is left out as dependent, and must not end off the face."""
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    c = np.array([1.0, -1.0, 1.0])
    sides = np.array([1.0, 1.0, 0.0])
    answer = gram_active_set(Z @ Z.T, c, np.array([0, 1]), sides)
    if answer is not None:
        dual, intercept = answer
        margins = c * (Z @ ((dual * c) @ Z) + intercept)
        assert abs(margins[2] - 1) <= 1e-9 and np.all(margins[:2] >= 1 - 1e-9)


def test_a_joining_row_that_depends_on_the_factored_ones_is_not_an_answer():
    """The update from the last factor (Schur complement) takes a row that is the
    midpoint of two factored rows to 1e-7 without an error; its solve misses the
    held rows' margins by 0.05, and the active set refuses such an answer."""
    Z, c = _wide(500, 2000, seed=7)
    Z[1] = 0.5 * (Z[0] + Z[2]) + 1e-7 * np.random.default_rng(1).normal(size=2000)
    gram = Z @ Z.T
    answer = gram_active_set(gram, c, np.r_[0:3, 50:500])
    if answer is not None:
        dual, intercept = answer
        margins = c * (gram @ (dual * c) + intercept)
        assert np.all(margins >= 1 - 1e-9)
        assert np.all(np.abs(margins[dual > 0] - 1) <= 1e-9)


def test_the_active_set_on_a_gram_matrix_from_a_support_is_the_margin():
    """From the nearest points' support, and on the least-hinge face from the
    rows of the face QP's answer, the active set gives the same answer."""
    Z, c = _wide(60, 200, seed=4)
    hard = nearest_points_margin(Z, c)
    support = np.flatnonzero(hard.dual > 0)
    dual, intercept = gram_active_set(Z @ Z.T, c, support[::2])
    np.testing.assert_allclose((dual * c) @ Z, hard.coef, rtol=1e-8, atol=1e-10)
    assert intercept == pytest.approx(hard.intercept, rel=1e-8, abs=1e-10)
    rng = np.random.RandomState(1)
    Z = rng.normal(size=(50, 80))
    c = np.where(rng.normal(size=50) > 0, 1.0, -1.0)
    Z[5], c[5] = Z[6], -c[6]  # one document in both classes: inseparable
    lp = total_hinge_lp(Z, c)
    from sklearn_linsep._margin import _soft

    sides = _soft.face_sides(lp.dual, np.ones(50))
    face, face_intercept, _ = face_dual_qp(Z @ Z.T, c, sides)
    support = np.flatnonzero(np.abs(face) > 1e-8 * np.abs(face).max())
    dual, intercept = gram_active_set(Z @ Z.T, c, support, sides)
    np.testing.assert_allclose(dual, face, atol=1e-7 * np.abs(face).max())
    assert intercept == pytest.approx(face_intercept, rel=1e-7, abs=1e-9)


def test_the_soft_limits_dual_is_the_faces_whichever_qp_solves_it(monkeypatch):
    """The face QP's multipliers, and the budget QP's less μ α* (μ its budget's
    multiplier, α* the LP's dual): the same, with the rows beyond their margin
    at 0, and both give w = Σ ν c z."""
    from sklearn_linsep._margin import _soft

    rng = np.random.RandomState(0)
    Z = rng.normal(size=(40, 3))
    c = np.where(Z[:, 0] + 0.8 * rng.normal(size=40) > 0, 1.0, -1.0)
    Z /= np.abs(Z).max()
    weights = np.ones(len(c))
    lp = total_hinge_lp(Z, c)
    sides = _soft.face_sides(lp.dual, weights)
    face = face_margin_qp(Z, c, sides, (lp.coef, lp.intercept))
    # The face's dual on the Gram matrix (the wide sparse route's) agrees.
    dual, intercept, _ = face_dual_qp(Z @ Z.T, c, sides)
    assert np.allclose((dual * c) @ Z, face.coef, rtol=1e-6, atol=1e-8)
    assert intercept == pytest.approx(face.intercept, rel=1e-6, abs=1e-8)

    def stalls(*args, **kwargs):
        raise SolverError("the face QP stalled")

    monkeypatch.setattr(_soft, "face_margin_qp", stalls)  # the budget QP answers
    budget = _soft._margin_at_least_hinge(Z, c, weights, lp, sides)
    for solution in (face, budget):
        assert np.allclose((solution.dual * c) @ Z, solution.coef, atol=1e-7)
    assert np.allclose(budget.coef, face.coef, rtol=1e-6, atol=1e-8)
    largest = np.abs(face.dual).max()
    assert np.allclose(budget.dual, face.dual, atol=1e-5 * largest)
    assert np.all(np.abs(face.dual[sides < 0]) <= 1e-9 * largest)


def test_the_pairs_dual_on_the_gram_matrix_is_the_crammer_singer_machine():
    """pair_active_set against an independent QP (cvxpy): every pair of rows
    of 3 classes, p > n, the machine and the intercepts (Σ b = 0)."""
    import cvxpy as cp

    from sklearn_linsep._margin._solvers._dense_dual import (
        pair_active_set,
        row_coefficients,
    )

    rng = np.random.default_rng(3)
    n, p, K = 12, 20, 3
    Z = rng.normal(size=(n, p))
    codes = np.arange(n) % K
    rows = np.repeat(np.arange(n), K)
    others = np.tile(np.arange(K), n)
    keep = others != codes[rows]
    rows, others = rows[keep], others[keep]
    own = codes[rows]
    alpha, intercept, coefficients = pair_active_set(
        Z @ Z.T, rows, own, others, K, np.arange(rows.size), tol=1e-12
    )
    np.testing.assert_array_equal(
        coefficients, row_coefficients(rows, own, others, alpha, K, n)
    )
    W = coefficients @ Z
    Wv, bv = cp.Variable((K, p)), cp.Variable(K)
    constraints = [cp.sum(bv) == 0] + [
        (Wv[own[j]] - Wv[others[j]]) @ Z[rows[j]] + bv[own[j]] - bv[others[j]] >= 1
        for j in range(rows.size)
    ]
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(Wv)), constraints).solve(
        solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11
    )
    assert np.all(alpha >= 0)
    np.testing.assert_allclose(W, Wv.value, atol=1e-7 * np.abs(W).max())
    np.testing.assert_allclose(intercept, bv.value, atol=1e-7 * np.abs(W).max())
    margins = (np.einsum("ij,ij->i", Z[rows], W[own] - W[others])
               + intercept[own] - intercept[others])  # fmt: skip
    assert margins.min() >= 1 - 1e-10
    assert np.max(np.abs(margins[alpha > 0] - 1)) <= 1e-10


def test_wide_rows_fall_back_to_the_qr_coordinates_where_the_gram_loses_digits(
    monkeypatch,
):
    """With q > 2m the nearest points run in m × m coordinates of the rows' span:
    where the pivoted Cholesky's answer does not hold on Z itself, the R of a QR
    of Zᵀ gives the same maximal margin as the Gram's coordinates did before."""
    from sklearn_linsep._margin._solvers import _nearest

    Z, c = _wide(40, 200, seed=7)
    expected = nearest_points_margin(Z, c)
    calls = []

    def digits_lost(gram):
        calls.append("gram")
        coordinates = gram_coordinates(gram)
        rng = np.random.default_rng(0)
        return coordinates * (1 + 1e-3 * rng.standard_normal(coordinates.shape))

    def qr(Z):
        calls.append("qr")
        return qr_coordinates(Z)

    gram_coordinates = _nearest.gram_coordinates
    qr_coordinates = _nearest._qr_coordinates
    monkeypatch.setattr(_nearest, "gram_coordinates", digits_lost)
    monkeypatch.setattr(_nearest, "_qr_coordinates", qr)
    fallen_back = nearest_points_margin(Z, c)
    assert calls == ["gram", "qr"]
    assert fallen_back.feasible
    margins = c * (Z @ fallen_back.coef + fallen_back.intercept)
    assert margins.min() >= 1 - 1e-9
    np.testing.assert_allclose(fallen_back.coef, expected.coef, rtol=1e-7, atol=1e-9)
    assert fallen_back.intercept == pytest.approx(expected.intercept, abs=1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(1, 5), (7, 3), (300, 2000)])
def test_row_terms_in_blocks_equal_the_whole_products(dtype, shape):
    """The KKT check's ``Z w``, ``Zᵀ(α c)`` and ``|Z|ᵀ α``, read a block of rows
    at a time (300 x 2 000: several blocks, the last one short), equal numpy's
    products of all the rows to rounding; sparse rows give the same."""
    rng = np.random.default_rng(shape[0])
    rows = rng.normal(size=shape).astype(dtype)
    labels = rng.choice([-1.0, 1.0], size=shape[0])
    solution = SimpleNamespace(
        coef=rng.normal(size=shape[1]), intercept=0.5, dual=rng.random(shape[0])
    )
    alpha = solution.dual
    expected = (rows @ solution.coef, rows.T @ (alpha * labels), np.abs(rows.T) @ alpha)
    for given in (rows, sp.csr_matrix(rows)):
        terms = row_terms(given, labels, solution)
        got = (terms.margins / labels - solution.intercept, terms.combination,
               terms.absolute)  # fmt: skip
        for value, reference in zip(got, expected, strict=True):
            assert value.dtype == np.float64
            np.testing.assert_allclose(value, reference, rtol=1e-12, atol=1e-10)
        assert terms.balance == pytest.approx(alpha @ labels, rel=1e-14)
