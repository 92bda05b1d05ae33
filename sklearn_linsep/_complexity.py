"""The arithmetic of Ho & Basu's complexity measures, kept apart from their public
face (:mod:`sklearn_linsep.complexity`: results, docstrings): the data of one call
validated once (:class:`MeasureData`), its class pairs, and each measure's kernel.

Two floors of data: the feature measures (F1–F4) read per-class moments and
extremes of each feature (one pass each, dense or CSR, never densified); the
linearity measures (F1v, L1–L3) read the library's own machinery: the class
statistics with the rank decision and its proof on the rows (F1v), the exact core's
C → ∞ soft limit (L1, whose hyperplane L3 reuses) and the fewest rows to remove
(L2). Errors of a hyperplane are counted exactly: a row's sign is taken from
float64 where its rounding bound decides it, else in rationals.
"""

import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import _kernels
from ._angle import _range_of, mean_difference_parts
from ._exact._enclosure import rounding_factor
from ._exact._numbers import exact_dot, rational, rational_scalar
from ._margin import maximal_margin_of, minimum_errors
from ._proofs import column_extremes
from ._rows import rows_of
from ._validation import plain_label, validate_labelled_data
from ._working_set import DENSE_FALLBACK_ENTRIES
from .exceptions import SolverError

ROWS_PER_CHUNK = 4096  # rows of a dense (rows × features) temporary at a time


@dataclass
class Pair:
    """The rows of two classes ``i < j`` of K: ``X`` (dense or CSR), ``c`` (1 for
    class j, 0 for class i), ``weights`` (None: one each) and the positions of the
    rows in the data given, ``indices``."""

    i: int
    j: int
    X: object
    c: np.ndarray
    weights: np.ndarray | None
    indices: np.ndarray

    @property
    def total(self):
        return float(len(self.c) if self.weights is None else self.weights.sum())

    def row_weights(self):
        """Each row's weight (one each without weights)."""
        return np.ones(len(self.c)) if self.weights is None else self.weights

    def weight_of(self, mask):
        """Total weight of the rows where ``mask`` holds."""
        if self.weights is None:
            return float(np.count_nonzero(mask))
        return float(self.weights[mask].sum())


def pairs_of(X, codes, n_classes, weights):
    """Every :class:`Pair` of classes ``i < j``, in order."""
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            yield pair_of(X, codes, i, j, weights)


def pair_of(X, codes, i, j, weights=None):
    """The :class:`Pair` of classes i < j of rows X with class ``codes``."""
    indices = np.flatnonzero((codes == i) | (codes == j))
    return Pair(
        i,
        j,
        X if len(indices) == len(codes) else X[indices],  # two classes: no copy
        (codes[indices] == j).astype(np.intp),
        None if weights is None else weights[indices],
        indices,
    )


def error_distance(hinge, total):
    """L1's ``SED / (1 + SED)`` of a least total ``hinge`` over rows weighing
    ``total``."""
    distance = hinge / total
    return distance / (1.0 + distance)


class MeasureData:
    """Validated data of one call: rows of positive weight, class codes, and the
    library's rows and statistics on first use (F1v)."""

    def __init__(self, X, y, sample_weight, name, weighted=True):
        try:
            X, classes, codes, weights = validate_labelled_data(
                X, y, sample_weight if weighted else None, name, accept_sparse=True
            )
        except ValueError as error:
            message = str(error)
            raise ValueError(
                message if message.startswith(name) else f"{name}: {message}"
            ) from error
        if weights is not None:
            keep = weights > 0
            X, codes, weights = X[keep], codes[keep], weights[keep]
            # No measure moves with the weights' total; the library's statistics
            # need it to exceed the classes' count (its covariance's divisor).
            weights = weights * (len(weights) / weights.sum())
        self.X, self.codes, self.classes, self.weights = X, codes, classes, weights
        self.name = name
        self._rows = self._stats = None

    @property
    def n_classes(self):
        return len(self.classes)

    def pairs(self):
        return pairs_of(self.X, self.codes, self.n_classes, self.weights)

    def labels(self, pair):
        return plain_label(self.classes[pair.i]), plain_label(self.classes[pair.j])

    def rows(self):
        if self._rows is None:
            self._rows = rows_of(self.X, self.codes, self.weights, name=self.name)
        return self._rows

    def statistics(self, pair):
        """The class statistics of ``pair`` (all classes' once)."""
        if self._stats is None:
            self._stats = self.rows().statistics(per_class=lambda k: k > 2)
        if self.n_classes == 2:
            return self._stats
        return self._stats.pair(pair.i, pair.j)


@contextmanager
def named(name):
    """The measure's name before the message of an error the library's core
    raises while computing it (validation names it already)."""
    try:
        yield
    except (ValueError, SolverError) as error:
        message = str(error)
        if message.startswith(name):
            raise
        raise type(error)(f"{name}: {message}") from error


# ---------------------------------------------------------------------------
# F1: per-feature moments of every class, two-pass (centred), sparse kept sparse


def maximum_fisher_ratio(X, codes, n_classes, weights):
    """F1 = 1 / (1 + max_f r_f) of :func:`fisher_ratio`. Features of extreme
    magnitude are divided by it first (r_f does not move with a feature's scale,
    and its squares then neither overflow nor underflow). Which features are
    constant, within a class or over all the rows, is read from the rows as given,
    exactly: no rounding of a mean makes a spread, or a difference of means."""
    extremes = [column_extremes(X[codes == k]) for k in range(n_classes)]
    highs = np.vstack([high for high, _ in extremes])
    lows = np.vstack([low for _, low in extremes])
    largest = np.maximum(np.abs(highs).max(axis=0), np.abs(lows).max(axis=0))
    if np.any((largest > 1e100) | ((largest > 0) & (largest < 1e-100))):
        largest[~(largest > 0)] = 1.0
        if sp.issparse(X):
            X = sp.csr_array(X) @ sp.diags_array(1.0 / largest)
        else:
            X = X / largest
    counts, means, within = class_moments(X, codes, n_classes, weights)
    within[lows == highs] = 0.0
    ratio = fisher_ratio(counts, means, within)
    ratio[lows.min(axis=0) == highs.max(axis=0)] = 0.0  # constant over all rows
    return 1.0 / (1.0 + float(ratio.max()))


def class_moments(X, codes, n_classes, weights):
    """``(counts, means, within)``: each class's weight, its weighted mean of every
    feature and its centred sum of squares ``Σ w (x - m_k)²``, shapes (K,),
    (K, p), (K, p). Centred in a second pass (no raw sums of squares, which lose
    every digit far from the origin); sparse X by its stored entries plus the
    implicit zeros' share ``(c_k - stored weight) m_k²``."""
    w = np.ones(len(codes)) if weights is None else weights
    counts = np.bincount(codes, weights=w, minlength=n_classes)
    means = _class_sums(X, codes, w, n_classes) / counts[:, None]
    if not sp.issparse(X):
        within = np.zeros_like(means)
        for start in range(0, X.shape[0], ROWS_PER_CHUNK):
            rows = slice(start, start + ROWS_PER_CHUNK)
            centred = X[rows] - means[codes[rows]]
            within += _class_sums(centred * centred, codes[rows], w[rows], n_classes)
        return counts, means, within
    X = sp.csr_array(X)
    entry_rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    entry_codes, entry_w = codes[entry_rows], w[entry_rows]
    flat = entry_codes * X.shape[1] + X.indices
    size = n_classes * X.shape[1]
    deviations = X.data - means.ravel()[flat]
    stored = np.bincount(flat, entry_w * deviations**2, size).reshape(means.shape)
    stored_weight = np.bincount(flat, entry_w, size).reshape(means.shape)
    zeros = np.maximum(counts[:, None] - stored_weight, 0.0)
    return counts, means, stored + zeros * means**2


def _class_sums(values, codes, w, n_classes):
    """``Σ_{i in k} w_i values_i`` for every class k, shape (K, p), values dense
    or sparse: one sparse product (``np.add.at`` costs ten times more)."""
    one_hot = sp.csr_array(
        (w, (codes, np.arange(len(codes)))), shape=(n_classes, len(codes))
    )
    sums = one_hot @ values
    return np.asarray(sums.toarray() if sp.issparse(sums) else sums, np.float64)


def fisher_ratio(counts, means, within):
    """Lorena et al.'s per-feature ratio ``r_f = Σ_k c_k (m_kf - m_f)² / Σ_k
    Σ_{i in k} w_i (x_if - m_kf)²``; 0 where the feature is constant over all the
    rows (0/0: it says nothing), ``inf`` where it is constant within every class
    while the class means differ."""
    mean = counts @ means / counts.sum()
    between = counts @ (means - mean) ** 2
    within = within.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = between / within
    ratio[(between <= 0) & (within <= 0)] = 0.0
    return ratio


# ---------------------------------------------------------------------------
# F2–F4: the overlap of the two classes' ranges, feature by feature


def class_extremes(X, c):
    """``(low, high, lowest, highest)`` per feature: the overlap of the two
    classes' ranges ``[max of minima, min of maxima]`` (empty where low > high) and
    the range of both ``[lowest, highest]``."""
    return _overlap(column_extremes(X[c == 0]), column_extremes(X[c == 1]))


def _overlap(first, second):
    """``(low, high, lowest, highest)`` of two classes' ``(high, low)`` extremes."""
    (high0, low0), (high1, low1) = first, second
    return (np.maximum(low0, low1), np.minimum(high0, high1),
            np.minimum(low0, low1), np.maximum(high0, high1))  # fmt: skip


def overlap_volume(low, high, lowest, highest):
    """F2's ``Π_f max(0, high_f - low_f) / (highest_f - lowest_f)``; a feature
    constant over both classes (0/0) is left out of the product, as ECoL's
    ``na.rm`` and problexity's ``nanprod`` leave it: it overlaps whole."""
    spread = highest - lowest
    varies = spread > 0
    overlap = np.maximum(high - low, 0.0)[varies] / spread[varies]
    return float(np.prod(overlap))


def outside_weights(X, w, low, high):
    """For every feature, the weight ``w`` of the rows of X outside the closed
    overlap ``[low, high]`` (a value on a bound overlaps, as in ECoL)."""
    if not sp.issparse(X):  # one compiled pass, no (rows x features) temporaries
        out = np.empty(X.shape[1])
        X = X if X.dtype == np.float32 else np.asarray(X, dtype=np.float64)
        _kernels.outside_weights(np.ascontiguousarray(X), np.asarray(w, float),
                                 np.asarray(low, float), np.asarray(high, float),
                                 out)  # fmt: skip
        return out
    X = sp.csr_array(X)
    entry_w = np.repeat(w, np.diff(X.indptr))
    columns = X.indices
    outside = (X.data < low[columns]) | (X.data > high[columns])
    p = X.shape[1]
    stored_outside = np.bincount(columns[outside], entry_w[outside], p)
    implicit_zeros = w.sum() - np.bincount(columns, entry_w, p)
    zero_outside = (low > 0) | (high < 0)
    return stored_outside + np.where(zero_outside, implicit_zeros, 0.0)


def feature_efficiency(pair):
    """F3: the smallest share (by weight) of the pair's rows that any one feature
    leaves in its overlap."""
    low, high, _, _ = class_extremes(pair.X, pair.c)
    outside = outside_weights(pair.X, pair.row_weights(), low, high)
    return float((pair.total - outside.max()) / pair.total)


def collective_efficiency(pair):
    """F4: features taken greedily, each the one whose overlap leaves out the most
    weight of the rows still in every overlap so far; the share left at the end
    (when no row is left, every feature is used, or one class only is left, as
    ECoL's ``removing`` stops: then its rows count as left).

    Dense rows stay where they are, the rows still in marked: a round is two
    compiled passes (each class's count and extremes, the weight outside), where
    copying each class's rows made it four (1e6 x 10: 60 -> 39 ms a round). They
    are copied once fewer than half are left; other rows (sparse) every round."""
    X, c, weights = pair.X, pair.c, pair.row_weights()
    left = np.ones(len(c), dtype=bool)
    used = np.zeros(X.shape[1], dtype=bool)
    while not used.all():
        readable = _kernels.reads_rows(X)
        if not left.all() and (not readable or 2 * np.count_nonzero(left) < len(c)):
            X, c, weights, left = _rows(X, left), c[left], weights[left], left[left]
        counts, low, high = _overlap_of_rows(X, c, left)
        if not np.all(counts > 0):
            break
        outside = outside_weights(X, np.where(left, weights, 0.0), low, high)
        outside[used] = -1.0
        # Ties go to the first feature, as in ECoL; weights' sums tie to rounding.
        tie = len(pair.c) * np.finfo(float).eps * pair.total
        best = int(np.flatnonzero(outside >= outside.max() - tie)[0])
        if outside[best] <= 0:
            break  # nothing moves: every later round would be this one
        left &= _inside(X[:, [best]], low[best], high[best])
        used[best] = True
    side = c[left]
    return float(weights[left][side == 0].sum() + weights[left][side == 1].sum()) / (
        pair.total
    )


def _overlap_of_rows(X, c, left):
    """``(counts, low, high)``: each class's count of the rows ``left`` and the
    overlap of the two classes' ranges over them (all rows, where the compiled
    pass does not read X)."""
    if not _kernels.reads_rows(X):
        counts = np.bincount(c, minlength=2)
        if not np.all(counts > 0):
            return counts, None, None  # a class without rows has no range
        return counts, *class_extremes(X, c)[:2]
    counts, sums = np.empty(2), np.empty((2, X.shape[1]))
    high, low = np.empty_like(sums), np.empty_like(sums)
    _kernels.class_summaries(X, c.astype(np.intp, copy=False), left.astype(float),
                             counts, sums, high, low)  # fmt: skip
    return counts, *_overlap((high[0], low[0]), (high[1], low[1]))[:2]


def _rows(X, rows):
    """``X[rows]``, one copy (``take`` is the fast one for dense rows; ``rows`` a
    mask or indices)."""
    if rows.dtype == bool:
        rows = np.flatnonzero(rows)
    return X[rows] if sp.issparse(X) else X.take(rows, axis=0)


def _inside(column, low, high):
    """Which values of one column (an (n, 1) block) lie in ``[low, high]``."""
    values = column.toarray().ravel() if sp.issparse(column) else column.ravel()
    return (values >= low) & (values <= high)


# ---------------------------------------------------------------------------
# F1v: Fisher's directional ratio, from the library's statistics and rank proof


def directional_ratio(stats, rows, i, j, kappa, tol):
    """``(dF, rank, in_range)``: Fisher's ratio ``(dᵀBd) / (dᵀWd)`` along
    ``d = W(κ)⁻¹ Δ`` with ``W = scatter / c`` (biased, c the pair's weight) and
    ``W(κ) = W + κQ`` (Q the projector on W's null space): with a = ΔᵀW⁺Δ and
    q = ‖QΔ‖², ``dF = (a + q/κ)² / a``; ``inf`` where a = 0 < q/κ (or κ = ∞
    and q > 0: its limit), 0 where the means coincide. QΔ is read by the proof
    on the rows (:func:`~._angle.mean_difference_parts`): zero where Δ is proved
    in W's range."""
    reg = stats.regularized_inverse(1.0, tol)
    parts = mean_difference_parts(stats, reg, _range_of(rows, i, j))
    delta = stats.mean_difference(1, 0)
    # W = S · divisor / c, so W⁺ = S⁺ · c / divisor (S the library's covariance).
    divisor = stats._covariance_divisor()  # None where no row varies: W = 0
    scale = 0.0 if divisor is None else stats.total_weight / divisor
    a = scale * max(float(delta @ parts.pinv), 0.0)
    q = float(parts.null @ parts.null)
    lifted = q / kappa if np.isfinite(kappa) else 0.0
    if a <= 0.0:
        ratio = np.inf if (q > 0 and (lifted > 0 or not np.isfinite(kappa))) else 0.0
    else:
        ratio = (a + lifted) ** 2 / a
    return ratio, parts.rank, parts.in_range


# ---------------------------------------------------------------------------
# L1–L3: the exact core's soft limit and fewest rows to remove


def exact_verdict(problem, tol, classes, soft):
    """``(hinge, separable, coef, intercept)`` of one two-class problem
    (:class:`~._rows._protocol.TwoClassRows`) by the exact core: separable, its
    maximal-margin hyperplane and hinge 0; else, with ``soft``, the least total
    hinge of the C → ∞ soft limit and its hyperplane (without, hinge None)."""
    result = maximal_margin_of(problem, tol=tol, soft=soft, classes=classes)
    if result.separable:
        return 0.0, True, result.coef, float(result.intercept)
    if not soft:
        return None, False, None, None
    return (float(result.hinge_violation), False, result.coef,
            float(result.intercept))  # fmt: skip


def dense_rows(X, name):
    """X as a dense float64 array for the fewest rows to remove, within the one
    limit on densifying sparse X."""
    if not sp.issparse(X):
        return np.asarray(X, dtype=np.float64)
    if X.shape[0] * X.shape[1] > DENSE_FALLBACK_ENTRIES:
        raise ValueError(
            f"{name}: the fewest rows to remove reads dense rows, and this pair's "
            f"{X.shape[0]} x {X.shape[1]} sparse rows exceed "
            f"sklearn_linsep._working_set.DENSE_FALLBACK_ENTRIES = "
            f"{DENSE_FALLBACK_ENTRIES} entries. Reduce the features (e.g. "
            "TruncatedSVD) or the rows first."
        )
    return X.toarray().astype(np.float64, copy=False)


def fewest_errors(pair, classes, *, effort, time_limit, tol, name):
    """:class:`~._margin.MinimumErrorResult` of one pair (rows counted, not
    weighted)."""
    X = dense_rows(pair.X, name)
    signs = np.where(pair.c == 1, 1.0, -1.0)
    return minimum_errors(
        X, signs, classes, time_limit=time_limit, effort=effort, tol=tol
    )


def fewest_misclassified(X, c, coef, intercept, lower=0):
    """``(coef, intercept, errors)``: of the hyperplane given (a search's) and
    ``LinearSVC()``'s on the same rows (the peers' L2: never above theirs, then),
    the one of fewer proved errors (the one given on a tie, or where its errors
    meet the ``lower`` bound: none can do better)."""
    best = (np.asarray(coef, dtype=np.float64), float(intercept))
    errors = int(misclassified(X, c, *best).sum())
    if errors <= lower or min(np.bincount(c, minlength=2)) == 0:
        return *best, errors
    from sklearn.svm import LinearSVC  # here: imported only when it is fitted

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # liblinear's iteration limit: a candidate
        svm = LinearSVC(random_state=0).fit(X, c)
    theirs = int(misclassified(X, c, svm.coef_[0], svm.intercept_[0]).sum())
    if theirs < errors:
        return svm.coef_[0].astype(np.float64), float(svm.intercept_[0]), theirs
    return *best, errors


def misclassified(X, c, coef, intercept):
    """Boolean mask of the rows with ``s_i (coef·x_i + intercept) ≤ 0`` (s = ±1
    from c = 1/0; a score of exactly 0 is an error), each sign proved: from
    float64 where the score's rounding bound decides it, else in rationals."""
    coef = np.asarray(coef, dtype=np.float64)
    intercept = float(intercept)
    signs = np.where(np.asarray(c) == 1, 1.0, -1.0)
    with np.errstate(all="ignore"):
        scores = np.asarray(X @ coef).ravel() + intercept
        magnitude = np.asarray(abs(X) @ np.abs(coef)).ravel() + abs(intercept)
        gamma = rounding_factor(X.shape[1] + 2)
        radius = gamma * magnitude * (1 + gamma) + 2.0**-1070 * (X.shape[1] + 1)
    decided = np.isfinite(scores) & np.isfinite(radius) & (np.abs(scores) > radius)
    wrong = decided & (signs * scores < 0)
    if decided.all():
        return wrong
    w, b = rational(coef), rational_scalar(intercept)
    for row in np.flatnonzero(~decided):
        score = _exact_score(X, row, w, b)
        wrong[row] = signs[row] * score <= 0
    return wrong


def _exact_score(X, row, w, b):
    """``w·x_row + b`` in rationals (w, b Fractions)."""
    if sp.issparse(X):
        part = sp.csr_array(X[[row]])
        values, columns = part.data, part.indices
        return exact_dot(rational(values), [w[k] for k in columns]) + b
    return exact_dot(rational(X[row]), w) + b


def interpolated(pair, rng):
    """Lorena et al.'s L3 points: for each class as many points as it has rows,
    each ``x_a + t (x_b - x_a)`` for two distinct rows a, b of the class drawn
    uniformly and one ``t ~ U(0, 1)`` for all features (a class of one row
    gives that row). Returns ``(points, c)``."""
    firsts, seconds, labels = [], [], []
    for side in (0, 1):
        members = np.flatnonzero(pair.c == side)
        count = len(members)
        first = rng.randint(count, size=count)
        second = rng.randint(max(count - 1, 1), size=count)
        if count > 1:
            second = second + (second >= first)
        else:
            second = first
        firsts.append(members[first])
        seconds.append(members[second])
        labels.append(np.full(count, side, dtype=np.intp))
    firsts, seconds = np.concatenate(firsts), np.concatenate(seconds)
    t = rng.uniform(size=len(firsts))
    start, end = pair.X[firsts], pair.X[seconds]
    if sp.issparse(start):
        scale = sp.diags_array(t)
        points = sp.csr_array(start + scale @ (end - start))
    else:
        points = start + t[:, None] * (end - start)
    return points, np.concatenate(labels)
