"""HiGHS through scipy: the least total hinge (:func:`total_hinge_lp`,
:func:`kesler_hinge_lp`; the soft limit's first stage), the inseparability
certificates (:func:`hull_intersection_lp`, :func:`kesler_flow_lp`) and the
hitting-set MIP (:func:`hitting_set_mip`)."""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..._kesler import kesler_matrix, split_machine
from ...exceptions import SolverError
from .._result import TIME_LIMIT, Hyperplane, Status, read_status

# HiGHS's statuses (scipy's linprog codes); any other is an error.
HIGHS = {0: Status.OPTIMAL, 2: Status.INFEASIBLE}

LP_FEASIBILITY_TOLERANCE = 1e-10

# The two-class least-hinge LP (p + 1 equalities, a column a row) goes to HiGHS's
# interior point, with its crossover to a vertex, from IPM_FROM_COLUMNS columns where
# its equalities are IPM_ROWS_FROM to IPM_ROWS_AT_MOST: there the dual simplex's
# iterations cost about a millisecond each, hundreds of them (727 at 8 191 columns).
# One BLAS thread, the soft limit's rounds on 1e5 x 50 (bench_exact_core.py --only
# routes), simplex -> interior point (s): labels with no margin, flips far from the
# boundary, 8 191 columns 0.92 -> 0.74 and 6 565 0.64 -> 0.36; flips spread out 3 690
# 0.52 -> 0.29; clustered 3 245 0.48 -> 0.22; with a margin, flips far, 4 452 columns:
# the fit 1.86 -> 1.56 s. Not everywhere: on uniform rows with noisy labels a whole
# fit took 1.09x at p = 50 (30 000 rows, one LP of 2 996), 1.00x at p = 60; whole-data
# LPs of 3 000-8 000 uniform rows 1.4x at p = 50, 0.6-0.95x at p = 100. With fewer
# equalities the simplex needs few iterations and wins: 1.5-2.3x at p = 20-40 (a
# review's sweep), tall 1e6 x 20's 2 136 columns 0.057 against 0.095 s.
IPM_FROM_COLUMNS = 2500
IPM_ROWS_FROM = 48
IPM_ROWS_AT_MOST = 128


def _highs_lp(what, objective, presolve=True, interior=False, **constraints):
    """HiGHS's dual simplex on ``min objective·x`` under ``constraints`` (linprog's
    keywords), after HiGHS's presolve unless not ``presolve``: its result, or None
    where it proves them infeasible; any other status is a SolverError. With
    ``interior``, its interior point and crossover first (a vertex, as the simplex
    gives), the simplex only where that ends in another status."""
    options = {
        "primal_feasibility_tolerance": LP_FEASIBILITY_TOLERANCE,
        "dual_feasibility_tolerance": LP_FEASIBILITY_TOLERANCE,
        "time_limit": TIME_LIMIT,
        "presolve": presolve,
    }
    result = None
    if interior:
        result = linprog(objective, **constraints, method="highs-ipm", options=options)
    if result is None or result.status not in HIGHS:
        result = linprog(objective, **constraints, method="highs-ds", options=options)
    status = read_status(
        "HiGHS",
        HIGHS,
        result.status,
        f"{what} LP ({result.message})",
        f"{TIME_LIMIT:g} s per call",
    )
    return result if status is Status.OPTIMAL else None


def _least_hinge(what, split, fixed=None, presolve=True, interior=False,
                 **constraints):  # fmt: skip
    """The Hyperplane of a least-hinge LP's dual, ``max Σ α`` under ``constraints``
    (HiGHS; ``interior`` as :func:`_highs_lp`): ``(coef, intercept) = split(y)`` of
    its equalities' multipliers ``y``, its α (clipped at 0) as ``dual``, the least
    total. Infeasible only with ``fixed`` (:func:`total_hinge_lp`): else α = 0 is
    feasible, and a SolverError."""
    result = _highs_lp(what, -np.ones(constraints["A_eq"].shape[1]), presolve,
                       interior, **constraints)  # fmt: skip
    if result is None:
        if fixed is None:  # pragma: no cover - α = 0 is feasible
            raise SolverError(f"HiGHS reported the {what} LP infeasible.")
        return Hyperplane(False, status=Status.INFEASIBLE)
    coef, intercept = split(-result.eqlin.marginals)
    dual, total = np.clip(result.x, 0.0, None), float(-result.fun)
    return Hyperplane(True, coef, intercept, dual, Status.OPTIMAL, total=total)


def total_hinge_lp(Z, c, fit_intercept=True, weights=None, fixed=None):
    r"""``min Σ s_i ξ_i`` s.t. ``c_i (w·z_i + b) + ξ_i ≥ 1``, ``ξ ≥ 0`` (HiGHS): the
    first stage of the soft margin's C → ∞ limit, solved as its dual

    .. math:: \max \sum_i \alpha_i \quad\text{s.t.}\quad
              \sum_i \alpha_i c_i z_i = 0,\ \sum_i \alpha_i c_i = 0,\
              0 \le \alpha_i \le s_i,

    whose basis has p + 1 rows, not n (2e4 rows: 0.08 s, the primal 10.5 s).
    ``(w, b) = -eqlin.marginals``: zero reduced cost gives ``c_i (w·z_i + b) = 1``
    where ``0 < α_i < s_i``; a positive optimum's α is the Farkas certificate (the
    hulls meet). ``fixed``: ``Σ s_j c_j (z_j, 1)`` over rows outside ``Z`` held at
    ``α_j = s_j`` (known violators, their hinges summed by the caller), moved to the
    right side; a wrong guess makes the LP infeasible (``feasible=False``)."""
    n, p = Z.shape
    A_eq = _signed_columns(Z, c, [c[None, :]] if fit_intercept else [])
    upper = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    right = np.zeros(A_eq.shape[0]) if fixed is None else -np.asarray(fixed, float)

    def split(y):  # (w, b) = -y
        return y[:p].copy(), float(y[p]) if fit_intercept else 0.0

    # Without presolve: p + 1 equalities leave it nothing to remove, and it took 40%
    # of the soft limit's LP time (1e5 x 50, 18 rounds: 0.61 -> 0.36 s). Its optima
    # are the same to rounding: to the bit on the benchmarks' data, 1e-14 apart on
    # weighted random ones (review). (The K-class LP keeps it: its moved by 1e-10.)
    bounds = np.column_stack([np.zeros(n), upper])
    interior = (n >= IPM_FROM_COLUMNS
                and IPM_ROWS_FROM <= A_eq.shape[0] <= IPM_ROWS_AT_MOST)  # fmt: skip
    return _least_hinge("total hinge", split, fixed, presolve=False,
                        interior=interior, A_eq=A_eq, b_eq=right,
                        bounds=bounds)  # fmt: skip


def hull_intersection_lp(Z, c):
    """Weights ``λ ≥ 0``, ``Σ_{c=+1} λ_i = Σ_{c=-1} λ_i = 1``, ``Σ λ_i c_i z_i = 0``
    (a point in both hulls), or ``None``. A basic solution: at most ``p + 2`` positive
    weights (Carathéodory)."""
    sums = [side[None, :].astype(float) for side in (c > 0, c < 0)]
    right = np.r_[np.zeros(Z.shape[1]), 1.0, 1.0]
    return _certificate(_signed_columns(Z, c, sums), right, "hull intersection")


def kesler_flow_lp(Z, own, others, n_classes):
    """Farkas weights ``μ ≥ 0``, ``Σ μ = 1``, on the pairs (row, other class) with
    ``Σ_j μ_j (e_own - e_other) ⊗ (z_j, 1) = 0`` (per class, the weight and weighted
    rows its rows carry out equal those of the pairs naming it), or ``None``: then no
    ``(W, b)`` gives all the pairs a positive margin. At most K (p + 1) + 1 positive."""
    m = len(own)
    equalities = sp.vstack(
        [kesler_matrix(Z, own, others, n_classes).T, np.ones((1, m))], format="csc"
    )
    right = np.r_[np.zeros(equalities.shape[0] - 1), 1.0]
    return _certificate(equalities, right, "multiclass certificate")


def _certificate(equalities, right, what):
    """Weights ``x ≥ 0`` meeting the certificate's ``equalities`` (HiGHS), polished
    (:func:`_polish`), or None where there are none."""
    n = equalities.shape[1]
    result = _highs_lp(
        what, np.zeros(n), A_eq=equalities, b_eq=right, bounds=[(0, None)] * n
    )
    return None if result is None else _polish(equalities, right, result.x)


def kesler_hinge_lp(Z, own, others, n_classes, row_of, weights):
    r"""``min Σ s_r ξ_r`` subject to ``(w_own - w_other)·z_j + b_own - b_other +
    ξ_{row_of[j]} ≥ 1``, ``ξ ≥ 0`` (HiGHS): the machine's least total hinge (a row's
    hinge its worst pair's), the soft limit's first stage, solved as its dual

    .. math:: \max \sum_j \mu_j \quad\text{s.t.}\quad
              \sum_j \mu_j \varphi_j = 0,\
              \sum_{j \in r} \mu_j \le s_r,\ \mu \ge 0,

    whose basis has K (p + 1) rows (1 371 pairs of 2 000 rows: 0.05 s; the primal hit
    its 300 s limit). The machine is the equalities' multipliers, its intercepts shifted
    to ``Σ b = 0``: ``coef`` (K, p), ``intercept`` (K,), the pairs' μ as ``dual``."""
    m, p = Z.shape
    equalities = kesler_matrix(Z, own, others, n_classes).T.tocsc()
    carried = sp.csr_matrix(
        (np.ones(m), (row_of, np.arange(m))), shape=(len(weights), m)
    )

    def split(y):  # intercepts shifted to Σ b = 0
        coef, intercept = split_machine(y, n_classes, p)
        return coef, intercept - intercept.mean()

    return _least_hinge("multiclass total hinge", split, A_eq=equalities,
                        b_eq=np.zeros(equalities.shape[0]), A_ub=carried,
                        b_ub=np.asarray(weights, dtype=float),
                        bounds=(0, None))  # fmt: skip


def _signed_columns(Z, c, below):
    """``[c_i z_i as columns; below]``: an LP's equalities over the rows of Z,
    sparse (CSC, for HiGHS) where Z is."""
    if sp.issparse(Z):
        return sp.vstack([Z.T @ sp.diags(c)] + below, format="csc")
    return np.vstack([c[None, :] * Z.T] + below)


# The most entries (32 MiB) of a sparse hull LP's support polished on a dense copy.
_POLISH_ENTRIES = 1 << 22


def _polish(equalities, right, weights):
    """Re-solve the equalities on a basic solution's support by least squares (the LP
    meets them only to its tolerance); the LP's weights stay if not beaten."""
    support = weights > 1e-12 * max(weights.max(), 1.0)
    on_support = equalities[:, support]
    if sp.issparse(on_support):
        if on_support.shape[0] * on_support.shape[1] > _POLISH_ENTRIES:
            return np.where(support, weights, 0.0)
        on_support = on_support.toarray()
    polished = np.zeros_like(weights)
    polished[support] = np.linalg.lstsq(on_support, right, rcond=None)[0]
    residual = np.linalg.norm(equalities @ weights - right)
    if np.all(polished >= 0) and (
        np.linalg.norm(equalities @ polished - right) <= residual
    ):
        return polished
    return np.where(support, weights, 0.0)


# scipy's milp statuses: 0 optimal, 1 a limit reached (a bound, maybe a solution).
MILP_OPTIMAL, MILP_LIMIT = 0, 1


def hitting_set_mip(sets, n, time_limit):
    """The fewest of ``n`` items meeting every one of ``sets`` (index arrays):
    ``min Σ z_i``, ``Σ_{i ∈ S} z_i ≥ 1`` per set, ``z`` binary (HiGHS's branch and
    bound). ``(chosen, lower, optimal)``: the best items found (None if the limit came
    first), a proven lower bound (the dual bound rounded up: the objective is an
    integer), and whether ``chosen`` is optimal."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    columns = np.concatenate(sets) if sets else np.array([], dtype=np.intp)
    incidence = sp.csr_matrix(
        (np.ones(rows.size), (rows, columns)), shape=(len(sets), n)
    )
    result = milp(
        np.ones(n),
        constraints=LinearConstraint(incidence, 1.0, np.inf),
        integrality=np.ones(n),
        bounds=Bounds(0.0, 1.0),
        options={"time_limit": max(time_limit, 1e-3), "presolve": True},
    )
    if result.status not in (MILP_OPTIMAL, MILP_LIMIT):
        raise SolverError(f"HiGHS failed on the hitting-set MIP: {result.message}")
    optimal = result.status == MILP_OPTIMAL
    chosen = None if result.x is None else np.flatnonzero(result.x > 0.5)
    bound = float(chosen.size) if optimal else getattr(result, "mip_dual_bound", None)
    lower = 0 if bound is None or not np.isfinite(bound) else int(np.ceil(bound - 1e-6))
    return chosen, lower, optimal
