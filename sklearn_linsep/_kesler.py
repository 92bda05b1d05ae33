"""Kesler's construction of K classes, never materialised.

K classes are jointly separable when some ``W`` (K × p) and ``b`` (K) give every
row i and every other class k the margin ``(w_{y_i} - w_k)·x_i + b_{y_i} - b_k ≥ 1``:
a two-class problem in K(p + 1) dimensions whose "rows" are the pairs (i, k),
``φ_ik = (e_{y_i} - e_k) ⊗ (x_i, 1)``. There are n(K - 1) of them; they are never
formed. A pair is named by one integer, ``i K + k`` (a *constraint id*), and one
pass over X gives each row's worst other class, the only pair of the row that can
be the worst violator.

:class:`KeslerRows` answers the working-set loop's questions on these pairs in
memory, in the frames of :class:`~sklearn_linsep._working_set.ScaledRows`
(centred, divided by one scalar, or each feature by its own spread).
"""

import numpy as np
import scipy.sparse as sp

from ._proofs import column_extremes, joint_proven_margins
from ._working_set import (
    ScaledRows,
    _masked_mean,
    chunk_rows,
    frame_scales,
    worst_violators,
)


def pairs_of(ids, n_classes):
    """``(rows, others)`` of constraint ids ``i K + k``."""
    ids = np.asarray(ids, dtype=np.intp)
    return ids // n_classes, ids % n_classes


def pair_margins(rows, own, others, coef, intercept):
    """``(w_own - w_k)·z + b_own - b_k`` of each pair, for its row ``z`` of ``rows``."""
    difference = coef[own] - coef[others]
    return np.einsum("ij,ij->i", rows, difference) + intercept[own] - intercept[others]


def worst_others(scores, codes):
    """``(margin, other)`` of each row: the least ``s_own - s_k`` over the other
    classes k, and that k (rows of one class only: margin inf)."""
    n = len(codes)
    own = scores[np.arange(n), codes]
    rival = scores.copy()
    rival[np.arange(n), codes] = -np.inf
    other = np.argmax(rival, axis=1)
    return own - rival[np.arange(n), other], other


class KeslerRows:
    """The pairs (row, other class) of K classes on X seen as
    ``Z = (X - centre) / scale``, without copying X.

    ``codes`` are the rows' classes as 0, …, K - 1; rows of weight 0 are left
    out of every constraint. ``indices`` are the rows of the caller's X that X
    holds (None: all of them), as for ``ScaledRows``.
    """

    in_memory = True

    def __init__(self, X, codes, n_classes, sample_weight=None, indices=None):
        self.X = X
        self.codes = np.asarray(codes, dtype=np.intp)
        self.n_classes = n_classes
        self.indices = indices
        self.weights = (
            np.ones(len(codes)) if sample_weight is None else np.asarray(sample_weight)
        )
        self.active = self.weights > 0
        self.centre = _masked_mean(X, self.active)
        high, low = column_extremes(X if self.active.all() else X[self.active])
        self.scale, self.feature_scale, self.spread = frame_scales(
            self.centre, high, low
        )
        self.magnitude = np.maximum(np.abs(high), np.abs(low))

    @property
    def n_samples(self):
        return len(self.codes)

    # The frames, rows and rounding of the two-class rows, the same rules.
    n_features = ScaledRows.n_features
    sparse = ScaledRows.sparse
    uneven = ScaledRows.uneven
    rounding = ScaledRows.rounding
    equilibrated = ScaledRows.equilibrated
    indices_in_X = ScaledRows.indices_in_X
    original_rows = ScaledRows.original_rows

    def rows(self, rows):
        """Rows of Z by index (a row may come more than once: one per pair)."""
        return (self.original_rows(rows) - self.centre) / self.scale

    def pairs(self, ids):
        """``(Z rows, own classes, other classes)`` of constraint ids."""
        rows, others = pairs_of(ids, self.n_classes)
        return self.rows(rows), self.codes[rows], others

    def scores(self, coef, intercept):
        """``Z Wᵀ + b`` of every row, ``(n, K)``, a few MB of X at a time (dense X
        centred block by block, as ``ScaledRows.scores``)."""
        weights = coef / self.scale
        if sp.issparse(self.X):
            return np.asarray(self.X @ weights.T) + (intercept - weights @ self.centre)
        n, p = self.X.shape
        out = np.empty((n, self.n_classes))
        step = chunk_rows(p)
        for start in range(0, n, step):
            block = np.asarray(self.X[start : start + step], dtype=float)
            out[start : start + step] = (block - self.centre) @ weights.T
        return out + intercept

    def worst_margins(self, coef, intercept):
        """``(margin, other)`` of each row's worst pair; inactive rows inf."""
        margin, other = worst_others(self.scores(coef, intercept), self.codes)
        return np.where(self.active, margin, np.inf), other

    def violators(self, coef, intercept, threshold, working, batch=None, slack=None):
        """``(violated, inside)`` as :func:`~._working_set.worst_violators`, over
        constraint ids: of each row, only its worst pair can join. A pair
        violates below ``threshold``, less its row's slack where ``slack =
        (rows, values)`` gives one (the soft limit's hinges)."""
        threshold = np.full(self.n_samples, float(threshold))
        if slack is not None:
            threshold[slack[0]] -= slack[1]
        margin, other = self.worst_margins(coef, intercept)
        ids = np.arange(self.n_samples) * self.n_classes + other
        violation = np.where(np.isin(ids, working), -np.inf, threshold - margin)
        violated, _ = worst_violators(violation, np.array([], np.intp), batch)
        rows, _ = pairs_of(working, self.n_classes)
        inside = threshold[rows] - pair_margins(*self.pairs(working), coef, intercept)
        return ids[violated], inside

    def min_margin(self, coef, intercept):
        return float(np.min(self.worst_margins(coef, intercept)[0]))

    def total_hinge(self, coef, intercept):
        """``Σ s_i max(0, 1 - margin_i)``, each row's margin its worst pair's."""
        margin, _ = self.worst_margins(coef, intercept)
        hinge = np.maximum(0.0, 1.0 - margin[self.active])
        return float(self.weights[self.active] @ hinge)

    def row_weights(self, rows):
        return self.weights[rows]

    def proven_min_margin(self, coef, intercept, center=None, intercept_at_center=None):
        """The least margin of an active row on X itself, less a proven bound on
        its rounding (:func:`~._proofs.joint_proven_margins`)."""
        active = self.active
        X = self.X if active.all() else self.X[active]
        margins = joint_proven_margins(
            X, self.codes[active], coef, intercept, center, intercept_at_center
        )
        return float(np.min(margins))

    def _nearest_mean_margins(self):
        """``s_own - s_k`` of every row and class under the nearest-mean machine."""
        means = np.array(
            [
                _masked_mean(self.X, self.active & (self.codes == k))
                for k in range(self.n_classes)
            ]
        )
        means = (means - self.centre) / self.scale
        scores = self.scores(means, -0.5 * np.sum(means**2, axis=1))
        return scores[np.arange(self.n_samples), self.codes][:, None] - scores

    def seed(self, size):
        """Candidate support pairs: of each class, the ``size`` rows nearest the
        boundary of the nearest-mean machine, each with its worst other class;
        and the :meth:`anchors`."""
        margins = self._nearest_mean_margins()
        margins[np.arange(self.n_samples), self.codes] = np.inf
        other = np.argmin(margins, axis=1)
        margin = margins[np.arange(self.n_samples), other]
        chosen = [self._anchors(margins)]
        for k in range(self.n_classes):
            members = np.flatnonzero(self.active & (self.codes == k))
            if members.size > size:
                members = members[np.argpartition(margin[members], size - 1)[:size]]
            chosen.append(members * self.n_classes + other[members])
        return np.unique(np.concatenate(chosen))

    def anchors(self):
        """One pair per ordered pair of classes (j, k): the row of class j
        nearest k under the nearest-mean machine. With every ordered pair in
        it, a working set bounds the intercepts (no common shift of some
        classes' b keeps its constraints), so its QP has a bounded optimum;
        the loop never drops them."""
        margins = self._nearest_mean_margins()
        return self._anchors(margins)

    def _anchors(self, margins):
        chosen = []
        for j in range(self.n_classes):
            members = np.flatnonzero(self.active & (self.codes == j))
            for k in range(self.n_classes):
                if k != j and members.size:
                    nearest = members[np.argmin(margins[members, k])]
                    chosen.append(nearest * self.n_classes + k)
        return np.array(chosen, dtype=np.intp)

    def to_original(self, coef, intercept):
        """``(W, b)`` on X of ``(W, b)`` on Z."""
        weights = coef / self.scale
        return weights, intercept - weights @ self.centre


def kesler_matrix(Z, own, others, n_classes):
    """The pairs' rows ``φ_j = (e_own - e_other) ⊗ (z_j, 1)`` as a sparse matrix
    of shape ``(m, K (p + 1))`` (CSR): 2 (p + 1) entries a pair, the only place
    they are ever formed (a working set's, never all n (K - 1))."""
    m, p = Z.shape
    width = p + 1
    augmented = np.column_stack([Z, np.ones(m)])
    columns = np.hstack(
        [
            own[:, None] * width + np.arange(width),
            others[:, None] * width + np.arange(width),
        ]
    ).ravel()
    values = np.hstack([augmented, -augmented]).ravel()
    pointers = np.arange(0, 2 * width * m + 1, 2 * width)
    return sp.csr_matrix((values, columns, pointers), shape=(m, n_classes * width))


def split_machine(vector, n_classes, n_features):
    """``(W, b)`` of a vector laid out as the pairs' columns: class by class,
    the p weights and then the intercept."""
    block = np.asarray(vector[: n_classes * (n_features + 1)]).reshape(n_classes, -1)
    return block[:, :n_features].copy(), block[:, n_features].copy()
