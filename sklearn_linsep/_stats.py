"""Class statistics in one pass, and the regularised inverse S(κ)⁻¹ = S† + Q/κ.

Everything here works on plain arrays; estimators call it and never the other way round.

The pass over X is chunked: each chunk is centred on its own per-class means and its
centred scatter is merged into the running totals with the pairwise update of Chan,
Golub and LeVeque (1979). Memory beyond X is O(K·p + p²) plus one chunk, and the result
does not depend on a raw sum of squares (which loses everything to cancellation when the
means are large against the spread).
"""

from dataclasses import dataclass

import numpy as np

# Rows per chunk are chosen so that one centred float64 chunk is about this many bytes:
# large enough for BLAS to run at full speed, small enough to stay cheap beside X.
_CHUNK_BYTES = 1 << 22


@dataclass
class ClassStatistics:
    """Weighted counts, means and pooled centred scatter of K classes.

    Attributes
    ----------
    counts : ndarray of shape (n_classes,)
        Total sample weight of each class (the number of rows without weights).
    means : ndarray of shape (n_classes, n_features)
        Weighted class means.
    within_scatter : ndarray of shape (n_features, n_features)
        Pooled within-class scatter ``Σ_k Σ_{i in k} w_i (x_i - m_k)(x_i - m_k)ᵀ``.
    n_samples : int
        Number of rows seen, whatever their weights.
    """

    counts: np.ndarray
    means: np.ndarray
    within_scatter: np.ndarray
    n_samples: int

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
                f"which is {dof:g} here: give more samples than classes (sample "
                "weights count as repetitions of a row)."
            )
        return self.within_scatter / dof

    def merge(self, other):
        """Statistics of the union of the rows behind ``self`` and ``other``.

        Exact (up to rounding) whatever the split: the update of Chan, Golub and
        LeVeque,
        ``W = W_a + W_b + Σ_k (c_a c_b / (c_a + c_b)) δ_k δ_kᵀ`` with ``δ_k`` the
        difference of the two means of class k.
        """
        if self.means.shape != other.means.shape:
            raise ValueError(
                "Cannot merge statistics of different shapes: "
                f"{self.means.shape} and {other.means.shape}."
            )
        counts = self.counts + other.counts
        safe = np.where(counts > 0, counts, 1.0)
        share = (other.counts / safe)[:, None]
        delta = other.means - self.means
        means = self.means + share * delta
        factor = np.sqrt(self.counts * other.counts / safe)[:, None]
        scaled = factor * delta
        within = self.within_scatter + other.within_scatter + scaled.T @ scaled
        return ClassStatistics(counts, means, within, self.n_samples + other.n_samples)


def _empty_statistics(n_classes, n_features):
    return ClassStatistics(
        counts=np.zeros(n_classes),
        means=np.zeros((n_classes, n_features)),
        within_scatter=np.zeros((n_features, n_features)),
        n_samples=0,
    )


def _chunk_statistics(X, y, n_classes, sample_weight):
    """Statistics of one chunk, centred on its own class means (two passes, exact)."""
    if sample_weight is None:
        counts = np.bincount(y, minlength=n_classes).astype(np.float64)
        indicator = np.zeros((X.shape[0], n_classes))
        indicator[np.arange(X.shape[0]), y] = 1.0
    else:
        counts = np.bincount(y, weights=sample_weight, minlength=n_classes)
        indicator = np.zeros((X.shape[0], n_classes))
        indicator[np.arange(X.shape[0]), y] = sample_weight
    sums = indicator.T @ X
    means = sums / np.where(counts > 0, counts, 1.0)[:, None]
    centred = np.subtract(X, means[y], dtype=np.float64)
    if sample_weight is not None:
        centred *= np.sqrt(sample_weight)[:, None]
    # ``A.T @ A`` on the same buffer runs as one symmetric rank-k update (syrk).
    within = centred.T @ centred
    return ClassStatistics(counts, means, within, X.shape[0])


def class_statistics(X, y, n_classes, sample_weight=None, chunk_rows=None):
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
    stats = _empty_statistics(n_classes, n_features)
    # Overflow is checked once below, with a message that says what to do.
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n_samples, chunk_rows):
            stop = min(start + chunk_rows, n_samples)
            weights = None if sample_weight is None else sample_weight[start:stop]
            chunk = _chunk_statistics(X[start:stop], y[start:stop], n_classes, weights)
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
    """Eigen-decomposition of a covariance S and its regularisation S(κ) = S + κQ.

    Q = I - S†S is the orthogonal projector on the null space of S, so that
    ``S(κ)⁻¹ = S† + Q/κ``. In the eigenbasis of S this only replaces the eigenvalues
    judged zero (at most ``tol`` times the largest) by κ.

    Attributes
    ----------
    eigenvectors : ndarray of shape (n_features, n_features)
    eigenvalues : ndarray of shape (n_features,)
        Eigenvalues of S, ascending, negative rounding noise clipped to zero.
    in_range : ndarray of bool of shape (n_features,)
        Which eigenvectors span the range R(S); the others span N(S).
    kappa : float
        The regularisation κ > 0 (``inf`` gives the Moore–Penrose inverse S†).
    """

    eigenvectors: np.ndarray
    eigenvalues: np.ndarray
    in_range: np.ndarray
    kappa: float

    @property
    def rank(self):
        return int(self.in_range.sum())

    @property
    def null_space_dim(self):
        return int(self.in_range.size - self.rank)

    @property
    def regularized_eigenvalues(self):
        """Eigenvalues of S(κ): those of S on R(S), κ on N(S)."""
        return np.where(self.in_range, self.eigenvalues, self.kappa)

    def solve(self, b):
        """``S(κ)⁻¹ b = (S† + Q/κ) b`` for a vector or the columns of a matrix."""
        V = self.eigenvectors
        scale = 1.0 / self.regularized_eigenvalues
        coords = V.T @ b
        if coords.ndim == 2:
            scale = scale[:, None]
        return V @ (scale * coords)

    def whitening(self):
        """W with ``Wᵀ S(κ) W = I`` on the directions S(κ) does not send to infinity."""
        return self.eigenvectors / np.sqrt(self.regularized_eigenvalues)

    def null_projector(self):
        """Q = I - S†S, the orthogonal projector on the null space of S."""
        null = self.eigenvectors[:, ~self.in_range]
        return null @ null.T


def default_rank_tol(n_samples, n_features):
    """The relative rank tolerance used when none is given: ``max(n, p) · eps``.

    Each entry of the scatter matrix is a sum of n rounded products, so eigenvalues
    below about ``n · eps`` times the largest cannot be told from zero.
    """
    return max(n_samples, n_features) * np.finfo(np.float64).eps


def regularized_covariance(S, kappa, tol=None, n_samples=1):
    """Eigen-decompose S and mark its numerical null space.

    Parameters
    ----------
    S : ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite matrix.
    kappa : float
        The regularisation κ > 0, or ``inf`` for the Moore–Penrose inverse alone.
    tol : float, default=None
        Relative tolerance: an eigenvalue at most ``tol · λ_max`` counts as zero. None
        uses ``default_rank_tol(n_samples, n_features)``.
    n_samples : int, default=1
        Number of rows behind S, for the default tolerance.

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
    eigenvalues, eigenvectors = np.linalg.eigh(S)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    if tol is None:
        tol = default_rank_tol(n_samples, S.shape[0])
    largest = eigenvalues[-1] if eigenvalues.size else 0.0
    in_range = eigenvalues > tol * largest
    if largest == 0.0:
        in_range[:] = False
    return RegularizedCovariance(eigenvectors, eigenvalues, in_range, float(kappa))
