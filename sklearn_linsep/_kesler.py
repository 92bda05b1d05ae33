"""Kesler's construction of K classes, never materialised.

K classes are jointly separable when some ``W`` (K × p) and ``b`` (K) give every
row i and every other class k the margin ``(w_{y_i} - w_k)·x_i + b_{y_i} - b_k ≥ 1``:
a two-class problem in K(p + 1) dimensions whose "rows" are the pairs (i, k),
``φ_ik = (e_{y_i} - e_k) ⊗ (x_i, 1)``. There are n(K - 1) of them; they are never
formed. A pair is named by one integer, ``i K + k`` (a *constraint id*), and one
pass over X gives each row's worst other class, the only pair of the row that can
be the worst violator.

:class:`Pairs` answers the working-set loop's questions on these pairs whatever
backend holds the rows, in the frames of :class:`~sklearn_linsep._working_set.Frame`
(centred, divided by one scalar, or each feature by its own spread); the
backends' rows (:class:`~sklearn_linsep._rows._memory_pairs.KeslerRows` in
memory) derive from it.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, lapack

from . import _kernels
from ._threads import one_blas_thread
from ._working_set import (
    Frame,
    chunk_rows,
    margin_limits,
)


def pairs_of(ids, n_classes):
    """``(rows, others)`` of constraint ids ``i K + k``."""
    ids = np.asarray(ids, dtype=np.intp)
    return ids // n_classes, ids % n_classes


def pair_margins(rows, own, others, coef, intercept):
    """``(w_own - w_k)·z + b_own - b_k`` of each pair, for its row ``z`` of ``rows``."""
    difference = coef[own] - coef[others]
    return np.einsum("ij,ij->i", rows, difference) + intercept[own] - intercept[others]


def class_columns(own, others, n_classes):
    """``B``, of shape (K, m): the pairs' class columns ``e_own - e_other``."""
    m = len(own)
    classes = np.zeros((n_classes, m))
    classes[own, np.arange(m)] = 1.0
    classes[others, np.arange(m)] -= 1.0
    return classes


def row_coefficients(position, own, others, alpha, n_classes, n_rows):
    """``A``, of shape (K, rows): ``W = A Z`` for ``W = Σ_j α_j (e_own - e_other)
    z_jᵀ`` where pair j is row ``position[j]`` of Z; for the c columns of ``α``
    (``(m, c)``), the c such A stacked, (c K, rows)."""
    values = np.asarray(alpha, dtype=np.float64).reshape(len(own), -1)
    return (class_sums(position, own, values, n_classes, n_rows)
            - class_sums(position, others, values, n_classes, n_rows))  # fmt: skip


def worst_others(scores, codes):
    """``(margin, other)`` of each row: the least ``s_own - s_k`` over the other
    classes k, and that k (rows of one class only: margin inf)."""
    n = len(codes)
    own = scores[np.arange(n), codes]
    rival = scores.copy()
    rival[np.arange(n), codes] = -np.inf
    other = np.argmax(rival, axis=1)
    return own - rival[np.arange(n), other], other


# -- the passes over a block of rows: in memory X is one block (in chunks), on
# dask every block runs them as a task.


def block_scores(X, centre, scale, coef, intercept):
    """``Z Wᵀ + b`` of a block's rows, ``Z = (X - centre) / scale`` (dense X
    centred here; sparse X cannot be, and its offset moves to the intercepts)."""
    weights = coef / scale
    if sp.issparse(X):
        return np.asarray(X @ weights.T) + (intercept - weights @ centre)
    return (np.asarray(X, dtype=float) - centre) @ weights.T + intercept


def block_worst(X, codes, active, centre, scale, coef, intercept):
    """``(margin, other)`` of a block's rows: each row's worst pair (inf where
    the row is inactive), a chunk of ``chunk_rows`` rows at a time (the scores
    of a chunk, K numbers a row, never of all rows)."""
    n = X.shape[0]
    margin, other = np.empty(n), np.empty(n, dtype=np.intp)
    step = chunk_rows(X.shape[1])
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        scores = block_scores(X[rows], centre, scale, coef, intercept)
        margin[rows], other[rows] = worst_others(scores, codes[rows])
    return np.where(active, margin, np.inf), other


def block_violations(margin, other, rows, n_classes, threshold, slack, working):
    """``(ids, violation)`` of each row's worst pair: ``threshold`` less the
    row's slack (``slack = (sorted rows, values)``, or None) less its margin;
    ``-inf`` for pairs already in ``working``."""
    limit = margin_limits(rows, threshold, slack)
    ids = rows * n_classes + other
    return ids, np.where(np.isin(ids, working), -np.inf, limit - margin)


def block_seed(X, codes, active, centre, scale, means, size):
    """A block's seed candidates, as ``(local rows, ids, values, groups)`` with
    values to keep where largest: of each class j (group j) the ``size`` rows
    nearest the nearest-mean machine's boundary, with their worst other class;
    of each ordered pair (j, k) (group K + j K + k) the row of class j nearest
    k, an anchor."""
    K = len(means)
    scores = block_scores(X, centre, scale, means, -0.5 * np.sum(means**2, axis=1))
    n = X.shape[0]
    margins = scores[np.arange(n), codes][:, None] - scores
    margins[np.arange(n), codes] = np.inf
    other = np.argmin(margins, axis=1)
    worst = margins[np.arange(n), other]
    local, ids, values, groups = [], [], [], []
    for j in range(K):
        members = np.flatnonzero(active & (codes == j))
        if not members.size:
            continue
        nearest = members[np.argsort(worst[members], kind="stable")[:size]]
        anchors = members[np.argmin(margins[members], axis=0)]
        anchors, to = anchors[np.arange(K) != j], np.flatnonzero(np.arange(K) != j)
        local += [nearest, anchors]
        ids += [nearest * K + other[nearest], anchors * K + to]
        values += [-worst[nearest], -margins[anchors, to]]
        groups += [np.full(nearest.size, j), K + j * K + to]
    if not local:
        empty = np.array([], dtype=np.intp)
        return empty, empty, np.array([]), empty
    return (
        np.concatenate(local),
        np.concatenate(ids),
        np.concatenate(values),
        np.concatenate(groups),
    )


def select_per_group(values, groups, limits):
    """Positions of the ``limits[g]`` largest values of each group g (all of a
    group whose limit is None)."""
    chosen = []
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        limit = limits[int(group)]
        if limit is not None and members.size > limit:
            members = members[np.argpartition(values[members], -limit)[-limit:]]
        chosen.append(members)
    return np.concatenate(chosen) if chosen else np.array([], dtype=np.intp)


def seed_limits(n_classes, size):
    """The limits of :func:`select_per_group` for :func:`block_seed`'s groups."""
    return [size] * n_classes + [1] * (n_classes * n_classes)


# The guess of the face. Rows that are not wide: coordinate descent on the pairs'
# dual (``_kernels.pair_dual_passes``: the machine's intercepts a column of constant
# 1, each α at most FACE_BOUND), ended once a pass changes no pair's sign and misses
# no optimality condition by more than FACE_SETTLE (in margin), or after
# FACE_PASSES; the pairs of α > 0 are held at 1 first, and with them the pairs within
# FACE_BAND of margin 1 (or below) make the working set. Until 2026-11-30 a loose
# LinearSVC(crammer_singer) guessed there too (its pairs within 0.02 of margin 1
# held, with the anchors): 2 000 x 256, K = 20, class means 0.6 apart, 2 592
# support pairs, factored held sets of 2 958, 2 598 and 2 634 pairs in 1.10 s (SVC
# 0.20 s); this guess holds 2 597 after about 45 passes (0.065 s), the anchors are
# left out of the held set (80 pairs held at 1 off the face made the first exchange
# drop 255), and one factor settles it: 0.45 s. FACE_BOUND: argmax labels on 120 x
# 20, K = 6, need α up to 12.6 in the unit frame (at 10 the guess missed 8% of the
# support pairs); FACE_SETTLE 0.1: 1.0 held pairs of which 64% were support pairs
# there, 0.1 87%; 2 000 x 256 argmax, K = 10, needs 132 passes.
# Wide rows (p + 1 >= rows, the rows' inverse solving most pairs of most rows) keep
# the loose LinearSVC (tolerance FACE_TOLERANCE, C = FACE_C: no support pair's weight
# reaches it in the unit frame), its pairs within FACE_HELD_BAND of margin 1 held
# with the anchors: there the passes' guess took more rounds of the rows' inverse
# (random sparse rows with a word per class, K = 4, 3 000 x 3 000: 2.2 -> 5.0 s; K
# = 12, 800 x 1 000: 0.95 -> 1.6 s, 1.1 s at 200 passes; K = 6, 1 000 x 3 000:
# 0.18 -> 0.40 s; dense the same; text of 3 000 x 20 000 words, K = 4: 0.75 -> 0.80
# s), whatever the passes (30-200), bands (0.02, 0.06), anchors, or 10 sweeps of a
# row's pairs a visit; square 1 000 x 1 000, K = 4, the one wide set it served
# better (0.37 -> 0.22 s). LinearSVC's passes grow with C where rows conflict (20
# rows repeated under another label: 0.07 / 0.28 / 3.0 / 31 s at C = 1 / 10 / 1e2 /
# 1e3). A machine that puts a row on the wrong side guesses nothing, unless the rows
# are wide: such rows separate unless they depend on each other, and a loose fit is
# loose where the margin is thin (a TF-IDF of 10 684 docstrings, K = 3, margin
# 0.007, has rows on the wrong side at C = 10 and 100; from their guess the verdict
# took 11 and 13 s, from the nearest-mean seed 90 s).
FACE_BOUND = 1e3
FACE_PASSES = 200
FACE_SETTLE = 0.1
FACE_C = 10.0
FACE_TOLERANCE = 0.1
FACE_BAND = 0.06
FACE_HELD_BAND = 0.02
# Rows per unknown of the machine, K (p + 1), up to which the face is guessed (class
# means 0.6 apart, 3 000 x 256, K = 10: 0.44 -> 0.15 s, SVC 0.14 s). The loose
# LinearSVC's guess paid only from 1 000 rows (200 random small problems, +8%);
# this one pays on them too (-5 to -10%; 900 x 60, K = 8, argmax labels: 0.33 ->
# 0.16 s; 600 x 100, K = 4: 0.11 -> 0.05 s).
FACE_ROWS = 2


def face_guess(Z, codes, n_classes, limit, wide=False):
    """A guess of the maximal machine's face: ``(near, held)``, constraint ids (``i K +
    k``, row i by its position in ``Z``, dense or sparse) of at most ``limit`` pairs:
    those a guessed machine puts within ``FACE_BAND`` of margin 1 or below, or holds
    (the nearest where more; sorted), and the held ones among them. The machine:
    coordinate descent on the pairs' dual (:func:`pair_dual`), holding its pairs of
    α > 0; on ``wide`` rows (p + 1 >= rows) a loose Crammer–Singer fit
    (``FACE_TOLERANCE``), holding its pairs within ``FACE_HELD_BAND`` of margin 1.
    None where a class of the K (at least 3) has no row, the machine puts a row on
    the wrong side (the classes may not separate) and the rows are not wide,
    ``limit < 1``, or the fit fails. Only a guess: the working set it seeds is
    solved and checked as any other."""
    none = np.array([], dtype=np.intp)
    if limit < 1 or n_classes < 3 or np.unique(codes).size < n_classes:
        return none, none
    if wide:
        machine = _loose_machine(Z, codes)
        if machine is None:
            return none, none
        coef, intercept = machine
    else:
        alpha, weights = pair_dual(Z, codes, n_classes)
        coef, intercept = weights[:, :-1], weights[:, -1]
    scores = Z @ coef.T + intercept
    every = np.arange(len(codes))
    margins = scores[every, codes][:, None] - scores
    margins[every, codes] = np.inf
    margins = margins.ravel()  # position i K + k
    if margins.min() <= 0 and not wide:
        return none, none
    held = margins < 1 + FACE_HELD_BAND if wide else alpha.ravel() > 0
    near = np.flatnonzero((margins < 1 + FACE_BAND) | held)
    if near.size > limit:
        near = np.sort(near[np.argpartition(margins[near], limit - 1)[:limit]])
    return near, near[held[near]]


def _loose_machine(Z, codes):
    """``(W, b)`` of a loose ``LinearSVC(crammer_singer)`` fit (``FACE_C``,
    ``FACE_TOLERANCE``), or None where liblinear refuses the rows."""
    from sklearn.svm import LinearSVC  # here: two classes never pay its import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a loose fit's warnings: it only guesses
        try:
            svm = LinearSVC(
                multi_class="crammer_singer", C=FACE_C, tol=FACE_TOLERANCE,
                random_state=0,
            ).fit(Z, codes)
        except (ValueError, MemoryError):  # liblinear's copy, its index width
            return None  # no guess: the nearest-mean seed serves
    return svm.coef_, svm.intercept_


def pair_dual(Z, codes, n_classes):
    """``(α, [W, b])``: at most ``FACE_PASSES`` of coordinate descent on the pairs'
    dual of rows ``Z`` (dense or sparse) labelled ``codes``, α (n x K) at most
    ``FACE_BOUND``, rows in one seeded order (``_kernels.pair_dual_passes``)."""
    n, q = Z.shape
    alpha, weights = np.zeros((n, n_classes)), np.zeros((n_classes, q + 1))
    order = _kernels.shuffled_order(n, 0).astype(np.intp, copy=False)
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z, dtype=float)
        _kernels.sparse_pair_dual_passes(
            Z.data, Z.indices.astype(np.intp), Z.indptr.astype(np.intp), codes,
            alpha, weights, order, FACE_BOUND, FACE_PASSES, 0, FACE_SETTLE,
        )  # fmt: skip
    else:
        _kernels.pair_dual_passes(
            np.ascontiguousarray(Z, dtype=float), codes, alpha, weights, order,
            FACE_BOUND, FACE_PASSES, 0, FACE_SETTLE,
        )  # fmt: skip
    return alpha, weights


# Dense rows at most this share nonzero are handed to the solvers as sparse ones are
# (:attr:`Pairs.uncentred`): text kept dense.
UNCENTRED_DENSITY = 0.1


class Pairs(Frame):
    """What the pairs of K classes answer whatever backend holds the rows: the
    frames (the two-class rows' rules), the pairs' rows, the map back to X.
    A subclass provides ``X``, ``centre``, ``scale``, ``feature_scale``,
    ``spread``, ``n_classes``, ``indices`` and :meth:`original_rows` and
    ``codes[rows]``."""

    def rows(self, rows):
        """Rows of Z by index (a row may come more than once: one per pair)."""
        return self.centred_rows(rows)

    def pairs(self, ids):
        """``(Z rows, own classes, other classes)`` of constraint ids."""
        rows, others = pairs_of(ids, self.n_classes)
        return self.rows(rows), self.codes[rows], others

    @property
    def uncentred(self):
        """Whether the solvers take the rows uncentred (:meth:`uncentred_pairs`):
        sparse X, or X in memory, dense, at most ``UNCENTRED_DENSITY`` of it
        nonzero, each feature's centre within its spread (centring loses no digit).
        Text kept dense: centred, every zero became an entry (Clarabel's face QP of
        906 pairs at 300 x 2 000, K = 4: 3.3 M of them, 36 s; 91 452, 1.6 s)."""
        if self.sparse:
            return True
        X = getattr(self, "X", None)
        if not isinstance(X, np.ndarray) or not X.size:
            return False
        known = self._passes.get("uncentred")
        if known is None:
            near = bool(np.all(np.abs(self.centre) <= self.spread))
            known = near and np.count_nonzero(X) <= UNCENTRED_DENSITY * X.size
            self._passes["uncentred"] = known
        return known

    def uncentred_pairs(self, ids):
        """:meth:`pairs` with rows mostly zeros (:attr:`uncentred`) only divided by
        ``scale``, not centred (centring would fill them), as CSR: an affine frame
        of Z's, where Farkas' weights and the least hinge are the same and a margin
        QP's ``W`` too, its intercepts less ``W · centre / scale``
        (:meth:`uncentred_offset`)."""
        if not self.uncentred:
            return self.pairs(ids)
        rows, others = pairs_of(ids, self.n_classes)
        scale = np.broadcast_to(self.scale, (self.n_features,))
        scaled = sp.csr_matrix(self.stored_rows(rows)) @ sp.diags(1 / scale)
        return scaled, self.codes[rows], others

    def uncentred_offset(self, coef):
        """What the intercepts of a machine ``coef`` on :meth:`uncentred_pairs`
        gain in this frame (0 where the rows are Z's own)."""
        if not self.uncentred:
            return 0.0
        return coef @ (self.centre / self.scale)

    def stored_rows(self, indices):
        """Rows of X as a pass reads them (sparse rows stay sparse where X is
        in memory; a backend fetches them dense)."""
        return self.original_rows(indices)

    def pair_margins(self, ids, coef, intercept):
        """The margins of the pairs ``ids`` from their rows' K scores (each row
        once; sparse X stays sparse): never a dense row per pair."""
        rows, others = pairs_of(ids, self.n_classes)
        unique, position = np.unique(rows, return_inverse=True)
        scores = block_scores(
            self.stored_rows(unique), self.centre, self.scale, coef, intercept
        )
        return scores[position, self.codes[rows]] - scores[position, others]

    def dual_combination(self, ids, alpha):
        """``(Σ α (e_own - e_other) zᵀ, the same of |z|)`` of the pairs ``ids``,
        each row once (``A Z`` with ``A`` the rows' coefficients). For sparse X
        the second is a bound, ``|z| ≤ (|x| + |centre|) / scale``."""
        rows, others = pairs_of(ids, self.n_classes)
        unique, position = np.unique(rows, return_inverse=True)
        coefficients = row_coefficients(
            position, self.codes[rows], others, alpha, self.n_classes, unique.size
        )
        weights = np.abs(coefficients)
        block = self.stored_rows(unique)
        if not sp.issparse(block):
            block = (np.asarray(block, dtype=float) - self.centre) / self.scale
            return coefficients @ block, weights @ np.abs(block)
        block = sp.csr_matrix(block, dtype=np.float64)
        scale = np.broadcast_to(self.scale, (self.n_features,))
        combination = (
            np.asarray((block.T @ coefficients.T).T)
            - coefficients.sum(axis=1)[:, None] * self.centre
        ) / scale
        absolute = (
            np.asarray((abs(block).T @ weights.T).T)
            + weights.sum(axis=1)[:, None] * np.abs(self.centre)
        ) / scale
        return combination, absolute  # fmt: skip

    # The pairs a seed guesses at margin 1, where it guesses the face (the
    # subproblem holds them first, :class:`~._margin._solvers.WarmMachine`).
    held_guess = None

    def seed(self, size):
        """The working set's first pairs: :meth:`nearest_seed` (a backend
        may guess them better)."""
        return self.nearest_seed(size)

    def anchors(self):
        """One pair per ordered pair of classes (j, k): the row of class j
        nearest k under the nearest-mean machine (found with
        :meth:`nearest_seed`). With
        every ordered pair in it, a working set bounds the intercepts (no common
        shift of some classes' b keeps its constraints), so its QP has a bounded
        optimum; the loop never drops them."""
        if self._passes["anchors"] is None:
            self.nearest_seed(1)
        return self._passes["anchors"]

    def to_original(self, coef, intercept):
        """``(W, b)`` on X of ``(W, b)`` on Z."""
        weights = coef / self.scale
        return weights, intercept - weights @ self.centre


def working_violations(pairs, coef, intercept, threshold, working, slack):
    """``threshold`` less the slack of its row less the margin, of every pair
    of ``working`` (what the loop drops rows by)."""
    rows, others = pairs_of(working, pairs.n_classes)
    _, violation = block_violations(
        pairs.pair_margins(working, coef, intercept), others, rows,
        pairs.n_classes, threshold, slack, np.array([], np.intp),
    )  # fmt: skip
    return violation


def kesler_matrix(Z, own, others, n_classes):
    """The pairs' rows ``φ_j = (e_own - e_other) ⊗ (z_j, 1)`` as a sparse matrix
    of shape ``(m, K (p + 1))`` (CSR): 2 (p + 1) entries a pair, 2 (nnz(z_j) + 1)
    where Z is sparse (it stays sparse), the only place they are ever formed (a
    working set's, never all n (K - 1))."""
    m, p = Z.shape
    width = p + 1
    if sp.issparse(Z):
        augmented = sp.hstack([Z, np.ones((m, 1))], format="csr")
        augmented.sort_indices()
        row_of = np.repeat(np.arange(m), np.diff(augmented.indptr))
        columns = np.concatenate([own[row_of] * width + augmented.indices,
                                  others[row_of] * width + augmented.indices])
        values = np.concatenate([augmented.data, -augmented.data])
        return sp.csr_matrix((values, (np.tile(row_of, 2), columns)),
                             shape=(m, n_classes * width))  # fmt: skip
    augmented = np.column_stack([Z, np.ones(m)])
    columns = np.hstack(
        [
            own[:, None] * width + np.arange(width),
            others[:, None] * width + np.arange(width),
        ]
    ).ravel()
    values = np.hstack([augmented, -augmented]).ravel()
    pointers = np.arange(0, 2 * width * m + 1, 2 * width)
    matrix = sp.csr_matrix((values, columns, pointers), shape=(m, n_classes * width))
    # Zeros of dense rows are no entries for the solvers (mostly-zero rows come
    # uncentred, as CSR: Pairs.uncentred; this keeps a centred row's exact zeros).
    matrix.eliminate_zeros()
    return matrix


def split_machine(vector, n_classes, n_features):
    """``(W, b)`` of a vector laid out as the pairs' columns: class by class,
    the p weights and then the intercept."""
    block = np.asarray(vector[: n_classes * (n_features + 1)]).reshape(n_classes, -1)
    return block[:, :n_features].copy(), block[:, n_features].copy()


class RowGram:
    """The Gram matrix ``Z Zᵀ`` of the rows of a frame (``Z = (X - centre) /
    scale``) that a working-set loop has seen, grown as rows join: each round
    computes the products of its new rows only, so that the loop's held system
    can keep its factor from round to round. Sparse X is never densified, nor its
    Gram matrix held: :attr:`matrix` is then a :class:`SparseGram` of the rows
    seen (5 000 documents: 200 MB less at the peak)."""

    def __init__(self, frame):
        self.frame = frame
        self.position_of = np.full(frame.n_samples, -1, dtype=np.intp)
        self.seen = np.array([], dtype=np.intp)  # row ids, in order of arrival
        self.matrix = np.zeros((0, 0))
        self._dense = None  # Z of the rows seen (dense X only)

    def positions(self, row_ids):
        """The positions in :attr:`matrix` of the rows ``row_ids`` (added if
        new)."""
        row_ids = np.asarray(row_ids, dtype=np.intp)
        new = np.unique(row_ids[self.position_of[row_ids] < 0])
        if new.size:
            self._add(new)
        return self.position_of[row_ids]

    def _add(self, new):
        seen = self.seen.size
        if sp.issparse(self.frame.stored_rows(new[:1])):
            self.matrix = SparseGram.of(self.frame, new, self.matrix)
        else:
            self._add_dense(new)
        self.position_of[new] = seen + np.arange(new.size)
        self.seen = np.concatenate([self.seen, new])

    def _add_dense(self, new):
        added, seen = self.frame.rows(new), len(self.matrix)
        square = added @ added.T
        if seen:  # (the first rows' products are the matrix itself: no copy)
            cross = added @ self._dense.T
            grown = np.empty((seen + new.size, seen + new.size))
            grown[:seen, :seen] = self.matrix
            grown[seen:, :seen] = cross
            grown[:seen, seen:] = cross.T
            grown[seen:, seen:] = square
            square = grown
        self.matrix = square
        self._dense = added if self._dense is None else np.vstack([self._dense, added])

    def combination(self, coefficients):
        """``A Z`` of the rows seen, for ``A`` of shape (K, rows seen)."""
        if self._dense is not None:
            return coefficients @ self._dense
        return self.matrix.combination(coefficients)


class SparseGram:
    """The Gram matrix ``Z Zᵀ`` of sparse rows, ``Z = X' - 1 sᵀ`` (``X' = X /
    scale`` sparse, ``s = centre / scale``), as the pairs' routes read it, never
    held n x n in float64: ``A @ gram`` is ``(A Z) Zᵀ`` (two sparse products, for
    the few rows of a 2-d A), ``gram[np.ix_(rows, columns)]`` a block from the rows'
    products, ``astype(dtype)`` the whole in ``dtype`` (:class:`RowsInverse`'s
    float32), a band of rows at a time."""

    __array_ufunc__ = None  # ndarray @ gram: numpy defers to __rmatmul__

    def __init__(self, rows, offsets, shift):
        self.rows, self.offsets, self.shift = rows, offsets, shift  # offsets: X' s
        self.level = float(shift @ shift)

    @classmethod
    def of(cls, frame, new, last):
        """The Gram matrix of ``last``'s rows (None or an empty array: none) and the
        rows ``new`` of ``frame``."""
        shift = frame.centre / frame.scale
        added = (
            sp.csr_matrix(frame.stored_rows(new), dtype=np.float64)
            .multiply(1.0 / np.broadcast_to(frame.scale, (frame.n_features,)))
            .tocsr()
        )
        offsets = np.asarray(added @ shift).ravel()
        if isinstance(last, cls):
            added = sp.vstack([last.rows, added], format="csr")
            offsets = np.concatenate([last.offsets, offsets])
        return cls(added, offsets, shift)

    def __len__(self):
        return self.rows.shape[0]

    def combination(self, coefficients):
        """``A Z``, for ``A`` of shape (q, rows)."""
        product = np.asarray((self.rows.T @ coefficients.T).T)
        return product - coefficients.sum(axis=1)[:, None] * self.shift[None, :]

    def __rmatmul__(self, coefficients):
        combined = self.combination(coefficients)
        return np.asarray(self.rows @ combined.T).T - (combined @ self.shift)[:, None]

    def __getitem__(self, index):
        return self._products(*(np.ravel(positions) for positions in index), np.float64)

    def astype(self, dtype):
        every = np.arange(len(self))
        return self._products(every, every, dtype)

    def _products(self, rows, columns, dtype, band=192):
        # A band of rows at a time, straight into the block: the sparse product of
        # text is nearly dense, and larger than the dense array it fills. A row comes
        # once per pair (K - 1 times, side by side in sorted keys): each distinct
        # product once a band, with no distinct rows x columns array beside the block
        # (issue 56's TF-IDF: 288 MB beside 634).
        distinct, at_column = np.unique(columns, return_inverse=True)
        second = self.rows[distinct].T.tocsc()
        shift = self.offsets[distinct] - self.level
        out = np.empty((rows.size, columns.size), dtype=dtype)
        for start in range(0, rows.size, band):
            some, at_row = np.unique(rows[start : start + band], return_inverse=True)
            raw = (self.rows[some] @ second).toarray()
            raw -= self.offsets[some, None]
            raw -= shift[None, :]
            out[start : start + band] = raw[at_row][:, at_column]
        return out


def class_sums(position, classes, values, n_classes, n_rows):
    """``(c K, rows)``: for each column of ``values`` (``(m, c)``), its sums per
    (class, row) over the pairs, pair j adding at ``(classes[j], position[j])``."""
    columns = values.shape[1]
    at = (np.arange(columns) * n_classes)[None, :] + np.asarray(classes)[:, None]
    at = at * n_rows + np.asarray(position)[:, None]
    size = columns * n_classes * n_rows
    return np.bincount(at.ravel(), values.ravel(), size).reshape(-1, n_rows)


def pair_products(gram, position, own, others, values, n_classes):
    """``(C ∘ K) V`` for the pairs' values ``V`` (``(m, c)``; pair j on row
    ``position[j]`` of the rows' Gram ``K``, classes own and other): each column
    as its rows' coefficients ``A`` (:func:`row_coefficients`) scored by K
    (:func:`pair_scores`); never a pairs x pairs array."""
    coefficients = row_coefficients(position, own, others, values, n_classes,
                                    len(gram))  # fmt: skip
    return pair_scores(coefficients, gram, position, own, others, n_classes)


def pair_scores(coefficients, gram, position, own, others, n_classes):
    """``(A K)[own_j, r_j] - (A K)[other_j, r_j]`` of each pair j on row ``r_j =
    position[j]``, for c rows' coefficients ``A`` stacked (c K x rows): ``(m, c)``.
    ``A K`` on one BLAS thread (a skinny product: :meth:`RowsInverse.solve`)."""
    with one_blas_thread():
        scores = coefficients @ gram
    scores = scores.reshape(-1, n_classes, len(gram))
    return (scores[:, own, position] - scores[:, others, position]).T


# Rows of the pairs' coupling formed at once (a band of 512 x k, not k x k).
COUPLING_BAND = 512


def pair_blocks(pairs_of_keys, gram, n_classes, largest):
    """``(block, right, whole, product)`` of the pairs' held system ``M = C ∘ (K +
    1 1ᵀ)`` (:func:`~sklearn_linsep._margin._solvers.pair_active_set`):
    ``pairs_of_keys(keys)`` is the keys' pairs ``(rows, own, others)``, ``gram()``
    the Gram matrix of every row they may name; ``block(keys, other_keys)`` a block
    of M, ``right(keys)`` the right sides ``[1, Bᵀ]``, ``whole(keys, release,
    rights)`` their solve (right sides ``rights``) by :class:`RowsInverse` of at
    most ``largest`` rows and left-out pairs (None where it does not serve),
    ``product(keys, V)`` the keys' ``M_II V`` from the rows (:func:`pair_products`
    and ``C V = Bᵀ B V``), with no k x k array."""
    rows_inverse = RowsInverse(largest)

    def whole(keys, release, rights):
        return rows_inverse.solve(gram(), *pairs_of_keys(keys), rights, n_classes,
                                  release)  # fmt: skip

    def block(keys, other_keys):
        # In place, the coupling a band of rows at a time: one k x k array.
        (rows, *pairs), (columns, *others) = map(pairs_of_keys, (keys, other_keys))
        block = gram()[np.ix_(rows, columns)]
        block += 1.0
        rows, columns = (class_columns(*pair, n_classes) for pair in (pairs, others))
        for start in range(0, block.shape[0], COUPLING_BAND):
            band = slice(start, start + COUPLING_BAND)
            block[band] *= rows[:, band].T @ columns  # small integers
        return block

    def right(keys):
        classes = class_columns(*pairs_of_keys(keys)[1:], n_classes)
        return np.column_stack([np.ones(keys.size), classes.T])

    def product(keys, values):
        position, own, others = pairs_of_keys(keys)
        classes = class_columns(own, others, n_classes)
        coupled = pair_products(gram(), position, own, others, values, n_classes)
        return coupled + classes.T @ (classes @ values)

    return block, right, whole, product


class RowsInverse:
    r"""Solves the pairs' held system ``M_II X = R``, ``M = C ∘ (K + 1 1ᵀ)``
    (:func:`~sklearn_linsep._margin._solvers.pair_active_set`), from the inverse
    of the rows' Gram matrix ``G = K + 1 1ᵀ`` (rows x rows), with no pairs x pairs
    array of the held pairs.

    Over every pair of the rows (each row with each class but its own, K - 1 a
    row), ``M = D (G ⊗ I_K) Dᵀ``, ``D`` the rows' class columns
    ``e_own - e_other``; each row's span ``1⊥``, so ``M⁻¹ = R (G⁻¹ ⊗ I_K) Rᵀ``
    with ``R_r = D_r (D_rᵀ D_r)⁻¹``: entry ``(j, l)`` is ``G⁻¹_{r_j r_l}
    (δ_{k_j k_l} - 1/K)`` (k the other classes), whatever the rows' own classes.
    The held pairs I are these less the left-out pairs L, and ``M_II⁻¹ = (M⁻¹)_II
    - (M⁻¹)_IL S⁻¹ (M⁻¹)_LI`` with ``S = (M⁻¹)_LL``: one factor of L x L where L
    is the smaller (most pairs of most rows held: 3 000 documents, K = 4, 8 100
    of 8 900 held), then products with ``G⁻¹``. ``G⁻¹`` and S are held in float32
    (half the memory): the answer is refined against ``M`` itself in float64
    (:func:`pair_products`), and refused (None) where ``REFINEMENTS`` steps leave
    its residual beyond ``RESIDUAL_BELOW`` of the right sides."""

    RESIDUAL_BELOW = 1e-11
    REFINEMENTS = 4

    def __init__(self, largest):
        """``largest``: the most rows (``G⁻¹``) and left-out pairs (S) it takes."""
        self.size, self.inverse, self.largest = -1, None, largest

    def _inverse_of(self, gram):
        """``G⁻¹``, kept while the Gram keeps its size (it only grows); None where
        ``G`` is not positive definite (dependent rows)."""
        if len(gram) != self.size:
            self.size, self.inverse = len(gram), None  # one n x n array at a time
            # In place on the Fortran-ordered transpose (the same symmetric
            # matrix): LAPACK's upper triangle is the array's lower one.
            inverse = gram.astype(np.float32)
            inverse += 1.0
            factor, info = lapack.spotrf(inverse.T, lower=0, overwrite_a=1, clean=0)
            if info == 0:
                _, info = lapack.spotri(factor, lower=0, overwrite_c=1)
            if info == 0:  # the lower triangle mirrored, a band at a time
                for start in range(0, len(inverse), 512):
                    stop = start + 512
                    inverse[start:stop, stop:] = inverse[stop:, start:stop].T
                    square = inverse[start:stop, start:stop]
                    square[:] = np.tril(square) + np.tril(square, -1).T
                self.inverse = inverse
        return self.inverse

    def solve(self, gram, position, own, others, right, n_classes, release):
        """``X`` with ``M_II X = right`` for the pairs given, or None where this way
        does not serve (dependent rows, a pair twice, L no smaller than I);
        ``release()`` is called where it serves, before its arrays are made."""
        # On one BLAS thread: its products are skinny (c K x rows by rows x rows,
        # bound by memory) and its factors of a few thousand. On 2 cores beside a
        # busy one, a second thread made a (20 x 3 000) x (3 000 x 3 000) product
        # 9x slower and spotrf of 3 000 2.6x (medians of 7).
        with one_blas_thread():
            return self._solve(gram, position, own, others, right, n_classes, release)

    def _solve(self, gram, position, own, others, right, n_classes, release):
        n, m = len(gram), len(own)
        row_class = np.zeros(n, dtype=np.intp)  # a row with no pair: any class
        row_class[position] = own
        free = np.ones((n, n_classes), dtype=bool)  # the pairs of every row
        free[np.arange(n), row_class] = False
        free[position, others] = False
        left = np.nonzero(free)  # L: (rows, other classes)
        distinct = np.count_nonzero(~free) == n + m
        refused = self.size == n and self.inverse is None  # before, on this Gram
        too_large = max(n, left[0].size) > self.largest
        if not distinct or left[0].size >= m or refused or too_large:
            return None
        release()  # what the caller held for this solve goes first
        inverse, (left_position, left_other) = self._inverse_of(gram), left
        if inverse is None:
            return None
        coupling = np.empty((left_position.size,) * 2, dtype=np.float32)
        for start in range(0, left_position.size, 128):  # S, a band at a time
            band = slice(start, start + 128)
            coupling[band] = inverse[np.ix_(left_position[band], left_position)]
            coupling[band] *= (left_other[band, None] == left_other) - 1.0 / n_classes
        try:  # in float32, refined below (an empty L: (M⁻¹)_II is M_II⁻¹)
            factor = left_position.size and cho_factor(coupling.T, overwrite_a=True,
                                                       check_finite=False)
        except np.linalg.LinAlgError:
            return None
        del coupling
        held = (position, others)
        both = tuple(map(np.concatenate, zip(held, left)))

        def solve_held(right):
            through = _inverse_product(inverse, held, both, right, n_classes)
            if not factor:
                return through
            weights = cho_solve(factor, through[m:].astype(np.float32),
                                check_finite=False).astype(np.float64)
            return through[:m] - _inverse_product(inverse, left, held, weights,
                                                  n_classes)

        solution = solve_held(right)
        classes = class_columns(own, others, n_classes)
        for _ in range(self.REFINEMENTS + 1):
            residual = right - pair_products(gram, position, own, others, solution,
                                             n_classes)
            residual -= classes.T @ (classes @ solution)  # the 1 1ᵀ part
            if np.max(np.abs(residual)) <= self.RESIDUAL_BELOW * np.max(np.abs(right)):
                return solution
            solution += solve_held(residual)
        self.inverse = None  # too far from M's solve: not tried again on this Gram
        return None


def _inverse_product(inverse, pairs, outputs, values, n_classes):
    """``(M⁻¹)_{outputs, pairs} V`` of :class:`RowsInverse` (pairs as ``(rows,
    other classes)``), by the class sums' product with ``G⁻¹``."""
    position, others = pairs
    sums = -class_sums(position, others, values, n_classes, len(inverse))
    through = (sums.astype(np.float32) @ inverse).astype(np.float64)
    through = through.reshape(values.shape[1], n_classes, len(inverse))
    position, others = outputs
    return (through.mean(axis=1)[:, position] - through[:, others, position]).T
