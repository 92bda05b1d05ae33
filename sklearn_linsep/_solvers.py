"""The subproblem solvers of the working set, behind one result type.

* :func:`hull_margin`: the maximal margin of a set of rows, from the nearest points
  of the two convex hulls (:func:`nearest_points`, compiled) and, where needed, an
  exact active-set finish on the support (:func:`support_hyperplane`);
* :func:`margin_qp` (Clarabel): the margin with a slack budget (the soft limit's
  second stage) or through the origin (the augmented margin of Novikoff's bound);
* :func:`total_hinge_lp` and :func:`hull_intersection_lp` (HiGHS, through scipy).

Every function takes plain arrays (rows ``Z`` already centred and scaled by the
caller, labels ``c = ±1``) and returns a :class:`Hyperplane` (or weights); every
solver status is read through :data:`STATUSES`, one table, and one that is neither
optimal nor infeasible is a :class:`SolverError` that names it. No estimator is ever
seen here.
"""

from dataclasses import dataclass, replace

import clarabel
import numpy as np
import scipy.sparse as sp
from scipy.linalg import (
    cho_factor,
    cho_solve,
    lapack,
    lu_factor,
    lu_solve,
    qr,
    solve,
    solve_triangular,
)
from scipy.optimize import linprog

from ._kernels import NEAREST_ITERATIONS, nearest_points_kernel
from .exceptions import SolverError

# Tolerances at which Clarabel and HiGHS return answers accurate to ~1e-10 on data
# scaled into [-1, 1]; the callers verify the answers on all the data afterwards.
QP_TOLERANCE = 1e-11
LP_FEASIBILITY_TOLERANCE = 1e-10
MAX_ITERATIONS = 500
TIME_LIMIT = 300.0  # seconds, per solver call
FACE_TOLERANCE = 1e-9  # how far a row may be off its side of the least-hinge face


# What each solver's status means: "optimal", "infeasible", or (absent) an error.
STATUSES = {
    "clarabel": {
        "Solved": "optimal",
        "AlmostSolved": "optimal",  # checked on the data by the caller
        "PrimalInfeasible": "infeasible",
        "AlmostPrimalInfeasible": "infeasible",
    },
    "highs": {0: "optimal", 2: "infeasible"},
}


def _outcome(solver, status, what):
    """ "optimal" or "infeasible" from a solver's status, else a SolverError."""
    outcome = STATUSES[solver].get(status)
    if outcome is None:
        raise SolverError(
            f"{solver} stopped with status {status!s} on the {what} (limits: "
            f"{MAX_ITERATIONS} iterations, {TIME_LIMIT:g} s per call)."
        )
    return outcome


@dataclass
class Hyperplane:
    """The answer of a subproblem on a set of rows: a hyperplane ``(coef,
    intercept)`` with its dual, or infeasibility (no separator of the rows)."""

    feasible: bool
    coef: np.ndarray = None  # w
    intercept: float = 0.0  # b
    dual: np.ndarray = None  # α ≥ 0, one per row
    status: str = ""
    weights: np.ndarray = None  # λ of the nearest points, one per row
    total: float = None  # the least total hinge (total_hinge_lp)


def margin_qp(
    Z,
    c,
    fit_intercept=True,
    slack_budget=None,
    weights=None,
    tol=QP_TOLERANCE,
    accept=None,
):
    """``min ½‖w‖²`` subject to ``c_i (w·z_i + b) ≥ 1`` (Clarabel).

    With ``slack_budget`` the constraints become ``c_i (w·z_i + b) + ξ_i ≥ 1``,
    ``ξ ≥ 0``, ``Σ s_i ξ_i ≤ slack_budget`` (``s`` the ``weights``, default 1): the
    margin among hyperplanes whose total hinge violation is at most the budget
    (the C → ∞ limit of the soft margin).

    Returns a :class:`Hyperplane`; ``feasible`` is False when Clarabel proves the
    constraints infeasible (no separating hyperplane). An interior point can stall
    (InsufficientProgress) or stop short (AlmostSolved) where the budget leaves
    almost no interior: the QP is then tried again with Clarabel's other
    factorisation, and with each feature scaled to unit size (``u_j = w_j s_j``,
    objective ``½ Σ u_j² / s_j²``), until an answer passes ``accept(solution)``
    (default: any), before that is an error.
    """
    return _retrying(
        lambda method, scaled: _margin_qp(
            Z, c, fit_intercept, slack_budget, weights, tol, method, scaled
        ),
        accept,
        f"margin QP of {len(c)} rows",
    )


def _retrying(attempt, accept, what):
    """Clarabel's answer from the first of its factorisations and feature scalings
    that passes ``accept`` (an interior point can stall or stop short where the
    constraints leave almost no interior), or the last failure."""
    failure = None
    for method in ("qdldl", "faer"):
        for scaled in (False, True):
            try:
                solution = attempt(method, scaled)
            except SolverError as error:
                failure = error
                continue
            if not solution.feasible or accept is None or accept(solution):
                return solution
            failure = SolverError(
                f"Clarabel's answers to the {what} (last status {solution.status}) "
                "fail their check on those rows."
            )
    raise failure


def _feature_scale(Z, scaled):
    """Each column's largest magnitude (1 where it is 0, or when not ``scaled``)."""
    if not scaled or not len(Z):
        return np.ones(Z.shape[1])
    largest = np.max(np.abs(Z), axis=0)
    return np.where(largest > 0, largest, 1.0)


def _margin_qp(Z, c, fit_intercept, slack_budget, weights, tol, method, scaled):
    n, p = Z.shape
    slack_weights = np.ones(n) if weights is None else weights
    feature_scale = _feature_scale(Z, scaled)
    Z = Z / feature_scale
    n_intercept = 1 if fit_intercept else 0
    n_slack = n if slack_budget is not None else 0
    n_variables = p + n_intercept + n_slack
    quadratic = sp.diags(
        np.r_[1 / feature_scale**2, np.zeros(n_intercept + n_slack)], format="csc"
    )
    rows = -(c[:, None] * Z)
    blocks = [sp.csc_matrix(rows)]
    if fit_intercept:
        blocks.append(sp.csc_matrix(-c[:, None]))
    if n_slack:
        blocks.append(-sp.identity(n, format="csc"))
    constraints = sp.hstack(blocks, format="csc")
    bounds = -np.ones(n)
    cones = [clarabel.NonnegativeConeT(n)]
    if n_slack:
        slack_rows = sp.hstack(
            [sp.csc_matrix((n, p + n_intercept)), -sp.identity(n, format="csc")],
            format="csc",
        )
        budget_row = sp.csc_matrix(
            np.r_[np.zeros(p + n_intercept), slack_weights][None, :]
        )
        constraints = sp.vstack([constraints, slack_rows, budget_row], format="csc")
        bounds = np.r_[bounds, np.zeros(n), slack_budget]
        cones = [clarabel.NonnegativeConeT(2 * n + 1)]
    solution = clarabel.DefaultSolver(
        quadratic,
        np.zeros(n_variables),
        constraints,
        bounds,
        cones,
        _clarabel_settings(tol, method),
    ).solve()
    status = str(solution.status)
    if _outcome("clarabel", status, f"margin QP of {n} rows") == "infeasible":
        return Hyperplane(False, status=status)
    x = np.asarray(solution.x)
    return Hyperplane(
        True,
        coef=x[:p] / feature_scale,
        intercept=float(x[p]) if fit_intercept else 0.0,
        dual=np.maximum(np.asarray(solution.z)[:n], 0.0),
        status=status,
    )


def _clarabel_settings(tol=QP_TOLERANCE, method="qdldl"):
    """Clarabel quiet, at ``tol``, within the iteration and time limits. qdldl
    first: on working-set QPs of 400 × 100 dense rows the default ("auto") took
    0.19-0.35 s against 0.05-0.06 s, with as many iterations."""
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = tol
    settings.tol_feas = settings.tol_ktratio = tol
    settings.direct_solve_method = method
    settings.max_iter = MAX_ITERATIONS
    settings.time_limit = TIME_LIMIT
    return settings


def face_margin_qp(Z, c, sides):
    """The margin over the optimal face of the least-hinge LP (Clarabel).

    ``sides`` (one per row, from complementary slackness with the LP's dual α*):
    ``+1`` where α* = 0 (the row keeps ``c (w·z + b) ≥ 1``), ``0`` where
    0 < α* < s (``= 1``), ``-1`` where α* = s (``≤ 1``, its hinge free). A
    hyperplane attains the least total hinge exactly when it satisfies these
    (LP duality: optimal iff complementary to one dual optimum), so this QP, with no
    budget row, is the soft limit's second stage. ``dual`` holds the signed
    multipliers β with ``w = Σ β_i c_i z_i``.

    Solved exactly by a primal active set from the equality rows
    (:func:`_face_active_set`); where that does not settle, by Clarabel, retried as
    :func:`margin_qp` is until the answer keeps every row's side to 1e-9.
    """
    signed = np.where(sides == 0, 1.0, sides)
    exact = _face_active_set(Z, c, sides, FACE_TOLERANCE)
    if exact is not None:
        return exact

    def on_face(solution):
        return bool(np.all(_off_face(Z, c, sides, solution) <= FACE_TOLERANCE))

    return _retrying(
        lambda method, scaled: _face_margin_qp(Z, c, sides, signed, method, scaled),
        on_face,
        f"face QP of {len(c)} rows",
    )


def _off_face(Z, c, sides, solution):
    """How far each row is from its side of the face (positive: off it)."""
    margins = c * (Z @ solution.coef + solution.intercept) - 1
    return np.where(sides == 0, np.abs(margins), np.where(sides > 0, -1, 1) * margins)


def _face_active_set(Z, c, sides, tol):
    """The face QP by a primal active set: the rows held at margin 1 are solved
    exactly (:func:`support_hyperplane`); a row whose multiplier has the wrong
    sign for its side (``≥ 0`` on ``≥ 1`` rows, ``≤ 0`` on ``≤ 1`` rows) leaves, the
    row furthest off its side joins, until neither remains: the KKT conditions
    of the face QP on the rows, to rounding. None if it does not settle within a
    few steps, or has fewer than two rows to start from."""
    support = list(np.flatnonzero(sides == 0))
    for _ in range(2 * Z.shape[1] + 10):
        if len(support) < 2:
            return None
        coef, intercept, alpha = support_hyperplane(Z[support], c[support])
        solution = Hyperplane(True, coef=coef, intercept=intercept, status="Solved")
        off = _off_face(Z, c, sides, solution)
        if np.max(off[support]) > tol:
            return None  # dependent equalities: not one hyperplane
        wrong = -sides[support] * alpha
        if np.max(wrong) > 1e-12 * max(np.max(np.abs(alpha)), 1e-300):
            support.pop(int(np.argmax(wrong)))
            continue
        worst = int(np.argmax(off))
        if off[worst] <= tol:
            dual = np.zeros(len(c))
            dual[support] = alpha
            return replace(solution, dual=dual)
        support.append(worst)
    return None


def _face_margin_qp(Z, c, sides, signed, method, scaled):
    n, p = Z.shape
    feature_scale = _feature_scale(Z, scaled)
    order = np.argsort(sides == 0, kind="stable")  # inequalities first
    inequality, equality = order[sides[order] != 0], order[sides[order] == 0]
    matrix = -(signed * c)[:, None] * np.column_stack([Z / feature_scale, np.ones(n)])
    constraints = sp.csc_matrix(np.vstack([matrix[inequality], matrix[equality]]))
    bounds = np.r_[-signed[inequality], -signed[equality]]
    cones = [clarabel.NonnegativeConeT(len(inequality))]
    if len(equality):
        cones.append(clarabel.ZeroConeT(len(equality)))
    quadratic = sp.diags(np.r_[1 / feature_scale**2, 0.0], format="csc")
    solution = clarabel.DefaultSolver(
        quadratic,
        np.zeros(p + 1),
        constraints,
        bounds,
        cones,
        _clarabel_settings(method=method),
    ).solve()
    status = str(solution.status)
    if _outcome("clarabel", status, f"face QP of {n} rows") == "infeasible":
        return Hyperplane(False, status=status)
    x = np.asarray(solution.x)
    multipliers = np.empty(n)
    multipliers[np.r_[inequality, equality]] = np.asarray(solution.z)
    return Hyperplane(
        True,
        coef=x[:p] / feature_scale,
        intercept=float(x[p]),
        dual=signed * multipliers,
        status=status,
    )


def _highs_options():
    return {
        "primal_feasibility_tolerance": LP_FEASIBILITY_TOLERANCE,
        "dual_feasibility_tolerance": LP_FEASIBILITY_TOLERANCE,
        "time_limit": TIME_LIMIT,
        "presolve": True,
    }


def _check_lp(result, what):
    """``True`` when optimal, ``False`` when infeasible, else a SolverError."""
    return _outcome("highs", result.status, f"{what} LP ({result.message})") == (
        "optimal"
    )


def total_hinge_lp(Z, c, fit_intercept=True, weights=None, fixed=None):
    r"""``min Σ s_i ξ_i`` subject to ``c_i (w·z_i + b) + ξ_i ≥ 1``, ``ξ ≥ 0`` (HiGHS).

    The first stage of the C → ∞ limit of the soft margin, solved as its dual

    .. math:: \max \sum_i \alpha_i \quad\text{s.t.}\quad
              \sum_i \alpha_i c_i z_i = 0,\ \sum_i \alpha_i c_i = 0,\
              0 \le \alpha_i \le s_i,

    whose simplex basis has p + 1 rows instead of n: at 2e4 rows the dual simplex
    took 0.08 s where the primal took 10.5 s, to the same optimum. ``(w, b)`` are
    the multipliers of its equalities (``-eqlin.marginals``): on every row with
    ``0 < α_i < s_i`` the reduced cost vanishes, i.e. ``c_i (w·z_i + b) = 1``. When
    the optimum is positive, α weighs points of the two classes whose convex hulls
    meet: the Farkas certificate of inseparability.

    ``fixed`` is ``Σ s_j c_j (z_j, 1)`` over rows held at ``α_j = s_j`` outside
    ``Z`` (rows the caller knows to violate their margin at the optimum): it moves
    to the right-hand side, and their hinge terms, linear in ``(w, b)``, are
    summed by the caller. The LP may then be infeasible (the guess of those rows
    was wrong); the result says so (``feasible=False``).
    """
    n, p = Z.shape
    equalities = [c[None, :] * Z.T]
    if fit_intercept:
        equalities.append(c[None, :])
    A_eq = np.vstack(equalities)
    upper = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    right = np.zeros(A_eq.shape[0]) if fixed is None else -np.asarray(fixed, float)
    result = linprog(
        -np.ones(n),
        A_eq=A_eq,
        b_eq=right,
        bounds=np.column_stack([np.zeros(n), upper]),
        method="highs-ds",
        options=_highs_options(),
    )
    if not _check_lp(result, "total hinge"):
        if fixed is None:  # pragma: no cover - α = 0 is feasible
            raise SolverError("HiGHS reported the total hinge LP infeasible.")
        return Hyperplane(False, status="infeasible")
    multipliers = -result.eqlin.marginals
    return Hyperplane(
        True,
        coef=multipliers[:p].copy(),
        intercept=float(multipliers[p]) if fit_intercept else 0.0,
        dual=np.clip(result.x, 0.0, None),
        status="optimal",
        total=float(-result.fun),
    )


def least_hinge_ipm(gram, combine, products, upper, tol=1e-9, max_iter=80):
    r"""An approximate least-total-hinge hyperplane of all the rows, by an interior
    point on the dual LP of :func:`total_hinge_lp`.

    Mehrotra's predictor-corrector on ``min -Σ α_i`` subject to ``A α = 0``,
    ``0 ≤ α ≤ s``, where the columns of ``A`` are ``c_i (z_i, 1)``. Its normal
    equations are ``A Θ Aᵀ``, of order p + 1, so each iteration costs one
    weighted Gram pass over the rows (O(n p²)) and a few products: at 1e5 × 50
    with most rows violating their margin, ~30 iterations take 2 s where the dual
    simplex on all rows took 11 s. The answer is not exact; it is the guess from
    which the caller's exact LP on the rows near the margin starts.

    Parameters
    ----------
    gram : callable
        ``gram(theta)`` is ``Σ θ_i (z_i, 1)(z_i, 1)ᵀ``.
    combine : callable
        ``combine(v)`` is ``A v = Σ v_i c_i (z_i, 1)``.
    products : callable
        ``products(y)`` is ``Aᵀ y``, ``c_i (z_i, 1)·y`` for every row.
    upper : ndarray of shape (n,)
        The sample weights ``s > 0``.

    Returns
    -------
    Hyperplane
        ``coef, intercept`` (``(w, b) = -y``) and ``dual`` (α).
    """
    n = len(upper)
    alpha, lower_dual, upper_dual = upper / 2, np.ones(n), np.ones(n)
    y = np.zeros(len(combine(np.zeros(n))))
    scale = 1.0 + upper.sum()
    for _ in range(max_iter):
        primal_residual = -combine(alpha)
        dual_residual = -1.0 - products(y) - lower_dual + upper_dual
        room = upper - alpha
        mu = (alpha @ lower_dual + room @ upper_dual) / (2 * n)
        if (
            np.max(np.abs(primal_residual)) <= tol * scale
            and np.max(np.abs(dual_residual)) <= tol
            and 2 * n * mu <= tol * scale
        ):
            break
        theta = 1.0 / (lower_dual / alpha + upper_dual / room)
        newton = _NewtonSystem(
            _cholesky(gram(theta)),
            theta,
            combine,
            products,
            (alpha, room, lower_dual, upper_dual),
            (primal_residual, dual_residual),
        )
        lower_gap, upper_gap = alpha * lower_dual, room * upper_dual
        # Predictor (affine scaling), then Mehrotra's centring and second order.
        d_alpha, d_y, d_lower, d_upper = newton.direction(-lower_gap, -upper_gap)
        primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
        predicted = (
            (alpha + primal * d_alpha) @ (lower_dual + dual * d_lower)
            + (room - primal * d_alpha) @ (upper_dual + dual * d_upper)
        ) / (2 * n)
        target = (predicted / mu) ** 3 * mu
        d_alpha, d_y, d_lower, d_upper = newton.direction(
            target - lower_gap - d_alpha * d_lower,
            target - upper_gap + d_alpha * d_upper,
        )
        primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
        alpha = alpha + 0.995 * primal * d_alpha
        y = y + 0.995 * dual * d_y
        lower_dual = lower_dual + 0.995 * dual * d_lower
        upper_dual = upper_dual + 0.995 * dual * d_upper
    return Hyperplane(
        True, coef=-y[:-1], intercept=float(-y[-1]), dual=alpha, status="interior"
    )


@dataclass
class _NewtonSystem:
    """One iteration's Newton system of the interior point: the Cholesky factor
    of ``A Θ Aᵀ``, the iterate ``(α, s - α, z, w)`` and the residuals."""

    factor: tuple
    theta: np.ndarray
    combine: object
    products: object
    point: tuple
    residuals: tuple

    def direction(self, lower_target, upper_target):
        """``(dα, dy, dz, dw)`` towards ``α z = lower_target``,
        ``(s - α) w = upper_target`` (as increments of those products)."""
        alpha, room, lower_dual, upper_dual = self.point
        primal_residual, dual_residual = self.residuals
        rho = -dual_residual + lower_target / alpha - upper_target / room
        d_y = cho_solve(self.factor, primal_residual - self.combine(self.theta * rho))
        d_alpha = self.theta * (self.products(d_y) + rho)
        d_lower = (lower_target - lower_dual * d_alpha) / alpha
        d_upper = (upper_target + upper_dual * d_alpha) / room
        return d_alpha, d_y, d_lower, d_upper

    def step_lengths(self, d_alpha, d_lower, d_upper):
        """The largest primal and dual steps (at most 1) that keep the bounds."""
        alpha, room, lower_dual, upper_dual = self.point
        primal = min(_largest_step(alpha, d_alpha), _largest_step(room, -d_alpha), 1.0)
        dual = min(
            _largest_step(lower_dual, d_lower), _largest_step(upper_dual, d_upper), 1.0
        )
        return primal, dual


def _largest_step(values, steps):
    """The largest ``t`` with ``values + t steps ≥ 0`` (``values > 0``)."""
    falling = steps < 0
    return float(np.min(-values[falling] / steps[falling], initial=np.inf))


def _cholesky(matrix):
    """Cholesky of the normal matrix, nudged on its diagonal when it is singular
    to working precision (rows all at a bound in some direction)."""
    ridge = 0.0
    for _ in range(8):
        try:
            return cho_factor(matrix + ridge * np.eye(len(matrix)))
        except np.linalg.LinAlgError:
            ridge = max(ridge * 100, 1e-14 * np.trace(matrix) / len(matrix), 1e-300)
    raise SolverError("The interior point's normal matrix is not positive definite.")


def hull_intersection_lp(Z, c, fit_intercept=True):
    """Weights ``λ ≥ 0`` with ``Σ_{c=+1} λ_i = Σ_{c=-1} λ_i = 1`` and
    ``Σ λ_i c_i z_i = 0`` (a point in both convex hulls), or ``None``.

    Without an intercept the question is whether the cone condition holds:
    ``Σ λ_i c_i z_i = 0`` with ``Σ λ_i = 1``. The dual simplex returns a basic
    solution: at most ``p + 2`` positive weights (Carathéodory).
    """
    n, p = Z.shape
    equalities = [c[None, :] * Z.T]
    right = [np.zeros(p)]
    if fit_intercept:
        equalities.append((c > 0)[None, :].astype(float))
        equalities.append((c < 0)[None, :].astype(float))
        right.append([1.0, 1.0])
    else:
        equalities.append(np.ones((1, n)))
        right.append([1.0])
    result = linprog(
        np.zeros(n),
        A_eq=np.vstack(equalities),
        b_eq=np.concatenate(right),
        bounds=[(0, None)] * n,
        method="highs-ds",
        options=_highs_options(),
    )
    if not _check_lp(result, "hull intersection"):
        return None
    return _polish(np.vstack(equalities), np.concatenate(right), result.x)


def _polish(equalities, right, weights):
    """Re-solve the equalities on the support of a basic solution by least squares
    (the LP meets them only to its feasibility tolerance); keep the LP's weights if
    the polished ones are not better."""
    support = weights > 1e-12 * max(weights.max(), 1.0)
    polished = np.zeros_like(weights)
    polished[support] = np.linalg.lstsq(equalities[:, support], right, rcond=None)[0]
    residual = np.linalg.norm(equalities @ weights - right)
    if np.all(polished >= 0) and (
        np.linalg.norm(equalities @ polished - right) <= residual
    ):
        return polished
    return np.where(support, weights, 0.0)


# --- The nearest points of two convex hulls -----------------------------------------
#
# The maximal margin, the separability verdict and its certificate from one engine
# (SPEC §10): the hard-margin dual is, up to scale, the distance between the convex
# hulls of the two classes, min ‖Σ λ_i c_i z_i‖ over λ ≥ 0 summing to 1 on each side.
# An active-set method in the manner of Wolfe's minimum-norm-point algorithm solves
# it exactly: the corral (the points of positive weight) is minimised over its affine
# hull by least squares on an updated QR factorisation, never a Gram matrix, so the
# conditioning is that of the points, not its square.


@dataclass
class NearestPoints:
    """The nearest points ``p₊ = Σ_{c=+1} λ_i z_i`` and ``p₋ = Σ_{c=-1} λ_i z_i``.

    ``direction = p₊ - p₋`` (zero when the hulls meet). ``levels`` are
    ``(direction · p₊, direction · p₋)``: every positive row has
    ``direction · z ≥ levels[0]`` and every negative row ``≤ levels[1]`` at the
    optimum, so the maximal-margin hyperplane is ``w = 2 v / ‖v‖²``,
    ``b = -(levels[0] + levels[1]) / ‖v‖²``.
    """

    weights: np.ndarray  # λ, one per row, zero off the corral
    direction: np.ndarray
    levels: tuple
    iterations: int

    @property
    def support(self):
        return np.flatnonzero(self.weights > 0)

    def hyperplane(self):
        """``(w, b)`` of the maximal margin, ``c_i (w·z_i + b) ≥ 1`` at the optimum."""
        squared = float(self.direction @ self.direction)
        return 2 * self.direction / squared, -(
            self.levels[0] + self.levels[1]
        ) / squared


def nearest_points(Z, c, start=None, tol=1e-12, max_iter=None):
    """The nearest points of the convex hulls of ``Z[c > 0]`` and ``Z[c < 0]``
    (Wolfe's active set, compiled:
    :func:`~sklearn_linsep._kernels.nearest_points_kernel`).

    Parameters
    ----------
    Z : ndarray of shape (m, q)
        Rows, best centred and scaled to about unit size.
    c : ndarray of shape (m,)
        ±1, both present.
    start : ndarray of shape (m,), default=None
        Weights λ of a previous answer (a warm start); rows of weight 0 are out.
        Without one (or without both sides in it), the start is the row of each
        class nearest the other along the difference of the class means.
    tol : float, default=1e-12
        Stop when no row lies more than ``tol ‖v‖²`` (plus the rounding of the
        products) beyond its class's level.

    Returns
    -------
    result : NearestPoints
    """
    Z = np.ascontiguousarray(Z, dtype=float)
    c = np.ascontiguousarray(c, dtype=float)
    m, q = Z.shape
    weights = np.zeros(m) if start is None else np.array(start, dtype=float)
    if not (np.any(weights[c > 0] > 0) and np.any(weights[c < 0] > 0)):
        positive, negative = np.flatnonzero(c > 0), np.flatnonzero(c < 0)
        scores = Z @ (Z[positive].mean(axis=0) - Z[negative].mean(axis=0))
        weights = np.zeros(m)
        weights[positive[np.argmin(scores[positive])]] = 1.0
        weights[negative[np.argmax(scores[negative])]] = 1.0
    for side in (c > 0, c < 0):
        weights[side] /= weights[side].sum()
    max_iter = max_iter or 50 * (m + q) + 100
    direction, level_positive, level_negative, iterations, status = (
        nearest_points_kernel(Z, c, weights, tol, max_iter)
    )
    if status == NEAREST_ITERATIONS:
        raise SolverError(
            f"The nearest-points iteration did not converge in {max_iter} steps "
            f"({np.count_nonzero(weights)} points in its corral)."
        )
    return NearestPoints(
        weights, direction, (level_positive, level_negative), iterations
    )


def hull_margin(Z, c, start=None, tol=1e-12):
    """The maximal-margin hyperplane of the rows ``Z`` (labels ``c = ±1``) from the
    nearest points of the two hulls, or their meeting.

    Returns a :class:`Hyperplane`: feasible with ``(coef, intercept)`` and the dual
    ``α``, or infeasible when the hulls meet to rounding (the hyperplane of the
    nearest points does not separate the rows), with ``λ`` in ``weights``: the
    candidate certificate. ``weights`` always holds λ, the warm start of the next
    call. Where the nearest points' hyperplane misses the optimality conditions on
    these rows by more than ``tol`` (classes close against the data's spread, or
    features on scales far apart), :func:`_active_set_finish` solves the KKT system
    of the support exactly.

    With more features than rows (``q > 2m``) the geometry is the same in the rows'
    span: m × m coordinates from the pivoted Cholesky factor of the Gram matrix
    (one ``Z Zᵀ``), or, where that loses the digits the check on ``Z`` needs, from
    the R of a QR of ``Zᵀ``; and since most rows are then support vectors, the
    exact finish starts from all of them before the nearest points are tried.
    """
    m, q = Z.shape
    if dense_dual_suits(m, q):
        solution = dense_dual_margin(Z, c, tol)
        if solution is not None:
            return solution
    if q <= 2 * m:
        return _hull_margin(Z, Z, c, start, tol, wide=False)
    for coordinates in (_gram_coordinates, _qr_coordinates):
        solution = _hull_margin(Z, coordinates(Z), c, start, tol, wide=True)
        if not solution.feasible or _holds_on(Z, c, solution, tol):
            return solution
    return solution  # checked again, and refused, by the caller


# The dense dual route: rows that may all be support vectors (as many features as
# rows, or more), and few enough for their Gram matrix (4000 rows: 128 MB). With
# fewer features than rows the held set is capped at q + 1 and the active set
# cycled at 1000 x 500 (40 steps, no answer): the nearest points serve there.
DENSE_DUAL_MAX_ROWS = 4000
DENSE_DUAL_MAX_ITERATIONS = 40


def dense_dual_suits(m, q):
    """Whether :func:`dense_dual_margin` is tried first on ``m`` rows of ``q``
    features."""
    return m <= DENSE_DUAL_MAX_ROWS and q + 1 >= m


def dense_dual_margin(Z, c, tol):
    """The maximal margin of the rows ``Z`` from the hard-margin dual on their
    Gram matrix, by a primal-dual active set (Hintermüller, Ito & Kunisch 2002);
    a :class:`Hyperplane`, or None where it does not settle (the caller's nearest
    points then decide, as they do inseparable rows).

    The rows held on the margin ``I`` solve ``K_II β + b = c_I``, ``Σ β = 0``
    (one symmetric factorisation of the bordered system); then every held row of
    ``α = c β < 0`` leaves and every other row of margin below 1 joins, all in one
    step, so a support that is most of the rows (p ≫ n) is found in a few
    factorisations where an active set adding one row at a time needs hundreds.
    At most ``q + 1`` rows are held (beyond that the system is singular), the
    most violated first. The answer is checked on ``Z`` itself, not on K.
    """
    m, q = Z.shape
    gram = Z @ Z.T
    cap = min(m, q + 1)
    if cap == m:
        held = np.arange(m)
    else:  # the rows nearest the hyperplane between the class means
        scores = Z @ (Z[c > 0].mean(axis=0) - Z[c < 0].mean(axis=0))
        held = np.argsort(c * (scores - np.median(scores)), kind="stable")[:cap]
    seen = set()
    beta = np.zeros(m)
    for _ in range(DENSE_DUAL_MAX_ITERATIONS):
        held = np.sort(held)
        key = held.tobytes()
        if key in seen or not _two_sided(c[held]):
            return None  # cycling, or one class: not for this route
        seen.add(key)
        block = gram if held.size == m else gram[np.ix_(held, held)]
        solved = _bordered_solve(block, c[held])
        if solved is None:
            return None
        beta[:] = 0.0
        beta[held], intercept = solved
        margins = c * (gram @ beta + intercept)  # β is 0 off the held rows
        alpha = c[held] * beta[held]
        keep = held[alpha > 0]
        outside = np.ones(m, bool)
        outside[held] = False
        violated = np.flatnonzero(outside & (margins < 1 - tol))
        if keep.size == held.size and violated.size == 0:
            return _dense_dual_answer(Z, c, held, alpha, intercept, tol)
        room = max(cap - keep.size, 0)
        if violated.size > room:
            violated = violated[np.argsort(margins[violated])[:room]]
        held = np.concatenate([keep, violated])
    return None


def _bordered_solve(gram, c):
    """``(β, b)`` with ``K β + b = c`` and ``Σ β = 0``, or None if singular.

    ``K + 1 1ᵀ`` acts as K on every β with Σ β = 0, and is positive definite
    where the rows are affinely independent (K of centred rows is not): one
    Cholesky factor, then ``b = 1ᵀK⁻¹c / 1ᵀK⁻¹1`` makes Σ β = 0.
    """
    try:
        factor = cho_factor(gram + 1.0, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    towards_c = cho_solve(factor, c, check_finite=False)
    towards_one = cho_solve(factor, np.ones(len(c)), check_finite=False)
    intercept = towards_c.sum() / towards_one.sum()
    beta = towards_c - intercept * towards_one
    if not (np.all(np.isfinite(beta)) and np.isfinite(intercept)):
        return None
    return beta, float(intercept)


def _dense_dual_answer(Z, c, held, alpha, intercept, tol):
    """The Hyperplane of the dense dual's answer, if it holds on ``Z`` itself."""
    dual = np.zeros(len(c))
    dual[held] = alpha
    coef = (dual * c) @ Z
    margins = c * (Z @ coef + intercept)
    if not _on_and_outside_margin(margins, dual > 0, tol):
        return None
    return Hyperplane(
        True,
        coef=coef,
        intercept=float(intercept),
        dual=dual,
        weights=_as_hull_weights((coef, intercept, dual), c),
        status="Solved",
    )


def _gram_coordinates(Z):
    """Rows ``Y`` with ``Y Yᵀ = Z Zᵀ`` (pivoted Cholesky, LAPACK dpstrf)."""
    factor, pivots, rank, _ = lapack.dpstrf(Z @ Z.T)  # rank at m ε max(K_ii)
    coordinates = np.zeros((len(Z), max(rank, 1)))
    coordinates[pivots - 1] = np.triu(factor)[: max(rank, 1)].T
    return coordinates


def _qr_coordinates(Z):
    """Rows ``Y = Rᵀ`` of ``Zᵀ = QR``: the same inner products, to rounding."""
    m = len(Z)
    return np.ascontiguousarray(qr(Z.T, mode="r", check_finite=False)[0][:m].T)


def _holds_on(Z, c, solution, tol):
    """The margins of a solution found in other coordinates, on ``Z`` itself."""
    margins = c * (Z @ solution.coef + solution.intercept)
    return _on_and_outside_margin(margins, solution.dual > 0, tol)


def _on_and_outside_margin(margins, support, tol):
    """Every margin at least 1 - tol, and the support's within tol of 1."""
    return np.min(margins) >= 1 - tol and np.all(np.abs(margins[support] - 1) <= tol)


def _two_sided(labels):
    return np.any(labels > 0) and np.any(labels < 0)


def _has_negative(alpha):
    """α below zero by more than the rounding of the largest entry."""
    return np.min(alpha) < -1e-9 * np.max(np.abs(alpha))


def _hull_margin(Z, rows, c, start, tol, wide):
    """:func:`hull_margin` with the hull's rows given (``rows Zᵀ``-equivalent
    coordinates of ``Z``, or Z itself)."""
    m, q = rows.shape
    answer, hull = None, None
    if wide:  # the finish from all rows: done at once when most are on the margin
        answer = _active_set_finish(rows, c, np.arange(m), tol, max_steps=m // 10 + 2)
    if answer is None:
        hull = nearest_points(rows, c, start=start, tol=tol / 4)
        squared = float(hull.direction @ hull.direction)
        if squared > 0:
            coef, intercept = hull.hyperplane()
            margins = c * (rows @ coef + intercept)
            if _on_and_outside_margin(margins, hull.support, tol):
                answer = coef, intercept, 2 * hull.weights / squared
        # Hulls that meet to rounding have no support to finish on (and it would
        # cost a search over exchanges): the verdict rests on the separation check.
        size = float(np.max(np.abs(rows))) * np.sqrt(q)
        if answer is None and np.sqrt(squared) > 64 * np.finfo(float).eps * size:
            answer = _active_set_finish(rows, c, hull.support, tol)
        if answer is None and squared > 0:
            answer = coef, intercept, 2 * hull.weights / squared  # checked later
    weights = hull.weights if hull is not None else _as_hull_weights(answer, c)
    if answer is None:
        return Hyperplane(False, weights=weights, status="touching")
    coef, intercept, dual = answer
    if rows is not Z:
        coef = (dual * c) @ Z
    if not np.all(c * (Z @ coef + intercept) > 0):
        # Meeting to rounding: a separator that separates nothing here. (Where it
        # does separate, however closely, that is the verdict: it is checked.)
        return Hyperplane(False, weights=weights, status="touching")
    return Hyperplane(
        True,
        coef=coef,
        intercept=float(intercept),
        dual=dual,
        weights=weights,
        status="Solved",
    )


def _as_hull_weights(answer, c):
    """λ of the nearest points from a hard margin's α (λ = α / Σ_side α), for the
    warm start of the next call."""
    dual = answer[2]
    weights = np.zeros(len(c))
    for side in (c > 0, c < 0):
        total = dual[side].sum()
        if total > 0:
            weights[side] = dual[side] / total
    return weights


def margin_from_feasible(Z, c, coef, intercept, tol, max_steps=None):
    """The maximal margin of the rows ``Z`` by the primal active-set method
    (Nocedal & Wright, Algorithm 16.3) from a separating hyperplane
    ``(coef, intercept)``; a :class:`Hyperplane`, or None if it does not settle.

    Every iterate keeps ``c_i (w·z_i + b) ≥ 1`` on every row; each step solves the
    equality QP of the rows held on the margin (:func:`_equality_margin`, feature
    by feature, so that each keeps its own digits), moves towards
    it as far as the other rows allow, and takes in the row that blocks; at the
    equality QP's solution a row of negative multiplier leaves. No Gram matrix is
    formed: for rows whose hulls are too close for the nearest points at the
    data's largest scale (a gap in a feature of small units), where the dual sees
    only the large features.
    """
    margins = c * (Z @ coef + intercept)
    least = float(np.min(margins))
    if not least > 0:
        return None
    coef, intercept, margins = coef / least, intercept / least, margins / least
    held = [int(np.argmin(margins))]
    for _ in range(max_steps or 8 * Z.shape[1] + 50):
        if _two_sided(c[held]):
            target_coef, target_intercept, alpha = _equality_margin(Z[held], c[held])
        else:  # one class on the margin: w = 0 meets its equalities
            target_coef, target_intercept = np.zeros_like(coef), float(c[held[0]])
            alpha = np.zeros(len(held))
        change = c * (Z @ (target_coef - coef) + (target_intercept - intercept))
        room = np.full(len(c), np.inf)
        falling = change < 0
        falling[held] = False
        room[falling] = (margins[falling] - 1) / -change[falling]
        blocking = int(np.argmin(room))
        step = min(1.0, max(float(room[blocking]), 0.0))
        coef = coef + step * (target_coef - coef)
        intercept = intercept + step * (target_intercept - intercept)
        margins = c * (Z @ coef + intercept)
        if step < 1.0:
            held.append(blocking)
            continue
        if _has_negative(alpha) if alpha.size and np.any(alpha) else False:
            held.pop(int(np.argmin(alpha)))
            continue
        if np.min(margins) < 1 - tol or np.max(np.abs(margins[held] - 1)) > tol:
            return None
        dual = np.zeros(len(c))
        dual[held] = np.maximum(alpha, 0.0)
        answer = coef, float(intercept), dual
        return Hyperplane(
            True,
            coef=coef,
            intercept=float(intercept),
            dual=dual,
            weights=_as_hull_weights(answer, c),
            status="Solved",
        )
    return None


def _equality_margin(Z, c):
    """``(w, b, α)``: the least ``‖w‖`` with ``c_i (w·z_i + b) = 1`` on every row,
    and ``α`` with ``w = Σ α_i c_i z_i``, ``Σ α_i c_i = 0``, for features on any
    scales.

    With ``Ã = [Z S⁻¹, 1]`` (S: each feature's largest entry), a particular
    solution and the null space of Ã come from its SVD (well scaled); the least
    ``‖w‖ = ‖S⁻¹ u‖`` over that affine set is then a least-squares problem whose
    rows are weighted by ``1/S`` over as many decades as the features span, which
    Householder QR with its rows sorted largest first solves stably (Powell & Reid
    1969; Cox & Higham 1998).
    """
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
        shift = np.linalg.lstsq(
            *_row_sorted_qr(weighted[order], -(u / size)[order]), rcond=None
        )[0]
        u, b = u + null[:q] @ shift, b + null[q] @ shift
    coef = u / size
    # w = Σ β_i z_i and Σ β_i = 0, in the scaled columns: Ãᵀ β = (w / S, 0), a
    # consistent system whose right side spans the decades of the features: each
    # equation is weighted by its own terms, so each holds to its own rounding.
    system, target = scaled.T, np.r_[coef / size, 0.0]
    beta = np.linalg.lstsq(system, target, rcond=None)[0]
    for _ in range(2):
        weight = 1 / np.maximum(np.abs(system) @ np.abs(beta) + np.abs(target), 1e-300)
        beta = np.linalg.lstsq(system * weight[:, None], target * weight, rcond=None)[0]
    return coef, float(b), beta * c


def _row_sorted_qr(matrix, right):
    """``(R, Qᵀ right)`` of a least-squares problem whose rows are sorted by size."""
    basis, triangle = qr(matrix, mode="economic")
    return triangle, basis.T @ right


def _active_set_finish(Z, c, support, tol, max_steps=None):
    """``(w, b, α)`` satisfying the KKT conditions on the rows ``Z`` to rounding,
    from the support the nearest points found: the exact hyperplane of the support
    (:func:`support_hyperplane`); a row of negative α leaves, the most violated
    row joins, until neither remains (a primal active-set method). None if that
    does not settle within a few steps (the nearest points' answer then stands)."""
    support = list(support)
    for _ in range(max_steps or 2 * Z.shape[1] + 10):
        if not _two_sided(c[support]):
            return None
        coef, intercept, alpha = support_hyperplane(Z[support], c[support])
        margins = c * (Z @ coef + intercept)
        on_margin = np.max(np.abs(margins[support] - 1)) <= tol
        if not on_margin:  # too many rows for one hyperplane: the best subset
            if max_steps is not None:
                return None  # a bounded try: the nearest points do it better
            support = _best_exchange(Z, c, support, tol)
            if support is None:
                return None
            continue
        if _has_negative(alpha):
            support.pop(int(np.argmin(alpha)))
            continue
        worst = int(np.argmin(margins))
        if margins[worst] >= 1 - tol:
            dual = np.zeros(len(c))
            dual[support] = np.maximum(alpha, 0.0)
            return coef, intercept, dual
        support.append(worst)
    return None


def _best_exchange(Z, c, support, tol):
    """Of the support less one row (the last, just added, stays), the set whose
    exact hyperplane puts it on the margin with α ≥ 0 and violates the fewest
    rows, fewest violated first, then largest smallest margin; None if none."""
    best, best_key = None, None
    for j in support[:-1]:
        trial = [i for i in support if i != j]
        if not _two_sided(c[trial]):
            continue
        coef, intercept, alpha = support_hyperplane(Z[trial], c[trial])
        margins = c * (Z @ coef + intercept)
        if np.max(np.abs(margins[trial] - 1)) > tol or _has_negative(alpha):
            continue
        key = (np.count_nonzero(margins < 1 - tol), -np.min(margins))
        if best_key is None or key < best_key:
            best, best_key = trial, key
    return best


def support_hyperplane(Z, c, refinements=3):
    """The maximal-margin hyperplane of its own support vectors, solved exactly:
    ``(w, b, α)`` with ``c_i (w·z_i + b) = 1`` on every row and ``w`` of least norm
    (so ``w = Σ α_i c_i z_i`` with ``Σ α_i c_i = 0``); α may have negative entries
    (then these rows are not all support vectors).

    The nearest points give the support; this finish gives the digits. ``w`` solves
    ``D w = r``, ``D`` the rows ``z_i - z_a`` (a: the first positive row) and
    ``r_i = c_i - c_a``, from one QR factorisation, and iterative refinement drives
    the residual of the equalities to rounding. When the rows fix ``w`` (D of full
    column rank), the features are scaled first, so that features on scales 1e6
    apart keep their digits; otherwise ``w`` is the least-norm solution, from the
    QR of ``Dᵀ``. A rank-deficient D falls back to least squares by the SVD.
    """
    a = int(np.argmax(c > 0))
    others = np.arange(len(c)) != a
    differences = Z[others] - Z[a]
    right = c[others] - c[a]
    rows, q = differences.shape
    column_scale = np.max(np.abs(differences), axis=0)
    column_scale = np.where(column_scale > 0, column_scale, 1.0)
    solve = gamma_of = None
    if rows == q:  # square: one LU (a third of the QR's work, no Q to form)
        factors = lu_factor(differences / column_scale, check_finite=False)
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
        # w of least norm is Dᵀγ with D Dᵀ γ = r: with Dᵀ = QR, γ = R⁻¹R⁻ᵀr,
        # refined on the residual (corrected semi-normal equations, Björck), and w
        # taken as Dᵀγ, which lies in the rows' span componentwise to rounding.
        triangle = qr(differences.T, mode="r", check_finite=False)[0][:rows]
        if _full_rank(triangle):
            gamma = np.zeros(rows)
            for _ in range(refinements + 1):
                residual = right - differences @ (gamma @ differences)
                gamma += solve_triangular(
                    triangle, solve_triangular(triangle, residual, trans="T")
                )
            spanned = gamma @ differences
            if _equalities_error(differences, right, spanned) <= 1e-12:
                return _with_dual(Z, c, a, others, spanned, gamma)

            # Too ill-conditioned for the normal equations: w from a QR of Dᵀ with
            # its rows (the features) sorted largest first, which keeps the small
            # features' digits (Powell & Reid 1969; Cox & Higham 1998); γ after it.
            order = np.argsort(-column_scale, kind="stable")
            basis, triangle = qr(differences.T[order], mode="economic")
            restore = np.argsort(order)

            def solve(rhs):
                return (basis @ solve_triangular(triangle, rhs, trans="T"))[restore]

            def gamma_of(coef):
                return solve_triangular(triangle, basis.T @ coef[order])

    if solve is None:  # dependent rows: least squares of least norm by the SVD

        def solve(rhs):
            return np.linalg.lstsq(differences, rhs, rcond=None)[0]

        def gamma_of(coef):
            return np.linalg.lstsq(differences.T, coef, rcond=None)[0]

    coef = solve(right)
    for _ in range(refinements):
        coef = coef + solve(right - differences @ coef)
    gamma = gamma_of(coef)
    terms = np.abs(differences.T) @ np.abs(gamma) + np.abs(coef)
    if np.any(np.abs(differences.T @ gamma - coef) > 1e-12 * terms):
        # Features on scales far apart: the equations are consistent, so scaling
        # each feature's equation keeps the solution and the small features' digits.
        gamma = np.linalg.lstsq(
            differences.T / column_scale[:, None], coef / column_scale, rcond=None
        )[0]
    return _with_dual(Z, c, a, others, coef, gamma)


def _equalities_error(differences, right, coef):
    """Largest ``|D w - r|`` relative to the terms of ``D w``."""
    terms = np.abs(differences) @ np.abs(coef) + np.abs(right)
    return np.max(np.abs(differences @ coef - right) / np.maximum(terms, 1e-300))


def _with_dual(Z, c, a, others, coef, gamma):
    """``(w, b, α)`` from ``w = Σ_{i≠a} γ_i (z_i - z_a)``: β = α c is γ on the
    other rows and ``-Σ γ`` on row a; b makes the mean margin of the rows 1."""
    intercept = float(np.mean(c - Z @ coef))
    beta = np.empty(len(c))
    beta[others], beta[a] = gamma, -gamma.sum()
    return coef, intercept, beta * c


def _full_rank(triangle):
    diagonal = np.abs(np.diag(triangle))
    return diagonal.size > 0 and diagonal.min() > 1e-12 * diagonal.max()
