r"""``S(κ)⁻¹ b = S†b + Qb/κ`` of sparse centred rows by two least-squares solves.

For sparse text the span route of :mod:`._covariance` forms the (m, m) Gram matrix
of the m centred rows C and its eigendecomposition: cubic in the number of
documents, quadratic in memory. Here nothing larger than X and a few vectors of
length m + p is held. With ``S = CᵀC / divisor``:

1. ``z = (Cᵀ)† b``, the minimum-norm least-squares solution of ``Cᵀ z = b``
   (LSQR from zero); then ``Q b = b - Cᵀ z``, the part of b outside the range of
   S;
2. ``S† b = divisor · C† z``, the minimum-norm solution of ``C v = z`` (a second
   LSQR; consistent, since z lies in the row space of Cᵀ).

One trial of a single Krylov solve of ``S u = b`` cannot work: where p > n, b has a
part Qb outside the range of S, so the system has no solution, CG diverges and
MINRES ends far from S†b. The split first is what makes it converge.

``S†b ⟂ Qb``, so the two parts give ``u(κ)``, θ(κ) and ‖S(κ)⁻¹b‖ at every κ: a
solve depends on b only, never on κ, and is kept for the life of the object
(:class:`FisherDiscriminantCV` reuses one per fold for every κ).

C is applied as ``C v = X v - E (M v)`` (E the rows' class indicator, M the class
means) by :class:`~._scatter.CentredRows`: X is never centred nor densified.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse.linalg import LinearOperator, lsqr
from sklearn.exceptions import ConvergenceWarning

from ._basis import combine_parts

# LSQR stops at most after this many iterations per row or feature (whichever
# are fewer): in exact arithmetic it ends after the rank; rounding delays it.
_ITERATIONS_PER_DIMENSION = 4

# The smallest stopping tolerance: below it LSQR's own rounding (about
# eps · cond(C)) stops it first, and only wastes iterations.
_SMALLEST_RTOL = 1e-14


def _centred_operators(rows):
    """``(C, Cᵀ)`` as scipy LinearOperators over the centred rows."""
    shape = (rows.n_rows, rows.n_features)
    forward = LinearOperator(
        shape, matvec=rows.dot, rmatvec=rows.tdot, dtype=np.float64
    )
    backward = LinearOperator(
        shape[::-1], matvec=rows.tdot, rmatvec=rows.dot, dtype=np.float64
    )
    return forward, backward


@dataclass(frozen=True)
class KrylovCovariance:
    r"""The regularised inverse ``S(κ)⁻¹ = S† + Q/κ`` of ``S = CᵀC / divisor``,
    applied by two LSQR solves per right-hand side; nothing (p, p) or (m, m).

    It answers what :class:`~._covariance.RegularizedCovariance` answers for a
    vector b: :meth:`split` gives ``(S†b, Qb)``, :meth:`solve` ``S(κ)⁻¹ b`` and
    :meth:`whitened` the whitening restricted to a few vectors (Fisher's
    directions for K > 2 classes). Each vector's parts are solved once: a vector
    in the span of those already solved (the class-mean differences, whatever
    their centre) is their combination, with no further pass over X.

    **The cut it honours.** The dense and span routes cut the singular values of
    the correlation-scaled rows below ``√tol`` times the largest. A Krylov
    method has no cut of its own: here ``tol`` is the relative backward error at
    which LSQR stops (its ``atol`` and ``btol``), and ``1 / √tol`` the condition
    limit (``conlim``) past which it stops as well: directions of C whose
    singular value is below ``√tol`` times the largest are then not resolved,
    as the dense route would drop them. Where a solve ends on that limit or on
    its iteration limit before its tolerance, a ``ConvergenceWarning`` gives the
    residual reached.

    **Rank.** The route does not decide the rank: ``rank`` is its bound, the
    rows less the classes (or the varying features, if fewer). Directions of
    exactly zero spread (duplicate documents) do not enter any answer.

    Attributes
    ----------
    rows : CentredRows
        C.
    divisor : float
        ``S = CᵀC / divisor``.
    kappa : float
        κ > 0 (``inf``: the Moore–Penrose inverse).
    rank : int
        The bound on S's rank above.
    tol : float
        LSQR's relative stopping tolerance.
    """

    rows: object
    divisor: float
    kappa: float
    rank: int
    tol: float
    _solved: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_features(self):
        return int(self.rows.n_features)

    @property
    def null_space_dim(self):
        return self.n_features - self.rank

    def split(self, b, atol=0.0):
        """``(S† b, Q b)`` for a vector or the columns of a matrix; a part no
        longer than ``atol`` (per column) is set to zero, as
        :meth:`RegularizedCovariance.split` does."""
        b = np.asarray(b, dtype=np.float64)
        columns = b.reshape(b.shape[0], -1)
        range_atol, null_atol = np.broadcast_to(atol, 2)
        pinv_part, in_null = self._parts(columns, min(range_atol, null_atol))
        in_range = columns - in_null
        pinv_part = pinv_part * (np.linalg.norm(in_range, axis=0) > range_atol)
        in_null = in_null * (np.linalg.norm(in_null, axis=0) > null_atol)
        if b.ndim == 1:
            return pinv_part[:, 0], in_null[:, 0]
        return pinv_part, in_null

    def solve(self, b, atol=0.0):
        """``S(κ)⁻¹ b = S† b + Q b / κ``."""
        return self.combine(*self.split(b, atol))

    def combine(self, pinv_part, null_part):
        """``S† b + Q b / κ`` from the two parts :meth:`split` gives."""
        return combine_parts(pinv_part, null_part, self.kappa)

    def whitened(self, vectors):
        """``(vectors @ W', back)`` as :meth:`RegularizedCovariance.whitened`
        defines them, from ``G = V S(κ)⁻¹ Vᵀ`` (V = ``vectors``, (k, p)): with
        ``G = E Λ Eᵀ``, ``vectors @ W' = E Λ^{1/2}`` has the singular values of
        ``vectors @ W`` and ``back(f) = S(κ)⁻¹ Vᵀ E Λ^{-1/2} f``. k solves."""
        solved = self.solve(vectors.T)  # (p, k)
        gram = vectors @ solved
        eigenvalues, eigenvectors = np.linalg.eigh((gram + gram.T) / 2)
        noise = len(gram) * np.finfo(np.float64).eps * max(eigenvalues[-1], 0.0)
        kept = eigenvalues > noise
        eigenvalues, eigenvectors = eigenvalues[kept], eigenvectors[:, kept]
        directions = solved @ (eigenvectors / np.sqrt(eigenvalues))

        def back(f):
            return directions @ f

        return eigenvectors * np.sqrt(eigenvalues), back

    def _parts(self, columns, atol):
        """``(S† b, Q b)`` of each column: a combination of the columns solved so
        far where it lies in their span (to rounding, or to ``atol``, the
        rounding level of the mean differences), else two LSQR solves."""
        known = self._solved.get("vectors")
        if known is not None:
            coefficients = np.linalg.lstsq(known, columns, rcond=None)[0]
            residual = np.linalg.norm(known @ coefficients - columns, axis=0)
            rounding = 64 * np.finfo(np.float64).eps * np.linalg.norm(columns, axis=0)
            if np.all(residual <= np.maximum(rounding, atol)):
                pinv_known, null_known = self._solved["parts"]
                return pinv_known @ coefficients, null_known @ coefficients
        solved = [self._solve_column(column) for column in columns.T]
        pinv_part = np.column_stack([pinv for pinv, _ in solved])
        in_null = np.column_stack([null for _, null in solved])
        self._remember(columns, pinv_part, in_null)
        return pinv_part, in_null

    def _remember(self, columns, pinv_part, in_null):
        known = self._solved.get("vectors")
        if known is None:
            self._solved.update(vectors=columns, parts=(pinv_part, in_null))
            return
        pinv_known, null_known = self._solved["parts"]
        self._solved.update(
            vectors=np.hstack([known, columns]),
            parts=(
                np.hstack([pinv_known, pinv_part]),
                np.hstack([null_known, in_null]),
            ),
        )

    def _solve_column(self, b):
        """``(S† b, Q b)`` of one vector b: steps 1 and 2 of the module's text."""
        forward, backward = _centred_operators(self.rows)
        if not np.any(b):
            return np.zeros_like(b), np.zeros_like(b)
        z, consistent = self._lsqr(backward, b, "the part of b in the range of S")
        # Consistent to the tolerance: b lies in the range of S as far as the
        # solve can tell, and what is left of it is the solve's own rounding
        # (up to tol · cond(C) · ‖b‖), not a part in the null space.
        in_null = np.zeros_like(b) if consistent else b - self.rows.tdot(z)
        if not np.any(z):
            return np.zeros_like(b), in_null
        pinv_part = self.divisor * self._lsqr(forward, z, "S† b")[0]
        return pinv_part, in_null

    def _lsqr(self, operator, rhs, what):
        """``(x, consistent)``: LSQR's minimum-norm least-squares solution of
        ``operator x = rhs`` from zero, and whether it stopped with the system
        consistent to the tolerance (its test 1) rather than on the normal
        equations (test 2)."""
        tol = max(self.tol, _SMALLEST_RTOL)
        limit = _ITERATIONS_PER_DIMENSION * min(operator.shape) + 100
        solution, istop, iterations, residual, _, _, condition, *_ = lsqr(
            operator, rhs, atol=tol, btol=tol, conlim=1.0 / np.sqrt(tol), iter_lim=limit
        )
        if istop in (3, 6, 7):
            reason = (
                f"its iteration limit ({limit})"
                if istop == 7
                else f"its condition limit 1/sqrt(tol) = {1.0 / np.sqrt(tol):.1e}"
            )
            relative = residual / np.linalg.norm(rhs)
            warnings.warn(
                f"The sparse route's least-squares solve for {what} stopped on "
                f"{reason} after {iterations} iterations, before its tolerance "
                f"tol = {tol:.1e}: relative residual {relative:.1e}, condition "
                f"estimate {condition:.1e}. The centred rows are nearly "
                "rank-deficient at that level; the answer leaves out their "
                "directions of smaller spread. A larger tol cuts them explicitly.",
                ConvergenceWarning,
                stacklevel=4,
            )
        return solution, istop == 1
