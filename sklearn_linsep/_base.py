"""The linear-classifier base every classifier of the suite inherits.

It owns what all linear classifiers share: validating X, y and sample weights, encoding
the labels into ``classes_``, the single-class error, one-vs-rest for estimators
whose rule is binary, and ``decision_function`` / ``predict`` from ``coef_`` and
``intercept_``. A subclass's ``fit`` calls ``_validate_fit_data`` and sets ``coef_``
(``(1, p)`` for two classes, ``(K, p)`` otherwise) and ``intercept_``.

For a dask array X, ``decision_function`` and ``predict`` return lazy dask arrays,
computed block by block (:func:`map_row_blocks`).
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    check_array,
    check_is_fitted,
    validate_data,
)

from ._compat import is_dask_array
from ._validation import validate_labelled_data, working_dtype


def _apply_to_block(block, func, dtype, accept_sparse, *args):
    # Validated where the block lives: a NaN is reported by the task that meets it.
    block = check_array(
        block,
        accept_sparse=accept_sparse,
        dtype=dtype,
        ensure_min_samples=0,
        input_name="X",
    )
    return func(block, *args)


def map_row_blocks(estimator, X, func, *args):
    """``func(X_block, *args)`` on every row block of a dask array X, lazily.

    X is checked against the fitted ``n_features_in_`` (and feature names, which a
    dask array has none of) as ``validate_data(reset=False)`` does, and each block
    is validated as the in-memory path validates X (finite; float32 kept, the rest
    float64). ``func`` maps an ``(n, p)`` block to ``(n,)`` or ``(n, q)`` rows; its
    output on an empty block gives the result's dtype and width, so that the lazy
    result declares what the computed one will be.

    Returns
    -------
    result : dask.array.Array
        Row blocks aligned with those of X.
    """
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D dask array X; got {X.ndim} dimension(s). Reshape a "
            "single feature with X.reshape(-1, 1)."
        )
    _check_n_features(estimator, X, reset=False)
    _check_feature_names(estimator, X, reset=False)
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    dtype = working_dtype(X)
    accept_sparse = getattr(estimator, "_accept_sparse", False) and "csr"
    probe = func(np.zeros((0, X.shape[1]), dtype=dtype), *args)
    if probe.ndim == 1:
        options = dict(drop_axis=1, chunks=(X.chunks[0],))
    else:
        options = dict(chunks=(X.chunks[0], (probe.shape[1],)))
    return X.map_blocks(
        _apply_to_block,
        func,
        dtype,
        accept_sparse,
        *args,
        dtype=probe.dtype,
        meta=probe,
        **options,
    )


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

    Subclasses set ``_accept_sparse`` and implement ``fit``. Estimators whose rule is
    binary call :meth:`_fit_one_vs_rest` from it.
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

    def _validate_predict_data(self, X):
        self._check_is_fitted()
        return validate_data(
            self,
            X,
            accept_sparse=self._accept_sparse and "csr",
            dtype=[np.float64, np.float32],
            reset=False,
        )

    def _fit_one_vs_rest(self, X, y_encoded, sample_weight, fit_binary):
        """Stack ``fit_binary(X, c, sample_weight) -> (coef, intercept)`` over classes.

        ``c`` is ``+1`` for the class at hand and ``-1`` for the rest. Two classes need
        a single binary fit (``c = +1`` meaning ``classes_[1]``).
        """
        n_classes = len(self.classes_)
        targets = range(1, 2) if n_classes == 2 else range(n_classes)
        fits = [
            fit_binary(X, np.where(y_encoded == k, 1.0, -1.0), sample_weight)
            for k in targets
        ]
        self.coef_ = np.vstack([coef for coef, _ in fits]).astype(X.dtype, copy=False)
        self.intercept_ = np.array([b for _, b in fits], dtype=X.dtype)
        return fits

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
        if is_dask_array(X):
            self._check_is_fitted()
            return map_row_blocks(self, X, linear_scores, *self._scoring_terms())
        X = self._validate_predict_data(X)
        return linear_scores(X, *self._scoring_terms())

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
        scores = self.decision_function(X)
        if is_dask_array(scores):
            classes = self.classes_
            return scores.map_blocks(
                labels_of,
                classes,
                dtype=classes.dtype,
                meta=classes[:0],
                chunks=(scores.chunks[0],),
                drop_axis=[1] if scores.ndim == 2 else [],
            )
        return labels_of(scores, self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        return tags
