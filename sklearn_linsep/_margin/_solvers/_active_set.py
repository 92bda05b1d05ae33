"""Exact active-set methods: KKT systems of a support solved to rounding
(:func:`support_hyperplane`, :func:`machine_on_support`), the nearest points'
finish and the least-hinge face (:func:`_active_set_finish`) and the primal method
from a feasible point (:func:`margin_from_feasible`, :func:`machine_from_feasible`)."""

from functools import partial

import numpy as np
from scipy.linalg import lapack, lstsq, lu_solve, qr, solve_triangular

from ..._exact._frames import correctly_rounded_coordinates, splittable
from ..._kesler import class_columns, kesler_matrix, pair_margins
from ..._working_set import two_sided as _two_sided
from .._result import Hyperplane, Status


def on_and_outside_margin(margins, support, tol):
    """Every margin at least 1 - tol, and the support's within tol of 1."""
    return np.min(margins) >= 1 - tol and np.all(np.abs(margins[support] - 1) <= tol)


def _most_wrong_sign(alpha, sides=None):
    """Position of the multiplier furthest on the wrong side (``< 0`` on side +1,
    ``> 0`` on side -1, none on 0) beyond the largest's rounding; or None."""
    wrong = -alpha if sides is None else -sides * alpha
    if np.max(wrong, initial=0) > 1e-9 * max(np.abs(alpha).max(initial=0), 1e-300):
        return int(np.argmax(wrong))
    return None


def off_face(margins, sides):
    """How far each row's margin is from its side of the least-hinge face
    (positive: off it): ``≥ 1`` on side +1, ``= 1`` on 0, ``≤ 1`` on -1."""
    return np.where(sides == 0, np.abs(margins - 1), -sides * (margins - 1))


def optimal_hyperplane(coef, intercept, dual, c):
    """The optimal Hyperplane of a hard margin's ``(w, b, α)`` on rows of sides
    ``c``, with its nearest points' λ (the next subproblem's warm start)."""
    weights = as_hull_weights(dual, c)
    return Hyperplane(True, coef, float(intercept), dual, Status.OPTIMAL, weights)


def as_hull_weights(dual, c):
    """The nearest points' λ = α / Σ_side α of a hard margin's α (a warm start)."""
    weights = np.zeros(len(c))
    for side in (c > 0, c < 0):
        total = dual[side].sum()
        if total > 0:
            weights[side] = dual[side] / total
    return weights


def margin_from_feasible(Z, c, coef, intercept, tol, sides=None):
    """The maximal margin of ``Z`` by the primal active-set method (Nocedal & Wright,
    Alg. 16.3) from a separating ``(coef, intercept)``, or None: each step solves the
    held rows' equality QP (:func:`_equality_margin`, keeping every feature's digits;
    no Gram matrix: for hulls too close for the nearest points at the largest scale),
    moves until a row blocks and takes it in; at the QP's solution a wrong-signed
    multiplier leaves. With ``sides`` (per row ``+1``: ``≥ 1``, ``0``: ``= 1``, ``-1``:
    ``≤ 1``) it runs over the least-hinge LP's optimal face from a point on it."""

    def equality(held, right):
        if _two_sided(c[held]):
            return _equality_margin(Z[held], c[held])
        # One class on the margin: w = 0 meets its equalities.
        return np.zeros(Z.shape[1]), float(c[held[0]]), np.zeros(len(held))

    def margins_of(coef, intercept):
        return c * (Z @ coef + intercept)

    magnitude = np.abs(Z)

    def sizes_of(coef, intercept):  # each margin's terms' size: its rounding's scale
        return magnitude @ np.abs(coef) + abs(intercept)

    try:
        with np.errstate(over="raise"):
            found = _from_feasible(
                margins_of, equality, coef, intercept, sides, None, Z.shape[1],
                sizes_of=sizes_of,
            )  # fmt: skip
    except (FloatingPointError, np.linalg.LinAlgError):
        return None  # the equality QP's terms beyond float64 (features 1e±80 apart)
    if found is None:
        return None
    coef, intercept, margins, held, dual, sides, _ = found
    off = _off_target(margins, sides, held)
    doubt = np.flatnonzero(off > tol)
    if doubt.size:
        # Rows ~1e6 from the origin: float64 evaluates their margins to ~1e-9 and
        # holds the hyperplane's own coefficients only to ~eps of their terms (the
        # intercept's last bit), both beyond tol. A row that rounding may have put
        # past tol is judged on its margin correctly rounded, allowed the
        # coefficients' rounding (the same answer on every CPU's summation).
        sizes = sizes_of(coef, intercept)[doubt]
        if np.any(off[doubt] > tol + _rounding(sizes)) or not (
            splittable(Z[doubt]) and splittable(np.r_[coef, intercept])
        ):
            return None
        margins[doubt] = c[doubt] * correctly_rounded_coordinates(
            Z[doubt], np.zeros(Z.shape[1]), coef, intercept
        )
        off = _off_target(margins, sides, held)
        if np.any(off[doubt] > tol + 2 * np.finfo(float).eps * sizes):
            return None
    return optimal_hyperplane(coef, intercept, dual, c)


def _from_feasible(margins_of, equality, coef, intercept, sides, right, unknowns,
                   pairs=None, sizes_of=None):  # fmt: skip
    """The primal active set of :func:`margin_from_feasible` and
    :func:`machine_from_feasible` to its KKT point, ``(coef, intercept, margins, held,
    dual, sides, right)``, or None, by ``margins_of(coef, intercept)`` and the held
    constraints' equality QP ``equality(held, right[held])``. ``pairs``: ``(Z, own,
    others, K)``, whose dependent pairs are not taken in, whose held sets seen again
    at a full step are a cycle, and whose full step lands on the QP's answer itself.
    ``sizes_of(coef, intercept)``: the size of each margin's terms; a step whose
    every change is within their rounding blocks on no row."""
    margins = margins_of(coef, intercept)
    n = len(margins)
    if sides is None:
        least = float(np.min(margins))
        if not least > 0:
            return None
        coef, intercept, margins = coef / least, intercept / least, margins / least
        sides, right = np.ones(n), np.ones(n)
        held = [int(np.argmin(margins))]
    else:
        sides = np.asarray(sides, dtype=float)
        right = np.ones(n) if right is None else right
        held = np.flatnonzero(sides == 0)
        held = list(held if pairs is None else held[_independent(pairs, held)])
        if not held:
            off = np.where(sides != 0, sides * (margins - right), np.inf)
            held = [int(np.argmin(off))]
    direction = np.where(sides == 0, 1.0, sides)  # of each constraint's slack
    visited = set()  # the held sets at a full step: one seen again is a cycle
    for _ in range(8 * unknowns + 50 + len(held)):
        target_coef, target_intercept, alpha = equality(held, right[held])
        change = margins_of(target_coef - coef, target_intercept - intercept)
        change *= direction
        room = np.full(n, np.inf)
        # Pairs: a change at the largest's rounding is none (a pair taken in for it
        # would depend on the held ones: multipliers not unique, the method cycled).
        rounding = 0.0 if pairs is None else np.max(np.abs(change), initial=0.0)
        falling = change < -1e-12 * rounding
        if sizes_of is not None and _no_step(change, sizes_of, coef, intercept,
                                             target_coef, target_intercept):
            # Held rows fix the point, and a row taken in for a change at rounding
            # depends on them (features 5e7 apart: held sets of 3 and 4 in turn,
            # without end). The final check on the margins decides the answer.
            falling[:] = False
        falling[held] = False
        room[falling] = direction[falling] * (margins[falling] - right[falling]) / (
            -change[falling]
        )
        while True:
            blocking = int(np.argmin(room))
            step = min(1.0, max(float(room[blocking]), 0.0))
            if step == 1.0 or pairs is None:
                break
            if _independent(pairs, np.r_[held, blocking]).size > len(held):
                break
            room[blocking] = np.inf
        if step < 1.0 or pairs is None:
            coef = coef + step * (target_coef - coef)
            intercept = intercept + step * (target_intercept - intercept)
            margins = margins_of(coef, intercept)
        else:
            coef, intercept = target_coef, target_intercept
        if step < 1.0:
            held.append(blocking)
            continue
        wrong = _most_wrong_sign(alpha, sides[held])
        if wrong is not None:
            if pairs is not None:
                # Signs that rounding decides (features ~1e6 apart: multipliers reach
                # 1e13 and cancel) let a pair leave and rejoin without end (2 000
                # steps, K = 16).
                state = frozenset(held)
                if state in visited:
                    return None
                visited.add(state)
                margins = margins_of(coef, intercept)
            held.pop(wrong)
            continue
        dual = np.zeros(n)
        dual[held] = np.where(sides[held] > 0, np.maximum(alpha, 0.0), alpha)
        return coef, intercept, margins, held, dual, sides, right
    return None


def _off_target(margins, sides, held):
    """Each row's distance off its side of the face, the held rows' off 1."""
    off = off_face(margins, sides)
    off[held] = np.abs(margins[held] - 1)
    return off


def _rounding(sizes):
    """What float64 may err by on margins whose terms have these sizes."""
    return 16 * np.finfo(float).eps * sizes


def _no_step(change, sizes_of, coef, intercept, target_coef, target_intercept):
    """Whether every margin's change toward the target is within the rounding of
    its terms (``sizes_of``: their size) at both ends of the step: the target is
    the current point. (Only then: a real change below that rounding, on rows far
    from the origin, is still a change.)"""
    rounding = _rounding(
        sizes_of(coef, intercept) + sizes_of(target_coef, target_intercept)
    )
    return bool(np.all(np.abs(change) <= rounding))


def _equality_margin(Z, c):
    """``(w, b, α)``: the least ``‖w‖`` with ``c_i (w·z_i + b) = 1`` on every row,
    ``w = Σ α_i c_i z_i``, ``Σ α_i c_i = 0``, features on any scales. With
    ``Ã = [Z S⁻¹, 1]`` (S: each feature's largest entry), Ã's SVD gives a particular
    solution and the null space; the least ``‖w‖ = ‖S⁻¹ u‖`` there is least squares
    with rows weighted by ``1/S``, stable by Householder QR on rows sorted largest
    first (Powell & Reid 1969; Cox & Higham 1998)."""
    m, q = Z.shape
    size = np.max(np.abs(Z), axis=0)
    size = np.where(size > 0, size, 1.0)
    scaled = np.column_stack([Z / size, np.ones(m)])
    left, values, right = np.linalg.svd(scaled, full_matrices=True)
    rank = int(np.sum(values > 1e-13 * values[0]))
    particular = right[:rank].T @ ((left[:, :rank].T @ c) / values[:rank])
    null = right[rank:].T  # (q + 1, k)
    u, b = particular[:q], particular[q]
    if null.shape[1]:
        weighted = null[:q] / size[:, None]
        order = np.argsort(-np.max(np.abs(weighted), axis=1), kind="stable")
        basis, triangle = qr(weighted[order], mode="economic")  # rows sorted
        shift = np.linalg.lstsq(triangle, basis.T @ -(u / size)[order], rcond=None)[0]
        u, b = u + null[:q] @ shift, b + null[q] @ shift
    coef = u / size
    # Ãᵀ β = (w / S, 0) (w = Σ β_i z_i, Σ β_i = 0): consistent, so each equation,
    # weighted by its own terms, holds to its own rounding over the features' decades.
    system, target = scaled.T, np.r_[coef / size, 0.0]
    beta = np.linalg.lstsq(system, target, rcond=None)[0]
    for _ in range(2):
        weight = 1 / np.maximum(np.abs(system) @ np.abs(beta) + np.abs(target), 1e-300)
        beta = np.linalg.lstsq(system * weight[:, None], target * weight, rcond=None)[0]
    return coef, float(b), beta * c


# Exchanges a finish searches (each solves the support once per row): on touching
# data 54 searches took 2 s of a 2.3 s verdict the exact simplex decided anyway.
MAX_EXCHANGES = 3


def _active_set_finish(Z, c, support, tol, max_steps=None, sides=None):
    """``(w, b, α)`` meeting the KKT conditions on ``Z`` to rounding, from the nearest
    points' support by a primal active set on :func:`support_hyperplane` (a multiplier
    of the wrong sign for its side leaves, the row furthest off its side joins); None
    if it does not settle in a few steps. ``sides``: the least-hinge face's
    (:func:`~._clarabel.face_margin_qp`; no exchanges, ``α`` signed)."""
    face, support, exchanges = sides is not None, list(support), 0
    sides = np.ones(len(c)) if sides is None else sides
    for _ in range(max_steps or 2 * Z.shape[1] + 10):
        if len(support) < 2 or not (face or _two_sided(c[support])):
            return None
        found = support_hyperplane(Z[support], c[support])
        if found is None:
            return None
        coef, intercept, alpha = found
        margins = c * (Z @ coef + intercept)
        off = off_face(margins, sides)
        if np.max(off[support] if face else np.abs(margins[support] - 1)) > tol:
            # Too many rows for one hyperplane (dependent equalities): the best subset
            if face or max_steps is not None or exchanges == MAX_EXCHANGES:
                return None  # a bounded try: the nearest points do it better
            exchanges += 1
            support = _best_exchange(Z, c, support, tol)
            if support is None:
                return None
            continue
        wrong = _most_wrong_sign(alpha, sides[support])
        if wrong is not None:
            support.pop(wrong)
            continue
        worst = int(np.argmax(off))
        if off[worst] <= tol:
            dual = np.zeros(len(c))
            dual[support] = alpha if face else np.maximum(alpha, 0.0)
            return coef, intercept, dual
        support.append(worst)
    return None


def _best_exchange(Z, c, support, tol):
    """The support less one row (not the last, just added) whose exact hyperplane holds
    it at margin 1 with α ≥ 0, violating fewest rows, then of largest least margin."""
    best, best_key = None, None
    for j in support[:-1]:
        trial = [i for i in support if i != j]
        if not _two_sided(c[trial]):
            continue
        found = support_hyperplane(Z[trial], c[trial])
        if found is None:
            continue
        coef, intercept, alpha = found
        margins = c * (Z @ coef + intercept)
        if (
            np.max(np.abs(margins[trial] - 1)) > tol
            or _most_wrong_sign(alpha) is not None
        ):
            continue
        key = (np.count_nonzero(margins < 1 - tol), -np.min(margins))
        if best_key is None or key < best_key:
            best, best_key = trial, key
    return best


def support_hyperplane(Z, c, refinements=3):
    """The hard-margin hyperplane of its own support, exactly (the nearest points give
    the support, this the digits): ``(w, b, α)``, ``c_i (w·z_i + b) = 1`` on every
    row, ``w = Σ α_i c_i z_i`` of least norm, ``Σ α_i c_i = 0``; α < 0 marks non-support
    rows. ``w`` solves ``D w = r`` (rows ``z_i - z_a``, a the first positive row,
    ``r_i = c_i - c_a``) by one factorisation, refined to rounding: features scaled
    first where D has full column rank (scales 1e6 apart keep their digits), else of
    least norm by the QR of ``Dᵀ``, or by the SVD where D is rank-deficient."""
    a = int(np.argmax(c > 0))
    others = np.arange(len(c)) != a
    differences = Z[others] - Z[a]
    right = c[others] - c[a]
    rows, q = differences.shape
    column_scale = np.max(np.abs(differences), axis=0)
    column_scale = np.where(column_scale > 0, column_scale, 1.0)
    solve = gamma_of = None
    if rows == q:  # square: one LU (a third of the QR's work, no Q to form)
        # getrf is lu_factor without its warning on a singular D (tested just
        # below): warnings' filters are the process's, and pairs run in threads
        factors = lapack.dgetrf(differences / column_scale)[:2]
        if _full_rank(factors[0]):

            def solve(rhs):
                return lu_solve(factors, rhs, check_finite=False) / column_scale

            def gamma_of(coef):  # Dᵀ γ = w: D = L U diag(scale) up to pivoting
                return lu_solve(
                    factors, coef / column_scale, trans=1, check_finite=False
                )

    elif rows > q:
        basis, triangle = qr(differences / column_scale, mode="economic")
        if _full_rank(triangle):

            def solve(rhs):
                return solve_triangular(triangle, basis.T @ rhs) / column_scale

            def gamma_of(coef):  # Dᵀ γ = w, least norm: D = Q R diag(scale)
                return basis @ solve_triangular(
                    triangle, coef / column_scale, trans="T"
                )

    else:
        # Least-norm w = Dᵀγ, D Dᵀ γ = r: with Dᵀ = QR, γ = R⁻¹R⁻ᵀr refined on the
        # residual (corrected semi-normal equations, Björck); Dᵀγ is in the rows' span.
        triangle = qr(differences.T, mode="r", check_finite=False)[0][:rows]
        if _full_rank(triangle):
            gamma = np.zeros(rows)
            for _ in range(refinements + 1):
                residual = right - differences @ (gamma @ differences)
                gamma += solve_triangular(
                    triangle, solve_triangular(triangle, residual, trans="T")
                )
            spanned = gamma @ differences
            terms = np.abs(differences) @ np.abs(spanned) + np.abs(right)
            error = np.abs(differences @ spanned - right) / np.maximum(terms, 1e-300)
            if np.max(error) <= 1e-12:
                return _with_dual(Z, c, a, others, spanned, gamma)
            # Too ill-conditioned for that: the least norm by a QR of Dᵀ, features
            # sorted largest first, keeps the small ones' digits (:func:`_least_norm`).
            found = _least_norm(differences, right, refinements)
            return _with_dual(Z, c, a, others, *found)

    if solve is None:  # dependent rows: least squares of least norm by the SVD

        def solve(rhs):
            return np.linalg.lstsq(differences, rhs, rcond=None)[0]

        def gamma_of(coef):
            return np.linalg.lstsq(differences.T, coef, rcond=None)[0]

    with np.errstate(over="ignore", invalid="ignore"):
        coef = solve(right)
        for _ in range(refinements):
            coef = coef + solve(right - differences @ coef)
        # Features 1e180 apart in the rows' one scale: w / scale, and the dual,
        # beyond float64 (None: the caller's other route).
        if not np.all(np.isfinite(coef / column_scale)):
            return None
        gamma = gamma_of(coef)
        terms = np.abs(differences.T) @ np.abs(gamma) + np.abs(coef)
        if not np.all(np.isfinite(terms)):
            return None
    if np.any(np.abs(differences.T @ gamma - coef) > 1e-12 * terms):
        # Features far apart: scaling each (consistent) equation keeps their digits.
        gamma = np.linalg.lstsq(
            differences.T / column_scale[:, None], coef / column_scale, rcond=None
        )[0]
    return _with_dual(Z, c, a, others, coef, gamma)


def _with_dual(Z, c, a, others, coef, gamma):
    """``(w, b, α)`` from ``w = Σ_{i≠a} γ_i (z_i - z_a)``: β = α c is γ on the
    other rows and ``-Σ γ`` on row a; b makes the mean margin of the rows 1."""
    intercept = float(np.mean(c - Z @ coef))
    beta = np.empty(len(c))
    beta[others], beta[a] = gamma, -gamma.sum()
    return coef, intercept, beta * c


def _full_rank(triangle):
    return 0 < _rank(triangle) == min(triangle.shape)


def machine_on_support(Z, own, others, n_classes):
    r"""The machine of least ``½ Σ‖w_k‖²`` with every pair (row ``z_j``, class
    ``own_j``, other class ``others_j``) at margin 1: ``(W, b, α)``,
    ``W = Σ_j α_j (e_own - e_other) z_jᵀ``, ``Σ_j α_j (e_own - e_other) = 0``,
    ``Σ b = 0``; α < 0 marks non-support pairs. By default from ``G = (Z Zᵀ) ∘ (Bᵀ
    B)`` (``B``: columns ``e_own - e_other``; margins ``G α + Bᵀ b``) by one LU
    refined on its residual (ν of ``Σ b = 0`` is 0), least squares where pairs depend
    (α of least norm, W unique)."""
    m, classes = len(own), class_columns(own, others, n_classes)
    gram = (Z @ Z.T) * (classes.T @ classes)
    ones = np.ones((n_classes, 1))
    system = np.block(
        [
            [gram, classes.T, np.zeros((m, 1))],
            [classes, np.zeros((n_classes, n_classes)), ones],
            [np.zeros((1, m)), ones.T, np.zeros((1, 1))],
        ]
    )
    right = np.r_[np.ones(m), np.zeros(n_classes + 1)]
    factors = lapack.dgetrf(system)[:2]  # as support_hyperplane: checked below
    if _full_rank(factors[0]):
        solution = lu_solve(factors, right, check_finite=False)
        for _ in range(2):
            solution += lu_solve(factors, right - system @ solution, check_finite=False)
    else:
        solution = _least_squares(system, right)
    alpha, intercept = solution[:m], solution[m : m + n_classes]
    return (classes * alpha) @ Z, intercept, alpha


def _machine_by_qr(Z, own, others, n_classes, right=None, refinements=2):
    """:func:`machine_on_support` in the primal, never via the Gram matrix, at margins
    ``right`` (default 1): the pairs' ``A_w W + A_b b = right``; ``Q_⊥`` (complement
    of ``A_b``'s range, by QR) removes b, leaving ``C W = d``, ``C = Q_⊥ᵀ A_w``; W is
    its least-norm solution (:func:`_least_norm`), ``α = Q_⊥ α'`` with ``W = Cᵀ α'``;
    b from ``A_b``."""
    m, p = Z.shape
    margins = np.ones(m) if right is None else right
    pairs = kesler_matrix(Z, own, others, n_classes).toarray()
    is_intercept = np.zeros(pairs.shape[1], dtype=bool)
    is_intercept[np.arange(n_classes) * (p + 1) + p] = True
    weights_part, intercept_part = pairs[:, ~is_intercept], pairs[:, is_intercept]
    basis, triangle, _ = qr(intercept_part, pivoting=True)
    complement = basis[:, _rank(triangle) :]
    equations = complement.T @ weights_part
    flat, coordinates = _least_norm(equations, complement.T @ margins, refinements)
    # No margin sees a vector added to every w_k, and the least-norm W sums to 0 over
    # the classes; the QR's rounding leaves one (as large as the largest w): removed.
    coef = flat.reshape(n_classes, p)
    coef = coef - coef.mean(axis=0)
    intercept = _least_squares(
        np.vstack([intercept_part, np.ones((1, n_classes))]),
        np.r_[margins - weights_part @ coef.ravel(), 0.0],
    )
    return coef, intercept, complement @ coordinates


def machine_from_feasible(Z, own, others, n_classes, coef, intercept, tol,
                          sides=None, right=None):  # fmt: skip
    """The Crammer–Singer margin of the pairs as :func:`margin_from_feasible`, from a
    separating ``(coef, intercept)``, equality QPs in the primal
    (:func:`_machine_by_qr`); or None. With ``sides``, ``right`` (per pair ``+1``,
    ``0``, ``-1``: margin ``≥``, ``=``, ``≤`` ``right``) it runs over the soft limit's
    face with the hinges eliminated (``_multiclass._face_as_pairs``) from the
    least-hinge LP's machine."""
    margins_of = partial(pair_margins, Z, own, others)

    def equality(held, right):
        return _machine_by_qr(Z[held], own[held], others[held], n_classes, right)

    pairs, unknowns = (Z, own, others, n_classes), Z.shape[1] * n_classes
    found = _from_feasible(
        margins_of, equality, coef, intercept, sides, right, unknowns, pairs
    )
    if found is None:
        return None
    coef, intercept, _, held, dual, sides, right = found
    # Refine the held equalities on their residual (far-apart scales cost digits):
    # the least-norm machine is linear in the right side, so this keeps it.
    for _ in range(2):
        held_margins = margins_of(coef, intercept)[held]
        more_coef, more_intercept, _ = equality(held, right[held] - held_margins)
        coef, intercept = coef + more_coef, intercept + more_intercept
    margins = margins_of(coef, intercept)
    # tol beyond the rounding of the margins' terms, |z|·(|w_own| + |w_other|) +
    # |b_own| + |b_other| (far-apart scales cancel large terms)
    size, offset = np.abs(coef), np.abs(intercept)
    terms = np.einsum("ij,ij->i", np.abs(Z), size[own] + size[others])
    within = tol + 1e-13 * (terms + offset[own] + offset[others])
    if np.any(off_face(margins - right + 1, sides) > within) or np.any(
        np.abs(margins[held] - right[held]) > within[held]
    ):
        return None
    return Hyperplane(True, coef, intercept, dual, status=Status.OPTIMAL)


def _independent(pairs, ids):
    """Sorted positions in ``ids`` of a largest independent subset of those pairs'
    constraints (pivoted QR; each column, then each row, at unit largest entry:
    features on scales far apart count alike in a rank); the others follow where the
    pairs' margins are consistent. ``pairs``: ``(Z, own, others, K)``."""
    Z, own, others, n_classes = pairs
    if not len(ids):
        return np.array([], dtype=np.intp)
    rows = kesler_matrix(Z[ids], own[ids], others[ids], n_classes).toarray()
    rows = rows / np.maximum(np.max(np.abs(rows), axis=0), 1e-300)
    rows = rows / np.maximum(np.max(np.abs(rows), axis=1, keepdims=True), 1e-300)
    triangle, order = qr(rows.T, mode="r", pivoting=True)
    return np.sort(order[: _rank(triangle)])


def _rank(triangle):
    """The numerical rank of a pivoted QR's triangle."""
    diagonal = np.abs(np.diag(triangle))
    return int(np.sum(diagonal > 1e-12 * max(diagonal.max(initial=0.0), 1e-300)))


def _least_norm(equations, right, refinements):
    """``(x, y)``: least-norm ``E x = r``, ``x = Eᵀ y``, by a QR of ``Eᵀ`` (rows sorted
    by size: each keeps its digits), refined; by the SVD if E is rank-short."""
    rows, columns = equations.shape
    if 0 < rows <= columns:
        order = np.argsort(-np.max(np.abs(equations), axis=0), kind="stable")
        basis, triangle = qr(equations.T[order], mode="economic")
        if _full_rank(triangle):
            restore = np.argsort(order)
            # x = Q R⁻ᵀ r (Eᵀ = P Q R), never via E Eᵀ (it loses small weights' digits).
            lifted = np.zeros(rows)  # R⁻ᵀ r, refined
            solution = np.zeros(columns)
            for _ in range(refinements + 1):
                step = solve_triangular(
                    triangle, right - equations @ solution, trans="T"
                )
                lifted += step
                solution = (basis @ lifted)[restore]
            coordinates = solve_triangular(triangle, lifted)
            terms = np.abs(equations.T) @ np.abs(coordinates) + np.abs(solution)
            if np.any(np.abs(equations.T @ coordinates - solution) > 1e-12 * terms):
                # Weights far apart: Eᵀ y = x is consistent, scaling each row keeps y.
                size = np.max(np.abs(equations), axis=0)
                size = np.where(size > 0, size, 1.0)
                coordinates = _least_squares(
                    equations.T / size[:, None], solution / size
                )
            return solution, coordinates
    coordinates = _least_squares(equations @ equations.T, right)
    return _least_squares(equations, right), coordinates


def _least_squares(matrix, right):
    """Least-norm least squares by LAPACK's gelsy (complete orthogonal factorisation):
    gelsd (numpy's SVD) failed to converge on a rank-deficient 455 × 455 system."""
    return lstsq(matrix, right, lapack_driver="gelsy", check_finite=False)[0]
