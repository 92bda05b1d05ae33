"""Clarabel's interior point on the margin QPs: :func:`margin_qp` (with a slack
budget, the soft limit's second stage, or through the origin, Novikoff's margin),
the least-hinge face's QP (:func:`face_margin_qp`, first by an exact primal active
set; :func:`face_dual_qp` on a Gram matrix) and the K-class :func:`kesler_margin_qp`."""

import numpy as np
import scipy.sparse as sp

from ..._compat import lazy_import
from ..._kesler import kesler_matrix, pair_margins
from ...exceptions import SolverError
from .._result import (
    MAX_ITERATIONS,
    TIME_LIMIT,
    Hyperplane,
    Status,
    read_status,
)
from ._active_set import _active_set_finish, margin_from_feasible, off_face

# Tolerances at which Clarabel returns answers accurate to ~1e-10 on data scaled
# into [-1, 1]; the callers verify the answers on all the data afterwards.
QP_TOLERANCE = 1e-11

# Clarabel's statuses; any other is an error.
CLARABEL = {
    "Solved": Status.OPTIMAL,
    "AlmostSolved": Status.ALMOST_OPTIMAL,
    "PrimalInfeasible": Status.INFEASIBLE,
    "AlmostPrimalInfeasible": Status.INFEASIBLE,
}
# A support's guess (checked in rationals) may come from a stalled interior point.
CLARABEL_GUESS = {**CLARABEL, "InsufficientProgress": Status.ALMOST_OPTIMAL}

clarabel = lazy_import("clarabel")

FACE_TOLERANCE = 1e-9  # how far a row may be off its side of the least-hinge face
# Rows within this of margin 1 at the face QP's interior point start the exact
# finish (face_margin_qp): Clarabel at QP_TOLERANCE holds its support to ~1e-6.
SUPPORT_BAND = 1e-5


def margin_qp(Z, c, fit_intercept=True, slack_budget=None, weights=None, accept=None):
    """``min ½‖w‖²`` subject to ``c_i (w·z_i + b) ≥ 1`` (Clarabel); ``feasible`` False
    where Clarabel proves no hyperplane separates. ``slack_budget``:
    ``c_i (w·z_i + b) + ξ_i ≥ 1``, ``ξ ≥ 0``, ``Σ s_i ξ_i ≤ slack_budget`` (``s`` the
    ``weights``, default 1), the soft margin's C → ∞ limit; with almost no interior
    Clarabel can stall: retried (:func:`_retrying`) until ``accept`` (default: any)."""
    n, slack = len(c), {}
    if slack_budget is not None:
        weights = np.ones(n) if weights is None else weights
        slack = {"slack": (np.arange(n), n), "budget": (weights, slack_budget)}
    constrain = _signed_rows(c, None, fit_intercept)
    return _retrying(accept, f"margin QP of {n} rows", Z, constrain, 1,
                     fit_intercept=fit_intercept, **slack)  # fmt: skip


def _retrying(accept, what, Z, constrain, classes, scalings=(False, True), **program):
    """The first of Clarabel's answers to :func:`_margin_program`, over its two
    factorisations and ``scalings`` (without, then with features scaled to unit size
    ``s_j``: ``u_j = w_j s_j``, objective ``½ Σ u_j² / s_j²``), that passes
    ``accept``; else the last failure."""
    failure = None
    for method in ("qdldl", "faer"):
        for scaled in scalings:
            try:
                solution = _margin_program(Z, method, scaled, constrain, what, classes,
                                           **program)  # fmt: skip
            except SolverError as error:
                failure = error
                continue
            if not solution.feasible or accept is None or accept(solution):
                return solution
            failure = SolverError(
                f"Clarabel's answers to the {what} (last status "
                f"{solution.status.value}) "
                "fail their check on those rows."
            )
    raise failure


def _signed_rows(c, sides, fit_intercept=True):
    """The ``constrain`` of :func:`margin_qp` and, with ``sides``, of the face QP
    (:func:`face_margin_qp`): a machine of one class, its rows flipped where side -1."""
    signed = c if sides is None else np.where(sides == 0, 1.0, sides) * c

    def constrain(Z):
        rows = signed[:, None] * Z
        return np.column_stack([rows, signed]) if fit_intercept else rows

    return constrain


def _margin_program(Z, method, scaled, constrain, what, classes, sides=None,
                    fit_intercept=True, slack=None, budget=None,
                    guess=False):  # fmt: skip
    """One attempt at ``min ½ Σ_k ‖w_k‖²`` s.t. ``φ_j·x + ξ_{s_j} ≥ 1``, ``ξ ≥ 0``, for
    a machine of ``classes`` (one: a hyperplane, ``coef`` a vector; more: ``Σ b = 0``),
    ``x`` each class's weights (scaled: :func:`_retrying`) then intercept,
    ``φ = constrain(Z / scale)``: ``≥``, ``=`` (first, in the zero cone) or ``≤`` by
    ``sides`` (``dual`` then signed); ``slack = (s, number of slacks)`` (``s_j < 0``:
    none); ``budget = (weights, total)``: ``Σ weights ξ ≤ total``. ``guess``: the
    weights 1/s² centred on 1 in their decades (same argmin; from 1 to 1e25 Clarabel
    stalled on a support of 166 pairs for 78, centred it solved), a stalled last
    iterate taken, ``dual`` each row's multiplier over its slack (complementarity:
    z ≫ s on the support)."""
    p, feature_scale = Z.shape[1], np.ones(Z.shape[1])
    if scaled and Z.shape[0]:  # each column's largest magnitude, 1 where it is 0
        largest = abs(Z).max(axis=0)
        largest = largest.toarray().ravel() if sp.issparse(largest) else largest
        feature_scale = np.where(largest > 0, largest, 1.0)
    if sp.issparse(Z):
        rows = constrain(Z @ sp.diags(1 / feature_scale))
    else:
        rows = constrain(Z / feature_scale)
    m, width = rows.shape
    signs = np.ones(m) if sides is None else np.where(sides == 0, 1.0, sides)
    slack_of, n_slack = (np.full(m, -1), 0) if slack is None else slack
    weight = feature_scale.max() * feature_scale.min() if guess else 1.0
    block = np.r_[weight / feature_scale**2, np.zeros(int(fit_intercept))]
    quadratic = sp.diags(np.r_[np.tile(block, classes), np.zeros(n_slack)]).tocsc()
    has_slack = slack_of >= 0
    slacks = sp.csr_matrix(
        (-np.ones(has_slack.sum()), (np.flatnonzero(has_slack), slack_of[has_slack])),
        shape=(m, n_slack),
    )
    equal = np.zeros(m, bool) if sides is None else sides == 0
    order = np.r_[np.flatnonzero(equal), np.flatnonzero(~equal)]
    head = []  # a machine's Σ b = 0
    if classes > 1:
        intercepts = np.arange(classes) * (p + 1) + p
        head = [sp.csr_matrix((np.ones(classes), (np.zeros(classes, int), intercepts)),
                              shape=(1, width + n_slack))]  # fmt: skip
    blocks = head + [
        sp.hstack([sp.csr_matrix(-rows), slacks], format="csr")[order],
        sp.hstack([sp.csr_matrix((n_slack, width)), -sp.identity(n_slack)]),
    ]
    bounds = [np.zeros(len(head)), -signs[order], np.zeros(n_slack)]
    if budget is not None:
        blocks.append(sp.csr_matrix(np.r_[np.zeros(width), budget[0]][None, :]))
        bounds.append([budget[1]])
    constraints = sp.vstack(blocks, format="csc")
    n_equal = len(head) + int(equal.sum())
    cones = [clarabel.ZeroConeT(n_equal)] if n_equal else []
    cones.append(clarabel.NonnegativeConeT(constraints.shape[0] - n_equal))
    statuses = CLARABEL_GUESS if guess else CLARABEL
    solution, status = _solve(quadratic, constraints, np.concatenate(bounds), cones,
                              method, what, statuses=statuses)  # fmt: skip
    if status is Status.INFEASIBLE:
        return Hyperplane(False, status=status)
    x, z, on_rows = np.asarray(solution.x), np.asarray(solution.z), np.empty(m, int)
    on_rows[order] = len(head) + np.arange(m)
    dual = z[on_rows]
    if guess:
        slack = np.asarray(solution.s)[on_rows]
        dual = np.maximum(dual, 0.0) / np.maximum(slack, 1e-300)
    layout = x[:width].reshape(classes, -1)
    coef = layout[:, :p] / feature_scale
    intercept = layout[:, p] if fit_intercept else np.zeros(classes)
    if classes == 1:  # a hyperplane
        coef, intercept = coef[0], float(intercept[0])
    return Hyperplane(
        True,
        coef=coef,
        intercept=intercept,
        dual=np.maximum(dual, 0.0) if sides is None else signs * dual,
        status=status,
        budget_multiplier=None if budget is None else float(z[-1]),
    )


def face_margin_qp(Z, c, sides, feasible=None):
    """The margin on the least-hinge LP's optimal face (the soft limit's second stage).
    ``sides`` (per row, by complementary slackness with the LP's dual α*): ``+1`` where
    α* = 0 (``c (w·z + b) ≥ 1``), ``0`` where 0 < α* < s (``= 1``), ``-1`` where α* = s
    (``≤ 1``, hinge free): least total hinge iff these hold (LP duality). ``dual``:
    signed β, ``w = Σ β_i c_i z_i``. Exact by :func:`~._active_set._active_set_finish`
    from the rows on the face (the equalities), or where there are none from the rows
    at margin 1 of Clarabel's answer (within ``SUPPORT_BAND``); else from ``feasible``
    (the LP's hyperplane) by :func:`margin_from_feasible`; else Clarabel's answer,
    retried until every row keeps its side to ``FACE_TOLERANCE``."""
    on_face = np.flatnonzero(sides == 0)
    found = _active_set_finish(Z, c, on_face, FACE_TOLERANCE, sides=sides)
    exact = None if found is None else Hyperplane(True, *found, status=Status.OPTIMAL)
    if exact is not None:
        return exact

    def keeps_sides(solution):
        margins = c * (Z @ solution.coef + solution.intercept)
        return bool(np.all(off_face(margins, sides) <= FACE_TOLERANCE))

    def interior_point():
        return _retrying(keeps_sides, f"face QP of {len(c)} rows", Z,
                         _signed_rows(c, sides), 1, sides=sides)  # fmt: skip

    # Without equalities the finish has no support to start from: the interior
    # point's is near the answer's, where the primal active set from the LP's
    # vertex takes its rows in one a step (1 000 x 100, three rows copied across:
    # 136-212 steps of an SVD each, 1.1 s a round).
    guess = failure = None
    if not on_face.size:
        try:
            guess = interior_point()
        except SolverError as error:
            failure = error
    if guess is not None and guess.feasible:
        margins = c * (Z @ guess.coef + guess.intercept)
        support = np.flatnonzero(np.abs(margins - 1) <= SUPPORT_BAND)
        found = _active_set_finish(Z, c, support, FACE_TOLERANCE, sides=sides)
        if found is not None:
            return Hyperplane(True, *found, status=Status.OPTIMAL)
    if feasible is not None:
        exact = margin_from_feasible(Z, c, *feasible, FACE_TOLERANCE, sides=sides)
    if exact is not None:
        return exact
    if failure is not None:
        raise failure
    return guess if guess is not None else interior_point()


def face_dual_qp(gram, c, sides):
    r"""The face QP (:func:`face_margin_qp`) of rows known by their Gram matrix K, as
    its dual (Clarabel):

    .. math:: \min_\nu \tfrac12 (\nu c)^\top K (\nu c) - \textstyle\sum_i \nu_i
              \quad\text{s.t.}\quad \sum_i \nu_i c_i = 0,\ s_i \nu_i \ge 0

    (``s``: ``sides``; ``ν`` free on side 0): ``(ν, b, status)``, ``w = Σ ν_i c_i z_i``,
    b the multiplier of ``Σ ν c = 0``. faer's blocked LDL on the dense K: 9 s where
    qdldl took 136 s (3 326 rows of text)."""
    m = len(c)
    signed = c[:, None] * gram * c[None, :]
    bounded = np.flatnonzero(sides != 0)
    signs = sp.diags(-np.asarray(sides, float)).tocsr()[bounded]
    constraints = sp.vstack([sp.csc_matrix(c[None, :]), signs], format="csc")
    cones = [clarabel.ZeroConeT(1)]
    if bounded.size:
        cones.append(clarabel.NonnegativeConeT(bounded.size))
    solution, status = _solve(
        sp.csc_matrix(np.triu(signed)),
        constraints,
        np.zeros(1 + bounded.size),
        cones,
        "faer",
        f"face QP's dual of {m} rows",
        linear=-np.ones(m),
    )
    return np.asarray(solution.x), float(solution.z[0]), status


def kesler_margin_qp(Z, own, others, n_classes, face=None):
    r"""The Crammer–Singer hard margin of the pairs (row, other class) (Clarabel):

    .. math:: \min \tfrac12 \textstyle\sum_k \|w_k\|^2 \quad\text{s.t.}\quad
              (w_{y_j} - w_{k_j})\cdot z_j + b_{y_j} - b_{k_j} \ge 1,\
              \textstyle\sum_k b_k = 0

    (``Σ b = 0`` fixes the intercepts' shift, which no pair sees). With
    ``face = (slack_of, n_slack, tight)``, over the least-hinge LP's optimal face: pair
    j takes its row's slack ``ξ_{slack_of[j]} ≥ 0`` (none where ``slack_of[j] < 0``:
    hinge 0 on the face), with equality where ``tight[j]``. ``feasible`` False when
    Clarabel proves the pairs inseparable; retried as :func:`margin_qp` on stalls."""

    def keeps_the_pairs(solution):
        # Rough (gross failures only): the finishing active set gives the digits; an
        # almost-solved answer missed pairs by 2e-6.
        margins = pair_margins(Z, own, others, solution.coef, solution.intercept)
        return bool(np.min(margins) >= 1 - 1e-3)

    on_face = {} if face is None else {"sides": np.where(face[2], 0.0, 1.0),
                                        "slack": face[:2]}  # fmt: skip
    return _retrying(
        # the face's pairs may keep a hinge: their QP is checked by its caller
        keeps_the_pairs if face is None else None,
        f"multiclass margin QP of {len(own)} pairs",
        Z, lambda Z: kesler_matrix(Z, own, others, n_classes), n_classes, **on_face,
    )  # fmt: skip


def kesler_support_guess(Z, own, others, n_classes):
    """A guess of the Crammer–Singer support (:func:`kesler_margin_qp`), for a check
    in rationals: features scaled from the first try (far apart, the unscaled answer
    passed its rough check on the wrong support), a stalled interior point's last
    iterate taken; ``dual`` each pair's multiplier over its slack, ``z / s``: large on
    the support."""
    return _retrying(
        None, f"multiclass margin QP of {len(own)} pairs", Z,
        lambda Z: kesler_matrix(Z, own, others, n_classes), n_classes,
        scalings=(True,), guess=True,
    )  # fmt: skip


def _solve(quadratic, constraints, bounds, cones, method, what, linear=None,
           statuses=CLARABEL):  # fmt: skip
    """``(solution, Status)`` of ``min ½ xᵀPx + qᵀx`` (``q = linear``, default 0) over
    the cones by ``method``'s factorisation, quiet, at ``QP_TOLERANCE``, within the
    limits; a status outside ``statuses`` is a SolverError. qdldl first: on 400 × 100
    dense working sets "auto" took 0.19-0.35 s, qdldl 0.05-0.06 s, as many steps."""
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = QP_TOLERANCE
    settings.tol_feas = settings.tol_ktratio = QP_TOLERANCE
    settings.direct_solve_method = method
    settings.max_iter = MAX_ITERATIONS
    settings.time_limit = TIME_LIMIT
    solution = clarabel.DefaultSolver(
        quadratic,
        np.zeros(quadratic.shape[0]) if linear is None else linear,
        constraints,
        bounds,
        cones,
        settings,
    ).solve()
    limits = f"{MAX_ITERATIONS} iterations, {TIME_LIMIT:g} s per call"
    return solution, read_status(
        "Clarabel", statuses, str(solution.status), what, limits
    )
