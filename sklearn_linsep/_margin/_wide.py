"""The pieces of :class:`~._hard.WideProblem`, the exact core on wide sparse rows (p ≥
n, TF-IDF text), never densifying X: the memory is X's plus one Gram matrix of the
working set (except where the sparse certificate holds to a tolerance only and the
driver decides again in rationals, on rows within ``DENSE_FALLBACK_ENTRIES``). The
hard margin and the soft limit's second stage are QPs in ``w``, which lies in the
rows' span: their duals need only ``K = Z Zᵀ`` (:func:`~._solvers.gram_margin`,
:func:`~._solvers.gram_active_set`, :func:`~._solvers.face_dual_qp`), and ``w = Zᵀ
(ν c)`` is one sparse product. The certificate of inseparable rows is one sparse LP;
so is the least total hinge, which no invertible affine map of X changes: it runs on
the sparse rows, each feature divided by its spread, not centred.
"""

import copy
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .._scatter import CentredRows
from .._working_set import DROP_ABOVE, duplicate_owners, grow, per_feature_rows
from ._driver import WarmStart
from ._result import Hyperplane, Status
from ._soft import (
    attains,
    check_attains,
    checked_least_hinge,
    face_sides,
    face_violators,
    soft_result,
)
from ._solvers import as_hull_weights, face_dual_qp, gram_active_set, gram_margin


def without_duplicates(two_class):
    """The same problem, later copies of equal rows of one class made inactive and
    their weights added to the first copy's."""
    owners = duplicate_owners(two_class.X, two_class.c, two_class.active)
    copies = np.flatnonzero((owners >= 0) & (owners != np.arange(len(owners))))
    if not copies.size:
        return two_class
    unique = copy.copy(two_class)
    unique.weights = two_class.weights.copy()
    np.add.at(unique.weights, owners[copies], two_class.weights[copies])
    unique.weights[copies] = 0.0
    unique.active = two_class.active.copy()
    unique.active[copies] = False
    return unique


def wide_soft_limit(two_class, unique, tol, batch):
    """The soft limit: the least total hinge by one sparse LP over every row, then the
    largest margin on its optimal face on a working set in the Gram dual."""
    active = np.flatnonzero(unique.active)
    labels, weights = unique.labels(active), unique.sample_weights(active)
    lp = checked_least_hinge(per_feature_rows(unique, active), labels, weights)
    sides = np.ones(unique.n_samples)
    sides[active] = face_sides(lp.dual, weights)
    # The LP's hyperplane, (w / s_j)·x + b on X, in the frame of Z = (x - m) / s.
    on_x = lp.coef / unique.feature_scale
    coef, intercept = unique.scale * on_x, lp.intercept + on_x @ unique.centre
    margins = unique.margins(coef, intercept)
    start = np.flatnonzero(unique.active & ((sides <= 0) | (margins < 1 + DROP_ABOVE)))
    subproblem = GramSubproblem(unique, tol, sides)
    # The active set's first guess: the rows on the LP's margin, where its
    # hyperplane may stay (the interior point answers where it does not settle).
    on_margin = unique.active & (sides >= 0) & (np.abs(margins - 1) <= 1e-9)
    subproblem.members = np.flatnonzero(on_margin)
    subproblem.weights = np.zeros(subproblem.members.size)
    violators = face_violators(unique, sides, tol, batch)
    solution, working, rounds = grow(
        start, subproblem, violators, drop_above=DROP_ABOVE
    )
    solution = _constant_if_it_attains(unique, solution, lp.total)
    check_attains(unique, solution, lp.total)
    return soft_result(two_class, working, solution, rounds, tol)


def _constant_if_it_attains(two_class, solution, least):
    """``w = 0`` where a constant decision function attains the least total hinge: the
    face's smallest ``‖w‖`` is then exactly 0, which an interior point only approaches
    (``b`` alone has its least hinge at ``b = ±1`` or between)."""
    zero = np.zeros_like(solution.coef)
    for intercept in (solution.intercept, 1.0, -1.0):
        if attains(two_class.total_hinge(zero, intercept), least, two_class.weights):
            dual = np.zeros_like(solution.dual)
            return replace(solution, coef=zero, intercept=intercept, dual=dual)
    return solution


class GramSubproblem(WarmStart):
    """The margin QP on a working set of sparse rows through their Gram matrix, with
    ``Z_W = (X_W - m) / s`` centred implicitly
    (:class:`~sklearn_linsep._scatter.CentredRows`). A call first tries the active set
    from the last answer's support (:func:`~._solvers.gram_active_set`: a working set
    changed by a few rows settles in a few factorisations); failing that, the nearest
    points in Gram coordinates from the last λ, or with ``sides`` the face's QP dual
    (:func:`~._solvers.face_dual_qp`)."""

    def __init__(self, two_class, tol, sides=None):
        self.two_class, self.tol, self.sides = two_class, tol, sides
        n = two_class.n_samples
        # Z of every row, a feature far from the origin against its spread
        # centred explicitly (the implicit centring would cost it its digits).
        self.all_rows = CentredRows.of_sparse(
            # float64 products: a float32 Gram matrix would cost the margin digits.
            sp.csr_matrix(two_class.X, dtype=np.float64) * (1.0 / two_class.scale),
            np.zeros(n, dtype=np.intp),
            np.ones(n),
            (two_class.centre / two_class.scale)[None, :],
        ).without_cancelling()
        self._last = None  # (indices, rows)

    def rows(self, indices):
        """Z_W as a :class:`CentredRows` (the last is kept: the checks ask again)."""
        if self._last is not None and np.array_equal(self._last[0], indices):
            return self._last[1]
        selected = np.zeros(self.two_class.n_samples, dtype=bool)
        selected[indices] = True  # working sets are sorted
        rows = self.all_rows.take(selected)
        self._last = (np.array(indices), rows)
        return rows

    def __call__(self, indices):
        rows, labels = self.rows(indices), self.two_class.labels(indices)
        gram = rows.gram()
        sides = None if self.sides is None else self.sides[indices]
        answer = self._from_last_support(gram, labels, sides, indices)
        if answer is None and sides is None:  # the nearest points from the last λ
            solution = gram_margin(
                gram, rows, labels, self.start(indices), self.tol / 2
            )
            if not solution.feasible:
                return solution  # the hulls meet: the loop ends
        else:
            dual, intercept, status = answer or face_dual_qp(gram, labels, sides)
            coef = rows.tdot(dual * labels)  # w = Zᵀ (ν c)
            solution = Hyperplane(True, coef, float(intercept), dual, status)
        # An interior point's multipliers are nowhere exactly 0 (a support of
        # every row would hold both copies of a document of two labels).
        magnitude = np.abs(solution.dual)
        kept = np.flatnonzero(magnitude > 1e-8 * magnitude.max(initial=0.0))
        self.members = indices[kept]
        self.weights = as_hull_weights(solution.dual, labels)[kept]
        return solution

    def _from_last_support(self, gram, labels, sides, indices):
        """The active set's ``(dual, intercept, status)``, or None where it does not
        settle. The hard margin's first call holds every row (wide rows: mostly
        support vectors; in general position any set is nonsingular)."""
        held, _ = self.last_support_in(indices)
        if not held.size and sides is None:
            held = np.arange(len(indices))
        if not held.size:
            return None
        answer = gram_active_set(gram, labels, held, sides, self.tol / 2)
        return None if answer is None else (*answer, Status.OPTIMAL)

    def products(self, indices, solution):
        """``(Z w, Zᵀ (ν c), a bound on |Z|ᵀ |ν|)`` of the working set, for
        :func:`~._kkt.row_terms`: ``|z| ≤ |x'| + |m'|`` entrywise, with
        ``x' - m'`` the rows as centred (:attr:`all_rows`)."""
        rows, labels = self.rows(indices), self.two_class.labels(indices)
        magnitude = np.abs(solution.dual)
        absolute = np.asarray(abs(rows.sparse).T @ magnitude).ravel()
        absolute += np.abs(rows.centres[0]) * magnitude.sum()
        return rows.dot(solution.coef), rows.tdot(solution.dual * labels), absolute
