"""The limit C → ∞ of the soft margin on inseparable data: the least total hinge
(an LP, exact, with a dual certificate), then the largest margin among the
hyperplanes that attain it (a QP over the LP's optimal face)."""

from dataclasses import replace
from functools import partial
from operator import attrgetter

import numpy as np

from .._working_set import SOFT_DROP_ABOVE, grow, worst_violators
from ..exceptions import SolverError
from ._kkt import mark_if_far
from ._result import Hyperplane, margin_result, warn_if_inexact
from ._solvers import face_margin_qp, least_hinge_ipm, margin_qp, total_hinge_lp
from ._solvers._active_set import off_face
from ._solvers._cost import band_budget, rounds_budget


def soft_result(two_class, working, solution, rounds, tol):
    """The MarginResult of the soft limit's answer on ``two_class``'s rows, marked
    for its centre where float64 cannot evaluate it (:func:`~._kkt.mark_if_far`)."""
    solution = without_noise(solution, tol)
    total = two_class.total_hinge(solution.coef, solution.intercept)
    result = margin_result(two_class, working, solution, rounds, False, total)
    return mark_if_far(two_class, result)


def without_noise(solution, tol):
    """The soft limit's answer (hyperplane or machine), warned if inexact. Z lies
    in [-1, 1]: a w moving no score by tol is w = 0 to the QP's precision, and then
    left as exactly 0 (the margin is undefined, not 1/‖noise‖)."""
    warn_if_inexact(solution)
    if np.abs(solution.coef).sum() <= tol:
        return replace(solution, coef=np.zeros_like(solution.coef))
    return solution


def soft_limit(two_class, working, tol, batch):
    """Among the hyperplanes of least total hinge, the one of largest margin, on the
    hard margin's loop: each round solves both stages on the working set, takes in
    the worst violators and drops rows far inside their side (exact as the hard margin
    is: with no row outside at positive hinge, the working set's least total and its
    minimisers are all rows'). Where the rounds' modelled time nears the interior
    point's (:func:`~._solvers._cost.rounds_budget`), that answers, exact too
    (:func:`_soft_limit_of_all`)."""
    # The least hinge and its face do not depend on the frame: the LP sees features
    # equilibrated if far apart (its certificate failed at 1e8); margins stay X's.
    lp_frame = two_class.equilibrated() if two_class.uneven else two_class
    last = {}

    def solve(indices):
        rows, labels = two_class.rows(indices), two_class.labels(indices)
        weights = two_class.sample_weights(indices)
        # The LP rounds' last working set starts this stage: its LP is at hand (the
        # largest of the rounds: 0.16 s of 4.5 at 4e6 x 20 on dask blocks).
        known = last.get("lp") if np.array_equal(indices, last.get("rows")) else None
        lp = checked_least_hinge(lp_frame.rows(indices), labels, weights, known)
        sides = face_sides(lp.dual, weights)
        feasible = in_frame(lp, lp_frame, two_class)
        return _margin_at_least_hinge(rows, labels, weights, lp, sides, feasible)

    def least_hinge(indices):
        rows, weights = lp_frame.rows(indices), lp_frame.sample_weights(indices)
        last["lp"] = total_hinge_lp(rows, lp_frame.labels(indices), weights=weights)
        last["rows"] = np.array(indices, copy=True)
        return last["lp"]

    def violated():  # by the last round's hyperplane, among every active row
        if "lp" not in last:
            return np.inf  # no round yet: no progress to read
        margins = lp_frame.margins(last["lp"].coef, last["lp"].intercept)
        return np.count_nonzero(lp_frame.active & (margins < 1.0 - tol))

    affordable = None
    # The interior point's normal equations are (p + 1)²: not for wide rows.
    if two_class.cheap_passes and two_class.n_features < two_class.n_samples:
        active = np.count_nonzero(two_class.active)
        affordable = rounds_budget(active, two_class.n_features, violated)
    # The LP alone first (a round is one simplex of p + 1 rows), then both stages:
    # the second checks every row, so the first may search a backend's candidates.
    candidates = margin_violators(lp_frame, tol, batch, every=False)
    total = attrgetter("total")  # the LP's optimum: grow's progress
    lp, working, rounds = grow(
        working, least_hinge, candidates, drop_above=SOFT_DROP_ABOVE,
        affordable=affordable, progress=total,
    )  # fmt: skip
    if lp is None:
        try:
            return _soft_limit_of_all(two_class, lp_frame, tol, batch, rounds)
        except SolverError:
            # Unproved when the weights are 1e8+ apart (the small rows' α drown in
            # the balance's rounding), or by bands within the interior point's
            # price: the rounds, without a budget, decide.
            lp, working, more = grow(
                working, least_hinge, candidates, drop_above=SOFT_DROP_ABOVE,
                progress=total,
            )  # fmt: skip
            rounds += more
    violators = margin_violators(two_class, tol, batch)
    solution, working, more = grow(
        working, solve, violators, drop_above=SOFT_DROP_ABOVE
    )
    return soft_result(two_class, working, solution, rounds + more, tol)


def _soft_limit_of_all(two_class, lp_frame, tol, batch, rounds):
    """The soft limit's result from every row's exact least hinge
    (:func:`_exact_least_hinge`), after ``rounds`` of the LP: the largest margin on
    the LP's optimal face by the hard margin's loop, the face's sides
    (:func:`face_sides`) in place of ``≥ 1``."""
    lp, alpha = _exact_least_hinge(lp_frame)
    sides = face_sides(alpha, two_class.weights)
    feasible = in_frame(lp, lp_frame, two_class)

    def solve(indices):
        rows, labels = two_class.rows(indices), two_class.labels(indices)
        solution = face_margin_qp(rows, labels, sides[indices], feasible)
        if not solution.feasible:
            raise SolverError(
                "Clarabel reports the least-hinge face infeasible on a subset of "
                "the samples, which contains the LP's answer. Standardising the "
                "features (StandardScaler) may help."
            )
        return solution

    start = np.flatnonzero(two_class.active & (sides == 0))
    if start.size == 0:  # every α at a bound (a row repeated with both labels):
        # the p + 1 active rows nearest the LP's margin
        margins = two_class.margins(*feasible)
        distance = np.where(two_class.active, np.abs(margins - 1), np.inf)
        size = min(two_class.n_features + 1, np.count_nonzero(two_class.active))
        start = np.sort(np.argpartition(distance, size - 1)[:size])
    violators = face_violators(two_class, sides, tol, batch)
    solution, working, more = grow(start, solve, violators)
    check_attains(two_class, solution, lp.total)
    return soft_result(two_class, working, solution, rounds + more, tol)


def margin_violators(frame, tol, batch, every=True):
    """The loop's ``violators`` of margin ``≥ 1 - tol`` on ``frame``'s rows, ``batch``
    a round or as many as the working set holds; ``every`` as in
    :meth:`~sklearn_linsep._rows._protocol.TwoClassRows.violators`."""

    def violators(solution, working):
        coef, intercept = solution.coef, solution.intercept
        size = max(batch, working.size)
        return frame.violators(coef, intercept, 1.0 - tol, working, size, every=every)

    return violators


def face_violators(two_class, sides, tol, batch):
    """The loop's ``violators``: rows off their ``sides`` of the face past ``tol``."""

    def violators(solution, working):
        off = off_face(two_class.margins(solution.coef, solution.intercept), sides)
        violation = np.where(two_class.active, off - tol, -np.inf)
        return worst_violators(violation, working, max(batch, working.size))

    return violators


def _exact_least_hinge(two_class):
    """The least total hinge of all samples, exact: ``(lp, α)``, ``α`` the dual on
    every sample, proved optimal by weak duality. First a crossover of the interior
    point (:func:`_vertex_of_guess`); else its hyperplane sends the samples within
    ``band`` of their margin to the LP, holds those below at ``α = s`` (hinge linear
    there), the rest at ``α = 0``; a wrong guess (infeasible LP, failed proof) widens
    the band while the bands' LPs together cost no more than the interior point
    (:func:`~._solvers._cost.band_budget`), else a SolverError (the rounds, which
    need no guess, decide)."""
    two_class.keep_centred()
    guess = _interior_point_of_all(two_class)
    vertex = _vertex_of_guess(two_class, guess)
    if vertex is not None:
        return vertex
    margins = two_class.margins(guess.coef, guess.intercept)
    affordable = band_budget(np.count_nonzero(two_class.active), two_class.n_features)
    for band in (1e-6, 1e-4, 1e-2, 1e-1, np.inf):
        near = np.flatnonzero(two_class.active & (np.abs(margins - 1) <= band))
        if near.size == 0:
            continue  # no row at the margin: the guess is off, widen the band
        if not affordable(near.size):
            break  # a poor guess's wide band is an LP of most rows: the rounds decide
        held = np.where(two_class.active & (margins < 1 - band), two_class.weights, 0.0)
        rows, labels = two_class.rows(near), two_class.labels(near)
        fixed = two_class.augmented_sum(held * two_class.c)
        weights = two_class.sample_weights(near)
        lp = total_hinge_lp(rows, labels, weights=weights, fixed=fixed)
        proved = lp.feasible and _proved_on_every_row(two_class, held, near, lp)
        if proved:
            return proved
    raise SolverError(
        "The interior point's guess of the least total hinge was not proved on a "
        "band of rows HiGHS solves at the interior point's price."
    )


def _interior_point_of_all(two_class):
    """:func:`~._solvers.least_hinge_ipm` over every active row, by passes over
    X (Z kept between them where it fits); ``dual`` on every row, 0 on the
    inactive."""
    active = np.flatnonzero(two_class.active)
    c, weights = two_class.c[active], two_class.weights[active]

    def spread(values):
        full = np.zeros(two_class.n_samples)
        full[active] = values
        return full

    def normal(theta, y):  # c_i² = 1
        scores, product = two_class.normal_product(spread(theta), y[:-1], y[-1])
        return c * scores[active], product

    guess = least_hinge_ipm(
        gram=lambda theta, single: two_class.augmented_gram(spread(theta), single),
        combine=lambda v: two_class.augmented_sum(spread(v * c)),
        products=lambda y: c * two_class.scores(y[:-1], y[-1])[active],
        normal=normal,
        upper=weights,
    )
    return replace(guess, dual=spread(guess.dual))


def _vertex_of_guess(two_class, guess):
    """The LP's optimal vertex by crossover from the interior point, proved by weak
    duality, or None (the LP decides). The rows whose ``α`` lies farthest inside its
    bounds are the basis; the others keep the bound nearest their ``α``. A small basic
    ``α`` is hard to tell from a non-basic one (both ~1e-6 s off their bounds), so two
    bases are tried: the p + 1 farthest, and those clearly inside. Each costs one solve
    of order p + 1 and three passes."""
    weights, active = two_class.weights, two_class.active
    alpha = guess.dual
    interior = np.zeros(len(alpha))
    interior[active] = np.minimum(alpha, weights - alpha)[active] / weights[active]
    candidates = np.flatnonzero(interior > 1e-9)
    if candidates.size == 0:
        return None
    size = two_class.n_features + 1
    if candidates.size > size:
        candidates = candidates[np.argpartition(interior[candidates], -size)[-size:]]
    candidates = np.sort(candidates)
    clear = candidates[interior[candidates] > 1e-4]
    bases = [candidates] + ([clear] if 0 < clear.size < candidates.size else [])
    for basis in bases:
        held = np.where(active & (alpha >= weights / 2), weights, 0.0)
        held[basis] = 0.0
        vertex = _vertex_on_basis(two_class, guess, basis, held)
        if vertex is not None:
            return vertex
    return None


def _vertex_on_basis(two_class, guess, basis, held):
    """The vertex with rows ``basis`` at margin 1 and ``α = held`` elsewhere, proved by
    weak duality, or None. ``(w, b)``: the guess moved least onto the basis' margins;
    the basic ``α`` solve ``Σ α c (z, 1) = 0``."""
    weights, c = two_class.weights, two_class.c
    signed = c[basis, None] * np.column_stack(
        [two_class.rows(basis), np.ones(basis.size)]
    )
    start = np.r_[guess.coef, guess.intercept]
    plane = start + np.linalg.lstsq(signed, 1.0 - signed @ start, rcond=None)[0]
    basic = np.linalg.lstsq(signed.T, -two_class.augmented_sum(held * c), rcond=None)[0]
    bound = weights[basis]
    if np.any(basic < -1e-9 * bound) or np.any(basic > bound * (1 + 1e-9)):
        return None
    vertex = Hyperplane(True, plane[:-1], float(plane[-1]), np.clip(basic, 0.0, bound))
    return _proved_on_every_row(two_class, held, basis, vertex)


# A dual weight within this share of its bound (0 or s) is at it (face_sides): ten
# times HiGHS's feasibility tolerance. A degenerate vertex's basic α of ~1e-12
# (1 000 x 100, three rows copied across) held rows whose every optimum leaves them
# at margin 1.03-1.11 at exactly 1: an answer of the least hinge, not the largest
# margin among those (25% off W), which no check of the hinge sees.
FACE_ZERO = 1e-9


def face_sides(alpha, weights):
    """Each row's constraint on the LP's optimal face, by complementary slackness
    with the dual ``α``: ``+1`` (``≥ 1``) where ``α = 0``, ``0`` (``= 1``) where
    ``0 < α < s``, ``-1`` (``≤ 1``, its hinge free) where ``α = s``."""
    at_bound = alpha >= weights * (1 - FACE_ZERO)
    return np.where(alpha <= FACE_ZERO * weights, 1, np.where(at_bound, -1, 0))


def check_attains(two_class, solution, least):
    """A SolverError unless the face's answer attains the least total hinge."""
    total = two_class.total_hinge(solution.coef, solution.intercept)
    if not attains(total, least, two_class.weights):
        raise SolverError(
            "The largest margin on the least-hinge face does not attain the least "
            "total hinge on all samples. Standardising the features (StandardScaler) "
            "may help."
        )


def attains(total, least, weights):
    """Whether ``total``, a total hinge on rows of ``weights``, is the least one."""
    return total <= least * (1 + 1e-9) + 1e-9 * weights.sum()


def in_frame(lp, lp_frame, frame):
    """The LP's hyperplane (or machine) found on ``lp_frame``'s rows (same centre, each
    feature at its own spread) on ``frame``'s: a point of the face, a primal start."""
    return lp.coef * (frame.scale / lp_frame.scale), lp.intercept


def _margin_at_least_hinge(rows, labels, weights, lp, sides, feasible=None):
    """The second stage on a set of rows: the largest margin among hyperplanes of total
    hinge ``lp.total`` (``feasible``: one of them; ``lp.dual`` defines the face)."""

    def attains_least(solution):
        hinge = np.maximum(0, 1 - labels * (rows @ solution.coef + solution.intercept))
        return attains(weights @ hinge, lp.total, weights)

    # The LP's face by complementary slackness: p + 1 variables and no budget row,
    # whose thin interior and dense fill make the budget QP far slower.
    try:
        solution = face_margin_qp(rows, labels, sides, feasible)
        if solution.feasible and attains_least(solution):
            return solution
    except SolverError:
        pass
    # The LP is exact to ~1e-12 relative (a basic solution): the QP gets that room.
    budget = lp.total * (1 + 1e-11) + 1e-12 * weights.sum()
    try:
        solution = margin_qp(
            rows, labels, slack_budget=budget, weights=weights, accept=attains_least
        )
    except SolverError as error:
        raise SolverError(
            f"{error} Nor did the QP over the LP's optimal face reach the least "
            "total hinge. Standardising the features (StandardScaler) may help."
        ) from error
    if not solution.feasible:
        raise SolverError(
            f"Clarabel reports the margin QP infeasible ({solution.status.value}) at "
            "the least total hinge the LP found, and the QP over the LP's "
            "optimal face did not reach it either: the features' scales are "
            "beyond the interior point. Standardising the features "
            "(StandardScaler) may help."
        )
    # The budget QP's multipliers are μ s on the rows beyond their margin; less
    # μ α* (the LP's dual: Σ α* c (z, 1) = 0, so w and Σ ν c stay) they are the
    # face's, 0 there: one meaning of the dual whichever QP solved it.
    solution.dual = solution.dual - solution.budget_multiplier * lp.dual
    return solution


def checked_least_hinge(rows, labels, weights, solution=None):
    """The LP's least total hinge on ``rows`` (``solution``, if it was solved
    already), proved by its dual, or a SolverError."""
    if solution is None:
        solution = total_hinge_lp(rows, labels, weights=weights)
    sums, total = partial(_augmented_sum, rows), solution.total
    dual = _certified_dual(solution.dual, weights, labels, sums, total)
    if dual is None:
        raise SolverError(
            "HiGHS's least total hinge does not come with a valid dual certificate "
            "on these rows. Standardising the features (StandardScaler) may help."
        )
    return replace(solution, dual=dual)


def _augmented_sum(rows, v, absolute=False):
    """``Σ v_i (z_i, 1)`` of dense or sparse rows (of ``|z_i|`` with ``absolute``)."""
    rows = abs(rows) if absolute else rows
    return np.r_[np.asarray(rows.T @ v).ravel(), v.sum()]


def _proved_on_every_row(two_class, held, rows, solution):
    """``(solution, α)``, ``solution`` with its total hinge, where its dual on ``rows``
    and ``α = held`` elsewhere pass :func:`_certified_dual` on every row (two passes
    a try: balance and terms); else None."""
    alpha = held.copy()
    alpha[rows] = solution.dual
    total = two_class.total_hinge(solution.coef, solution.intercept)
    sums = two_class.augmented_sum
    alpha = _certified_dual(alpha, two_class.weights, two_class.c, sums, total)
    if alpha is not None:
        return replace(solution, total=total), alpha
    return None


# Duals below this share of the largest are taken for the LP's noise where the dual as
# given fails its check: a row copied into the other class (hinge 2, the copies at
# α = 1 balance exactly) came with 48 more rows at α ~ 5e-11, whose imbalance, 8e-12
# beyond the bound, refused the fit.
DUAL_NOISE = 1e-7


def _certified_dual(alpha, weights, c, augmented_sum, total):
    """``alpha`` where it passes :func:`_dual_certificate_holds`, else ``alpha``
    less its entries below ``DUAL_NOISE`` of the largest where that passes, else
    None (the check, not the cleaning, is the proof)."""
    if _dual_certificate_holds(alpha, weights, c, augmented_sum, total):
        return alpha
    cleaned = np.where(alpha > DUAL_NOISE * np.max(alpha, initial=0.0), alpha, 0.0)
    if _dual_certificate_holds(cleaned, weights, c, augmented_sum, total):
        return cleaned
    return None


def _dual_certificate_holds(alpha, weights, c, augmented_sum, total):
    """Weak duality: weights ``0 ≤ α ≤ s`` with ``Σ α c (z, 1) = 0`` (to rounding
    relative to ``Σ α |(z, 1)|``; ``augmented_sum(v, absolute)`` gives ``Σ v (z, 1)``
    and ``Σ v |(z, 1)|``) give ``Σ s ξ ≥ Σ α`` for every hyperplane, so a hyperplane
    of total hinge ``total ≤ Σ α`` is a least one."""
    balance = augmented_sum(alpha * c)
    terms = augmented_sum(alpha, absolute=True)
    return bool(
        np.all(alpha >= 0)
        and np.all(alpha <= weights * (1 + 1e-9))
        and np.all(np.abs(balance) <= 1e-8 * terms + 1e-12 * alpha.sum() + 1e-300)
        and alpha.sum() >= total * (1 - 1e-9)
    )
