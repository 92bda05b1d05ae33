"""Class statistics in one pass, and the regularised inverse S(κ)⁻¹ = S† + Q/κ.

Everything here works on plain arrays; estimators call it and never the other way round.

The pass over X is chunked: each chunk is shifted by per-class references (the running
class means), one product gives its scatter, class sums and counts, and the result is
merged into the running totals with the pairwise update of Chan, Golub and LeVeque
(1979). Memory beyond X is O(K·p + p²) plus one chunk, and the result
does not depend on a raw sum of squares (which loses everything to cancellation when the
means are large against the spread).
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    column_or_1d,
)

from ._kernels import centre_with_indicator, centre_with_indicator_weighted

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
    within_scatter : ndarray of shape (n_features, n_features)
        Pooled within-class scatter ``Σ_k Σ_{i in k} w_i (x_i - m_k)(x_i - m_k)ᵀ``.
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

    @property
    def residual(self):
        """The low-order part of the means (zero when not kept)."""
        if self.mean_residual is None:
            return np.zeros_like(self.means)
        return self.mean_residual

    def mean_difference(self, i, j):
        """``m_i - m_j`` to the precision of the compensated means: far below the
        rounding of the means themselves when they are large against their
        difference."""
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
        classes = check_classes(classes)
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
        return self.counts.shape[0]

    @property
    def n_features(self):
        return self.means.shape[1]

    @property
    def total_weight(self):
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

    def pooled_covariance(self):
        """Pooled within-class covariance ``S = W / (Σw - K)``.

        Sample weights are frequency weights: an integer weight is the same as repeating
        the row, so the divisor is the total weight minus the number of classes, which
        for two classes without weights is the paper's ``n₊ + n₋ - 2``.
        """
        dof = self.total_weight - self.n_classes
        if dof <= 0:
            if not np.any(self.within_scatter):
                # No within-class spread at all (e.g. one point per class): S = 0
                # whatever the divisor, and every direction is in its null space.
                return np.zeros_like(self.within_scatter)
            raise ValueError(
                "The pooled covariance divides by sum(sample_weight) - n_classes, "
                f"which is {dof:g} here. Sample weights are frequency weights (an "
                "integer weight counts as that many copies of the row), so weights "
                "normalised to sum to 1 do not fit: scale them to sum to the number "
                "of rows."
            )
        return self.within_scatter / dof

    def regularized_inverse(self, kappa, tol=None, dtype=None):
        """S(κ)⁻¹ of the pooled covariance, factored (see regularized_covariance);
        ``dtype`` defaults to that of the statistics."""
        return regularized_covariance(
            self.pooled_covariance(),
            kappa,
            tol=tol,
            n_samples=self.n_samples,
            dtype=self.dtype if dtype is None else dtype,
            feature_scale=np.abs(self.means).max(axis=0),
            max_rank=max(self.n_samples - np.count_nonzero(self.counts > 0), 0),
        )

    def pair(self, i, j):
        """Statistics of classes i and j alone (needs ``class_scatter``)."""
        if self.class_scatter is None:
            raise ValueError(
                "Pairwise statistics need the scatter of each class: compute them "
                "with per_class=True (ClassStatistics.from_data or class_statistics)."
            )
        pair = [i, j]
        return ClassStatistics(
            counts=self.counts[pair],
            means=self.means[pair],
            within_scatter=self.class_scatter[i] + self.class_scatter[j],
            # n_samples sets the default rank tolerance and caps the rank: the
            # rows of all classes bound the pair's (loosely).
            n_samples=self.n_samples,
            class_scatter=self.class_scatter[pair],
            dtype=self.dtype,
            mean_residual=self.residual[pair],
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
        within = self.within_scatter + other.within_scatter + scaled.T @ scaled
        class_scatter = None
        if self.class_scatter is not None and other.class_scatter is not None:
            corrections = scaled[:, :, None] * scaled[:, None, :]
            class_scatter = self.class_scatter + other.class_scatter + corrections
        return ClassStatistics(
            counts,
            means,
            within,
            self.n_samples + other.n_samples,
            class_scatter,
            np.promote_types(self.dtype, other.dtype),
            residual,
        )


def chunk_weights(sample_weight, n_samples):
    """Sample weights of one part of the data: finite, non-negative, one per row.
    All zero is allowed (scikit-learn's check refuses it): a part of zero weight
    adds nothing, as its rows would inside a larger part."""
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.shape != (n_samples,):
        raise ValueError(
            f"sample_weight has shape {weights.shape}; expected ({n_samples},), one "
            "per row."
        )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    return weights


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    b_virtual = s - a
    return s, (a - (s - b_virtual)) + (b - b_virtual)


def _data_dtype(X):
    """The precision behind statistics of X: float32 stays, the rest is float64."""
    return np.dtype(np.float32) if X.dtype == np.float32 else np.dtype(np.float64)


def check_classes(classes):
    """``classes`` as an array, sorted and distinct as ``np.unique`` gives them, with
    at least two labels: the order of the statistics' rows."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"classes must be 1-D; got shape {classes.shape}.")
    check_classification_targets(classes)
    unique = np.unique(classes)
    if unique.shape != classes.shape or not np.all(unique == classes):
        raise ValueError(
            "classes must be sorted and distinct, as np.unique returns them (row k "
            f"of the statistics is classes[k]); got {classes.tolist()!r}."
        )
    if classes.shape[0] < 2:
        raise ValueError(
            f"classes must hold at least 2 labels; got {classes.tolist()!r}. Linear "
            "separability compares classes."
        )
    return classes


def encode_labels(y, classes):
    """Indices of the labels ``y`` in the sorted ``classes``; a label outside them is
    an error (naming a few), never silently another class."""
    y = np.asarray(y)
    try:
        codes = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
        unknown = classes[codes] != y
    except TypeError:  # e.g. str labels against int classes: none of them is known
        codes, unknown = np.zeros(y.shape, dtype=np.intp), np.ones(y.shape, bool)
    if np.any(unknown):
        raise ValueError(
            f"y contains labels not in classes {classes.tolist()!r}: "
            f"{np.unique(y[unknown])[:5].tolist()!r}."
        )
    return codes.astype(np.intp, copy=False)


def _empty_statistics(n_classes, n_features, per_class, dtype=np.float64):
    return ClassStatistics(
        counts=np.zeros(n_classes),
        means=np.zeros((n_classes, n_features)),
        within_scatter=np.zeros((n_features, n_features)),
        n_samples=0,
        class_scatter=np.zeros((n_classes, n_features, n_features))
        if per_class
        else None,
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
        centre_with_indicator(X, y, reference, B)
    else:
        centre_with_indicator_weighted(X, y, reference, np.sqrt(sample_weight), B)
    gram = B.T @ B
    _check_spread_representable(gram[:p, :p], B[:, :p])
    counts = np.diagonal(gram[p:, p:]).copy()
    shift = gram[p:, :p] / np.where(counts > 0, counts, 1.0)[:, None]
    scaled = np.sqrt(counts)[:, None] * shift
    within = gram[:p, :p] - scaled.T @ scaled
    present = counts[:, None] > 0
    means, residual = _two_sum(reference, shift)
    means, residual = np.where(present, means, 0.0), np.where(present, residual, 0.0)
    class_scatter = None
    if per_class:
        class_scatter = np.empty((n_classes, p, p))
        for k in range(n_classes):
            rows = B[y == k, :p]
            class_scatter[k] = rows.T @ rows - np.outer(scaled[k], scaled[k])
    rows = n if sample_weight is None else int(np.count_nonzero(sample_weight > 0))
    return ClassStatistics(
        counts, means, within, rows, class_scatter, _data_dtype(X), residual
    )


# Below this, sums of squares are subnormal floats and lose their digits.
_SMALLEST_SCATTER = np.finfo(np.float64).tiny * 1024


def _check_spread_representable(scatter, shifted):
    """A clear error when the squares of the (weighted) spread underflow float64:
    the scatter would come out as 0, a false rank 0, and "the class means
    coincide" where they do not (X scaled by 1e-170)."""
    if scatter.size and np.max(np.diagonal(scatter)) >= _SMALLEST_SCATTER:
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
    X, y, n_classes, sample_weight=None, chunk_rows=None, per_class=False
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
    """
    n_samples, n_features = X.shape
    if chunk_rows is None:
        chunk_rows = max(256, _CHUNK_BYTES // (8 * max(n_features, 1)))
    stats = _empty_statistics(n_classes, n_features, per_class, _data_dtype(X))
    buffer = np.empty((min(chunk_rows, n_samples), n_features + n_classes))
    # Overflow is checked once below, with a message that says what to do.
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n_samples, chunk_rows):
            stop = min(start + chunk_rows, n_samples)
            X_chunk, y_chunk = X[start:stop], y[start:stop]
            weights = None if sample_weight is None else sample_weight[start:stop]
            chunk = _chunk_statistics(
                X_chunk,
                y_chunk,
                n_classes,
                weights,
                per_class,
                _references(stats, X_chunk, y_chunk, weights),
                buffer,
            )
            stats = stats.merge(chunk)
    if not (
        np.all(np.isfinite(stats.means)) and np.all(np.isfinite(stats.within_scatter))
    ):
        raise ValueError(
            "The class statistics overflowed float64: the features are too large in "
            "magnitude (about 1e154 or more). Rescale X, e.g. with StandardScaler."
        )
    return stats


@dataclass(frozen=True)
class RegularizedCovariance:
    """The regularised inverse ``S(κ)⁻¹ = S† + Q/κ`` of a covariance S, factored.

    ``S† = F Fᵀ`` with F a (p, r) basis of the range R(S), and ``Q = N Nᵀ`` with N an
    orthonormal (p, p - r) basis of the null space N(S). Then
    ``S(κ)⁻¹ = F Fᵀ + N Nᵀ / κ`` and ``W = [F, N / √κ]`` whitens S(κ) = S + κQ:
    ``Wᵀ S(κ) W = I``.

    Attributes
    ----------
    range_factor : ndarray of shape (n_features, rank)
        F, with ``F Fᵀ = S†``.
    null_basis : ndarray of shape (n_features, n_features - rank)
        N, orthonormal, with ``N Nᵀ = Q = I - S†S``.
    range_basis : ndarray of shape (n_features, rank)
        An orthonormal basis of R(S), so that ``range_basis.T @ b`` measures the part of
        a vector b that S sees.
    kappa : float
        The regularisation κ > 0 (``inf`` gives the Moore–Penrose inverse S†).
    """

    range_factor: np.ndarray
    null_basis: np.ndarray
    range_basis: np.ndarray
    kappa: float

    @property
    def rank(self):
        return int(self.range_factor.shape[1])

    @property
    def null_space_dim(self):
        return int(self.null_basis.shape[1])

    def split(self, b, atol=0.0):
        """``(S† b, Q b)`` for a vector or the columns of a matrix.

        A part whose norm is at most ``atol`` (per column) is set to zero: rounding
        noise in b must not become a direction, least of all divided by a small κ.
        """
        b = np.asarray(b, dtype=np.float64)
        in_range = self.range_basis.T @ b
        in_null = self.null_basis.T @ b
        if atol > 0:
            in_range = in_range * (np.linalg.norm(in_range, axis=0) > atol)
            in_null = in_null * (np.linalg.norm(in_null, axis=0) > atol)
        # S† b depends on b only through its range part: S† b = F Fᵀ (R Rᵀ b).
        pinv_part = self.range_factor @ (
            self.range_factor.T @ (self.range_basis @ in_range)
        )
        return pinv_part, self.null_basis @ in_null

    def solve(self, b, atol=0.0):
        """``S(κ)⁻¹ b = S† b + Q b / κ`` (see :meth:`split` for ``atol``)."""
        pinv_part, null_part = self.split(b, atol)
        if np.isinf(self.kappa):
            return pinv_part
        # A tiny κ can overflow; callers check the result and say why.
        with np.errstate(over="ignore"):
            return pinv_part + null_part / self.kappa

    def whitening(self):
        """W = [F, N / √κ], with ``Wᵀ S(κ) W = I`` (the N block vanishes at κ = ∞)."""
        return np.hstack([self.range_factor, self.null_basis / np.sqrt(self.kappa)])

    def null_projector(self):
        """Q = I - S†S, the orthogonal projector on the null space of S."""
        return self.null_basis @ self.null_basis.T


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
    variances = np.clip(np.diag(S), 0.0, None)
    scale = np.zeros(n_features) if feature_scale is None else np.asarray(feature_scale)
    # A variance below the rounding level of the feature's own values is no variance.
    varying = np.flatnonzero(variances > (16 * np.finfo(dtype).eps * scale) ** 2)
    root = np.sqrt(variances[varying])
    if tol is None:
        ratio = np.max((scale[varying] + root) / root, initial=1.0)
        tol = default_rank_tol(n_samples, n_features, dtype, ratio)
    correlation = S[np.ix_(varying, varying)] / np.outer(root, root)
    eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    keep = eigenvalues > tol * max(eigenvalues[-1], 0.0) if varying.size else []
    if max_rank is not None and np.count_nonzero(keep) > max_rank:
        keep = np.arange(varying.size) >= varying.size - max_rank  # eigh: ascending
    eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
    identity = np.eye(n_features)
    if eigenvalues.size == varying.size:
        # The varying features are linearly independent: S† restricted to them is
        # the inverse D^{-1/2} C⁻¹ D^{-1/2}, and R(S) is spanned by their coordinates.
        factor = np.zeros((n_features, varying.size))
        factor[varying] = eigenvectors / (root[:, None] * np.sqrt(eigenvalues))
        constant = np.setdiff1d(np.arange(n_features), varying)
        return RegularizedCovariance(
            factor, identity[:, constant], identity[:, varying], float(kappa)
        )
    # Rank-deficient: S ≈ A Aᵀ with A = D^{1/2} V_r Λ_r^{1/2}. Householder QR of a
    # row-graded matrix is accurate once its rows are sorted by decreasing norm.
    A = np.zeros((n_features, eigenvalues.size))
    A[varying] = (root[:, None] * eigenvectors) * np.sqrt(eigenvalues)
    order = np.argsort(-np.linalg.norm(A, axis=1), kind="stable")
    Q_sorted, R = np.linalg.qr(A[order], mode="complete")
    Q_full = np.empty_like(Q_sorted)
    Q_full[order] = Q_sorted
    rank = eigenvalues.size
    range_basis = Q_full[:, :rank]
    # F = U R^{-T}, so that F Fᵀ = U (R Rᵀ)⁻¹ Uᵀ = (A Aᵀ)†.
    range_factor = scipy.linalg.solve_triangular(R[:rank], range_basis.T).T
    return RegularizedCovariance(
        range_factor, Q_full[:, rank:], range_basis, float(kappa)
    )
