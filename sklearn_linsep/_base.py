"""The linear-classifier base every classifier of the suite inherits.

It owns what all linear classifiers share: validating X, y and sample weights, encoding
the labels into ``classes_``, the single-class error, and ``decision_function`` /
``predict`` from ``coef_`` and ``intercept_``. A subclass's ``fit`` validates (with
``_validate_fit_data``, or through ``_rows.rows_of`` for any backend) and sets
``coef_`` (``(1, p)`` for two classes, ``(K, p)`` otherwise) and ``intercept_``.

For a dask array X, ``decision_function`` and ``predict`` return lazy dask arrays,
computed block by block (``_rows.map_rows``).
"""

import contextlib

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._rows import map_rows
from ._validation import validate_labelled_data


def linear_scores(X, coef, intercept, center=None):
    """``X @ coef.T + intercept``: one column per class, or a vector for one row of
    coefficients (two classes). With ``center``, ``(X - center) @ coef.T +
    intercept`` (``intercept`` then being the one at the centre): data far from
    the origin keep their digits."""
    if center is not None:
        if isinstance(X, np.ndarray):
            X = X - center
        else:  # sparse: centring would fill it
            intercept = intercept - coef @ center
    if isinstance(X, np.ndarray):
        # einsum sums each row on its own, in one order: a row scores the same
        # alone or in any batch (BLAS's blocking does not promise that), so rows
        # that lie exactly on two one-vs-rest margins predict the same either way.
        scores = np.einsum("ij,kj->ik", X, coef) + intercept
    else:
        scores = X @ coef.T + intercept
    return scores.ravel() if scores.shape[1] == 1 else scores


def labels_of(scores, classes):
    """The classes ``predict`` gives for these scores: ``classes[1]`` where a single
    score is positive (``classes[0]`` at 0), else the arg-max."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


def predicted_labels(X, classes, coef, intercept, center=None):
    """The labels ``predict`` gives the rows of X (one pass: the scores of a
    block, then its labels)."""
    return labels_of(linear_scores(X, coef, intercept, center), classes)


@contextlib.contextmanager
def fitted_or_reset(estimator):
    """A fit's fitted state: reset before it, and again if it fails (a pass over
    dask blocks fails after the features were recorded; a raised certificate
    after the classes were)."""
    reset_fitted_state(estimator)
    try:
        yield
    except BaseException:
        reset_fitted_state(estimator)
        raise


def reset_fitted_state(estimator):
    """Delete every fitted attribute (``name_``) of ``estimator``: what a fit does
    before anything can fail, so that a failed fit never leaves the model of an
    earlier one beside the classes of this one (predict would answer with it,
    silently), nor statistics that a later ``partial_fit`` would merge into."""
    for name in [key for key in vars(estimator) if key.endswith("_")]:
        delattr(estimator, name)
    # Private state a fit builds (an estimator lists it): gone with the model.
    for name in getattr(estimator, "_private_fitted_state", ()):
        vars(estimator).pop(name, None)


class LinearClassifierBase(ClassifierMixin, BaseEstimator):
    """Base for linear classifiers: ``decision_function(x) = x @ coef_.T + intercept_``.

    For two classes ``coef_`` has shape ``(1, n_features)`` and ``decision_function``
    returns shape ``(n_samples,)``, positive meaning ``classes_[1]``. For K > 2 classes
    it returns ``(n_samples, K)`` and the prediction is the arg-max.

    Subclasses set ``_accept_sparse`` and implement ``fit``; one whose rule is
    binary loops over ``_rows.one_vs_rest``.
    """

    _accept_sparse = False

    def _validate_fit_data(self, X, y, sample_weight=None):
        """Validated ``(X, y_encoded, sample_weight)``; sets ``classes_``."""
        X, self.classes_, y_encoded, sample_weight = validate_labelled_data(
            X,
            y,
            sample_weight,
            type(self).__name__,
            estimator=self,
            accept_sparse=self._accept_sparse,
        )
        return X, y_encoded, sample_weight

    def __sklearn_is_fitted__(self):
        # The hyperplane is the model: a fit that failed after setting classes_
        # has none, and must say "not fitted" rather than fail on coef_.
        return hasattr(self, "coef_")

    def _check_is_fitted(self):
        """Raise NotFittedError unless fitted (a subclass may say more on why)."""
        check_is_fitted(self)

    def decision_function(self, X):
        """Signed scores of the samples.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, > 0 means ``classes_[1]``; otherwise one score per class.
            A lazy dask array, in X's row blocks, for a dask X.
        """
        self._check_is_fitted()
        return map_rows(
            self,
            X,
            linear_scores,
            *self._scoring_terms(),
            accept_sparse=self._accept_sparse,
        )

    def _scoring_terms(self):
        """``(coef, intercept, center)`` of :func:`linear_scores`: about
        ``center_`` where the fit gave one (data too far from the origin for
        ``coef_ · x + intercept_``), else about the origin."""
        center = getattr(self, "center_", None)
        if center is None:
            return self.coef_, self.intercept_, None
        return self.coef_, self.intercept_at_center_, center

    def predict(self, X):
        """Class labels of the samples.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            A lazy dask array, in X's row blocks, for a dask X.
        """
        self._check_is_fitted()
        return map_rows(
            self,
            X,
            predicted_labels,
            self.classes_,
            *self._scoring_terms(),
            accept_sparse=self._accept_sparse,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        return tags
