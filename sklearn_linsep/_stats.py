"""Class statistics in one pass, and the regularised inverse S(κ)⁻¹ = S† + Q/κ.

Everything here works on plain arrays; estimators call it and never the other way round.

The pass over X is chunked: each chunk is shifted by per-class references (the running
class means), one product gives its scatter, class sums and counts, and the result is
merged into the running totals with the pairwise update of Chan, Golub and LeVeque
(1979). Memory beyond X is O(K·p + p²) plus one chunk, and the result
does not depend on a raw sum of squares (which loses everything to cancellation when the
means are large against the spread).

Wide data (more features than rows) keep the scatter as its rows instead: the
within-class-centred rows C with W = CᵀC, O(n·p) where the matrix would be O(p²)
(``_scatter``). Sparse X is never densified: its rows are centred implicitly, and
its scatter matrix, for moderate p, is one sparse product. S(κ)⁻¹ is factored in
``_covariance``; the rows per chunk, the scatter's form and the precision of the pass
are decided in ``_pass_plan``.
"""

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    column_or_1d,
)

from . import _kernels
from ._covariance import (
    overflow_error,
    regularized_covariance,
    regularized_covariance_from_rows,
)
from ._pass_plan import (
    _FLOAT32_CHUNK_ROWS,
    _float32_pass_suits,
    _float32_rank_is_clear,
    default_chunk_rows,
    rows_are_cheaper,
)
from ._scatter import CentredRows, Scatter, group_means
from ._validation import check_classes, chunk_weights, encode_labels, working_dtype


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
    within : Scatter
        The pooled within-class scatter ``Σ_k Σ_{i in k} w_i (x_i - m_k)(x_i -
        m_k)ᵀ``, as a (p, p) matrix (``within.form == "matrix"``, with the scatter
        of each class on request) or as centred rows C with W = CᵀC (``"rows"``;
        ``"sparse"`` when part of C is sparse X centred implicitly). Wide data
        (more features than rows, and more than a few hundred features) are kept
        as rows, O(n·p) where the matrix is O(p²); a merge turns them into the
        matrix once they outnumber the features. :meth:`scatter` gives the matrix
        whatever the form.
    n_samples : int
        Number of rows of positive weight seen. It bounds the rank of the scatter
        (at most ``n_samples`` minus the number of classes, whatever rounding
        says: a rounding-level eigenvalue at the rank tolerance could otherwise
        make ``partial_fit`` and ``fit`` decide different ranks) and sets the
        default rank tolerance.
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
    within_scatter : ndarray of shape (n_features, n_features) or None
        W in the matrix form, else None.
    class_scatter : ndarray of shape (n_classes, n_features, n_features) or None
        The scatter of each class on its own, in the matrix form when kept
        (``per_class``: it costs K·p² memory), for the statistics of any pair.
    scatter_rows : ndarray of shape (n_rows, n_features) or None
        The rows C of the rows forms, dense (formed for a sparse part): the rows
        ``√w_i (x_i - m_k)``, plus one row per class and merge (see :meth:`merge`).
    row_classes : ndarray of shape (n_rows,) or None
        The class of each row of C (the scatter of class k is that of its rows).

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
    within: Scatter
    n_samples: int
    dtype: np.dtype = np.dtype(np.float64)
    mean_residual: np.ndarray | None = None

    def __post_init__(self):
        if not isinstance(self.within, Scatter):
            raise TypeError(
                "ClassStatistics takes its scatter as within=Scatter(...) "
                "(sklearn_linsep._scatter.Scatter(matrix=W) for a (p, p) matrix W), "
                f"not {type(self.within).__name__}; ClassStatistics.from_data "
                "computes it from data."
            )

    @property
    def holds_rows(self):
        """Whether the scatter is held as centred rows (wide data)."""
        return self.within.rows is not None

    @property
    def within_scatter(self):
        """W as a (p, p) matrix in the matrix form, else None."""
        return self.within.matrix

    @property
    def class_scatter(self):
        """The scatter of each class, (K, p, p), where the matrix form keeps it."""
        return self.within.per_class

    @property
    def scatter_rows(self):
        """The centred rows C of the rows forms as a dense array, else None."""
        return None if self.within.rows is None else self.within.rows.to_dense()

    @property
    def row_classes(self):
        """The class of each centred row, else None."""
        return None if self.within.rows is None else self.within.rows.classes

    def scatter(self):
        """The pooled within-class scatter W as a (p, p) matrix, whatever the form
        (from the rows, this costs O(n·p²) time and O(p²) memory)."""
        return self.within.full()

    def scatter_diagonal(self):
        """``diag(W)``: the within-class sum of squares of each feature."""
        return self.within.diagonal()

    def without_per_class(self):
        """The same statistics without the scatter of each class."""
        return replace(self, within=self.within.without_per_class())

    def with_matrix(self):
        """The same statistics with the scatter as a (p, p) matrix (and the scatter
        of each class when kept)."""
        return replace(self, within=self.within.with_matrix(self.n_classes))

    def with_compact_rows(self):
        """The same statistics with as few centred rows per class as the rank of
        its scatter (see :meth:`Scatter.compacted`)."""
        return replace(self, within=self.within.compacted(self.n_classes))

    def rescaled(self, shift, scale):
        """The statistics of ``(X - shift) / scale`` (per feature): exact, with no
        pass over X.

        Parameters
        ----------
        shift, scale : ndarray of shape (n_features,)
            Subtracted from each feature, then divided into it (nonzero).
        """
        return replace(
            self,
            means=(self.means - shift) / scale,
            mean_residual=self.residual / scale,
            within=self.within.rescaled(scale),
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
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
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
        X = check_array(
            X, accept_sparse="csr", dtype=[np.float64, np.float32], input_name="X"
        )
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
        """Weighted mean of all rows: the first class's mean moved by the shares of
        the others' differences from it (a sum of means near 1e308 overflows, and
        equal means must give that mean to the last bit)."""
        first = self.means[0]
        return first + (self.counts / self.total_weight) @ (self.means - first)

    @property
    def mean_noise(self):
        """``(in S's range, in its null space)``: the rounding level of each part
        of a difference of class means, ``16 √p · eps · max |m_kj|``, the largest
        over the features the rows vary along within their classes, and over all.

        A part no longer than its level is indistinguishable from zero. A feature
        no row varies along lies in S's null space, so its means' rounding reaches
        the null part only (found by review: a column of 1e100 in every row made
        the other features' differences rounding, the angle 0 and Fisher's rule
        "means coincide").
        """
        if not self.means.size:
            return 0.0, 0.0
        scale = np.abs(self.means).max(axis=0)
        level = 16.0 * np.sqrt(self.n_features) * np.finfo(np.float64).eps
        varies = self.scatter_diagonal() > 0
        return level * float(np.max(scale[varies], initial=0.0)), level * scale.max()

    def _covariance_divisor(self):
        """``Σw - K``, the divisor of the pooled covariance; None when there is no
        within-class spread at all (S = 0 whatever the divisor)."""
        dof = self.total_weight - self.n_classes
        # Σw of n weights rounds by up to n ulps: a dof within that is 0 (weights
        # of 0.05 on 40 rows, K = 2, left 4e-16, and S ~ 1e16 times too large).
        rounding = 2 * max(self.n_samples, 1) * np.finfo(float).eps * self.total_weight
        if dof > rounding:
            return dof
        if not self.within.any():
            # e.g. one point per class: every direction is in the null space.
            return None
        shown = "0 (to its sum's rounding)" if abs(dof) <= rounding else f"{dof:g}"
        raise ValueError(
            "The pooled covariance divides by the total weight of the classes "
            "compared less their number (sum(sample_weight) - n_classes; for two "
            f"of K > 2 classes, the pair's weight - 2), which is {shown} here. "
            "Sample weights are frequency weights (an "
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

    def regularized_inverse(self, kappa, tol=None, dtype=None, route="auto"):
        """S(κ)⁻¹ of the pooled covariance, factored. From centred rows it is
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
        route : {"auto", "span", "krylov"}, default="auto"
            For centred rows with a sparse part: in their span, by two LSQR
            solves per vector, or the cheaper (see
            :func:`~._covariance.regularized_covariance_from_rows`).

        Returns
        -------
        reg : RegularizedCovariance or KrylovCovariance
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
                self.within.rows,
                self._covariance_divisor(),
                kappa,
                route=route,
                **options,
            )
        return regularized_covariance(self.pooled_covariance(), kappa, **options)

    def pair(self, i, j):
        """Statistics of classes i and j alone (needs the rows form, or the
        scatter of each class).

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
        return ClassStatistics(within=self.within.pair(i, j), **common)

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
        counts, means, residual, scaled = merged_means(
            (self.counts, self.means, self.residual),
            (other.counts, other.means, other.residual),
        )
        common = dict(
            counts=counts,
            means=means,
            n_samples=self.n_samples + other.n_samples,
            dtype=np.promote_types(self.dtype, other.dtype),
            mean_residual=residual,
        )
        merged = ClassStatistics(
            within=self.within.merged(
                other.within, scaled, means, (self.means, other.means)
            ),
            **common,
        )
        if merged.holds_rows:
            if merged.within.rows.n_rows > 1.5 * merged.n_samples + self.n_classes:
                # Many merges of few rows (partial_fit row by row) pile up
                # correction rows; the scatter of a class of c rows has rank < c.
                merged = merged.with_compact_rows()
            # Rows beyond the features cost more than the matrix.
            if merged.within.rows.n_rows > self.n_features:
                return merged.with_matrix()
        return merged


def merged_means(first, second):
    """``(counts, means, residual, corrections)`` of the union of two sets of
    rows given as ``(counts, means, residual)`` each: Chan's pairwise update,
    the new mean a sum of two floats (the step's rounding at the means'
    magnitude is kept, not lost in every merge), and the rows ``√(c_a c_b / c)
    δ_k`` whose outer products the union's scatter adds."""
    (counts_a, means_a, residual_a), (counts_b, means_b, residual_b) = first, second
    counts = counts_a + counts_b
    safe = np.where(counts > 0, counts, 1.0)
    delta = (means_b - means_a) + (residual_b - residual_a)
    high, error = _two_sum(means_a, (counts_b / safe)[:, None] * delta)
    means, residual = _two_sum(high, residual_a + error)
    # A class absent from one side takes the other's mean as it is.
    only_a, only_b = (counts_b == 0)[:, None], (counts_a == 0)[:, None]
    means = np.where(only_a, means_a, np.where(only_b, means_b, means))
    residual = np.where(only_a, residual_a, np.where(only_b, residual_b, residual))
    corrections = np.sqrt(counts_a * counts_b / safe)[:, None] * delta
    return counts, means, residual, corrections


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    b_virtual = s - a
    return s, (a - (s - b_virtual)) + (b - b_virtual)


def _empty_rows(n_classes, n_features, per_class, dtype):
    """Statistics of no rows, in the rows form: where a pass of chunks starts."""
    empty = CentredRows(np.zeros((0, n_features)), np.zeros(0, dtype=np.intp))
    return ClassStatistics(
        counts=np.zeros(n_classes),
        means=np.zeros((n_classes, n_features)),
        within=Scatter(rows=empty, keep_per_class=per_class),
        n_samples=0,
        dtype=np.dtype(dtype),
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


def _chunk_products(X, y, n_classes, sample_weight, per_class, reference, buffer):
    """One chunk's product and what it says, for :class:`_ScatterSum`.

    The kernel writes ``B = [√w (X - reference[y]), √w one-hot(y)]`` and ``BᵀB``
    (one symmetric rank-k update, in the buffer's dtype: float32 for float32 X)
    holds the shifted scatter, the class sums of the shifted rows and the class
    weights. Returns ``(shifted, counts, means, residual, shift_rows,
    class_products, rows)``: the shifted scatter (p, p), the class weights and
    means (with their rounding), the rows ``√c_k δ_k`` (δ_k the class mean less
    its reference, small) whose outer products the centred scatter subtracts,
    the shifted scatter of each class (``per_class``) and the rows of positive
    weight.
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
    largest = np.max(np.diagonal(gram[:p, :p]), initial=0)
    if np.isfinite(largest):  # else the pass's end says why (NaN, inf, overflow)
        _check_spread_representable(largest, B[:, :p])
    counts = np.diagonal(gram[p:, p:]).astype(np.float64)
    sums = gram[p:, :p].astype(np.float64)
    shift, means, residual = _shifted_means(reference, sums, counts)
    class_products = None
    if per_class:
        class_products = [B[y == k, :p].T @ B[y == k, :p] for k in range(n_classes)]
    rows = n if sample_weight is None else int(np.count_nonzero(sample_weight > 0))
    shift_rows = np.sqrt(counts)[:, None] * shift
    return gram[:p, :p], counts, means, residual, shift_rows, class_products, rows


class _ScatterSum:
    """The matrix form's pass, summed in place: each chunk's shifted scatter is
    added to one float64 accumulator (per class too, when kept), and the
    low-rank corrections (each chunk's shift to its class means, subtracted;
    Chan's merge terms, added) are kept as rows of K x p and applied once at
    the end: one O(p²) step a chunk, not the five of a merge of matrices."""

    def __init__(self, n_classes, n_features, per_class):
        self.counts = np.zeros(n_classes)
        self.means = np.zeros((n_classes, n_features))
        self.residual = np.zeros((n_classes, n_features))
        self.n_samples = 0
        self.total = np.zeros((n_features, n_features))
        self.per_class = None
        if per_class:
            self.per_class = np.zeros((n_classes, n_features, n_features))
        self.subtracted, self.added = [], []

    def add(self, shifted, counts, means, residual, shift_rows, class_products, rows):
        np.add(self.total, shifted, out=self.total)
        for k, product in enumerate(class_products or ()):
            np.add(self.per_class[k], product, out=self.per_class[k])
        self.subtracted.append(shift_rows)
        self.counts, self.means, self.residual, merge_rows = merged_means(
            (self.counts, self.means, self.residual), (counts, means, residual)
        )
        self.added.append(merge_rows)
        self.n_samples += rows

    def statistics(self, dtype):
        """The :class:`ClassStatistics` of the rows added."""
        shape = (0, *self.means.shape)  # no chunk: no rows
        subtracted = np.stack(self.subtracted) if self.subtracted else np.zeros(shape)
        added = np.stack(self.added) if self.added else np.zeros(shape)
        within = self.total  # (ours: corrected in place)
        for rows, sign in ((subtracted, -1.0), (added, 1.0)):
            flat = rows.reshape(-1, rows.shape[-1])
            within += sign * (flat.T @ flat)
        per_class = self.per_class
        if per_class is not None:
            per_class -= np.einsum("cki,ckj->kij", subtracted, subtracted)
            per_class += np.einsum("cki,ckj->kij", added, added)
        return ClassStatistics(
            self.counts,
            self.means,
            Scatter(matrix=within, per_class=per_class),
            self.n_samples,
            dtype,
            self.residual,
        )


def _chunk_rows(X, y, n_classes, sample_weight, per_class, reference, check_finite):
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
        raise _non_finite(X, check_finite)
    if largest < np.sqrt(_SMALLEST_SCATTER):  # then the exact test, rarely needed
        squares = np.einsum("ij,ij->j", centred, centred)
        _check_spread_representable(np.max(squares, initial=0.0), centred)
    rows = CentredRows(centred, y)
    return ClassStatistics(
        counts=counts,
        means=means,
        within=Scatter(rows=rows, keep_per_class=per_class),
        n_samples=X.shape[0],
        dtype=dtype,
        mean_residual=residual,
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
    X, y, n_classes, sample_weight=None, chunk_rows=None, per_class=False, form="auto",
    check_finite=None,
):  # fmt: skip
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
        Rows per chunk; by default 4096 within 32 MiB of float64 per chunk, and
        at least 4 MiB (at most 4096 rows of float32 X without weights, whose
        pass runs in float32).
    per_class : bool, default=False
        Also keep the scatter of each class (for pairwise statistics).
    form : {"auto", "rows", "matrix"}, default="auto"
        How the scatter is held: as the centred rows (``scatter_rows``, O(n·p)) or
        as the (p, p) matrix. "auto" keeps rows for wide data (fewer rows of
        positive weight than features, and more than
        ``_pass_plan.ROWS_FROM_FEATURES`` features).
    check_finite : callable, default=None
        ``check_finite(X)`` raises the validation's error where X holds NaN or
        infinity, for an X whose finiteness validation left to this pass
        (:func:`~._validation.finiteness_check`): the pass checks its results,
        and only where they are not finite reads X again. None: X is finite.

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
        chunk_rows = default_chunk_rows(n_features)
    n_rows = n_samples
    if sample_weight is not None:
        n_rows = int(np.count_nonzero(sample_weight > 0))
    rows = rows_are_cheaper(n_rows, n_features, form)
    if sp.issparse(X):
        stats = _sparse_statistics(X, y, n_classes, sample_weight, per_class, rows)
        if stats is not None:
            return stats
        # A spread whose squares underflow: the dense pass says so below.
    if X.dtype == np.float32 and _float32_pass_suits(n_samples, sample_weight, rows):
        stats = _chunked_statistics(
            X, y, n_classes, None, per_class, False, _FLOAT32_CHUNK_ROWS, np.float32,
            check_finite,
        )  # fmt: skip
        if _float32_rank_is_clear(stats):
            return stats
    return _chunked_statistics(
        X, y, n_classes, sample_weight, per_class, rows, chunk_rows, np.float64,
        check_finite,
    )  # fmt: skip


def _chunked_statistics(
    X, y, n_classes, sample_weight, per_class, rows, chunk_rows, buffer_dtype,
    check_finite=None,
):  # fmt: skip
    """The pass of :func:`class_statistics` over dense chunks of X (a sparse X's
    densified chunk by chunk), B in ``buffer_dtype``."""
    n_samples, n_features = X.shape
    dtype = working_dtype(X)
    if rows:
        stats = _empty_rows(n_classes, n_features, per_class, dtype)
    else:
        stats = _ScatterSum(n_classes, n_features, per_class)
        shape = (min(chunk_rows, n_samples), n_features + n_classes)
        buffer = np.empty(shape, dtype=buffer_dtype)
    # Overflow is checked once below, with a message that says what to do.
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n_samples, chunk_rows):
            stop = min(start + chunk_rows, n_samples)
            X_chunk, y_chunk = X[start:stop], y[start:stop]
            if sp.issparse(X_chunk):
                X_chunk = X_chunk.toarray()
            weights = None if sample_weight is None else sample_weight[start:stop]
            reference = _references(stats, X_chunk, y_chunk, weights)
            if rows:
                stats = stats.merge(_chunk_rows(
                    X_chunk, y_chunk, n_classes, weights, per_class, reference,
                    check_finite,
                ))  # fmt: skip
            else:
                stats.add(*_chunk_products(
                    X_chunk, y_chunk, n_classes, weights, per_class, reference, buffer
                ))  # fmt: skip
    if not rows:
        stats = stats.statistics(dtype)
    # (Rows are checked as the kernel writes them.)
    spread = 0.0 if stats.holds_rows else stats.within_scatter
    if not (np.all(np.isfinite(stats.means)) and np.all(np.isfinite(spread))):
        raise _non_finite(X, check_finite)
    return stats


def _non_finite(X, check_finite):
    """The error of statistics that came out of a pass not finite: X's own
    (the validation's message) where X holds NaN or infinity, else overflow."""
    if check_finite is not None:
        check_finite(X.data if sp.issparse(X) else X)
    return overflow_error()


def _sparse_statistics(X, y, n_classes, sample_weight, per_class, rows):
    """The statistics of a sparse X without densifying it, or None where the
    spread's squares underflow (the caller's dense pass then says so).

    The class sums are one sparse product; the scatter is kept as the rows
    ``√w (x - m_y)`` centred implicitly (wide data), or formed as the matrix
    ``Xᵀ diag(w) X - Σ_k c_k m_k m_kᵀ`` by one sparse product (moderate p). A
    feature whose implicit centring would cost digits is centred explicitly."""
    dtype = working_dtype(X)  # X's own, before the float64 products
    # float64 products: a float32 Gram matrix would cost the span route its digits.
    X = sp.csr_matrix(X, dtype=np.float64)
    weight = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    if sample_weight is not None:
        kept = weight > 0
        X, y, weight = X[kept], y[kept], weight[kept]
    means, counts = group_means(X, y, weight, n_classes)
    if not (np.all(np.isfinite(means)) and np.all(np.isfinite(X.data))):
        raise overflow_error()
    centred = CentredRows.of_sparse(
        X, y, np.sqrt(weight), means
    ).without_cancelling(centres_are_means=True)
    if np.max(centred.column_squares(), initial=0.0) < _SMALLEST_SCATTER:
        return None
    scatter = Scatter(rows=centred, keep_per_class=per_class)
    if not rows:
        scatter = scatter.with_matrix(n_classes)
    stats = ClassStatistics(
        counts=counts,
        means=means,
        within=scatter,
        n_samples=X.shape[0],
        dtype=dtype,
    )
    if not np.all(np.isfinite(stats.scatter_diagonal())):
        raise overflow_error()
    return stats
