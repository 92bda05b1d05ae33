r"""The angle of separability (Ben-Israel & Levin 2005, §5) as functions and a
transformer.

Lift the data to :math:`\mathbb R^{p+1}`, class -1 at height z = -1 and class +1 at
z = +1. The lifted covariance is singular in z and the lifted mean difference (d, 2) is
not in its range, so the regularisation S(κ) = diag(S, κ) applies: the separating
hyperplane H(κ) has normal n = (S(κ)⁻¹d, 2/κ) and makes the angle
θ(κ) = arctan(κ‖S(κ)⁻¹d‖ / 2) with the horizontal. θ near 0 means inseparable, near π/2
well separated. The scorer is in :mod:`._separability_scorer`; the results and the
arithmetic from class statistics, which need no validation, in :mod:`._angle`.
"""

from numbers import Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    TransformerMixin,
    _fit_context,
)
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

# AngleResult, HotellingT2Result and MeanDifferenceParts are named here too:
# pickles of estimators fitted before they moved to _angle refer to them here.
from ._angle import (  # noqa: F401
    AngleResult,
    HotellingT2Result,
    MeanDifferenceParts,
    _angle,
    _kappa_length,
    _pairwise,
    _range_of,
    _smallest_angle,
    _two_class_angle,
    mean_difference_parts,
)
from ._rows import map_rows, rows_of
from ._streaming import StatisticsEstimatorMixin
from ._validation import plain_label

_METRICS = {"euclidean", "mahalanobis"}


def _check_two_classes(classes):
    if len(classes) != 2:
        raise ValueError(
            f"The angle of separability compares two classes; got {len(classes)}. "
            "SeparabilityAngle gives the angle of every pair."
        )


def _fitted_statistics(X, y, sample_weight, name, kappa, metric, tol):
    """``(stats, parts, kappa, metric, rows)`` of the two-class angle
    functions: from a fitted estimator given as X (its statistics, and the parts
    of its mean difference when its fit kept them at this tol; no rows), else
    from the rows; ``kappa`` and ``metric`` None are the estimator's, else 1 and
    "euclidean"."""
    if not isinstance(X, StatisticsEstimatorMixin):
        if hasattr(X, "fit") and hasattr(X, "get_params"):  # a Pipeline is a list
            raise TypeError(
                f"{name} takes data X with y, or a fitted FisherDiscriminant, "
                f"FisherDiscriminantCV or SeparabilityAngle; got a "
                f"{type(X).__name__}. For a pipeline, give its last step and the "
                "data its earlier steps transform: pipe[-1], or pipe[:-1]."
                "transform(X) with y."
            )
        if y is None:
            raise ValueError(f"{name} needs y with data X.")
        stats, rows = _labelled_statistics(X, y, sample_weight, name, two=True)
        kappa = 1.0 if kappa is None else kappa
        return stats, None, kappa, metric or "euclidean", rows
    check_is_fitted(X, "statistics_")
    if getattr(X, "_not_fitted_reason", None) is not None:
        raise NotFittedError(
            f"This {type(X).__name__} holds statistics but no model: "
            f"{X._not_fitted_reason}"
        )
    if y is not None or sample_weight is not None:
        raise ValueError(
            f"{name} takes y and sample_weight with data X; given a fitted "
            f"{type(X).__name__}, it uses the statistics of its fit and takes "
            "neither."
        )
    _check_two_classes(X.classes_)
    parts, fitted_tol = getattr(X, "_mean_difference_parts", (None, None))
    if tol is not None and tol != fitted_tol:
        parts = None  # another rank decision: from the statistics again
    if kappa is None and not np.isfinite(_fitted_kappa(X)):
        raise InvalidParameterError(
            f"{name} takes the fitted {type(X).__name__}'s kappa, which is inf: "
            "the angle is 90 degrees there for any data. Pass a finite kappa."
        )
    kappa = _fitted_kappa(X) if kappa is None else kappa
    metric = metric or getattr(X, "metric", "euclidean")
    return X.statistics_, parts, kappa, metric, None


def _fitted_kappa(estimator):
    """The κ of a fitted estimator's model: FisherDiscriminantCV's chosen
    ``kappa_``, else its ``kappa``."""
    chosen = getattr(estimator, "kappa_", None)
    return estimator.kappa if chosen is None else chosen


def _labelled_statistics(X, y, sample_weight, name, estimator=None, two=False):
    """``(stats, rows)``: the class statistics of the angle functions (``two``
    classes exactly) and of the scores, in memory or reduced block by block
    where the blocks of a dask X live, and their :class:`~._rows.Rows`. With an
    estimator, X must have its fitted features."""
    rows = rows_of(X, y, sample_weight, name=name, estimator=estimator, reset=False)
    stats = rows.statistics(per_class=_pairs_need_scatter)
    if two:
        _check_two_classes(rows.classes)
    return stats, rows


def _pairs_need_scatter(n_classes):
    """The pairwise angles of K > 2 classes need the scatter of each class."""
    return n_classes > 2


# κ > 0 and finite: at κ = ∞ the angle is 90° for any data with S†d ≠ 0.
FINITE_KAPPA = Interval(Real, 0, np.inf, closed="neither")

_ANGLE_PARAMS = {
    "X": ["array-like", "sparse matrix", StatisticsEstimatorMixin],
    "y": ["array-like", None],
    "kappa": [FINITE_KAPPA, None],
    "metric": [StrOptions(_METRICS), None],
    "sample_weight": ["array-like", None],
    "tol": [Interval(Real, 0, None, closed="left"), None],
}


@validate_params(_ANGLE_PARAMS, prefer_skip_nested_validation=True)
def separability_statistics(
    X, y=None, *, kappa=None, metric=None, sample_weight=None, tol=None
):
    r"""The angle of separability of two classes, with cos θ, lengths, Hotelling's T².

    .. math:: \theta(\kappa) = \arctan\!\Big(\frac{\kappa L}{2}\Big),\qquad
              \cos\theta(\kappa) = \frac{2/\kappa}{\sqrt{L^2 + 4/\kappa^2}},

    with :math:`L = \|S(\kappa)^{-1} d\|` (``metric="euclidean"``, the paper's) or
    :math:`L = \sqrt{d^\top S(\kappa)^{-1} d}` (``metric="mahalanobis"``), S the pooled
    covariance (divisor n₊ + n₋ - 2) and :math:`S(\kappa)^{-1} = S^\dagger + Q/\kappa`
    when S is singular.

    When S is nonsingular, multiplying X by c divides the Euclidean length by c, and
    the Mahalanobis length is invariant under any nonsingular affine map of X. When S
    is singular neither law holds exactly: κ acts on the null space and has the units
    of X squared.

    κ is finite: at κ = ∞ the angle would be 90° for any data with S†d ≠ 0
    (random labels included), a limit that measures nothing, and is refused
    with ``InvalidParameterError``.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, fitted estimator}
        Data of shape (n_samples, n_features), or a fitted two-class
        FisherDiscriminant, FisherDiscriminantCV (at its ``kappa_``) or
        SeparabilityAngle. A dask array is reduced block
        by block where its blocks live; only the class statistics (O(p²)) come
        to the client. A fitted estimator gives the statistics of its fit
        (``statistics_``) and the solve it made: on sparse text that is the
        whole cost, not paid twice.
    y : array-like or dask array of shape (n_samples,), default=None
        Exactly two classes; the second in sorted order is the lifted +1.
        Required with data X, refused with a fitted estimator.
    kappa : float, default=None
        The regularisation κ > 0 (the height of the lifted classes is ±1).
        None: the fitted estimator's ``kappa``, or 1.0 with data X.
    metric : {"euclidean", "mahalanobis"}, default=None
        The length L. "euclidean" reproduces the paper. None: the fitted
        estimator's ``metric`` (a SeparabilityAngle's), else "euclidean".
    sample_weight : array-like or dask array of shape (n_samples,), default=None
        Non-negative frequency weights.
    tol : float, default=None
        Relative rank tolerance of S (see :class:`FisherDiscriminant`).

    Returns
    -------
    result : AngleResult

    Examples
    --------
    >>> from sklearn_linsep import load_breast_cancer_wisconsin, separability_statistics
    >>> X, y = load_breast_cancer_wisconsin(return_X_y=True)
    >>> result = separability_statistics(X, y)
    >>> round(result.degrees, 2), round(result.scaled_distance, 4)
    (43.01, 1.8654)
    >>> result.hotelling.pvalue < 1e-100
    True

    From a fitted estimator, with no second pass over X:

    >>> from sklearn_linsep import FisherDiscriminant
    >>> fisher = FisherDiscriminant().fit(X, y)
    >>> round(separability_statistics(fisher).degrees, 2)
    43.01
    """
    return _angle_result(X, y, "separability_statistics", kappa, metric,
                         sample_weight, tol)  # fmt: skip


def _angle_result(X, y, name, kappa, metric, sample_weight, tol):
    """The AngleResult of the function ``name`` (which its errors name)."""
    stats, parts, kappa, metric, rows = _fitted_statistics(
        X, y, sample_weight, name, kappa, metric, tol
    )
    return _two_class_angle(stats, kappa, metric, tol, parts, _range_of(rows, 0, 1))[0]


@validate_params(_ANGLE_PARAMS, prefer_skip_nested_validation=True)
def separability_angle(
    X, y=None, *, kappa=None, metric=None, sample_weight=None, tol=None
):
    r"""The angle of separability θ(κ) of two classes, in radians.

    :math:`\theta(\kappa) = \arctan(\kappa \|S(\kappa)^{-1} d\| / 2)` in [0, π/2]: near
    0 the classes are inseparable, near π/2 well separated. See
    :func:`separability_statistics` for cos θ, the lengths and Hotelling's test.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, fitted estimator}
        Data of shape (n_samples, n_features), or a fitted two-class
        FisherDiscriminant, FisherDiscriminantCV or SeparabilityAngle.
        See :func:`separability_statistics`.
    y : array-like or dask array of shape (n_samples,), default=None
        Exactly two classes (with data X only).
    kappa : float, default=None
        None: the fitted estimator's ``kappa``, or 1.0 with data X.
    metric : {"euclidean", "mahalanobis"}, default=None
        ``"euclidean"`` is the paper's ‖S⁻¹d‖ (depends on the units of X);
        ``"mahalanobis"`` is √(dᵀS⁻¹d) (affine-invariant when S is nonsingular).
        None: the fitted estimator's ``metric``, else "euclidean".
    sample_weight : array-like or dask array of shape (n_samples,), default=None
    tol : float, default=None

    Returns
    -------
    angle : float
        θ(κ) in radians.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import separability_angle
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])

    Here S is singular and u = S†d + Qd/κ = (3, 0), so θ = arctan(3/2):

    >>> round(float(np.degrees(separability_angle(X, y))), 2)
    56.31
    """
    return _angle_result(X, y, "separability_angle", kappa, metric, sample_weight,
                         tol).angle  # fmt: skip


def _signed_distances(X, unit_normals, offsets):
    return np.asarray(X @ unit_normals.T - offsets).astype(X.dtype, copy=False)


@validate_params(
    {
        "X": ["array-like", "sparse matrix", StatisticsEstimatorMixin],
        "y": ["array-like", None],
        "kappas": ["array-like", None],  # None: said as required, below
        "metric": [StrOptions(_METRICS), None],
        "sample_weight": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def separability_curve(
    X, y=None, kappas=None, *, metric=None, sample_weight=None, tol=None
):
    r"""The angle of separability θ(κ) of two classes at every κ of ``kappas``.

    :math:`u(\kappa) = S^\dagger d + Q d / \kappa` is affine in 1/κ, so one pass over
    the data and one decomposition of S give the whole curve: each κ then costs
    O(1), where :func:`separability_angle` at each κ would decompose S again. The
    values are those of :func:`separability_angle`, κ by κ, to the last bit.
    Plotting θ against κ is the paper's figure.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, fitted estimator}
        Data of shape (n_samples, n_features), or a fitted two-class
        FisherDiscriminant, FisherDiscriminantCV or SeparabilityAngle.
        See :func:`separability_statistics`.
    y : array-like or dask array of shape (n_samples,), default=None
        Exactly two classes (with data X only).
    kappas : array-like of shape (n_kappas,)
        Positive finite values of κ. Required.
    metric : {"euclidean", "mahalanobis"}, default=None
        None: the fitted estimator's ``metric``, else "euclidean".
    sample_weight : array-like or dask array of shape (n_samples,), default=None
    tol : float, default=None
        Relative rank tolerance of S (see :class:`FisherDiscriminant`).

    Returns
    -------
    angles : ndarray of shape (n_kappas,)
        θ(κ) in radians, in [0, π/2].

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import separability_angle, separability_curve
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(20, 50))  # p > n: S is singular and κ matters
    >>> y = np.repeat([0, 1], 10)
    >>> kappas = [0.01, 0.1, 1.0, 10.0, 100.0]
    >>> curve = separability_curve(X, y, kappas)
    >>> bool(np.all(np.diff(curve) > 0))  # here θ grows with κ
    True
    >>> bool(curve[2] == separability_angle(X, y, kappa=1.0))
    True
    """
    if kappas is None:
        raise InvalidParameterError(
            "The 'kappas' parameter of separability_curve is required: the values "
            "of κ."
        )
    kappas = np.asarray(kappas, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(kappas) & (kappas > 0)):
        raise InvalidParameterError(
            "The 'kappas' parameter of separability_curve must be positive finite "
            f"numbers; got {kappas.tolist()!r}."
        )
    stats, parts, _, metric, rows = _fitted_statistics(
        X, y, sample_weight, "separability_curve", None, metric, tol
    )
    if parts is None:  # the factors do not depend on κ
        reg = stats.regularized_inverse(1.0, tol)
        parts = mean_difference_parts(stats, reg, _range_of(rows, 0, 1))
    pinv_part, null_part = parts.pinv, parts.null
    d = stats.mean_difference(1, 0)
    pinv_sq, null_sq = float(pinv_part @ pinv_part), float(null_part @ null_part)
    d_pinv = max(float(d @ pinv_part), 0.0)
    return np.array(
        [
            _angle(_kappa_length(kappa, pinv_sq, null_sq, metric, d_pinv))[0]
            for kappa in kappas
        ]
    )


class SeparabilityAngle(
    StatisticsEstimatorMixin,
    TransformerMixin,
    BaseEstimator,
):
    r"""The angle of separability θ(κ) as a transformer.

    ``fit`` computes θ(κ) = arctan(κ‖S(κ)⁻¹d‖/2) and the lifted hyperplane H(κ) with
    normal n = (S(κ)⁻¹d, 2/κ); ``transform`` returns the signed distance of each sample
    to the trace of H(κ) on z = 0 (Fisher's midpoint hyperplane
    :math:`u^\top x = \tfrac12 u^\top(\bar x_+ + \bar x_-)`, u = S(κ)⁻¹d), positive on
    the side of ``classes_[1]``; ``score(X, y)`` returns the angle of (X, y) itself, so
    ``cross_val_score(SeparabilityAngle(), X, y, cv=StratifiedKFold())`` gives the
    angles of the held-out folds. Pass a stratified splitter: this is not a classifier,
    so an integer ``cv`` means plain ``KFold``, whose folds may hold one class only on
    sorted data.

    With K > 2 classes every pair i < j gets its own angle (``pairwise_angles_``) and
    its own column in ``transform``; ``angle_`` and ``score`` are the smallest pairwise
    angle, the least separable pair.

    Everything is computed from the class statistics (:class:`ClassStatistics`),
    which merge exactly: ``fit`` takes dask arrays and reduces them block by block,
    :meth:`partial_fit` takes chunks, :meth:`merge` combines two estimators and
    :meth:`fit_statistics` takes statistics merged elsewhere, all equal to one fit
    on all rows.

    θ(κ) is a family of numbers, one per κ, not one number: κ weighs the null-space
    term of S(κ) = S + κQ, and the lifted axis on which the classes sit (z = ±1) is
    always in that null space, so θ grows with κ even when S is nonsingular (on the
    bundled Wisconsin data 5.3°, 43.0°, 83.9° and 89.4° at κ = 0.1, 1, 10, 100).
    Compare data sets at one κ. **Never tune κ by θ itself**:
    ``GridSearchCV(SeparabilityAngle(), {"kappa": [...]})`` scores by ``score``,
    the angle, and so always picks the largest κ. Tune κ by a classifier's held-out
    score instead (:class:`FisherDiscriminantCV`, or ``GridSearchCV`` over
    :class:`FisherDiscriminant`), where S is singular and κ changes the hyperplane.

    Parameters
    ----------
    kappa : float, default=1.0
        The regularisation κ > 0. θ grows with it (see above): compare at one κ.
    metric : {"euclidean", "mahalanobis"}, default="euclidean"
        The length behind θ: the paper's ‖S(κ)⁻¹d‖ or the (for nonsingular S)
        affine-invariant
        √(dᵀS(κ)⁻¹d). The hyperplane is the same for both.
    tol : float, default=None
        Relative rank tolerance of S (see :class:`FisherDiscriminant`).

    Attributes
    ----------
    angle_ : float
        θ(κ) in radians (for K > 2 the smallest pairwise angle).
    cos_angle_ : float
    scaled_distance_ : float
        ‖S(κ)⁻¹d‖ of the (least separable) pair.
    mahalanobis_distance_ : float
        √(dᵀS(κ)⁻¹d) of that pair (the length behind ``metric="mahalanobis"``).
    normal_ : ndarray of shape (n_features + 1,)
        Normal (S(κ)⁻¹d, 2/κ) of the lifted hyperplane of that pair.
    hotelling_ : HotellingT2Result or None
        Hotelling's T² test of θ = 0 for that pair, None where undefined.
    least_separable_pair_ : tuple
        The two classes behind ``angle_``.
    pairwise_angles_ : ndarray of shape (n_classes, n_classes)
        Symmetric matrix of the pairwise angles in radians (zero diagonal).
    classes_ : ndarray of shape (n_classes,)
    statistics_ : ClassStatistics
        The class statistics everything above is computed from (with the scatter
        of each class for K > 2); what :meth:`partial_fit` and :meth:`merge`
        accumulate.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined when X has feature names that are all strings (never for a dask
        array).

    See Also
    --------
    separability_angle : The same angle as a function.
    make_separability_scorer : The angle of held-out data as a scorer.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import StratifiedKFold, cross_val_score
    >>> from sklearn_linsep import SeparabilityAngle
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(3, 1, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> est = SeparabilityAngle().fit(X, y)
    >>> bool(0 < est.angle_ < np.pi / 2)
    True
    >>> est.transform(X[:2]).shape
    (2, 1)
    >>> cross_val_score(SeparabilityAngle(), X, y, cv=StratifiedKFold(3)).shape
    (3,)
    """

    _parameter_constraints: dict = {
        "kappa": [FINITE_KAPPA],
        "metric": [StrOptions(_METRICS)],
        "tol": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, kappa=1.0, *, metric="euclidean", tol=None):
        self.kappa = kappa
        self.metric = metric
        self.tol = tol

    # Not a classifier: scikit-learn's checks call partial_fit without classes.
    _classes_from_first_chunk = True

    def _per_class(self, n_classes):
        return _pairs_need_scatter(n_classes)

    def _model(self, stats, rows=None):
        """The fitted attributes that the class statistics define (each pair's
        null-space part read by its rows' proof, where a fit has ``rows``)."""
        parts = None
        if stats.n_classes == 2:
            reg = stats.regularized_inverse(self.kappa, self.tol)
            parts = mean_difference_parts(stats, reg, _range_of(rows, 0, 1))
        pairs = _pairwise(stats, self.kappa, self.metric, self.tol, parts, rows)
        n_classes = stats.n_classes
        pairwise_angles = np.zeros((n_classes, n_classes))
        for (i, j), (result, _, _) in pairs.items():
            pairwise_angles[i, j] = pairwise_angles[j, i] = result.angle
        (i, j), (result, _, _) = min(pairs.items(), key=lambda item: item[1][0].angle)
        return {
            "pairwise_angles_": pairwise_angles,
            "angle_": result.angle,
            "cos_angle_": result.cos_angle,
            "scaled_distance_": result.scaled_distance,
            "mahalanobis_distance_": result.mahalanobis_distance,
            "normal_": result.normal,
            "hotelling_": result.hotelling,
            "least_separable_pair_": (self.classes_[i], self.classes_[j]),
            "pairs_": [(self.classes_[a], self.classes_[b]) for a, b in pairs],
            "_unit_normals": np.array([unit for _, unit, _ in pairs.values()]),
            "_offsets": np.array([offset for _, _, offset in pairs.values()]),
        } | ({} if parts is None else {"_mean_difference_parts": (parts, self.tol)})

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Compute the angle(s) and the hyperplane(s).

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A dask array is reduced block by block where its blocks live; nothing
            of size n_samples comes to the client.
        y : array-like or dask array of shape (n_samples,)
        sample_weight : array-like or dask array of shape (n_samples,), default=None

        Returns
        -------
        self : SeparabilityAngle
        """
        stats, rows = self._statistics_for_fit(X, y, sample_weight)
        self._set_statistics(stats, strict=True, rows=rows)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the fit, exactly.

        The class statistics of the chunk are merged into ``statistics_``
        (:meth:`ClassStatistics.merge`), so after any sequence of chunks the angles
        and hyperplanes equal one :meth:`fit` on all their rows, up to rounding,
        whatever the chunk sizes and order. A call after :meth:`fit` adds to it.

        Until every class has positive weight the estimator keeps accumulating but
        is not fitted: ``transform`` raises ``NotFittedError`` saying why.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            A chunk of rows; its number of features must stay that of the first.
        y : array-like of shape (n_samples,)
            Labels of the chunk, each in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label. On the first call it may be left out only if that chunk
            holds every class (they are then taken from it, and a later label
            outside them is an error); pass it whenever a chunk may miss a class.
            Optional afterwards, where it must be the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self : SeparabilityAngle

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import SeparabilityAngle
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(90, 2))
        >>> y = np.repeat([0, 1, 2], 30)
        >>> X[y == 1] += 3.0
        >>> est = SeparabilityAngle()
        >>> for rows in np.array_split(np.arange(90), 6):  # one class per chunk
        ...     est = est.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        >>> full = SeparabilityAngle().fit(X, y)
        >>> bool(np.isclose(est.angle_, full.angle_, rtol=1e-12))
        True
        """
        return self._partial_fit(X, y, classes, sample_weight)

    def merge(self, other):
        """The angles of the rows of both ``self`` and ``other``.

        ``other`` is a SeparabilityAngle of the same parameters, fitted or
        partially fitted on other rows of the same classes and features; the result
        equals one :meth:`fit` on the union of their rows. Neither is changed.

        Parameters
        ----------
        other : SeparabilityAngle

        Returns
        -------
        merged : SeparabilityAngle
            A new estimator; not fitted (but mergeable and ready for
            :meth:`partial_fit`) if some class still has no weight.

        Raises
        ------
        ValueError
            For different parameters, classes, or numbers or names of features.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import SeparabilityAngle
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(60, 2))
        >>> y = np.repeat([0, 1], 30)
        >>> X[y == 1] += 2.0
        >>> a = SeparabilityAngle().fit(X[:40], y[:40])
        >>> # rows 40 to 59 are of class 1 only: fit would refuse them, not partial_fit
        >>> b = SeparabilityAngle().partial_fit(X[40:], y[40:], classes=[0, 1])
        >>> merged = a.merge(b)
        >>> bool(np.isclose(merged.angle_, SeparabilityAngle().fit(X, y).angle_))
        True
        """
        return self._merge(other)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_statistics(self, statistics, classes):
        """Compute the angle(s) and hyperplane(s) from class statistics alone.

        For map-reduce engines: compute :meth:`ClassStatistics.from_data` on each
        part of the data (with ``per_class=True`` for more than two classes),
        combine them with :meth:`ClassStatistics.merge`, and fit here; the result
        equals :meth:`fit` on all rows. ``n_features_in_`` is set, there are no
        feature names.

        Parameters
        ----------
        statistics : ClassStatistics
        classes : array-like of shape (n_classes,)
            The labels of the statistics' rows, sorted and distinct.

        Returns
        -------
        self : SeparabilityAngle

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import ClassStatistics, SeparabilityAngle
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(90, 2))
        >>> y = np.repeat([0, 1, 2], 30)
        >>> X[y == 2] -= 3.0
        >>> parts = [
        ...     ClassStatistics.from_data(X[r], y[r], [0, 1, 2], per_class=True)
        ...     for r in (slice(0, 45), slice(45, 90))
        ... ]
        >>> stats = parts[0].merge(parts[1])
        >>> est = SeparabilityAngle().fit_statistics(stats, classes=[0, 1, 2])
        >>> bool(np.isclose(est.angle_, SeparabilityAngle().fit(X, y).angle_))
        True
        """
        return self._fit_statistics(statistics, classes)

    def transform(self, X):
        """Signed distance of each sample to the trace of H(κ) on z = 0.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        distances : ndarray of shape (n_samples, n_pairs)
            One column per pair of classes (one column for two classes), positive on
            the side of the pair's second class. A lazy dask array, in X's row
            blocks, for a dask X.
        """
        self._check_is_fitted()
        return map_rows(
            self,
            X,
            _signed_distances,
            self._unit_normals,
            self._offsets,
            accept_sparse=True,
        )

    def get_feature_names_out(self, input_features=None):
        """The output columns, named by their pair of classes.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Checked against the fitted feature names, as scikit-learn does; the
            output names do not depend on them.

        Returns
        -------
        feature_names_out : ndarray of str objects
            ``separabilityangle_<a>_vs_<b>`` for each pair (a, b) of ``pairs_``,
            in ``transform``'s column order.
        """
        self._check_is_fitted()
        _check_feature_names_in(self, input_features, generate_names=False)
        return np.asarray(
            [f"separabilityangle_{plain_label(a)}_vs_{plain_label(b)}"
             for a, b in self.pairs_],
            dtype=object,
        )  # fmt: skip

    def score(self, X, y, sample_weight=None):
        """The angle of separability of (X, y) itself, in radians.

        For K > 2 classes, the smallest pairwise angle (the least separable pair).

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
        y : array-like or dask array of shape (n_samples,)
        sample_weight : array-like or dask array of shape (n_samples,), default=None

        Returns
        -------
        angle : float
        """
        self._check_is_fitted()
        stats, rows = _labelled_statistics(
            X, y, sample_weight, f"{type(self).__name__}.score", self
        )
        return _smallest_angle(stats, self.kappa, self.metric, self.tol, rows)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True
        return tags
