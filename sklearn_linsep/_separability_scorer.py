"""The angle of separability of held-out data as a scorer
(:func:`make_separability_scorer`, :data:`separability_scorer`): the angle in the
feature space of the estimator scored."""

from numbers import Real

import numpy as np
from sklearn.metrics._scorer import _BaseScorer
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ._angle import _smallest_angle
from ._separability import (
    _METRICS,
    FINITE_KAPPA,
    _labelled_statistics,
)


def _feature_space(estimator, X):
    """The features a fitted estimator works in: a pipeline's input to its last step,
    a transformer's output, or X itself."""
    if isinstance(estimator, Pipeline):
        return estimator[:-1].transform(X) if len(estimator) > 1 else X
    if hasattr(estimator, "transform"):
        return estimator.transform(X)
    return X


class _SeparabilityScorer(_BaseScorer):
    """Callable ``scorer(estimator, X, y, sample_weight=None)``: the angle of
    (X, y) in the estimator's feature space (see :func:`make_separability_scorer`).
    A scikit-learn scorer: with metadata routing on, ``set_score_request``
    says whether it takes ``sample_weight``."""

    # Not called (the score reads the feature space itself), but a dict of
    # scorers asks every scorer for a method the estimator has.
    _RESPONSE = ("transform", "predict", "decision_function")

    def __init__(self, kappa, metric, tol, degrees=False, shared=False):
        self.kappa = kappa
        self.metric = metric
        self.tol = tol
        self.degrees = degrees
        self.shared = shared
        super().__init__(self._angle, sign=1, kwargs={}, response_method=self._RESPONSE)

    def set_score_request(self, **kwargs):
        """Set the metadata the scorer takes (``sample_weight=True``), with
        metadata routing on. On the shared :data:`separability_scorer` this
        returns a configured copy and leaves the shared one as it was (as
        scikit-learn's ``get_scorer`` hands out copies); use what it returns.

        Parameters
        ----------
        **kwargs : dict
            ``param_name=alias``, as scikit-learn's scorers take it.

        Returns
        -------
        scorer : the scorer with the request
        """
        scorer = self
        if self.shared:
            scorer = _SeparabilityScorer(self.kappa, self.metric, self.tol, self.degrees)
        return _BaseScorer.set_score_request(scorer, **kwargs)

    def _angle(self, y_true, y_pred, sample_weight=None):
        """The score: the angle of ``y_pred``, here the rows in the estimator's
        feature space, labelled ``y_true``; its signature declares the metadata
        it takes (scikit-learn's names: ``y_pred`` is no metadata)."""
        stats, rows = _labelled_statistics(
            y_pred, y_true, sample_weight, "separability_scorer"
        )
        angle = _smallest_angle(stats, self.kappa, self.metric, self.tol, rows)
        return float(np.degrees(angle)) if self.degrees else angle

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        return self._angle(y_true, _feature_space(estimator, X), **kwargs)

    def __repr__(self):
        return (
            f"make_separability_scorer(kappa={self.kappa!r}, metric={self.metric!r}, "
            f"tol={self.tol!r}, degrees={self.degrees!r})"
        )


@validate_params(
    {
        "kappa": [FINITE_KAPPA],
        "metric": [StrOptions(_METRICS)],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "degrees": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_separability_scorer(*, kappa=1.0, metric="euclidean", tol=None, degrees=False):
    """A scorer returning the angle of separability of held-out data.

    For ``scoring=`` in ``cross_val_score`` and ``GridSearchCV``: the angle θ(κ)
    (radians, greater is better) of the held-out fold, measured in the feature space
    of the fitted estimator:

    - a ``Pipeline``: the output of every step before the last (the input of its
      final estimator, whose own parameters therefore never change the score: tune
      the steps before it);
    - a bare transformer (it has ``transform``): its output, e.g. the projection of a
      ``FisherDiscriminant`` or the kept columns of a feature selector;
    - anything else: X itself.

    With K > 2 classes it is the smallest pairwise angle.

    Parameters
    ----------
    kappa : float, default=1.0
    metric : {"euclidean", "mahalanobis"}, default="euclidean"
    tol : float, default=None
        Relative rank tolerance (see :class:`FisherDiscriminant`).
    degrees : bool, default=False
        Score in degrees instead of radians (as the report prints θ).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sample_weight=None) -> float``, a
        scikit-learn scorer: with metadata routing on, request the weights
        with ``scorer.set_score_request(sample_weight=True)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_linsep import FisherDiscriminant, make_separability_scorer
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 3)), rng.normal(2, 1, (50, 3))])
    >>> y = np.repeat([0, 1], 50)
    >>> pipe = make_pipeline(StandardScaler(), FisherDiscriminant())
    >>> scorer = make_separability_scorer(metric="mahalanobis")
    >>> scores = cross_val_score(pipe, X, y, cv=5, scoring=scorer)
    >>> bool(np.all((0 < scores) & (scores < np.pi / 2)))
    True
    >>> in_degrees = make_separability_scorer(metric="mahalanobis", degrees=True)
    >>> np.allclose(cross_val_score(pipe, X, y, cv=5, scoring=in_degrees),
    ...             np.degrees(scores))
    True
    """
    return _SeparabilityScorer(kappa, metric, tol, degrees)


separability_scorer = _SeparabilityScorer(1.0, "euclidean", None, shared=True)
"""The angle of separability (κ = 1, Euclidean) of held-out data, as a scorer.

See :func:`make_separability_scorer`.

Examples
--------
>>> import numpy as np
>>> from sklearn.decomposition import PCA
>>> from sklearn.model_selection import StratifiedKFold, cross_val_score
>>> from sklearn_linsep import separability_scorer
>>> rng = np.random.RandomState(0)
>>> X = rng.normal(size=(80, 5))
>>> y = np.repeat([0, 1], 40)
>>> X[y == 1, 0] += 3.0
>>> angles = cross_val_score(
...     PCA(n_components=2), X, y, cv=StratifiedKFold(4), scoring=separability_scorer
... )
>>> bool(np.all((0 < angles) & (angles < np.pi / 2)))
True
"""
