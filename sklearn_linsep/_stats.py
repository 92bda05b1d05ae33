"""Class statistics in one pass, and the regularised inverse S(κ)⁻¹ = S† + Q/κ.

Everything here works on plain arrays; estimators call it and never the other way round.

The pass over X is chunked: each chunk is shifted by per-class references (the running
class means), one product gives its scatter, class sums and counts, and the result is
merged into the running totals with the pairwise update of Chan, Golub and LeVeque
(1979). Memory beyond X is O(K·p + p²) plus one chunk, and the result
does not depend on a raw sum of squares (which loses everything to cancellation when the
means are large against the spread).

Wide data (more features than rows) keep the scatter as its rows instead: the
within-class-centred rows C with W = CᵀC, O(n·p) where the matrix would be O(p²).
Their decomposition goes through the n×n Gram matrix and a thin QR (the span of the
samples), so no p×p matrix is ever formed (SPEC §10).
"""

from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    column_or_1d,
)

from . import _kernels
from ._validation import check_classes, chunk_weights, encode_labels, working_dtype

# Rows per chunk are chosen so that one centred float64 chunk is about this many bytes:
# large enough for BLAS to run at full speed, small enough to stay cheap beside X.
_CHUNK_BYTES = 1 << 22


@dataclass
class ClassStatistics:
    r"""Weighted counts, means and pooled centred scatter of K classes: all that
    :class:`FisherDiscriminant` and :class:`SeparabilityAngle` need of the data.

    With weights :math:`w_i` (one without sample weights) and the rows
    :math:`x_i` of class k,

    .. math:: c_k = \sum_{i \in k} w_i, \qquad
              m_k = \frac{1}{c_k} \sum_{i \in k} w_i x_i, \qquad
              W = \sum_k \sum_{i \in k} w_i (x_i - m_k)(x_i - m_k)^\top.

    The statistics of two disjoint sets of rows combine exactly (up to rounding)
    with :meth:`merge`, whatever the split, so a fit can be computed chunk by chunk
    (``partial_fit``), block by block (dask) or as a map-reduce: build one
    ``ClassStatistics`` per part with :meth:`from_data`, merge them, and hand the
    result to ``fit_statistics`` of an estimator. The scatter is always held centred
    on the class means, never as a raw sum of squares, which would lose every digit
    to cancellation when the means are large against the spread.

    Attributes
    ----------
    counts : ndarray of shape (n_classes,)
        Total sample weight of each class (the number of rows without weights).
    means : ndarray of shape (n_classes, n_features)
        Weighted class means (zero for a class of zero weight).
    within_scatter : ndarray of shape (n_features, n_features) or None
        Pooled within-class scatter ``Σ_k Σ_{i in k} w_i (x_i - m_k)(x_i - m_k)ᵀ``;
        None when the statistics hold it as ``scatter_rows`` (:meth:`scatter`
        gives the matrix either way).
    n_samples : int
        Number of rows of positive weight seen. It bounds the rank of the scatter
        (at most ``n_samples`` minus the number of classes, whatever rounding
        says: a rounding-level eigenvalue at the rank tolerance could otherwise
        make ``partial_fit`` and ``fit`` decide different ranks) and sets the
        default rank tolerance.
    class_scatter : ndarray of shape (n_classes, n_features, n_features) or None
        The scatter of each class on its own (kept on request: it costs K·p² memory),
        for the statistics of any pair of classes.
    dtype : numpy.dtype, default=float64
        The precision of the data behind the statistics (float32 or float64). The
        statistics themselves are float64; the dtype sets the default rank tolerance
        and the dtype of the fitted attributes. Merging promotes it.
    mean_residual : ndarray of shape (n_classes, n_features) or None
        The rounding error of ``means`` (the mean is ``means + mean_residual`` to
        about twice float64's precision). Data far from the origin (an offset of
        10⁸ with unit spread) lose digits in every merge of plain means; with the
        residual, a thousand merges still agree with one pass to about 1e-15, and
        mean differences (:meth:`mean_difference`) keep their digits. None: zero.
    scatter_rows : ndarray of shape (n_rows, n_features) or None
        The scatter as rows C with ``W = CᵀC``: the rows ``√w_i (x_i - m_k)``, plus
        one row per class and merge (see :meth:`merge`). Wide data (more features
        than rows, and more than a few hundred features) are kept this way, O(n·p)
        where the matrix is O(p²); a merge turns them into the matrix once they
        outnumber the features.
    row_classes : ndarray of shape (n_rows,) or None
        The class of each of ``scatter_rows`` (the scatter of class k is that of
        its rows), so that every pair of classes has its statistics.
    keep_per_class : bool, default=False
        Whether ``class_scatter`` is kept when the rows become the matrix.

    See Also
    --------
    FisherDiscriminant.fit_statistics : Fisher's discriminant from statistics.
    SeparabilityAngle.fit_statistics : The angle of separability from statistics.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import ClassStatistics, FisherDiscriminant
    >>> X = np.array([[0.0, 0.0], [2.0, 1.0], [0.0, 4.0], [2.0, 4.0], [1.0, 2.0]])
    >>> y = np.array([0, 0, 1, 1, 0])
    >>> first = ClassStatistics.from_data(X[:2], y[:2], classes=[0, 1])
    >>> second = ClassStatistics.from_data(X[2:], y[2:], classes=[0, 1])
    >>> merged = first.merge(second)
    >>> merged.counts
    array([3., 2.])
    >>> merged.means
    array([[1., 1.],
           [1., 4.]])
    >>> whole = ClassStatistics.from_data(X, y, classes=[0, 1])
    >>> bool(np.allclose(merged.within_scatter, whole.within_scatter))
    True
    >>> clf = FisherDiscriminant().fit_statistics(merged, classes=[0, 1])
    >>> clf.predict([[1.0, 0.5], [1.0, 5.0]])
    array([0, 1])
    """

    counts: np.ndarray
    means: np.ndarray
    within_scatter: np.ndarray
    n_samples: int
    class_scatter: np.ndarray | None = None
    dtype: np.dtype = np.dtype(np.float64)
    mean_residual: np.ndarray | None = None
    scatter_rows: np.ndarray | None = None
    row_classes: np.ndarray | None = None
    keep_per_class: bool = False

    @property
    def holds_rows(self):
        """Whether the scatter is held as ``scatter_rows`` (wide data)."""
        return self.scatter_rows is not None

    def scatter(self):
        """The pooled within-class scatter W as a (p, p) matrix, whatever the form
        (from the rows, this costs O(n·p²) time and O(p²) memory)."""
        if self.holds_rows:
            return self.scatter_rows.T @ self.scatter_rows
        return self.within_scatter

    def scatter_diagonal(self):
        """``diag(W)``: the within-class sum of squares of each feature."""
        if self.holds_rows:
            return np.einsum("ij,ij->j", self.scatter_rows, self.scatter_rows)
        return np.diagonal(self.within_scatter).copy()

    def with_matrix(self):
        """The same statistics with the scatter as a (p, p) matrix (and the scatter
        of each class when ``keep_per_class``)."""
        if not self.holds_rows:
            return self
        class_scatter = None
        if self.keep_per_class:
            class_scatter = np.empty((self.n_classes, self.n_features, self.n_features))
            for k in range(self.n_classes):
                rows = self.scatter_rows[self.row_classes == k]
                class_scatter[k] = rows.T @ rows
        return replace(
            self,
            within_scatter=self.scatter(),
            class_scatter=class_scatter,
            scatter_rows=None,
            row_classes=None,
            keep_per_class=False,
        )

    def with_compact_rows(self):
        """The same statistics with as few ``scatter_rows`` as the rank of each
        class's scatter: per class, ``C_k → W_rᵀ C_k`` with ``C_k C_kᵀ = W Σ Wᵀ``
        and r the eigenvalues above rounding (``C_kᵀ C_k`` is kept to rounding)."""
        rows, classes = [], []
        for k in range(self.n_classes):
            members = self.scatter_rows[self.row_classes == k]
            if members.shape[0] > 1:
                values, vectors = np.linalg.eigh(members @ members.T)
                noise = members.shape[0] * np.finfo(float).eps * max(values[-1], 0.0)
                members = vectors[:, values > noise].T @ members
            rows.append(members)
            classes.append(np.full(members.shape[0], k, dtype=np.intp))
        return replace(
            self, scatter_rows=np.concatenate(rows), row_classes=np.concatenate(classes)
        )

    def rescaled(self, shift, scale):
        """The statistics of ``(X - shift) / scale`` (per feature): exact, with no
        pass over X.

        Parameters
        ----------
        shift, scale : ndarray of shape (n_features,)
            Subtracted from each feature, then divided into it (nonzero).
        """
        mean_part = dict(
            means=(self.means - shift) / scale, mean_residual=self.residual / scale
        )
        if self.holds_rows:
            return replace(self, scatter_rows=self.scatter_rows / scale, **mean_part)
        outer = np.outer(scale, scale)
        class_scatter = self.class_scatter
        if class_scatter is not None:
            class_scatter = class_scatter / outer
        return replace(
            self,
            within_scatter=self.within_scatter / outer,
            class_scatter=class_scatter,
            **mean_part,
        )

    @property
    def residual(self):
        """The low-order part of the means (zero when not kept)."""
        if self.mean_residual is None:
            return np.zeros_like(self.means)
        return self.mean_residual

    def mean_difference(self, i, j):
        """``m_i - m_j`` to the precision of the compensated means: far below the
        rounding of the means themselves when they are large against their
        difference.

        Parameters
        ----------
        i, j : int
            Indices of the two classes (rows of ``means``).
        """
        residual = self.residual
        return (self.means[i] - self.means[j]) + (residual[i] - residual[j])

    @classmethod
    def from_data(cls, X, y, classes, *, sample_weight=None, per_class=False):
        """The statistics of labelled rows, in one pass over X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite data; float32 is kept as the ``dtype``, the rest becomes float64.
        y : array-like of shape (n_samples,)
            Labels, each in ``classes``.
        classes : array-like of shape (n_classes,)
            All the labels, sorted and distinct (as ``np.unique`` returns them):
            row k of the statistics is ``classes[k]``, also when a part holds no
            row of it, so that parts merge.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.
        per_class : bool, default=False
            Also keep the scatter of each class (SeparabilityAngle needs it for
            more than two classes).

        Returns
        -------
        stats : ClassStatistics

        Examples
        --------
        >>> from sklearn_linsep import ClassStatistics
        >>> stats = ClassStatistics.from_data(
        ...     [[0.0], [2.0], [5.0]], ["a", "a", "b"], classes=["a", "b", "c"]
        ... )
        >>> stats.counts, stats.means.ravel()
        (array([2., 1., 0.]), array([1., 5., 0.]))
        """
        X = check_array(X, dtype=[np.float64, np.float32], input_name="X")
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        classes = check_classes(classes, "ClassStatistics.from_data")
        weights = None
        if sample_weight is not None:
            weights = chunk_weights(sample_weight, X.shape[0])
        return class_statistics(
            X,
            encode_labels(y, classes),
            len(classes),
            weights,
            per_class=per_class,
        )

    @property
    def n_classes(self):
        """Number of classes."""
        return self.counts.shape[0]

    @property
    def n_features(self):
        """Number of features."""
        return self.means.shape[1]

    @property
    def total_weight(self):
        """Total sample weight of all classes."""
        return float(self.counts.sum())

    @property
    def grand_mean(self):
        """Weighted mean of all rows."""
        return self.counts @ self.means / self.total_weight

    @property
    def mean_noise(self):
        """The rounding level of a difference of class means.

        A mean difference (or a part of one) no longer than this is indistinguishable
        from zero: ``16 √p · eps · max |m_kj|``.
        """
        scale = np.abs(self.means).max() if self.means.size else 0.0
        return 16.0 * np.sqrt(self.n_features) * np.finfo(np.float64).eps * scale

    def _covariance_divisor(self):
        """``Σw - K``, the divisor of the pooled covariance; None when there is no
        within-class spread at all (S = 0 whatever the divisor)."""
        dof = self.total_weight - self.n_classes
        if dof > 0:
            return dof
        if not np.any(self.scatter_rows if self.holds_rows else self.within_scatter):
            # e.g. one point per class: every direction is in the null space.
            return None
        raise ValueError(
            "The pooled covariance divides by sum(sample_weight) - n_classes, "
            f"which is {dof:g} here. Sample weights are frequency weights (an "
            "integer weight counts as that many copies of the row), so weights "
            "normalised to sum to 1 do not fit: scale them to sum to the number "
            "of rows."
        )

    def pooled_covariance(self):
        """Pooled within-class covariance ``S = W / (Σw - K)``, a (p, p) matrix.

        Sample weights are frequency weights: an integer weight is the same as repeating
        the row, so the divisor is the total weight minus the number of classes, which
        for two classes without weights is the paper's ``n₊ + n₋ - 2``.
        """
        dof = self._covariance_divisor()
        scatter = self.scatter()
        return np.zeros_like(scatter) if dof is None else scatter / dof

    def regularized_inverse(self, kappa, tol=None, dtype=None):
        """S(κ)⁻¹ of the pooled covariance, factored. From ``scatter_rows`` it is
        found in the span of the samples, never forming a (p, p) matrix.

        Parameters
        ----------
        kappa : float
            The regularisation κ > 0 (``inf``: the Moore–Penrose inverse).
        tol : float, default=None
            Relative rank tolerance (None: the default one).
        dtype : dtype, default=None
            The precision of the data behind the statistics, for the default
            tolerance (None: ``self.dtype``).

        Returns
        -------
        reg : RegularizedCovariance
        """
        options = dict(
            tol=tol,
            n_samples=self.n_samples,
            dtype=self.dtype if dtype is None else dtype,
            feature_scale=np.abs(self.means).max(axis=0),
            max_rank=max(self.n_samples - np.count_nonzero(self.counts > 0), 0),
        )
        if self.holds_rows:
            return regularized_covariance_from_rows(
                self.scatter_rows, self._covariance_divisor(), kappa, **options
            )
        return regularized_covariance(self.pooled_covariance(), kappa, **options)

    def pair(self, i, j):
        """Statistics of classes i and j alone (needs ``class_scatter`` or
        ``scatter_rows``).

        Parameters
        ----------
        i, j : int
            Indices of the two classes (rows of ``means``).

        Returns
        -------
        pair : ClassStatistics
        """
        pair = [i, j]
        # n_samples sets the default rank tolerance and caps the rank: the rows of
        # all classes bound the pair's (loosely).
        common = dict(
            counts=self.counts[pair],
            means=self.means[pair],
            n_samples=self.n_samples,
            dtype=self.dtype,
            mean_residual=self.residual[pair],
        )
        if self.holds_rows:
            members = (self.row_classes == i) | (self.row_classes == j)
            return ClassStatistics(
                within_scatter=None,
                scatter_rows=self.scatter_rows[members],
                row_classes=(self.row_classes[members] == j).astype(np.intp),
                keep_per_class=self.keep_per_class,
                **common,
            )
        if self.class_scatter is None:
            raise ValueError(
                "Pairwise statistics need the scatter of each class: compute them "
                "with per_class=True (ClassStatistics.from_data or class_statistics)."
            )
        return ClassStatistics(
            within_scatter=self.class_scatter[i] + self.class_scatter[j],
            class_scatter=self.class_scatter[pair],
            **common,
        )

    def merge(self, other):
        r"""Statistics of the union of the rows behind ``self`` and ``other``.

        Exact (up to rounding) whatever the split: the pairwise update of Chan, Golub
        and LeVeque (1979), per class k with weights :math:`c_a, c_b` and means
        :math:`m_a, m_b`,

        .. math:: c = c_a + c_b, \qquad m = m_a + \frac{c_b}{c}\,\delta, \qquad
                  W = W_a + W_b + \frac{c_a c_b}{c}\,\delta\delta^\top, \qquad
                  \delta = m_b - m_a,

        summed over the classes for the pooled scatter. A class of zero weight in
        one part takes the other's statistics unchanged.

        Parameters
        ----------
        other : ClassStatistics
            Statistics of other rows, of the same classes (in the same order) and
            features.

        Returns
        -------
        merged : ClassStatistics
            ``class_scatter`` is kept when both have it; ``dtype`` is promoted.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import ClassStatistics
        >>> a = ClassStatistics.from_data([[0.0], [2.0]], [0, 1], classes=[0, 1])
        >>> b = ClassStatistics.from_data([[4.0], [6.0]], [0, 1], classes=[0, 1])
        >>> merged = a.merge(b)
        >>> merged.means.ravel(), merged.within_scatter
        (array([2., 4.]), array([[16.]]))
        """
        if self.means.shape != other.means.shape:
            raise ValueError(
                "Cannot merge statistics of different shapes: "
                f"{self.means.shape} and {other.means.shape}."
            )
        if self.n_samples == 0 and not np.any(self.counts):
            # Nothing yet (the start of a pass): the other part as it is.
            return replace(other, dtype=np.promote_types(self.dtype, other.dtype))
        counts = self.counts + other.counts
        safe = np.where(counts > 0, counts, 1.0)
        share = (other.counts / safe)[:, None]
        delta = (other.means - self.means) + (other.residual - self.residual)
        # The new mean as a sum of two floats: the step's rounding at the means'
        # magnitude is kept, not lost in every merge.
        high, error = _two_sum(self.means, share * delta)
        means, residual = _two_sum(high, self.residual + error)
        # A class absent from one side takes the other's mean as it is.
        only_self = (other.counts == 0)[:, None]
        only_other = (self.counts == 0)[:, None]
        means = np.where(
            only_self, self.means, np.where(only_other, other.means, means)
        )
        residual = np.where(
            only_self, self.residual, np.where(only_other, other.residual, residual)
        )
        scaled = np.sqrt(self.counts * other.counts / safe)[:, None] * delta
        common = dict(
            counts=counts,
            means=means,
            n_samples=self.n_samples + other.n_samples,
            dtype=np.promote_types(self.dtype, other.dtype),
            mean_residual=residual,
        )
        if self.holds_rows and other.holds_rows:
            # Chan's correction ``(c_a c_b / c) δδᵀ`` of class k is one more row.
            corrected = np.flatnonzero(np.any(scaled != 0, axis=1))
            merged = ClassStatistics(
                within_scatter=None,
                scatter_rows=np.concatenate(
                    [self.scatter_rows, other.scatter_rows, scaled[corrected]]
                ),
                row_classes=np.concatenate(
                    [self.row_classes, other.row_classes, corrected]
                ),
                keep_per_class=self.keep_per_class and other.keep_per_class,
                **common,
            )
            if merged.scatter_rows.shape[0] > 1.5 * merged.n_samples + self.n_classes:
                # Many merges of few rows (partial_fit row by row) pile up
                # correction rows; the scatter of a class of c rows has rank < c.
                merged = merged.with_compact_rows()
            # Rows beyond the features cost more than the matrix.
            if merged.scatter_rows.shape[0] > self.n_features:
                return merged.with_matrix()
            return merged
        mine, theirs = self.with_matrix(), other.with_matrix()
        within = mine.within_scatter + theirs.within_scatter + scaled.T @ scaled
        class_scatter = None
        if mine.class_scatter is not None and theirs.class_scatter is not None:
            corrections = scaled[:, :, None] * scaled[:, None, :]
            class_scatter = mine.class_scatter + theirs.class_scatter + corrections
        return ClassStatistics(
            within_scatter=within, class_scatter=class_scatter, **common
        )


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    b_virtual = s - a
    return s, (a - (s - b_virtual)) + (b - b_virtual)


# Wide data keep the scatter as rows once the (p, p) matrix would pass this many
# features: below it the matrix is small whatever the rows, and cheaper to use.
ROWS_FROM_FEATURES = 256


def rows_are_cheaper(n_rows, n_features, form="auto"):
    """Whether statistics of ``n_rows`` rows keep their scatter as rows: never for
    ``form="matrix"``; for "rows" while the rows are no more than the features;
    for "auto" only when the features are also more than ``ROWS_FROM_FEATURES``
    (below that, the matrix is small whatever the rows)."""
    if form == "matrix" or n_rows > n_features:
        return False
    return form == "rows" or n_features > ROWS_FROM_FEATURES


def _empty_statistics(n_classes, n_features, per_class, dtype, rows):
    common = dict(
        counts=np.zeros(n_classes),
        means=np.zeros((n_classes, n_features)),
        n_samples=0,
        dtype=np.dtype(dtype),
    )
    if rows:
        return ClassStatistics(
            within_scatter=None,
            scatter_rows=np.zeros((0, n_features)),
            row_classes=np.zeros(0, dtype=np.intp),
            keep_per_class=per_class,
            **common,
        )
    return ClassStatistics(
        within_scatter=np.zeros((n_features, n_features)),
        class_scatter=np.zeros((n_classes, n_features, n_features))
        if per_class
        else None,
        **common,
    )


def _references(stats, X, y, sample_weight=None):
    """Per-class centres for the next chunk: the running means, or for a class not
    seen yet its first row of positive weight in the chunk (any point of the class
    keeps the shifted sums small against the spread; a row of weight 0 is no point
    of it, and one far away would cost the others their digits)."""
    reference = stats.means.copy()
    for k in np.flatnonzero(stats.counts == 0):
        members = y == k
        if sample_weight is not None:
            members &= sample_weight > 0
        rows = np.flatnonzero(members)
        if rows.size:
            reference[k] = X[rows[0]]
    return reference


def _shifted_means(reference, sums, counts):
    """``(shift, means, residual)`` of classes with weights ``counts`` and weighted
    sums ``sums`` of their rows less ``reference``: the means as ``reference +
    shift`` to twice float64's precision (zero for a class of no weight)."""
    shift, means, residual = (np.empty(sums.shape) for _ in range(3))
    _kernels.shifted_means(
        np.ascontiguousarray(reference, dtype=np.float64),
        np.ascontiguousarray(sums),
        np.asarray(counts, dtype=np.float64),
        shift,
        means,
        residual,
    )
    return shift, means, residual


def _chunk_statistics(X, y, n_classes, sample_weight, per_class, reference, buffer):
    """Statistics of one chunk from one product.

    The kernel writes ``B = [√w (X - reference[y]), √w one-hot(y)]`` and ``BᵀB``
    (one symmetric rank-k update) holds the shifted scatter, the class sums of the
    shifted rows and the class weights; subtracting ``Σ_k c_k δ_k δ_kᵀ`` (δ_k the
    class mean minus its reference, small) gives the centred scatter.
    """
    n, p = X.shape
    B = buffer[:n]
    X = np.ascontiguousarray(X)  # the kernel walks along rows
    if sample_weight is None:
        _kernels.centre_with_indicator(X, y, reference, B)
    else:
        root_weight = np.sqrt(sample_weight)
        _kernels.centre_with_indicator_weighted(X, y, reference, root_weight, B)
    gram = B.T @ B
    _check_spread_representable(np.max(np.diagonal(gram[:p, :p]), initial=0), B[:, :p])
    counts = np.diagonal(gram[p:, p:]).copy()
    shift, means, residual = _shifted_means(reference, gram[p:, :p], counts)
    scaled = np.sqrt(counts)[:, None] * shift
    within = gram[:p, :p] - scaled.T @ scaled
    class_scatter = None
    if per_class:
        class_scatter = np.empty((n_classes, p, p))
        for k in range(n_classes):
            rows = B[y == k, :p]
            class_scatter[k] = rows.T @ rows - np.outer(scaled[k], scaled[k])
    rows = n if sample_weight is None else int(np.count_nonzero(sample_weight > 0))
    return ClassStatistics(
        counts, means, within, rows, class_scatter, working_dtype(X), residual
    )


def _chunk_rows(X, y, n_classes, sample_weight, per_class, reference):
    """Statistics of one chunk with the scatter as rows: the class sums of ``X -
    reference[y]`` in one pass, then ``√w ((x - reference) - shift)``, the centred
    rows themselves, in another. A row of weight 0 is left out."""
    dtype = working_dtype(X)
    weight = np.ones(X.shape[0])
    if sample_weight is not None:
        kept = sample_weight > 0
        X, y, weight = X[kept], y[kept], sample_weight[kept]
    X = np.ascontiguousarray(X)  # the kernels walk along rows
    sums = np.empty((n_classes, X.shape[1]))
    _kernels.shifted_class_sums(X, y, reference, weight, sums)
    counts = np.bincount(y, weights=weight, minlength=n_classes).astype(np.float64)
    shift, means, residual = _shifted_means(reference, sums, counts)
    centred = np.empty(X.shape)
    largest = _kernels.centre_rows(X, y, reference, shift, np.sqrt(weight), centred)
    if not np.isfinite(largest):
        raise _overflow_error()
    if largest < np.sqrt(_SMALLEST_SCATTER):  # then the exact test, rarely needed
        squares = np.einsum("ij,ij->j", centred, centred)
        _check_spread_representable(np.max(squares, initial=0.0), centred)
    return ClassStatistics(
        counts=counts,
        means=means,
        within_scatter=None,
        n_samples=X.shape[0],
        dtype=dtype,
        mean_residual=residual,
        scatter_rows=centred,
        row_classes=np.asarray(y, dtype=np.intp),
        keep_per_class=per_class,
    )


# Below this, sums of squares are subnormal floats and lose their digits.
_SMALLEST_SCATTER = np.finfo(np.float64).tiny * 1024


def _check_spread_representable(largest_square, shifted):
    """A clear error when the squares of the (weighted) spread underflow float64:
    the scatter would come out as 0, a false rank 0, and "the class means
    coincide" where they do not (X scaled by 1e-170)."""
    if largest_square >= _SMALLEST_SCATTER:
        return
    if not np.any(shifted):
        return  # no spread at all: every row of a class the same (exact)
    largest = float(np.max(np.abs(shifted)))
    raise ValueError(
        f"X's spread within the classes is about {largest:.1e} (times the square "
        "root of the sample weights): its squares underflow float64, and the "
        "scatter would be lost. Rescale X by a constant (say 1 / that spread): "
        "the verdict and the Mahalanobis angle do not change, and the Euclidean "
        "angle of data this small is 90 degrees to double precision."
    )


def class_statistics(
    X, y, n_classes, sample_weight=None, chunk_rows=None, per_class=False, form="auto"
):
    """Counts, means and pooled centred scatter of each class in one pass over X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data, float32 or float64; statistics are accumulated in float64.
    y : ndarray of shape (n_samples,)
        Class indices in ``range(n_classes)``.
    n_classes : int
        Number of classes.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative frequency weights.
    chunk_rows : int, default=None
        Rows per chunk; by default about 4 MiB of float64 per chunk.
    per_class : bool, default=False
        Also keep the scatter of each class (for pairwise statistics).
    form : {"auto", "rows", "matrix"}, default="auto"
        How the scatter is held: as the centred rows (``scatter_rows``, O(n·p)) or
        as the (p, p) matrix. "auto" keeps rows for wide data (fewer rows of
        positive weight than features, and more than ``ROWS_FROM_FEATURES``
        features).

    Returns
    -------
    stats : ClassStatistics

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._stats import class_statistics
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [2.0, 4.0]])
    >>> stats = class_statistics(X, np.array([0, 0, 1, 1]), n_classes=2)
    >>> stats.means
    array([[1., 0.],
           [1., 4.]])
    >>> stats.pooled_covariance()
    array([[2., 0.],
           [0., 0.]])

    Wide data (rows no more than the features) keep the centred rows C, W = CᵀC:

    >>> Xw = np.array([[0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 0.0, 3.0], [4.0, 0.0, 1.0, 2.0]])
    >>> yw = np.array([0, 0, 1])
    >>> wide = class_statistics(Xw, yw, n_classes=2, form="rows")
    >>> wide.scatter_rows
    array([[-0.5,  0. ,  1. ,  0. ],
           [ 0.5,  0. , -1. ,  0. ],
           [ 0. ,  0. ,  0. ,  0. ]])
    >>> square = class_statistics(Xw, yw, n_classes=2, form="matrix")
    >>> bool(np.allclose(wide.scatter(), square.within_scatter))
    True
    """
    n_samples, n_features = X.shape
    if chunk_rows is None:
        chunk_rows = max(256, _CHUNK_BYTES // (8 * max(n_features, 1)))
    n_rows = n_samples
    if sample_weight is not None:
        n_rows = int(np.count_nonzero(sample_weight > 0))
    rows = rows_are_cheaper(n_rows, n_features, form)
    stats = _empty_statistics(n_classes, n_features, per_class, working_dtype(X), rows)
    buffer = None
    if not rows:
        buffer = np.empty((min(chunk_rows, n_samples), n_features + n_classes))
    # Overflow is checked once below, with a message that says what to do.
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n_samples, chunk_rows):
            stop = min(start + chunk_rows, n_samples)
            X_chunk, y_chunk = X[start:stop], y[start:stop]
            weights = None if sample_weight is None else sample_weight[start:stop]
            reference = _references(stats, X_chunk, y_chunk, weights)
            if rows:
                chunk = _chunk_rows(
                    X_chunk, y_chunk, n_classes, weights, per_class, reference
                )
            else:
                chunk = _chunk_statistics(
                    X_chunk, y_chunk, n_classes, weights, per_class, reference, buffer
                )
            stats = stats.merge(chunk)
    # (Rows are checked as the kernel writes them.)
    spread = 0.0 if stats.holds_rows else stats.within_scatter
    if not (np.all(np.isfinite(stats.means)) and np.all(np.isfinite(spread))):
        raise _overflow_error()
    return stats


def _overflow_error():
    return ValueError(
        "The class statistics overflowed float64: the features are too large in "
        "magnitude (about 1e154 or more). Rescale X, e.g. with StandardScaler."
    )


@dataclass(frozen=True)
class RegularizedCovariance:
    """The regularised inverse ``S(κ)⁻¹ = S† + Q/κ`` of a covariance S, factored.

    With U an orthonormal (p, r) basis of the range R(S) and M an (r, r) matrix,
    ``S† = U M Mᵀ Uᵀ`` and ``Q = I - U Uᵀ``. Nothing is (p, p): Q is applied as
    ``b - U(Uᵀb)``. For wide data U is not formed either: it is ``Cᵀ Y``, the
    centred rows C (m, p) combined by an (m, r) matrix Y, so that each product
    with U is a pass over C. ``W = [U M, N / √κ]`` (N an orthonormal basis of the
    null space) whitens S(κ) = S + κQ: ``Wᵀ S(κ) W = I``.

    Attributes
    ----------
    range_coordinates : ndarray of shape (rank, rank)
        M, with ``S† = U M Mᵀ Uᵀ``.
    kappa : float
        The regularisation κ > 0 (``inf`` gives the Moore–Penrose inverse S†).
    explicit_basis : ndarray of shape (n_features, rank) or None
        U itself; None when it is held in the span of the rows.
    span_rows : ndarray of shape (n_rows, n_features) or None
        C, with ``U = Cᵀ Y``.
    span_coefficients : ndarray of shape (n_rows, rank) or None
        Y.
    """

    range_coordinates: np.ndarray
    kappa: float
    explicit_basis: np.ndarray | None = None
    span_rows: np.ndarray | None = None
    span_coefficients: np.ndarray | None = None

    @property
    def rank(self):
        return int(self.range_coordinates.shape[0])

    @property
    def n_features(self):
        if self.explicit_basis is not None:
            return int(self.explicit_basis.shape[0])
        return int(self.span_rows.shape[1])

    @property
    def null_space_dim(self):
        return self.n_features - self.rank

    def to_range(self, b):
        """``Uᵀ b``: the coordinates of b's range part."""
        if self.explicit_basis is not None:
            return self.explicit_basis.T @ b
        return self.span_coefficients.T @ (self.span_rows @ b)

    def from_range(self, coordinates):
        """``U c``: the vector of range coordinates c."""
        if self.explicit_basis is not None:
            return self.explicit_basis @ coordinates
        return self.span_rows.T @ (self.span_coefficients @ coordinates)

    @property
    def range_basis(self):
        """U, an orthonormal (p, r) basis of R(S), formed."""
        if self.explicit_basis is not None:
            return self.explicit_basis
        return self.from_range(np.eye(self.rank))

    def split(self, b, atol=0.0):
        """``(S† b, Q b)`` for a vector or the columns of a matrix.

        A part whose norm is at most ``atol`` (per column) is set to zero: rounding
        noise in b must not become a direction, least of all divided by a small κ.
        """
        b = np.asarray(b, dtype=np.float64)
        in_range, pinv_part, in_null = self._parts(b.reshape(b.shape[0], -1))
        if atol > 0:
            # S† b depends on b only through its range part.
            pinv_part = pinv_part * (np.linalg.norm(in_range, axis=0) > atol)
            in_null = in_null * (np.linalg.norm(in_null, axis=0) > atol)
        if b.ndim == 1:
            return pinv_part[:, 0], in_null[:, 0]
        return pinv_part, in_null

    def _parts(self, b):
        """``(Uᵀ b, S† b, Q b)`` of the columns of b, in two passes over U (four
        where b lies mostly in the range)."""
        in_range = self.to_range(b)
        in_null, pinv_part = self._from_range_and_pinv(in_range)
        in_null = b - in_null
        # Where most of b was in the range, a second projection takes out what
        # rounding left of it (Kahan's "twice is enough"), so that Q b is as
        # accurate as with an explicit null basis.
        if np.any(
            np.linalg.norm(in_null, axis=0) < np.linalg.norm(b, axis=0) / np.sqrt(2)
        ):
            again = self.to_range(in_null)
            in_range += again
            back, pinv_again = self._from_range_and_pinv(again)
            in_null -= back
            pinv_part += pinv_again
        return in_range, pinv_part, in_null

    def _from_range_and_pinv(self, coordinates):
        """``(U c, S† U c)``, with ``S† U c = U M Mᵀ c``, in one product with U."""
        M = self.range_coordinates
        both = self.from_range(np.hstack([coordinates, M @ (M.T @ coordinates)]))
        return both[:, : coordinates.shape[1]], both[:, coordinates.shape[1] :]

    def solve(self, b, atol=0.0):
        """``S(κ)⁻¹ b = S† b + Q b / κ`` (see :meth:`split` for ``atol``)."""
        return self.combine(*self.split(b, atol))

    def combine(self, pinv_part, null_part):
        """``S† b + Q b / κ`` from the two parts :meth:`split` gives."""
        if np.isinf(self.kappa):
            return pinv_part
        # A tiny κ can overflow; callers check the result and say why.
        with np.errstate(over="ignore"):
            return pinv_part + null_part / self.kappa

    def _null_basis(self, null_parts, vectors):
        """An orthonormal basis of ``null_parts``, the null-space parts of the
        columns of ``vectors``: all of N that they see."""
        # What rounding leaves of a vector in the range is no null-space direction.
        noise = 16 * np.sqrt(self.n_features) * np.finfo(float).eps
        noise *= np.max(np.linalg.norm(vectors, axis=0), initial=0.0)
        lengths = np.linalg.norm(null_parts, axis=0)
        if null_parts.shape[1] == 0 or not np.any(lengths > noise):
            return np.zeros((self.n_features, 0))
        basis, triangle, _ = scipy.linalg.qr(null_parts, mode="economic", pivoting=True)
        return basis[:, np.abs(np.diagonal(triangle)) > noise]

    def whitened(self, vectors):
        """``(vectors @ W', back)`` with W' = [U M, N_v / √κ], the whitening W
        restricted to N_v, an orthonormal basis of the null-space parts of the
        rows of ``vectors``: ``vectors @ W'`` has the singular values of
        ``vectors @ W``, and ``back(f)`` is ``W' f``. O(p·(r + K))."""
        M = self.range_coordinates
        in_range, _, null_parts = self._parts(vectors.T)
        whitened_range = in_range.T @ M
        if np.isinf(self.kappa):
            return whitened_range, lambda f: self.from_range(M @ f)
        null = self._null_basis(null_parts, vectors.T) / np.sqrt(self.kappa)
        rank = self.rank

        def back(f):
            return self.from_range(M @ f[:rank]) + null @ f[rank:]

        return np.hstack([whitened_range, vectors @ null]), back

    def whitening(self):
        """W = [U M, N / √κ], with ``Wᵀ S(κ) W = I`` (the N block vanishes at κ =
        ∞). It is (p, p): for small p and for checks; :meth:`whitened` is what
        the estimators use."""
        basis = self.range_basis
        null = np.linalg.qr(basis, mode="complete")[0][:, self.rank :]
        return np.hstack([basis @ self.range_coordinates, null / np.sqrt(self.kappa)])

    def null_projector(self):
        """Q = I - S†S, the orthogonal projector on the null space of S ((p, p))."""
        basis = self.range_basis
        return np.eye(self.n_features) - basis @ basis.T


def default_rank_tol(n_samples, n_features, dtype=np.float64, spread_ratio=1.0):
    """The relative rank tolerance used when none is given.

    ``max(n, p) · eps64 + p · (4 · eps · r)²``. The first term is the rounding of the
    scatter accumulated in float64 over n rows. The second is the rounding of the data
    themselves (``eps`` of their dtype): a value x carries an error of about eps·|x|,
    so a feature whose magnitude is r times its spread adds noise of relative variance
    (eps·r)² to every direction, and an eigenvalue of the correlation matrix below
    that cannot be told from zero.
    """
    accumulation = max(n_samples, n_features) * np.finfo(np.float64).eps
    representation = n_features * (4.0 * np.finfo(dtype).eps * spread_ratio) ** 2
    return accumulation + representation


def regularized_covariance(
    S,
    kappa,
    tol=None,
    n_samples=1,
    dtype=np.float64,
    feature_scale=None,
    max_rank=None,
):
    """Factor S(κ)⁻¹ = S† + Q/κ, deciding the numerical rank of S unit-free.

    The rank is decided on the correlation matrix ``C = D^{-1/2} S D^{-1/2}``
    (``D = diag S``), so that it does not depend on the units of the features: an
    eigenvalue of C at most ``tol`` times the largest counts as zero. A feature whose
    variance is below its own rounding level (``(16 · eps · feature_scale)²``, e.g. a
    constant column) is in the null space outright. The range of S is then
    ``D^{1/2} V_r``; with ``A = D^{1/2} V_r Λ_r^{1/2} = U R`` (QR) the truncated S is
    ``A Aᵀ`` and ``S† = U R^{-T} R^{-1} Uᵀ``, which never inverts the graded S itself.

    Parameters
    ----------
    S : ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite matrix.
    kappa : float
        The regularisation κ > 0, or ``inf`` for the Moore–Penrose inverse alone.
    tol : float, default=None
        Relative tolerance on the eigenvalues of C. None uses
        ``default_rank_tol(n_samples, n_features, dtype, r)`` with r the largest ratio
        of a feature's magnitude to its spread.
    n_samples : int, default=1
        Number of rows behind S, for the default tolerance.
    dtype : dtype, default=np.float64
        The dtype of the data behind S, for the default tolerance.
    feature_scale : ndarray of shape (n_features,), default=None
        The magnitude of each feature (e.g. the largest absolute class mean), which
        sets its rounding level. None: only exact zero variances count as zero.
    max_rank : int, default=None
        The rank S cannot exceed (rows minus classes for a pooled scatter): only the
        largest ``max_rank`` eigenvalues above the tolerance are kept.

    Returns
    -------
    reg : RegularizedCovariance

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._stats import regularized_covariance
    >>> reg = regularized_covariance(np.diag([2.0, 0.0]), kappa=0.5)
    >>> reg.rank, reg.null_space_dim
    (1, 1)
    >>> reg.solve(np.array([1.0, 1.0]))
    array([0.5, 2. ])
    """
    n_features = S.shape[0]
    varying, root, tol = _rank_setup(
        np.diag(S), feature_scale, tol, n_samples, n_features, dtype
    )
    correlation = S[np.ix_(varying, varying)] / np.outer(root, root)
    eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    keep = _kept(eigenvalues, tol, max_rank)
    eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
    if eigenvalues.size == varying.size:
        # The varying features are linearly independent: S† restricted to them is
        # the inverse D^{-1/2} C⁻¹ D^{-1/2}, and R(S) is spanned by their coordinates.
        return RegularizedCovariance(
            eigenvectors / (root[:, None] * np.sqrt(eigenvalues)),
            float(kappa),
            explicit_basis=np.eye(n_features)[:, varying],
        )
    # Rank-deficient: S ≈ A Aᵀ with A = D^{1/2} V_r Λ_r^{1/2}.
    A = np.zeros((n_features, eigenvalues.size))
    A[varying] = (root[:, None] * eigenvectors) * np.sqrt(eigenvalues)
    return _range_of(A, kappa)


def regularized_covariance_from_rows(
    rows,
    divisor,
    kappa,
    tol=None,
    n_samples=1,
    dtype=np.float64,
    feature_scale=None,
    max_rank=None,
):
    r"""Factor S(κ)⁻¹ of ``S = CᵀC / divisor`` from the rows C, in their span.

    The same decision and factors as :func:`regularized_covariance` of S, in
    O(m²·p) time and O(m·p) memory for m rows, never a (p, p) matrix (SPEC §10).
    With ``E = diag(CᵀC)^{-1/2}`` on the varying features, the correlation matrix
    is ``(CE)ᵀ(CE)``, whose nonzero eigenvalues are those of the (m, m) Gram
    matrix ``G = (CE)(CE)ᵀ = U Λ Uᵀ``; its eigenvectors are ``V = E Cᵀ U Λ^{-1/2}``,
    so the kept part of S is ``A Aᵀ`` with ``A = D^{1/2} V_r Λ_r^{1/2} =
    Cᵀ U_r / √divisor``, whose thin QR gives the range and S†.

    Parameters
    ----------
    rows : ndarray of shape (n_rows, n_features)
        C, e.g. ``ClassStatistics.scatter_rows``.
    divisor : float or None
        The divisor of the covariance (None: C is zero, S = 0).
    kappa, tol, n_samples, dtype, feature_scale, max_rank
        As for :func:`regularized_covariance`.

    Returns
    -------
    reg : RegularizedCovariance

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._stats import (
    ...     regularized_covariance, regularized_covariance_from_rows)
    >>> C = np.random.RandomState(0).normal(size=(3, 6))
    >>> wide = regularized_covariance_from_rows(C, 2.0, kappa=0.5)
    >>> square = regularized_covariance(C.T @ C / 2.0, kappa=0.5)
    >>> wide.rank, wide.null_space_dim
    (3, 3)
    >>> b = np.arange(6.0)
    >>> bool(np.allclose(wide.solve(b), square.solve(b)))
    True
    """
    n_features = rows.shape[1]
    divisor = 1.0 if divisor is None else float(divisor)
    sums_of_squares = np.einsum("ij,ij->j", rows, rows)
    if not np.max(sums_of_squares, initial=0.0) < _LARGEST_SQUARES:
        # Rows this large would overflow the Gram matrices (sums over p): scale
        # them by a power of two (exact), and the divisor by its square.
        exponent = int(np.frexp(np.max(np.abs(rows)))[1])
        rows = np.ldexp(rows, -exponent)
        divisor = np.ldexp(divisor, -2 * exponent)
        sums_of_squares = np.einsum("ij,ij->j", rows, rows)
    varying, _, tol = _rank_setup(
        sums_of_squares / divisor, feature_scale, tol, n_samples, n_features, dtype
    )
    inverse_root = np.zeros(n_features)
    inverse_root[varying] = 1.0 / np.sqrt(sums_of_squares[varying])
    if np.any(rows[:, inverse_root == 0]):
        # A feature below its rounding level is constant: its rounding noise
        # must not enter the range.
        rows = np.where(inverse_root == 0, 0.0, rows)
    plain_gram = rows @ rows.T
    if not (np.all(np.isfinite(plain_gram)) and np.isfinite(divisor) and divisor > 0):
        raise _overflow_error()
    full = _full_rank_span(plain_gram, inverse_root, tol, max_rank, divisor)
    if full is not None:
        M, coefficients = full
        return RegularizedCovariance(
            M, float(kappa), span_rows=rows, span_coefficients=coefficients
        )
    eigenvalues, eigenvectors = np.linalg.eigh(_scaled_gram(rows, inverse_root))
    keep = _kept(eigenvalues, tol, max_rank) if varying.size else []
    eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
    if not eigenvalues.size:
        return RegularizedCovariance(
            np.zeros((0, 0)), float(kappa), explicit_basis=np.zeros((n_features, 0))
        )
    # B = Cᵀ Y = D^{1/2} V spans the range, with BᵀB = Yᵀ (C Cᵀ) Y = L Lᵀ; then
    # U = B L^{-T} is orthonormal, A = B Λ^{1/2} = U Lᵀ Λ^{1/2}, and
    # (A Aᵀ)† = U M Mᵀ Uᵀ with M = L^{-1} Λ^{-1/2}: all (m, m), C never copied.
    coefficients = eigenvectors / np.sqrt(eigenvalues * divisor)
    lower = _cholesky_or_none(coefficients.T @ plain_gram @ coefficients)
    if lower is not None and _span_error(lower, eigenvalues) <= _SPAN_ERROR_LIMIT:
        inverse = scipy.linalg.solve_triangular(
            lower, np.eye(lower.shape[0]), lower=True
        )
        return RegularizedCovariance(
            inverse / np.sqrt(eigenvalues),
            float(kappa),
            span_rows=rows,
            span_coefficients=coefficients @ inverse.T,
        )
    # Graded features or a spread-out spectrum: the Gram route would lose digits,
    # so the range is found by Householder QR of A itself (O(p·r²), A formed).
    A = (eigenvectors.T @ rows).T / np.sqrt(divisor)
    return _range_of(A, kappa)


# Sums of squares above this could overflow a Gram matrix's sums over p features.
_LARGEST_SQUARES = 2.0**900

# The Gram route's estimated relative error above which the span basis is found by
# Householder QR instead (slower by a factor of about 10 at p = 1e5, but exact to
# rounding whatever the grading of the features).
_SPAN_ERROR_LIMIT = 1e-11


def _full_rank_span(plain_gram, inverse_root, tol, max_rank, divisor):
    """``(M, Y)`` of S† from the plain Gram matrix alone, when it proves that the
    unit-free rank decision keeps every direction (``max_rank`` of them), else
    None.

    With ``G = C E² Cᵀ`` the Gram matrix of the correlation scale and ``G₀ = C Cᵀ``,
    ``G ⪰ min(E²) G₀`` gives ``λ_r(G) ≥ min(E²) λ_r(G₀)``, and ``λ_max(G) ≤
    trace(G)``, the number of varying features. Above ``tol`` times that, all r
    directions count, S keeps all of its range (the row space of C), and with
    ``G₀ = W Σ Wᵀ``: ``U = Cᵀ W_r Σ_r^{-1/2}`` and ``S† = U (divisor Σ_r⁻¹) Uᵀ``.
    The scaled Gram matrix is then never formed: half the work, on p ≫ n data
    whose features have a similar spread."""
    varying = inverse_root > 0
    rank = max_rank
    if rank is None or not 0 < rank <= plain_gram.shape[0] or not varying.any():
        return None
    eigenvalues, eigenvectors = np.linalg.eigh(plain_gram)
    smallest, largest = eigenvalues[-rank], eigenvalues[-1]
    unit_free = smallest * np.min(inverse_root[varying]) ** 2
    if not unit_free > 2.0 * tol * np.count_nonzero(varying):
        return None
    spread_error = plain_gram.shape[0] * np.finfo(float).eps * largest / smallest
    if spread_error > _SPAN_ERROR_LIMIT:
        return None
    kept = eigenvalues[-rank:]
    M = np.diag(np.sqrt(divisor / kept))
    return M, eigenvectors[:, -rank:] / np.sqrt(kept)


def _cholesky_or_none(matrix):
    try:
        return scipy.linalg.cholesky(matrix, lower=True)
    except np.linalg.LinAlgError:
        return None


def _span_error(lower, eigenvalues):
    """The relative error to expect of the Gram route: ``m · eps`` amplified by the
    spread of the kept eigenvalues and the square of the condition of L."""
    spread = eigenvalues[-1] / eigenvalues[0]
    condition = np.linalg.cond(lower)
    return lower.shape[0] * np.finfo(float).eps * spread * condition**2


def _scaled_gram(rows, column_scale, block_columns=8192):
    """``(C E)(C E)ᵀ`` with ``E = diag(column_scale)``, by blocks of columns so
    that no scaled copy of C is made."""
    gram = np.zeros((rows.shape[0], rows.shape[0]))
    for start in range(0, rows.shape[1], block_columns):
        block = rows[:, start : start + block_columns]
        block = block * column_scale[start : start + block_columns]
        gram += block @ block.T
    return gram


def _varying(variances, feature_scale, dtype):
    """Whether each variance is above the rounding level of its feature's own
    values (``(16 · eps · scale)²``): below it, the feature counts as constant."""
    return variances > (16 * np.finfo(dtype).eps * feature_scale) ** 2


def _rank_setup(variances, feature_scale, tol, n_samples, n_features, dtype):
    """``(varying, root, tol)``: the features whose variance is above their own
    rounding level, the square roots of those variances, and the rank tolerance
    (the default one when ``tol`` is None)."""
    variances = np.clip(variances, 0.0, None)
    scale = np.zeros(n_features) if feature_scale is None else np.asarray(feature_scale)
    varying = np.flatnonzero(_varying(variances, scale, dtype))
    root = np.sqrt(variances[varying])
    if tol is None:
        ratio = np.max((scale[varying] + root) / root, initial=1.0)
        tol = default_rank_tol(n_samples, n_features, dtype, ratio)
    return varying, root, tol


def _kept(eigenvalues, tol, max_rank):
    """The eigenvalues (ascending, as eigh gives them) that count: above ``tol``
    times the largest, and at most the ``max_rank`` largest."""
    if not eigenvalues.size:
        return np.zeros(0, dtype=bool)
    keep = eigenvalues > tol * max(eigenvalues[-1], 0.0)
    if max_rank is not None and np.count_nonzero(keep) > max_rank:
        keep = np.arange(eigenvalues.size) >= eigenvalues.size - max_rank
    return keep


def _range_of(A, kappa):
    """The factors of ``(A Aᵀ)† + Q/κ`` from A of full column rank.

    Householder QR of a row-graded matrix is accurate once its rows are sorted by
    decreasing norm; then ``A = U R`` and ``(A Aᵀ)† = U R^{-T} R^{-1} Uᵀ``, which
    never inverts the graded S itself.
    """
    if not A.shape[1]:
        return RegularizedCovariance(
            np.zeros((0, 0)), float(kappa), explicit_basis=np.zeros((A.shape[0], 0))
        )
    order = np.argsort(-np.linalg.norm(A, axis=1), kind="stable")
    sorted_rows = A[order]
    del A
    U_sorted, R = scipy.linalg.qr(sorted_rows, mode="economic", overwrite_a=True)
    del sorted_rows
    range_basis = np.empty_like(U_sorted)
    range_basis[order] = U_sorted
    del U_sorted
    coordinates = scipy.linalg.solve_triangular(R, np.eye(R.shape[0])).T  # R^{-T}
    return RegularizedCovariance(coordinates, float(kappa), explicit_basis=range_basis)
