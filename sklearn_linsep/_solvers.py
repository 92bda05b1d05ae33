"""The QP and LP calls: Clarabel for the margin QPs, HiGHS (scipy) for the LPs.

Every function takes plain arrays (rows ``Z`` already centred and scaled by the
caller, labels ``c = ±1``), bounds the solver's iterations and time, and turns every
status other than optimal or infeasible into a :class:`SolverError` that names it.
No estimator is ever seen here.
"""

from dataclasses import dataclass

import clarabel
import numpy as np
import scipy.sparse as sp
from scipy.linalg import solve_triangular
from scipy.optimize import linprog

from ._kernels import qr_delete_column
from .exceptions import SolverError

# Tolerances at which Clarabel and HiGHS return answers accurate to ~1e-10 on data
# scaled into [-1, 1]; the callers verify the answers on all the data afterwards.
QP_TOLERANCE = 1e-11
LP_FEASIBILITY_TOLERANCE = 1e-10
MAX_ITERATIONS = 500
TIME_LIMIT = 300.0  # seconds, per solver call


@dataclass
class QPSolution:
    """The maximal-margin hyperplane of a set of rows, or its infeasibility."""

    feasible: bool
    coef: np.ndarray = None  # w
    intercept: float = 0.0  # b
    dual: np.ndarray = None  # α ≥ 0, one per row
    status: str = ""
    weights: np.ndarray = None  # λ of the nearest points, one per row


def margin_qp(
    Z, c, fit_intercept=True, slack_budget=None, weights=None, tol=QP_TOLERANCE
):
    """``min ½‖w‖²`` subject to ``c_i (w·z_i + b) ≥ 1`` (Clarabel).

    With ``slack_budget`` the constraints become ``c_i (w·z_i + b) + ξ_i ≥ 1``,
    ``ξ ≥ 0``, ``Σ s_i ξ_i ≤ slack_budget`` (``s`` the ``weights``, default 1): the
    margin among hyperplanes whose total hinge violation is at most the budget
    (the C → ∞ limit of the soft margin).

    Returns a :class:`QPSolution`; ``feasible`` is False when Clarabel proves the
    constraints infeasible (no separating hyperplane).
    """
    n, p = Z.shape
    n_intercept = 1 if fit_intercept else 0
    n_slack = n if slack_budget is not None else 0
    n_variables = p + n_intercept + n_slack
    quadratic = sp.diags(
        np.r_[np.ones(p), np.zeros(n_intercept + n_slack)], format="csc"
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
        slack_weights = np.ones(n) if weights is None else weights
        budget_row = sp.csc_matrix(
            np.r_[np.zeros(p + n_intercept), slack_weights][None, :]
        )
        constraints = sp.vstack([constraints, slack_rows, budget_row], format="csc")
        bounds = np.r_[bounds, np.zeros(n), slack_budget]
        cones = [clarabel.NonnegativeConeT(2 * n + 1)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = tol
    settings.tol_feas = settings.tol_ktratio = tol
    # qdldl: on working-set QPs of 400 × 100 dense rows the default ("auto") took
    # 0.19-0.35 s against 0.05-0.06 s, with as many iterations.
    settings.direct_solve_method = "qdldl"
    settings.max_iter = MAX_ITERATIONS
    settings.time_limit = TIME_LIMIT
    solver = clarabel.DefaultSolver(
        quadratic, np.zeros(n_variables), constraints, bounds, cones, settings
    )
    solution = solver.solve()
    status = str(solution.status)
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        return QPSolution(False, status=status)
    if status not in ("Solved", "AlmostSolved"):
        raise SolverError(
            f"Clarabel stopped with status {status} on the margin QP of {n} rows "
            f"(limits: {MAX_ITERATIONS} iterations, {TIME_LIMIT:g} s)."
        )
    x = np.asarray(solution.x)
    return QPSolution(
        True,
        coef=x[:p].copy(),
        intercept=float(x[p]) if fit_intercept else 0.0,
        dual=np.maximum(np.asarray(solution.z)[:n], 0.0),
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
    if result.status == 0:
        return True
    if result.status == 2:
        return False
    raise SolverError(f"HiGHS stopped on the {what} LP: {result.message}")


@dataclass
class LPSeparator:
    """A hyperplane with ``c_i (w·z_i + b) ≥ 1`` on the rows, or none."""

    feasible: bool
    coef: np.ndarray = None
    intercept: float = 0.0


def separating_lp(Z, c, fit_intercept=True):
    """Any ``(w, b)`` with ``c_i (w·z_i + b) ≥ 1`` for all rows (HiGHS), or proof
    (``feasible=False``) that there is none."""
    n, p = Z.shape
    rows = -(c[:, None] * Z)
    if fit_intercept:
        rows = np.column_stack([rows, -c])
    result = linprog(
        np.zeros(rows.shape[1]),
        A_ub=rows,
        b_ub=-np.ones(n),
        bounds=[(None, None)] * rows.shape[1],
        method="highs-ds",
        options=_highs_options(),
    )
    if not _check_lp(result, "separating"):
        return LPSeparator(False)
    return LPSeparator(
        True, result.x[:p].copy(), float(result.x[p]) if fit_intercept else 0.0
    )


@dataclass
class HingeSolution:
    """The minimum total hinge violation ``Σ max(0, 1 - c_i (w·z_i + b))``."""

    total: float
    coef: np.ndarray
    intercept: float
    dual: np.ndarray  # α ∈ [0, 1]: Σ α_i c_i z_i = 0 and Σ α_i c_i = 0


def total_hinge_lp(Z, c, fit_intercept=True, weights=None):
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
    """
    n, p = Z.shape
    equalities = [c[None, :] * Z.T]
    if fit_intercept:
        equalities.append(c[None, :])
    A_eq = np.vstack(equalities)
    upper = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    result = linprog(
        -np.ones(n),
        A_eq=A_eq,
        b_eq=np.zeros(A_eq.shape[0]),
        bounds=np.column_stack([np.zeros(n), upper]),
        method="highs-ds",
        options=_highs_options(),
    )
    if not _check_lp(result, "total hinge"):  # pragma: no cover - α = 0 is feasible
        raise SolverError("HiGHS reported the total hinge LP infeasible.")
    multipliers = -result.eqlin.marginals
    return HingeSolution(
        float(-result.fun),
        multipliers[:p].copy(),
        float(multipliers[p]) if fit_intercept else 0.0,
        np.clip(result.x, 0.0, None),
    )


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
    feasible: bool = True  # the hulls are apart (a separator exists)

    @property
    def support(self):
        return np.flatnonzero(self.weights > 0)

    def hyperplane(self):
        """``(w, b)`` of the maximal margin, ``c_i (w·z_i + b) ≥ 1`` at the optimum."""
        squared = float(self.direction @ self.direction)
        return 2 * self.direction / squared, -(self.levels[0] + self.levels[1]) / squared


class _Corral:
    """The points of positive weight and the least squares of their affine hull.

    With a reference point of each class (``a`` positive, ``b`` negative), the
    points of the two affine hulls' difference are ``d₀ + B t``: ``d₀ = z_a - z_b``,
    the columns of ``B`` are ``z_i - z_a`` (positives) and ``-(z_j - z_b)``
    (negatives), ``t`` their weights. ``B = QR`` is kept up to date as points join
    (Gram–Schmidt twice) and leave (Givens rotations).
    """

    def __init__(self, Z, c, reference, members=()):
        self.Z, self.c = Z, c
        self.reference = list(reference)  # [a, b]
        m, q = Z.shape
        capacity = min(q, m) + 1
        self.Q = np.zeros((q, capacity))
        self.R = np.zeros((capacity, capacity))
        self.columns = []
        self.weight = {i: 1.0 for i in reference}
        for i in members:
            if i not in self.weight:
                self.add(i)

    def _column(self, i):
        a, b = self.reference
        if self.c[i] > 0:
            return self.Z[i] - self.Z[a]
        return self.Z[b] - self.Z[i]

    def add(self, i):
        """Take row ``i`` in with weight 0; False if it lies (to rounding) in the
        span of the corral's columns, where it cannot lower the distance."""
        k = len(self.columns)
        if k >= self.Q.shape[1]:
            return False
        u = self._column(i)
        size = np.linalg.norm(u)
        r = np.zeros(k)
        for _ in range(2):  # twice is enough (Giraud, Langou, Rozložník 2005)
            step = self.Q[:, :k].T @ u
            u = u - self.Q[:, :k] @ step
            r += step
        rho = np.linalg.norm(u)
        if not rho > 1e-13 * size:
            return False
        self.Q[:, k] = u / rho
        self.R[:k, k] = r
        self.R[k, k] = rho
        self.columns.append(i)
        self.weight.setdefault(i, 0.0)
        return True

    def remove(self, i):
        del self.weight[i]
        if i in self.reference:  # a new reference changes every column of its class
            side = 0 if self.c[i] > 0 else 1
            same = [j for j in self.columns if (self.c[j] > 0) == (side == 0)]
            # The heaviest is the least likely to leave next (each change of
            # reference refactorises).
            heaviest = max(same, key=self.weight.__getitem__)
            self.reference[side] = heaviest
            kept = [j for j in self.columns if j != heaviest]
            self.columns = []
            for j in kept:
                if not self.add(j):  # dependent at rounding level: its weight moves
                    self.weight[self.reference[side if self.c[j] > 0 else 1 - side]] += (
                        self.weight.pop(j)
                    )
            return
        k = self.columns.index(i)
        self.columns.pop(k)
        qr_delete_column(self.Q, self.R, k, len(self.columns) + 1)

    def affine_minimiser(self):
        """The weights of the point of least norm in the corral's affine hull."""
        a, b = self.reference
        k = len(self.columns)
        d0 = self.Z[a] - self.Z[b]
        weights = {}
        if k:
            rhs = -(self.Q[:, :k].T @ d0)
            t = solve_triangular(self.R[:k, :k], rhs)
            weights = dict(zip(self.columns, t))
        positive = sum(w for j, w in weights.items() if self.c[j] > 0)
        negative = sum(w for j, w in weights.items() if self.c[j] < 0)
        weights[a] = 1.0 - positive
        weights[b] = 1.0 - negative
        return weights

    def point(self):
        """``(members, λ, v)`` with v = Σ λ_i c_i z_i computed from the rows."""
        members = np.fromiter(self.weight, dtype=np.intp)
        lam = np.fromiter(self.weight.values(), dtype=float)
        return members, lam, (lam * self.c[members]) @ self.Z[members]


def nearest_points(Z, c, start=None, tol=1e-12, max_iter=None):
    """The nearest points of the convex hulls of ``Z[c > 0]`` and ``Z[c < 0]``.

    Parameters
    ----------
    Z : ndarray of shape (m, q)
        Rows, best centred and scaled to about unit size.
    c : ndarray of shape (m,)
        ±1, both present.
    start : dict, default=None
        Weights ``{row: λ}`` of a previous answer on a subset of these rows (a warm
        start: λ ≥ 0 summing to 1 on each side).
    tol : float, default=1e-12
        Stop when no row lies more than ``tol ‖v‖²`` (plus the rounding of the
        products) beyond its class's level.

    Returns
    -------
    result : NearestPoints
    """
    m, q = Z.shape
    max_iter = max_iter or 50 * (m + q) + 100
    positive, negative = np.flatnonzero(c > 0), np.flatnonzero(c < 0)
    members = [i for i, w in (start or {}).items() if w > 0]
    if any(c[i] > 0 for i in members) and any(c[i] < 0 for i in members):
        reference = [
            next(i for i in members if c[i] > 0),
            next(i for i in members if c[i] < 0),
        ]
        corral = _Corral(Z, c, reference, members)
        corral.weight = _normalised({i: start[i] for i in corral.weight}, c)
    else:
        gap = Z[positive].mean(axis=0) - Z[negative].mean(axis=0)
        scores = Z @ gap
        reference = [
            positive[np.argmin(scores[positive])],
            negative[np.argmax(scores[negative])],
        ]
        corral = _Corral(Z, c, reference)
    rounding = 16 * np.finfo(float).eps * np.sqrt(q) * np.max(np.abs(Z))
    previous = np.inf
    for iteration in range(1, max_iter + 1):
        members, lam, v = corral.point()
        g = Z @ v
        squared = float(v @ v)
        sides = c[members] > 0
        levels = (float(lam[sides] @ g[members[sides]]),
                  float(lam[~sides] @ g[members[~sides]]))
        worst_positive = positive[np.argmin(g[positive])]
        worst_negative = negative[np.argmax(g[negative])]
        deficits = (levels[0] - g[worst_positive], g[worst_negative] - levels[1])
        allowed = tol * squared + rounding * np.sqrt(squared) * max(1.0, np.sqrt(q))
        # Stalled (no descent left at this precision) counts as done.
        done = max(deficits) <= allowed or squared >= previous
        previous = squared
        entering = worst_positive if deficits[0] >= deficits[1] else worst_negative
        if done or entering in corral.weight or not corral.add(entering):
            weights = np.zeros(m)
            weights[members] = lam
            return NearestPoints(weights, v, levels, iteration)
        _minor_cycle(corral)
    raise SolverError(
        f"The nearest-points iteration did not converge in {max_iter} steps "
        f"({len(corral.weight)} points in its corral)."
    )


def _normalised(weights, c):
    """λ rescaled to sum to 1 on each side."""
    totals = {
        side: sum(w for i, w in weights.items() if (c[i] > 0) == side)
        for side in (True, False)
    }
    return {i: w / totals[bool(c[i] > 0)] for i, w in weights.items()}


def _minor_cycle(corral):
    """From the corral's weights, step to its affine minimiser, stopping at the
    first weight to reach 0 and dropping that point, until the minimiser has
    positive weights (Wolfe's minor cycle)."""
    while True:
        target = corral.affine_minimiser()
        if all(w > 0 for w in target.values()):
            corral.weight = target
            return
        current = corral.weight
        # The first weight to reach 0 on the way (w ≤ 0 at the target, so the
        # fraction is at most 1).
        step, leaving = min(
            (current[i] / (current[i] - w) if current[i] > w else 0.0, i)
            for i, w in target.items()
            if w <= 0
        )
        corral.weight = {
            i: current[i] + step * (target[i] - current[i]) for i in current
        }
        corral.remove(leaving)
        for i in [i for i, w in corral.weight.items() if w <= 0]:
            if len([j for j in corral.weight if (corral.c[j] > 0) == (corral.c[i] > 0)]) > 1:
                corral.remove(i)


def hull_margin(Z, c, start=None, tol=1e-12):
    """The maximal-margin hyperplane of the rows ``Z`` (labels ``c = ±1``) from the
    nearest points of the two hulls, or their meeting.

    Returns a :class:`QPSolution`: feasible with ``(coef, intercept)`` and the dual
    ``α``, or infeasible when the hulls meet to rounding (the hyperplane of the
    nearest points does not separate the rows), with ``λ`` in ``weights``: the
    candidate certificate. ``weights`` always holds λ, the warm
    start of the next call.
    """
    basis = None
    rows = Z
    if Z.shape[1] > 2 * Z.shape[0]:
        # More features than rows: the same geometry in the rows' span, m × m
        # coordinates from one QR (O(m² q)), so nothing after costs O(q) per step.
        basis, triangle = np.linalg.qr(Z.T)
        rows = triangle.T
    hull = nearest_points(rows, c, start=start, tol=tol / 4)
    squared = float(hull.direction @ hull.direction)
    touching = QPSolution(False, weights=hull.weights, status="touching")
    exact = _active_set_finish(rows, c, hull.support, tol)
    if exact is not None:
        coef, intercept, dual = exact
    elif squared > 0:
        coef, intercept = hull.hyperplane()
        dual = 2 * hull.weights / squared
    else:
        return touching
    if basis is not None:
        coef = basis @ coef
    if not np.all(c * (Z @ coef + intercept) > 0):
        # Meeting to rounding: a separator that separates nothing here. (Where it
        # does separate, however closely, that is the verdict: it is checked.)
        return touching
    return QPSolution(
        True,
        coef=coef,
        intercept=float(intercept),
        dual=dual,
        weights=hull.weights,
        status="Solved",
    )


def _active_set_finish(Z, c, support, tol):
    """``(w, b, α)`` satisfying the KKT conditions on the rows ``Z`` to rounding,
    from the support the nearest points found: the exact hyperplane of the support
    (:func:`support_hyperplane`); a row of negative α leaves, the most violated
    row joins, until neither remains (a primal active-set method). None if that
    does not settle within a few steps (the nearest points' answer then stands)."""
    support = list(support)
    for _ in range(2 * Z.shape[1] + 10):
        if not (np.any(c[support] > 0) and np.any(c[support] < 0)):
            return None
        coef, intercept, alpha = support_hyperplane(Z[support], c[support])
        margins = c * (Z @ coef + intercept)
        on_margin = np.max(np.abs(margins[support] - 1)) <= tol
        if not on_margin:  # too many rows for one hyperplane: the best subset
            support = _best_exchange(Z, c, support, tol)
            if support is None:
                return None
            continue
        if np.min(alpha) < -1e-9 * np.max(np.abs(alpha)):
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
        if not (np.any(c[trial] > 0) and np.any(c[trial] < 0)):
            continue
        coef, intercept, alpha = support_hyperplane(Z[trial], c[trial])
        margins = c * (Z @ coef + intercept)
        if np.max(np.abs(margins[trial] - 1)) > tol:
            continue
        if np.min(alpha) < -1e-9 * np.max(np.abs(alpha)):
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
    ``(z_i - z_a)·w = c_i - c_a`` (a: the first positive row) in least squares of
    least norm, then iterative refinement drives the residual of the equalities to
    rounding. When the rows fix ``w`` uniquely, the features are scaled first, so
    that features on scales 1e6 apart keep their digits.
    """
    a = int(np.argmax(c > 0))
    others = np.arange(len(c)) != a
    differences = Z[others] - Z[a]
    right = c[others] - c[a]
    column_scale = np.max(np.abs(differences), axis=0)
    rank = np.linalg.matrix_rank(differences / np.where(column_scale > 0, column_scale, 1))
    unique = rank == Z.shape[1]
    scale = np.where(column_scale > 0, column_scale, 1.0) if unique else np.ones(Z.shape[1])
    system = differences / scale

    def solve(rhs):
        return np.linalg.lstsq(system, rhs, rcond=None)[0] / scale

    coef = solve(right)
    for _ in range(refinements):
        coef = coef + solve(right - differences @ coef)
    intercept = float(np.mean(c - Z @ coef))
    # w = Σ_{i≠a} γ_i (z_i - z_a): β = α c on the rows, β_a = -Σ γ.
    # Consistent equations, so scaling each feature's row keeps the solution and
    # the digits of the small features.
    row_scale = np.max(np.abs(differences), axis=0)
    row_scale = np.where(row_scale > 0, row_scale, 1.0)
    gamma = np.linalg.lstsq(differences.T / row_scale[:, None], coef / row_scale, rcond=None)[0]
    beta = np.empty(len(c))
    beta[others], beta[a] = gamma, -gamma.sum()
    return coef, intercept, beta * c
