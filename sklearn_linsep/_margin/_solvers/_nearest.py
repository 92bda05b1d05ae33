"""The nearest points of two convex hulls (SPEC §10): the maximal margin, the
verdict and its certificate from one engine. The hard-margin dual is, up to scale,
the hulls' distance, min ‖Σ λ_i c_i z_i‖ over λ ≥ 0 summing to 1 on each side.
Wolfe's minimum-norm-point active set (compiled:
:func:`~sklearn_linsep._kernels.nearest_points_kernel`) solves it exactly over the
corral's (positive weights') affine hull by least squares on an updated QR, never a
Gram matrix: the conditioning is the points', not its square. Rows join its steps in
batches, so a support of hundreds of rows takes tens of steps; where rows are not
many more than features, it starts from a support guessed by coordinate descent."""

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from scipy.linalg import lapack, qr

from ... import _kernels
from ..._working_set import BATCH_FROM, hull_nearest_points
from ...exceptions import SolverError
from .._result import Hyperplane, Status
from ._active_set import (
    _active_set_finish,
    _two_sided,
    as_hull_weights,
    on_and_outside_margin,
)

# Where rows are not many more than their features (m <= GUESS_ROWS_PER_FEATURE q,
# from BATCH_FROM features), a support of hundreds of rows is likely: a guess of it
# by GUESS_PASSES of coordinate descent on the margin's dual over the rows
# (``_kernels.margin_row_passes``; ended sooner once a pass changes whether α_i > 0
# for at most ``GUESS_SETTLED`` of the rows) starts the kernel. The kernel alone from
# the guess, guess included, against from two rows (ms, one BLAS thread): 1 000 x 500
# 32 -> 19, 2 000 x 500 63 -> 32, 1 500 x 1 000 126 -> 75, 1 000 x 250 8.7 -> 6.2;
# 1e4 x 100's first 840 rows (a ratio of 8): 4.7 -> 5.4, no gain.
GUESS_ROWS_PER_FEATURE = 4
GUESS_PASSES = 30
GUESS_SETTLED = 1e-3
# Columns of the kernel's corral left free by a guess (rows joining later steps).
GUESS_ROOM = 32
# A wide margin holds few rows, and the kernel from two rows is as fast as from a
# guess: after GUESS_PROBE passes, a guess holding fewer than GUESS_PROBE_SHARE q
# rows is dropped. Held after 2 passes, then the fit with / without the guess (ms):
# 1 000 x 500 classes 10 apart 84 rows, 11.4 / 8.5; 2 apart 411, 11.1 / 16.0;
# 2 000 x 1 000 10 apart 182, 70.5 / 66.0; 2 apart 820, 77.5 / 116; 1 000 x 250
# 10 apart 46, 5.5 / 4.0; 400 x 100 5 apart 59-68 (a reviewer: 6-12% slower);
# bench_svm.py's 1 000 x 500 723 rows, 22.6 / 28.5. Where it paid, at least 0.82 q.
GUESS_PROBE = 2
GUESS_PROBE_SHARE = 0.75


@dataclass
class NearestPoints:
    """The nearest points ``p₊ = Σ_{c=+1} λ_i z_i``, ``p₋ = Σ_{c=-1} λ_i z_i``;
    ``direction`` ``v = p₊ - p₋`` (zero when the hulls meet), ``levels``
    ``(v·p₊, v·p₋)``. At the optimum positive rows have ``v·z ≥ levels[0]``, negative
    rows ``≤ levels[1]``: ``w = 2 v / ‖v‖²``, ``b = -(levels[0] + levels[1]) / ‖v‖²``.
    """

    weights: np.ndarray  # λ, one per row, zero off the corral
    direction: np.ndarray
    levels: tuple

    @property
    def support(self):
        return np.flatnonzero(self.weights > 0)


def nearest_points(Z, c, start=None, tol=1e-12):
    """The :class:`NearestPoints` of the hulls of ``Z[c > 0]``, ``Z[c < 0]`` (compiled;
    ``Z`` best centred and scaled to about unit size, ``c`` ±1, both present), from
    ``start`` (λ of a previous answer: rows of weight 0 are out) or, one-sided or
    without it, each class's row nearest the other along the class means' difference;
    done when no row lies more than ``tol ‖v‖²`` (plus the products' rounding) beyond
    its class's level."""
    Z = np.ascontiguousarray(Z, dtype=float)
    c = np.ascontiguousarray(c, dtype=float)
    m, q = Z.shape
    weights = np.zeros(m) if start is None else np.array(start, dtype=float)
    if not _two_sided(c[weights > 0]) and _guess_suits(m, q):
        guess = support_guess(Z, c)
        weights = weights if guess is None else guess
    weights, direction, levels, status, max_iter = hull_nearest_points(
        Z, c, weights, tol
    )
    if status == _kernels.NEAREST_ITERATIONS:
        raise SolverError(
            f"The nearest-points iteration did not converge in {max_iter} steps "
            f"({np.count_nonzero(weights)} points in its corral)."
        )
    return NearestPoints(weights, direction, levels)


def _guess_suits(m, q):
    """Whether a cold start on ``m`` rows of ``q`` features starts from
    :func:`support_guess` (see ``GUESS_ROWS_PER_FEATURE``)."""
    return q >= BATCH_FROM and 2 * GUESS_ROOM <= m <= GUESS_ROWS_PER_FEATURE * q


def support_guess(Z, c):
    """Weights λ over the rows of ``Z`` (C-ordered float64) from a few passes of
    coordinate descent on the maximal margin's dual (rows in one seeded order; see
    ``GUESS_PASSES``), at most as many rows as the kernel's corral holds less
    ``GUESS_ROOM``, the heaviest: a start for :func:`nearest_points`, which makes any
    start exact (a poor one costs steps, not the answer). None where the first
    passes hold few rows (``GUESS_PROBE``): a wide margin, started from two rows."""
    m, q = Z.shape
    dual, normal = np.zeros(m), np.zeros(q + 1)
    order = _kernels.shuffled_order(m, 0).astype(np.intp, copy=False)
    settled = int(GUESS_SETTLED * m)
    done = _kernels.margin_row_passes(Z, c, dual, normal, order, GUESS_PROBE, settled)
    if np.count_nonzero(dual) < GUESS_PROBE_SHARE * q:
        return None
    if done == GUESS_PROBE:  # not settled yet: the passes go on where they were
        _kernels.margin_row_passes(
            Z, c, dual, normal, order, GUESS_PASSES - GUESS_PROBE, settled
        )
    room = min(q, m) + 3 - GUESS_ROOM  # nearest_workspace's capacity + 2, less room
    if np.count_nonzero(dual) > room:
        dual[dual < np.partition(dual, -room)[-room]] = 0.0
    return dual


def nearest_points_margin(Z, c, start=None, tol=1e-12):
    """The maximal-margin hyperplane of ``Z`` (labels ``c = ±1``) from the hulls'
    nearest points, or their meeting (infeasible: the nearest points' hyperplane does
    not separate): the route that always answers. ``weights`` always holds λ (the
    candidate certificate, the next warm start). Where the hyperplane misses optimality
    by more than ``tol`` (classes close against the spread, features far apart in
    scale), :func:`_active_set_finish` solves the support's KKT system exactly. With
    ``q > 2m``, in the rows' span: m × m coordinates from the pivoted Cholesky of
    ``Z Zᵀ``, or the R of a QR of ``Zᵀ`` where that loses digits the check on ``Z``
    needs; most rows then being support vectors, the exact finish from all goes
    first."""
    m, q = Z.shape
    dense = SimpleNamespace(Z=Z, dot=Z.__matmul__, tdot=Z.__rmatmul__)  # rows' products
    if q <= 2 * m:
        return _hull_margin(dense, Z, c, start, tol, wide=False)
    for coordinates in (lambda Z: gram_coordinates(Z @ Z.T), _qr_coordinates):
        solution = _hull_margin(dense, coordinates(Z), c, start, tol, wide=True)
        if not solution.feasible:
            return solution
        # found in other coordinates: does it hold on the rows themselves?
        margins = c * (Z @ solution.coef + solution.intercept)
        if on_and_outside_margin(margins, solution.dual > 0, tol):
            return solution
    return solution  # checked again, and refused, by the caller


def gram_margin(gram, original, c, start=None, tol=1e-12):
    """:func:`nearest_points_margin` of rows known by their Gram matrix and products
    ``original.dot(w)``, ``original.tdot(v)`` (too wide or sparse to hand over): in the
    pivoted Cholesky's coordinates, ``coef = Zᵀ (α c)`` (the caller checks margins)."""
    return _hull_margin(original, gram_coordinates(gram), c, start, tol, wide=False)


def gram_coordinates(gram):
    """Rows ``Y`` with ``Y Yᵀ = K``, ``K`` the Gram matrix of rows (pivoted
    Cholesky, LAPACK dpstrf: rank at m ε max(K_ii))."""
    factor, pivots, rank, _ = lapack.dpstrf(gram)
    coordinates = np.zeros((len(gram), max(rank, 1)))
    coordinates[pivots - 1] = np.triu(factor)[: max(rank, 1)].T
    return coordinates


def _qr_coordinates(Z):
    """Rows ``Y = Rᵀ`` of ``Zᵀ = QR``: the same inner products, to rounding."""
    m = len(Z)
    return np.ascontiguousarray(qr(Z.T, mode="r", check_finite=False)[0][:m].T)


def _hull_margin(original, rows, c, start, tol, wide):
    """:func:`nearest_points_margin` on ``rows``: those of ``original`` (``Z``, the
    products ``dot`` and ``tdot``) or coordinates with the same inner products."""
    m, q = rows.shape
    answer, hull = None, None
    if wide:  # the finish from all rows: done at once when most are on the margin
        answer = _active_set_finish(rows, c, np.arange(m), tol, max_steps=m // 10 + 2)
    if answer is None:
        hull = nearest_points(rows, c, start=start, tol=tol / 4)
        squared = float(hull.direction @ hull.direction)
        if squared > 0:
            coef = 2 * hull.direction / squared
            intercept = -(hull.levels[0] + hull.levels[1]) / squared
            margins = c * (rows @ coef + intercept)
            if on_and_outside_margin(margins, hull.support, tol):
                answer = coef, intercept, 2 * hull.weights / squared
        # Hulls that meet to rounding have no support to finish on (and it would
        # cost a search over exchanges): the verdict rests on the separation check.
        size = float(np.max(np.abs(rows))) * np.sqrt(q)
        if answer is None and np.sqrt(squared) > 64 * np.finfo(float).eps * size:
            answer = _active_set_finish(rows, c, hull.support, tol)
        if answer is None and squared > 0:
            answer = coef, intercept, 2 * hull.weights / squared  # checked later
    weights = hull.weights if hull is not None else as_hull_weights(answer[2], c)
    if answer is None:
        return Hyperplane(False, weights=weights, status=Status.TOUCHING)
    coef, intercept, dual = answer
    if rows is not getattr(original, "Z", None):
        coef = original.tdot(dual * c)
    if not np.all(c * (original.dot(coef) + intercept) > 0):
        # Meeting to rounding: a separator that separates nothing here. (Where it
        # does separate, however closely, that is the verdict: it is checked.)
        return Hyperplane(False, weights=weights, status=Status.TOUCHING)
    return Hyperplane(True, coef, float(intercept), dual, Status.OPTIMAL, weights)
