"""The hard-margin dual on the rows' Gram matrix by a primal-dual active set: the
route for rows that may all be support vectors (p ≫ n)."""

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from .._result import Hyperplane, Status
from ._active_set import _as_hull_weights, _on_and_outside_margin, _two_sided

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


def dense_dual_margin(Z, c, start=None, tol=1e-12):
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
    ``start`` (the nearest points' warm start) is not used: a first solve on all
    the rows is the start.
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
        status=Status.OPTIMAL,
    )
