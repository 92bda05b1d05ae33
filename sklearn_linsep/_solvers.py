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
from scipy.optimize import linprog

# Tolerances at which Clarabel and HiGHS return answers accurate to ~1e-10 on data
# scaled into [-1, 1]; the callers verify the answers on all the data afterwards.
QP_TOLERANCE = 1e-11
LP_FEASIBILITY_TOLERANCE = 1e-10
MAX_ITERATIONS = 500
TIME_LIMIT = 300.0  # seconds, per solver call


class SolverError(RuntimeError):
    """A QP or LP solver stopped without an answer (the status is in the message)."""


@dataclass
class QPSolution:
    """The maximal-margin hyperplane of a set of rows, or its infeasibility."""

    feasible: bool
    coef: np.ndarray = None  # w
    intercept: float = 0.0  # b
    dual: np.ndarray = None  # α ≥ 0, one per row
    status: str = ""


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
