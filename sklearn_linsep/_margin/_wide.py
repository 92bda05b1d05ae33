"""The exact core on wide sparse rows (p ≥ n, TF-IDF text), never densifying X: the
memory is X's plus one Gram matrix of the working set. The hard margin and the soft
limit's second stage are QPs in ``w``, which lies in the rows' span: their duals
need only ``K = Z Zᵀ`` (:func:`~._solvers.gram_margin`,
:func:`~._solvers.gram_active_set`, :func:`~._solvers.face_dual_qp`), and
``w = Zᵀ (ν c)`` is one sparse product. The certificate of inseparable rows is one
sparse LP; so is the least total hinge, which no invertible affine map of X changes:
it runs on the sparse rows, each feature divided by its spread, not centred.
"""

import copy
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from .._scatter import CentredRows
from .._working_set import DROP_ABOVE, duplicate_owners, grow, per_feature_rows
from ..exceptions import SolverError
from ._certificate import sparse_certificate
from ._driver import WarmStart
from ._kkt import check_optimality, mark_if_far, no_hyperplane, proven, row_terms
from ._result import Hyperplane, MarginResult, Status, margin_result
from ._soft import (
    attains,
    check_attains,
    checked_least_hinge,
    face_sides,
    face_violators,
    margin_violators,
    soft_result,
)
from ._solvers import as_hull_weights, face_dual_qp, gram_active_set, gram_margin
from ._solvers._cost import WIDE_SEED


def wide_maximal_margin(two_class, tol, soft, classes, initial_size=None, batch=None):
    """:func:`~._hard.maximal_margin_of` of wide sparse rows: the Gram dual on a working
    set; where its hulls meet, one sparse LP gives the certificate
    (:func:`~._certificate.sparse_certificate`), then with ``soft`` the C → ∞ limit.
    Equal rows of one class count once, weights summed (copies would make every held
    set holding them singular). Checked and proved on X as the dense route's answers.
    """
    unique = _without_duplicates(two_class)
    size = initial_size or WIDE_SEED
    batch = batch or size
    # The Gram dual first: wide rows are separable as a rule, the sparse LP dear.
    result = _separable(two_class, unique, tol, size, batch)
    if result is not None:
        return result
    certificate = sparse_certificate(two_class, classes)
    if certificate is None:
        raise SolverError(
            "The classes come too close to touching for float precision to "
            "decide: the separating LP found no point in both convex hulls, but "
            "the nearest points of a subset of the rows meet to rounding. Check "
            "for near-duplicate rows with different labels."
        )
    if not soft:
        return MarginResult(**no_hyperplane(0), certificate=certificate)
    result = _soft_limit(two_class, unique, tol, batch)
    result.certificate = certificate
    return mark_if_far(two_class, result)


def _without_duplicates(two_class):
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


def _separable(two_class, unique, tol, size, batch):
    """The maximal margin of the rows, or None where the hulls of a working set
    meet (the rows are then not separable, to rounding: the LP decides)."""
    subproblem = _GramSubproblem(unique, tol)
    solution, working, rounds = grow(
        unique.seed(size),
        subproblem,
        margin_violators(unique, tol, batch),
        drop_above=DROP_ABOVE,
    )
    if not solution.feasible:
        return None
    products = subproblem.products(working, solution)
    terms = row_terms(None, two_class.labels(working), solution, products=products)
    smallest = check_optimality(two_class, terms, solution, tol)
    result = margin_result(two_class, working, solution, rounds, True, 0.0)
    return proven(two_class, result, tol, smallest)


def _soft_limit(two_class, unique, tol, batch):
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
    subproblem = _GramSubproblem(unique, tol, sides)
    # The active set's first guess: the rows on the LP's margin, where its
    # hyperplane may stay (the interior point answers where it does not settle).
    subproblem.start_from(
        np.flatnonzero(unique.active & (sides >= 0) & (np.abs(margins - 1) <= 1e-9))
    )
    solution, working, rounds = grow(
        start,
        subproblem,
        face_violators(unique, sides, tol, batch),
        drop_above=DROP_ABOVE,
    )
    solution = _constant_if_it_attains(unique, solution, lp.total)
    check_attains(unique, solution, lp.total)
    return soft_result(two_class, working, solution, rounds, tol)


def _constant_if_it_attains(two_class, solution, least):
    """``w = 0`` where a constant decision function attains the least total hinge: the
    face's smallest ``‖w‖`` is then exactly 0, which an interior point only approaches
    (``b`` alone has its least hinge at ``b = ±1`` or between)."""
    for intercept in (solution.intercept, 1.0, -1.0):
        constant = replace(
            solution,
            coef=np.zeros_like(solution.coef),
            intercept=intercept,
            dual=np.zeros_like(solution.dual),
        )
        if attains(two_class, constant, least):
            return constant
    return solution


class _GramSubproblem(WarmStart):
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

    def start_from(self, members):
        """Take the rows ``members`` as the last answer's support."""
        self.members, self.weights = members, np.zeros(len(members))

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
        solution = self._from_last_support(gram, rows, labels, sides, indices)
        if solution is None and sides is None:
            solution = self._hull(gram, rows, labels, indices)
            if not solution.feasible:
                return solution  # the hulls meet: the loop ends
        elif solution is None:
            solution = self._face(gram, rows, labels, sides)
        # An interior point's multipliers are nowhere exactly 0 (a support of
        # every row would hold both copies of a document of two labels).
        magnitude = np.abs(solution.dual)
        kept = np.flatnonzero(magnitude > 1e-8 * magnitude.max(initial=0.0))
        self.members = indices[kept]
        self.weights = as_hull_weights(solution.dual, labels)[kept]
        return solution

    def _from_last_support(self, gram, rows, labels, sides, indices):
        """The active set on the Gram matrix from the last answer's support, or None
        where it does not settle. The hard margin's first call holds every row (wide
        rows: mostly support vectors; in general position any set is nonsingular)."""
        held, _ = self.last_support_in(indices)
        if not held.size and sides is None:
            held = np.arange(len(indices))
        if not held.size:
            return None
        answer = gram_active_set(gram, labels, held, sides, self.tol / 2)
        if answer is None:
            return None
        dual, intercept = answer
        return _on_rows(rows, labels, dual, intercept, Status.OPTIMAL)

    def _hull(self, gram, rows, labels, indices):
        """Nearest points: the maximal margin, or the hulls' meeting (infeasible)."""
        return gram_margin(gram, rows, labels, self.start(indices), self.tol / 2)

    def _face(self, gram, rows, labels, sides):
        dual, intercept, status = face_dual_qp(gram, labels, sides)
        return _on_rows(rows, labels, dual, intercept, status)

    def products(self, indices, solution):
        """``(Z w, Zᵀ (ν c), a bound on |Z|ᵀ |ν|)`` of the working set, for
        :func:`~._kkt.row_terms`: ``|z| ≤ |x'| + |m'|`` entrywise, with
        ``x' - m'`` the rows as centred (:attr:`all_rows`)."""
        rows, labels = self.rows(indices), self.two_class.labels(indices)
        dual = solution.dual
        magnitude = np.abs(dual)
        absolute = np.asarray(abs(rows.sparse).T @ magnitude).ravel()
        absolute += np.abs(rows.centres[0]) * magnitude.sum()
        return rows.dot(solution.coef), rows.tdot(dual * labels), absolute


def _on_rows(rows, labels, dual, intercept, status):
    """The Hyperplane of a dual on the Gram matrix of ``rows``: ``w = Zᵀ (ν c)``."""
    return Hyperplane(
        True,
        coef=rows.tdot(dual * labels),
        intercept=float(intercept),
        dual=dual,
        status=status,
    )
