"""The hard-margin dual on the rows' Gram matrix by a primal-dual active set: the
route for rows that may all be support vectors (p ≫ n)."""

import numpy as np
from scipy.linalg import cho_factor, cho_solve, lapack

from .._result import Hyperplane, Status
from ._active_set import _as_hull_weights, _two_sided, on_and_outside_margin

# The dense dual route: rows that may all be support vectors (as many features as
# rows, or more: then every held set is nonsingular), and few enough for their
# Gram matrix (4000 rows: 128 MB). With fewer features than rows a held set beyond
# p + 1 rows is singular; capped there, the active set cycled at 1000 x 500 (40
# steps, no answer), so the nearest points serve those shapes.
DENSE_DUAL_MAX_ROWS = 4000

DENSE_DUAL_MAX_ITERATIONS = 40

# A held row whose pivot falls below this share of the largest diagonal entry of
# K + 1 1ᵀ depends on the other held rows to rounding.
DEPENDENT_BELOW = 1e-11
# An answer whose held rows' margins miss 1 by more than this is refused.
RESIDUAL_LIMIT = 1e-9


def dense_dual_suits(m, q):
    """Whether :func:`dense_dual_margin` is tried first on ``m`` rows of ``q``
    features."""
    return m <= DENSE_DUAL_MAX_ROWS and q + 1 >= m


def dense_dual_margin(Z, c, start=None, tol=1e-12):
    """The maximal margin of the rows ``Z`` from the hard-margin dual on their
    Gram matrix (:func:`gram_active_set`, from all the rows held); a
    :class:`Hyperplane`, or None where it does not settle (the caller's nearest
    points then decide, as they do inseparable rows). The answer is checked on
    ``Z`` itself, not on K. ``start`` (the nearest points' warm start) is not
    used: a first solve on all the rows is the start."""
    answer = gram_active_set(Z @ Z.T, c, np.arange(len(c)), tol=tol)
    if answer is None:
        return None
    dual, intercept = answer
    return _dense_dual_answer(Z, c, dual, intercept, tol)


def gram_active_set(gram, c, held, sides=None, tol=1e-12):
    """The margin QP's dual on a Gram matrix K by a primal-dual active set
    (Hintermüller, Ito & Kunisch 2002) from the rows ``held`` on the margin:
    ``(ν, b)`` with ``w = Σ ν_i c_i z_i``, or None where it does not settle
    (cycling, a singular held set, one class held).

    Row i's constraint is ``c_i (w·z_i + b) ≥ 1`` where ``sides[i] = +1`` (the
    hard margin: the default), ``= 1`` where 0 and ``≤ 1`` where -1 (the soft
    limit's least-hinge face). The held rows solve ``K_II β + b = c_I``,
    ``Σ β = 0`` (one symmetric factorisation of the bordered system); then every
    held row whose multiplier ``ν = c β`` has the wrong sign for its side leaves
    and every other row on the wrong side of 1 joins, all in one step, so a
    support that is most of the rows (p ≫ n) is found in a few factorisations
    where an active set adding one row at a time needs hundreds. It may cycle
    from a poor start; from a support near the answer (the last working set's)
    it settles in a few steps.
    """
    m = len(c)
    sides = np.ones(m) if sides is None else np.asarray(sides, dtype=float)
    held = np.union1d(held, np.flatnonzero(sides == 0))  # equalities: always
    seen = set()
    beta = np.zeros(m)
    system = _HeldSystem(gram, c)
    for _ in range(DENSE_DUAL_MAX_ITERATIONS):
        held = np.sort(held)
        key = held.tobytes()
        if key in seen or not _two_sided(c[held]):
            return None  # cycling, or one class: not for this route
        seen.add(key)
        solved = system.solve(held)
        if solved is None:
            return None
        held, held_beta, intercept = solved  # less rows dependent on the others
        beta[:] = 0.0
        beta[held] = held_beta
        margins = c * (gram @ beta + intercept)  # β is 0 off the held rows
        dual = c * beta
        side = sides[held]
        keep = held[(side == 0) | (side * dual[held] > 0)]
        outside = np.ones(m, bool)
        outside[held] = False
        # Off its side of 1; an equality row left out as dependent counts too
        # (it joins again, and a held set that repeats ends the loop).
        off = np.where(
            sides == 0, np.abs(margins - 1) > tol, sides * (margins - 1) < -tol
        )
        violated = np.flatnonzero(outside & off)
        if keep.size == held.size and violated.size == 0:
            # A held set that is singular to rounding solves its equations
            # only roughly (a Schur update raises no error): the held rows'
            # margins show it. Steps before the last may be rough; not the answer.
            if np.any(np.abs(margins[held] - 1) > RESIDUAL_LIMIT):
                return None
            return dual, intercept
        held = np.concatenate([keep, violated])
    return None


class _HeldSystem:
    """``(β, b)`` with ``K_II β + b = c_I`` and ``Σ β = 0`` for a held set I.

    ``K + 1 1ᵀ`` acts as K on every β with Σ β = 0, and is positive definite
    where the rows are affinely independent (K of centred rows is not): one
    Cholesky factor, then ``b = 1ᵀK⁻¹c / 1ᵀK⁻¹1`` makes Σ β = 0.

    The active set's later steps exchange a few percent of the rows: a held set
    that differs from the factored one (of at least ``UPDATE_FROM`` rows) in at
    most ``UPDATE_SHARE`` of them is solved from that factor, the rows that
    joined and the rows that left (held at β = 0 by a multiplier) in a Schur
    complement, for ``2 k² (joined + left)`` flops instead of a new
    factorisation's ``k³ / 3``.
    """

    UPDATE_SHARE = 0.12
    UPDATE_FROM = 400

    def __init__(self, gram, c):
        self.gram, self.c = gram, c
        self.factored, self.factor = None, None

    def solve(self, held):
        """``(held, β on held, b)``, or None if the system is singular. A new
        factorisation leaves out of the held set returned the rows whose
        ``(z, 1)`` depend on the others' (to ``DEPENDENT_BELOW``); an update from
        the last factor does not see them (its solve is then rough, which
        :func:`gram_active_set` checks on its answer)."""
        solved = None
        if self.factored is not None and self.factored.size >= self.UPDATE_FROM:
            solved = self._from_factor(held)
        if solved is None:
            solved = self._factorise(held)
        if solved is None:
            return None
        held, towards_c, towards_one = solved
        intercept = towards_c.sum() / towards_one.sum()
        beta = towards_c - intercept * towards_one
        if not (np.all(np.isfinite(beta)) and np.isfinite(intercept)):
            return None
        return held, beta, float(intercept)

    def _factorise(self, held):
        block = self.gram if held.size == len(self.gram) else self._block(held, held)
        try:
            factor = cho_factor(block + 1.0, overwrite_a=True, check_finite=False)
            pivots = np.diag(factor[0]) ** 2
            if np.min(pivots) < DEPENDENT_BELOW * (1.0 + np.max(np.diag(block))):
                raise np.linalg.LinAlgError("a row depends on the others")
        except np.linalg.LinAlgError:
            # Rows affinely dependent on others (short documents: a few in a
            # thousand): held at β = 0, free to join again if they are violated.
            independent = _independent_rows(block + 1.0)
            held = held[independent]
            try:
                factor = cho_factor(
                    block[np.ix_(independent, independent)] + 1.0,
                    overwrite_a=True,
                    check_finite=False,
                )
            except np.linalg.LinAlgError:
                return None
        self.factored, self.factor = held, factor
        right = np.column_stack([self.c[held], np.ones(held.size)])
        solution = cho_solve(factor, right, check_finite=False)
        return held, solution[:, 0], solution[:, 1]

    def _block(self, rows, columns):
        return self.gram[np.ix_(rows, columns)]

    def _from_factor(self, held):
        """The solves for ``held`` from the factor of ``self.factored``: the
        system on the factored rows plus the joined ones, with the left rows'
        β held at 0, by block elimination (Schur complement of the factored
        block)."""
        base = self.factored
        leaving = np.flatnonzero(~np.isin(base, held))  # positions in base
        joining = held[~np.isin(held, base)]
        changed = leaving.size + joining.size
        if changed > self.UPDATE_SHARE * base.size:
            return None
        a, r = joining.size, leaving.size
        border = np.zeros((base.size, a + r))
        border[:, :a] = self._block(base, joining) + 1.0
        border[leaving, a + np.arange(r)] = 1.0
        corner = np.zeros((a + r, a + r))
        corner[:a, :a] = self._block(joining, joining) + 1.0
        through = cho_solve(self.factor, border, check_finite=False)
        schur = corner - border.T @ through
        right = np.column_stack([self.c[base], np.ones(base.size)])
        right[leaving] = 0.0
        right_extra = np.zeros((a + r, 2))
        right_extra[:a] = np.column_stack([self.c[joining], np.ones(a)])
        base_part = cho_solve(self.factor, right, check_finite=False)
        try:
            extra = np.linalg.solve(schur, right_extra - border.T @ base_part)
        except np.linalg.LinAlgError:
            return None
        base_part -= through @ extra
        solution = np.empty((held.size, 2))
        staying = np.isin(base, held)
        solution[np.searchsorted(held, base[staying])] = base_part[staying]
        solution[np.searchsorted(held, joining)] = extra[:a]
        return held, solution[:, 0], solution[:, 1]


def _independent_rows(matrix):
    """Positions, in increasing order, of the rows of a positive semidefinite
    matrix whose pivots in a complete-pivoting Cholesky (LAPACK's ``pstrf``)
    stay above ``DEPENDENT_BELOW`` of its largest diagonal entry."""
    tolerance = DEPENDENT_BELOW * float(np.max(np.diag(matrix)))
    _, pivots, rank, _ = lapack.dpstrf(matrix, tol=tolerance, lower=1)
    return np.sort(pivots[:rank] - 1)


def _dense_dual_answer(Z, c, dual, intercept, tol):
    """The Hyperplane of the dense dual's answer, if it holds on ``Z`` itself."""
    coef = (dual * c) @ Z
    margins = c * (Z @ coef + intercept)
    if not on_and_outside_margin(margins, dual > 0, tol):
        return None
    return Hyperplane(
        True,
        coef=coef,
        intercept=float(intercept),
        dual=dual,
        weights=_as_hull_weights((coef, intercept, dual), c),
        status=Status.OPTIMAL,
    )
