"""Fisher's linear discriminant, extended to a singular covariance.

The math lives in module-level functions (``nearest_mean_rule``, ``fisher_directions``,
``accuracy_threshold``) that take class statistics and the regularised inverse from
``_stats``; :class:`FisherDiscriminant` only validates and calls them, from one method
(``_model``) whichever way the statistics came: ``fit`` in memory or on dask arrays,
``partial_fit``, ``merge`` or ``fit_statistics``.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import log_expit, log_softmax
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from ._angle import mean_difference_parts
from ._base import LinearClassifierBase, linear_scores
from ._rows import in_memory, map_rows
from ._streaming import StatisticsEstimatorMixin

# store_covariance=True refuses a covariance matrix larger than this (bytes):
# at p = 50 000 features it would be 20 GB, where the fit holds O(n + p) vectors.
LARGEST_STORED_COVARIANCE = 2**31


def nearest_mean_rule(reg, means, log_priors=None, atol=0.0, residual=None):
    """Linear scores of the nearest class mean in the metric of S(κ)⁻¹.

    With ``A = S(κ)⁻¹`` and class means ``m_k``, the score of class k is
    ``m_kᵀ A x - ½ m_kᵀ A m_k + log π_k``. It is computed relative to the centre ``c``
    of the class means (``δ_k = m_k - c``) to avoid cancellation. For two classes the
    difference of the two scores is Fisher's rule ``uᵀx - α`` with ``u = S(κ)⁻¹ d`` and
    the midpoint threshold ``α = ½ uᵀ(m₊ + m₋)``.

    Parameters
    ----------
    reg : RegularizedCovariance
    means : ndarray of shape (n_classes, n_features)
    log_priors : ndarray of shape (n_classes,), default=None
        Added to the scores (the log prior ratio shift of LDA).
    atol : float or (float, float), default=0.0
        Rounding level of the mean differences: parts of them (in the range or in the
        null space of S; a pair: each its own) no longer than this are treated as
        zero.
    residual : ndarray of shape (n_classes, n_features), default=None
        The low-order parts of the means (``ClassStatistics.mean_residual``), which
        the differences of the means take into account.

    Returns
    -------
    coef : ndarray of shape (1, n_features) or (n_classes, n_features)
        One row for two classes, else one per class.
    intercept : ndarray of shape (1,) or (n_classes,)
    """
    residual = np.zeros_like(means) if residual is None else residual
    centre = (means / len(means)).sum(axis=0)  # a sum of means near 1e308 overflows
    deltas = (means - centre) + (residual - residual.mean(axis=0))
    two = len(means) == 2
    # Two classes: d itself, so that its split into range and null parts is exact.
    differences = (means[1] - means[0]) + (residual[1] - residual[0]) if two else deltas.T
    parts = reg.split(differences, atol)
    if not (np.any(parts[0]) or np.any(parts[1])):
        raise ValueError(
            "The class means coincide (to rounding): no linear rule separates "
            "classes with equal means."
        )
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        coef = reg.combine(*parts).T
        if two:
            coef = coef[None, :]
            # Halves first: the means' sum of a column near 1e308 overflows.
            intercept = np.array([-coef[0] @ (0.5 * means[0] + 0.5 * means[1])])
        else:
            intercept = -coef @ centre - 0.5 * np.einsum("kp,kp->k", coef, deltas)
    if log_priors is not None:
        intercept = intercept + (
            log_priors[1] - log_priors[0] if len(means) == 2 else log_priors
        )
    if not np.any(coef):
        raise ValueError(
            "The Fisher direction S†d is zero: the mean difference lies in the null "
            "space of S and kappa is infinite. Use a finite kappa."
        )
    if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
        raise ValueError(
            f"The discriminant overflowed with kappa={reg.kappa:g}: the null-space "
            "part of the mean difference is divided by kappa, so kappa is too small "
            "for the scale of X (kappa has the units of X squared)."
        )
    return coef, intercept


def fisher_directions(reg, stats, coef=None):
    """Discriminant directions: leading eigenvectors of S(κ)⁻¹ S_B.

    Solves the generalised problem ``S_B v = λ S(κ) v`` through the whitening W of S(κ)
    (``Wᵀ S(κ) W = I``): the singular vectors of ``D W``, with D the weighted centred
    class means, give ``v = W f``, normalised so that ``vᵀ S(κ) v = 1``. At most K - 1
    eigenvalues are non-zero. Of W's null-space block only the directions that D
    sees matter (``RegularizedCovariance.whitened``): O(p·(r + K)), never (p, p).

    For two classes, given ``coef`` = u = S(κ)⁻¹d, the one direction is
    ``u / √(dᵀu)`` (D has rank one, along d), with no pass over the features.

    Returns
    -------
    scalings : ndarray of shape (n_features, min(n_classes - 1, n_features))
    explained_variance_ratio : ndarray of shape (min(n_classes - 1, n_features),)
    """
    if coef is not None and stats.n_classes == 2:
        u = coef[0]
        length = float(stats.mean_difference(1, 0) @ u)
        if length > 0 and np.isfinite(length):
            return (u / np.sqrt(length))[:, None], np.ones(1)
    means, grand_mean = stats.means, stats.grand_mean
    n_classes, n_features = means.shape
    weights = stats.counts / stats.total_weight
    between = np.sqrt(weights)[:, None] * (means - grand_mean)
    whitened, back = reg.whitened(between)
    _, singular_values, right = np.linalg.svd(whitened, full_matrices=False)
    n_directions = min(n_classes - 1, n_features)
    scalings = np.zeros((n_features, n_directions))
    found = min(n_directions, right.shape[0])  # W' may have fewer columns than K - 1
    scalings[:, :found] = back(right[:found].T)
    eigenvalues = np.zeros(n_directions)
    eigenvalues[:found] = singular_values[:found] ** 2
    ratio = eigenvalues / (singular_values**2).sum()
    projected = (means - grand_mean) @ scalings
    if n_classes == 2:
        # The axis points from classes_[0] to classes_[1].
        signs = np.sign(projected[1] - projected[0])
    else:
        signs = np.sign(
            projected[np.argmax(np.abs(projected), axis=0), range(n_directions)]
        )
    signs[signs == 0] = 1.0
    return scalings * signs, ratio


def accuracy_threshold(scores, positive, weights, preferred):
    """The threshold t on ``scores`` that maximises the weighted training accuracy.

    A sample is assigned to the positive class when its score exceeds t. Among the
    optimal open intervals between consecutive distinct scores, ``preferred`` is kept
    if it lies in one; otherwise the middle of the optimal interval nearest to it is
    returned (Haralick's accuracy-maximising threshold, ties broken toward the midpoint
    rule).

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
    positive : ndarray of bool of shape (n_samples,)
    weights : ndarray of shape (n_samples,)
    preferred : float

    Returns
    -------
    threshold : float

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._fisher import accuracy_threshold
    >>> scores = np.array([0.0, 1.0, 2.0, 3.0])
    >>> accuracy_threshold(scores, scores > 0.5, np.ones(4), preferred=2.5)
    0.5
    """
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    pos = np.where(positive[order], weights[order], 0.0)
    neg = np.where(positive[order], 0.0, weights[order])
    # correct[i]: the first i sorted samples are called negative, the rest positive.
    correct = np.concatenate([[0.0], np.cumsum(neg)]) + (
        pos.sum() - np.concatenate([[0.0], np.cumsum(pos)])
    )
    n = scores.shape[0]
    valid = np.ones(n + 1, dtype=bool)
    valid[1:n] = sorted_scores[1:] > sorted_scores[:-1]
    best = correct[valid].max()
    cuts = np.flatnonzero(valid & (correct >= best - 1e-12 * weights.sum()))
    lower = np.where(cuts > 0, sorted_scores[np.maximum(cuts - 1, 0)], -np.inf)
    upper = np.where(cuts < n, sorted_scores[np.minimum(cuts, n - 1)], np.inf)
    if np.any((lower < preferred) & (preferred < upper)):
        return float(preferred)
    distance = np.where(preferred <= lower, lower - preferred, preferred - upper)
    j = np.argmin(distance)
    if np.isfinite(lower[j]) and np.isfinite(upper[j]):
        return float(0.5 * (lower[j] + upper[j]))
    gaps = np.diff(np.unique(sorted_scores))
    edge = upper[j] if np.isinf(lower[j]) else lower[j]
    step = float(np.median(gaps)) if gaps.size else max(abs(float(edge)), 1.0)
    return float(edge - step if np.isinf(lower[j]) else edge + step)


def _project(X, xbar, scalings):
    if sp.issparse(X):  # centring would fill it
        return np.asarray(X @ scalings) - xbar @ scalings
    return (X - xbar) @ scalings


def log_posterior(scores):
    """Log class probabilities from the linear scores of a Gaussian model with a
    shared covariance: the log-sigmoid of the log-odds for two classes (one score
    per row), the log-softmax of the class scores otherwise."""
    if scores.ndim == 1:
        return np.column_stack([log_expit(-scores), log_expit(scores)])
    return log_softmax(scores, axis=1)


def _block_log_posterior(X, coef, intercept, center=None):
    return log_posterior(linear_scores(X, coef, intercept, center))


class FisherDiscriminant(
    StatisticsEstimatorMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    LinearClassifierBase,
):
    r"""Fisher's linear discriminant, extended to a singular covariance.

    For two classes with mean difference :math:`d = \bar x_+ - \bar x_-` and pooled
    within-class covariance :math:`S`, the direction is

    .. math:: u(\kappa) = S(\kappa)^{-1} d = (S^\dagger + Q/\kappa)\, d,
              \qquad Q = I - S^\dagger S,

    the Moore–Penrose inverse :math:`S^\dagger` plus the null-space regularisation
    :math:`S(\kappa) = S + \kappa Q` (Ben-Israel & Levin 2005). If S is nonsingular,
    Q = 0 and this is exactly Fisher's :math:`S^{-1} d`: κ has no effect. If S is
    singular and d lies in its range, the direction is :math:`S^\dagger d`; otherwise
    small κ favours the null-space part of d, along which the training classes collapse
    to two points. With p > n the training data are always separable and u(κ)
    separates them once κ is small against the within-class spread (κ has the units of
    S, those of X squared); pinv-LDA (κ = ∞) does not.

    The rule is :math:`u^\top x > \alpha` for ``classes_[1]``, with the midpoint
    threshold
    :math:`\alpha = \tfrac12 u^\top(\bar x_+ + \bar x_-)` shifted by
    :math:`-\log(\pi_+/\pi_-)` when priors are given, or the threshold that maximises
    the training accuracy on the projection (Haralick).

    For K > 2 classes the directions are the leading (at most K - 1) eigenvectors of
    :math:`S(\kappa)^{-1} S_B`, and a sample goes to the nearest class mean in the
    discriminant space spanned by all min(K - 1, p) of them (``n_components`` limits
    ``transform`` only, as in LDA), which is the linear rule
    :math:`\bar x_k^\top S(\kappa)^{-1} x
    - \tfrac12 \bar x_k^\top S(\kappa)^{-1} \bar x_k (+ \log \pi_k)`.

    Sparse X (text) never becomes dense. With more than a few hundred rows,
    :math:`S^\dagger b` and :math:`Qb` are found by two LSQR solves on the
    within-class-centred rows :math:`C` (:math:`S = C^\top C/(n-K)`), applied
    without centring X: first :math:`z = (C^\top)^\dagger b`, which gives
    :math:`Qb = b - C^\top z`, then :math:`S^\dagger b = (n-K)\,C^\dagger z`.
    Memory stays near X plus a few vectors of length n + p, and one pair of
    solves per class-mean difference serves every κ. Fewer rows take the span of
    the rows (an (n, n) eigendecomposition); the cheaper route is chosen by a
    cost model.

    The model depends on the data only through the class statistics
    (:class:`ClassStatistics`), which merge exactly: ``fit`` takes dask arrays and
    reduces them block by block, :meth:`partial_fit` takes chunks, :meth:`merge`
    combines two estimators and :meth:`fit_statistics` takes statistics merged
    elsewhere, all equal to one fit on all rows (except ``threshold="accuracy"``,
    which needs the rows and is refused there).

    Parameters
    ----------
    kappa : float, default=1.0
        The regularisation κ > 0 of the null space of S; ``np.inf`` gives
        :math:`S^\dagger d`. It has no effect when S is nonsingular. Tune it with
        ``GridSearchCV`` when p is close to or above n.
    threshold : {"midpoint", "accuracy"}, default="midpoint"
        The paper's midpoint threshold, or the one maximising the (weighted, and
        prior-weighted when priors are given) training accuracy on the projection. Only
        "midpoint" is defined for more than two classes.
    priors : array-like of shape (n_classes,), default=None
        Positive class priors summing to one. When given, the scores are shifted by
        their logarithms, as in LDA; by default no shift (the nearest class mean).
    n_components : int, default=None
        Number of discriminant directions kept by ``transform``, at most
        ``min(n_classes - 1, n_features)`` (the default).
    store_covariance : bool, default=False
        Whether to store the pooled covariance in ``covariance_``. A (p, p)
        matrix beyond 2 GiB (p above about 16 000) is refused with an error: the
        fit itself never forms it.
    tol : float, default=None
        Relative rank tolerance. The rank of S is decided on its correlation matrix
        (S scaled to unit diagonal, so that the units of the features do not matter):
        an eigenvalue at most ``tol`` times the largest counts as zero. None means
        ``max(n_samples, n_features) * eps64 + n_features * (4 * eps * r)**2``, the
        rounding of the accumulated scatter plus that of the data (``eps`` of X's
        dtype, r the largest ratio of a feature's magnitude to its spread); a
        feature whose variance is below its own rounding level counts as constant.
        On the sparse route (below) ``tol`` is the relative tolerance at which the
        least-squares solves stop and ``1 / sqrt(tol)`` their condition limit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        For two classes, :math:`u(\kappa)`; otherwise the class scores' weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
        Weighted class means.
    priors_ : ndarray of shape (n_classes,)
        The class priors of the model: ``priors``, or equal priors when it is None
        (the nearest-mean rule; LDA's default is the class proportions).
    covariance_ : ndarray of shape (n_features, n_features)
        Pooled within-class covariance ``W / (Σw - K)``; only with
        ``store_covariance=True``.
    rank_ : int
        Numerical rank of the pooled covariance. On the sparse route (below) the
        rank is not decided: ``rank_`` is its bound, the rows of positive weight
        less the classes (or the varying features, if fewer).
    null_space_dim_ : int
        ``n_features - rank_``: the dimension on which κ acts.
    scalings_ : ndarray of shape (n_features, n_components)
        Discriminant directions, normalised to unit variance in S(κ).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of the between-class variance along each direction.
    xbar_ : ndarray of shape (n_features,)
        Weighted overall mean, the origin of ``transform``.
    statistics_ : ClassStatistics
        The class counts, means and pooled scatter everything above is computed
        from; what :meth:`partial_fit` and :meth:`merge` accumulate.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined when X has feature names that are all strings (never for a dask
        array).

    See Also
    --------
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : The nonsingular rule
        with shrinkage instead of the null-space regularisation.
    SeparabilityAngle : The angle of separability built on the same direction.

    References
    ----------
    A. Ben-Israel and Y. Levin, "The geometry of linear separability in data sets",
    Linear Algebra Appl. (2006). R. A. Fisher (1936). R. M. Haralick, "Linear Decision
    Rules".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import FisherDiscriminant
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(20, 60))   # more features than samples: S is singular
    >>> y = np.repeat([0, 1], 10)
    >>> clf = FisherDiscriminant(kappa=1.0).fit(X, y)
    >>> clf.rank_, clf.null_space_dim_
    (18, 42)
    >>> clf.score(X, y)
    1.0
    """

    _parameter_constraints: dict = {
        "kappa": [Interval(Real, 0, None, closed="right")],
        "threshold": [StrOptions({"midpoint", "accuracy"})],
        "priors": ["array-like", None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "store_covariance": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        kappa=1.0,
        *,
        threshold="midpoint",
        priors=None,
        n_components=None,
        store_covariance=False,
        tol=None,
    ):
        self.kappa = kappa
        self.threshold = threshold
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol

    def _priors(self, n_classes):
        """The validated ``priors``, or None."""
        if self.priors is None:
            return None
        priors = np.array(self.priors, dtype=np.float64)  # a copy: priors_ is ours
        if priors.shape != (n_classes,):
            raise ValueError(
                f"priors has shape {priors.shape}; expected ({n_classes},), "
                "one per class."
            )
        if np.any(~np.isfinite(priors)) or np.any(priors <= 0):
            raise ValueError("priors must be finite and positive.")
        if not np.isclose(priors.sum(), 1.0, rtol=0, atol=1e-8):
            raise ValueError(f"priors must sum to 1; they sum to {priors.sum():g}.")
        return priors

    def _log_priors(self, n_classes):
        priors = self._priors(n_classes)
        return None if priors is None else np.log(priors)

    def _check_model_params(self, n_classes, n_features):
        self._log_priors(n_classes)
        if self.threshold == "accuracy" and n_classes > 2:
            raise ValueError(
                "threshold='accuracy' is defined for two classes only; got "
                f"{n_classes}. Use threshold='midpoint'."
            )
        covariance_bytes = 8.0 * n_features**2
        if self.store_covariance and covariance_bytes > LARGEST_STORED_COVARIANCE:
            raise ValueError(
                f"store_covariance=True would store a ({n_features}, {n_features}) "
                f"float64 matrix, {covariance_bytes / 2**30:.1f} GiB; the fit itself "
                "never forms it. Use store_covariance=False (the default); "
                "statistics_.scatter() forms it on request."
            )
        max_components = min(n_classes - 1, n_features)
        if self.n_components is not None and self.n_components > max_components:
            raise ValueError(
                f"n_components={self.n_components} exceeds min(n_classes - 1, "
                f"n_features) = {max_components}."
            )

    def _check_streaming(self, method):
        if self.threshold == "accuracy":
            raise ValueError(
                "threshold='accuracy' needs the projected score of every training "
                f"row, which {method} does not keep (it keeps class statistics "
                "only). Use threshold='midpoint', or fit on all rows in memory."
            )

    def _model(self, stats, reg=None):
        """The fitted attributes that the class statistics define; ``reg`` is the
        decomposition of their S at this κ, when the caller has it already (it
        does not depend on κ: :class:`FisherDiscriminantCV` reuses one per fold)."""
        n_classes, n_features = stats.n_classes, stats.n_features
        dtype = stats.dtype
        if reg is None:
            reg = stats.regularized_inverse(self.kappa, self.tol)
        priors = self._priors(n_classes)
        coef, intercept = nearest_mean_rule(
            reg,
            stats.means,
            None if priors is None else np.log(priors),
            stats.mean_noise,
            stats.mean_residual,
        )
        scalings, ratio = fisher_directions(reg, stats, coef)
        n_components = self.n_components or min(n_classes - 1, n_features)
        model = {
            "coef_": coef.astype(dtype, copy=False),
            "intercept_": np.asarray(intercept, dtype=dtype).reshape(-1),
            "means_": stats.means.astype(dtype, copy=False),
            "priors_": np.full(n_classes, 1.0 / n_classes)
            if priors is None
            else priors,
            "rank_": reg.rank,
            "null_space_dim_": reg.null_space_dim,
            "scalings_": scalings[:, :n_components].astype(dtype, copy=False),
            "explained_variance_ratio_": ratio[:n_components],
            "xbar_": stats.grand_mean.astype(dtype, copy=False),
            "_n_features_out": n_components,
        }
        if n_classes == 2:
            # What separability_statistics(self) needs, kept: no second solve.
            parts = mean_difference_parts(stats, reg)
            model["_mean_difference_parts"] = (parts, self.tol)
        if self.store_covariance:
            model["covariance_"] = stats.pooled_covariance().astype(dtype, copy=False)
        return model

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the discriminant.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A dask array is reduced block by block where its blocks live (class
            statistics per block, merged in a tree); nothing of size n_samples comes
            to the client. ``threshold="accuracy"`` needs every row and refuses it.
        y : array-like or dask array of shape (n_samples,)
        sample_weight : array-like or dask array of shape (n_samples,), default=None
            Non-negative frequency weights: an integer weight equals repeating the row,
            and the pooled covariance divides by ``sum(sample_weight) - n_classes``.
            Their scale therefore matters when S is singular (it sets the scale of S
            against κ), and weights normalised to sum to 1 are refused.

        Returns
        -------
        self : FisherDiscriminant
        """
        if self.threshold == "accuracy" and not in_memory(X, y, sample_weight):
            raise ValueError(
                "threshold='accuracy' needs the projected score of every row, which "
                "a fit on dask arrays does not bring to the client. Use "
                "threshold='midpoint' with dask arrays."
            )
        return self._finish_fit(*self._statistics_for_fit(X, y, sample_weight))

    def _finish_fit(self, stats, rows, reg=None):
        """The model of a fit on ``rows`` from their statistics, with the
        accuracy threshold when asked for (``rows`` then in memory)."""
        self._set_statistics(stats, strict=True, reg=reg)
        if self.threshold == "accuracy":
            intercept = self._accuracy_intercept(
                rows.X,
                rows.y_encoded,
                rows.sample_weight,
                stats,
                float(self.intercept_[0]),
                self._log_priors(len(self.classes_)),
            )
            self.intercept_ = intercept.astype(stats.dtype)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the fit, exactly.

        The class counts, means and centred scatter of the chunk are merged into
        ``statistics_`` (:meth:`ClassStatistics.merge`), so after any sequence of
        chunks the model equals one :meth:`fit` on all their rows, up to rounding,
        whatever the chunk sizes and order. A call after :meth:`fit` adds to it.

        Until every class has positive weight (e.g. after chunks of one class
        only), or while the statistics define no rule (e.g. equal class means so
        far), the estimator keeps accumulating but is not fitted: ``predict`` raises
        ``NotFittedError`` saying why, and the model attributes are absent.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            A chunk of rows; its number of features must stay that of the first.
            float32 chunks keep float32 attributes; a mix becomes float64.
        y : array-like of shape (n_samples,)
            Labels of the chunk, each in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label; required on the first call (a chunk need not hold all
            classes), optional afterwards, where it must be the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self : FisherDiscriminant

        Raises
        ------
        ValueError
            With ``threshold="accuracy"``, which needs the projected scores of all
            rows together.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import FisherDiscriminant
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(100, 3))
        >>> y = np.repeat([0, 1], 50)
        >>> X[y == 1] += 2.0
        >>> clf = FisherDiscriminant()
        >>> for rows in np.array_split(np.arange(100), 7):
        ...     clf = clf.partial_fit(X[rows], y[rows], classes=[0, 1])
        >>> full = FisherDiscriminant().fit(X, y)
        >>> bool(np.allclose(clf.coef_, full.coef_, rtol=1e-12))
        True
        """
        return self._partial_fit(X, y, classes, sample_weight)

    def merge(self, other):
        """A discriminant of the rows of both ``self`` and ``other``.

        ``other`` is a FisherDiscriminant of the same parameters, fitted or
        partially fitted on other rows of the same classes and features; the
        result equals one :meth:`fit` on the union of their rows (their
        ``statistics_`` merge exactly). Neither is changed.

        Parameters
        ----------
        other : FisherDiscriminant

        Returns
        -------
        merged : FisherDiscriminant
            A new estimator; not fitted (but mergeable and ready for
            :meth:`partial_fit`) if some class still has no weight.

        Raises
        ------
        ValueError
            For different parameters, classes, numbers or names of features, or
            with ``threshold="accuracy"``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import FisherDiscriminant
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(60, 2))
        >>> y = np.repeat([0, 1], 30)
        >>> X[y == 1] += 3.0
        >>> a = FisherDiscriminant().fit(X[::2], y[::2])
        >>> b = FisherDiscriminant().fit(X[1::2], y[1::2])
        >>> merged = a.merge(b)
        >>> bool(np.allclose(merged.coef_, FisherDiscriminant().fit(X, y).coef_))
        True
        """
        return self._merge(other)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_statistics(self, statistics, classes):
        """Fit the discriminant from class statistics alone.

        For map-reduce engines: compute :meth:`ClassStatistics.from_data` on each
        part of the data, combine them with :meth:`ClassStatistics.merge`, and fit
        here; the result equals :meth:`fit` on all rows. ``n_features_in_`` is set,
        there are no feature names.

        Parameters
        ----------
        statistics : ClassStatistics
        classes : array-like of shape (n_classes,)
            The labels of the statistics' rows, sorted and distinct.

        Returns
        -------
        self : FisherDiscriminant

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import ClassStatistics, FisherDiscriminant
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(60, 2))
        >>> y = np.repeat(["a", "b"], 30)
        >>> X[y == "b"] += 3.0
        >>> parts = [
        ...     ClassStatistics.from_data(X[rows], y[rows], classes=["a", "b"])
        ...     for rows in np.array_split(np.arange(60), 4)
        ... ]
        >>> stats = parts[0].merge(parts[1]).merge(parts[2].merge(parts[3]))
        >>> clf = FisherDiscriminant().fit_statistics(stats, ["a", "b"])
        >>> bool(np.allclose(clf.coef_, FisherDiscriminant().fit(X, y).coef_))
        True
        """
        return self._fit_statistics(statistics, classes)

    def _accuracy_intercept(
        self, X, y_encoded, sample_weight, stats, intercept, log_priors
    ):
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        if log_priors is not None:
            weights = weights * (np.exp(log_priors) / stats.counts)[y_encoded]
        # Scores as decision_function computes them (in X's dtype), so that the
        # threshold falls between the very values predict will compare.
        scores = np.asarray(X @ self.coef_[0], dtype=np.float64)
        threshold = accuracy_threshold(
            scores, y_encoded == 1, weights, preferred=-intercept
        )
        return np.array([-threshold])

    def predict_log_proba(self, X):
        r"""Log posterior probabilities of the classes; see :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Computed from the scores without exponentiating them first, so that
            very confident rows keep finite logarithms. A lazy dask array, in X's
            row blocks, for a dask X.
        """
        self._check_is_fitted()
        return map_rows(
            self,
            X,
            _block_log_posterior,
            *self._scoring_terms(),
            accept_sparse=self._accept_sparse,
        )

    def predict_proba(self, X):
        r"""Posterior probabilities of the classes under the Gaussian model.

        The model behind the rule: class k is Gaussian with mean ``means_[k]`` and
        the shared covariance :math:`S(\kappa) = S + \kappa Q`, and has prior
        ``priors_[k]``. Its posterior is the softmax of the class scores
        :math:`\bar x_k^\top S(\kappa)^{-1} x - \tfrac12 \bar x_k^\top S(\kappa)^{-1}
        \bar x_k + \log \pi_k` (the sigmoid of ``decision_function`` for two classes),
        and :meth:`predict` takes its most probable class.

        How it differs from ``LinearDiscriminantAnalysis.predict_proba``:

        - κ. When S is singular (p ≥ n - K + 1, or collinear features), the model's
          variance along the null space of S is κ: the smaller κ against the
          spread of X, the closer the posteriors of new rows to 0 and 1. LDA's
          ``svd`` solver drops the null space (κ = ∞ here) and its other solvers
          shrink S instead.
        - The divisor. S is the within-class scatter over ``Σw - K``, the unbiased
          pooled covariance; LDA (scikit-learn 1.9, every solver) divides by the
          number of samples, the maximum-likelihood covariance. Its scores, log
          priors aside, are larger than ours by the factor ``n / (n - K)``: its
          probabilities are slightly more confident (at n = 150, K = 2: 0.936
          against 0.934).
        - The priors. Without ``priors`` ours are equal (the nearest-mean rule of
          :meth:`predict`); LDA's are the class proportions. Pass the proportions
          as ``priors`` for LDA's model.
        - ``threshold="accuracy"`` moves the intercept, and the probabilities with
          it: they are those of the model whose log-odds are ``decision_function``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; each row sums to 1. A lazy dask
            array, in X's row blocks, for a dask X.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import FisherDiscriminant
        >>> X = np.array([[0.0], [1.0], [2.0], [4.0], [5.0], [6.0]])
        >>> y = np.array([0, 0, 0, 1, 1, 1])
        >>> clf = FisherDiscriminant().fit(X, y)
        >>> clf.predict_proba([[3.0], [3.5]]).round(3)
        array([[0.5  , 0.5  ],
               [0.119, 0.881]])
        """
        return np.exp(self.predict_log_proba(X))  # lazy for a dask array

    def transform(self, X):
        """Project X on the discriminant directions.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            ``(X - xbar_) @ scalings_``; for two classes one column, increasing toward
            ``classes_[1]``. A lazy dask array, in X's row blocks, for a dask X.
        """
        self._check_is_fitted()
        return map_rows(
            self, X, _project, self.xbar_, self.scalings_, accept_sparse=True
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
