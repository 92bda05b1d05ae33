"""Estimators whose fitted model is a function of the class statistics alone.

:class:`FisherDiscriminant` and :class:`SeparabilityAngle` need of the data only the
per-class counts, means and centred scatter (:class:`ClassStatistics`), which merge
exactly. So the same model comes from one pass over X in memory, from a dask array
reduced block by block, from chunks given to ``partial_fit``, from two estimators
merged, or from statistics a map-reduce engine merged (``fit_statistics``). This
mixin holds that common path; each estimator supplies ``_model`` (statistics to
fitted attributes: its maths, in one place) and the checks of its parameters.
"""

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._base import fitted_or_reset, reset_fitted_state
from ._rows import in_memory, rows_of
from ._stats import ClassStatistics, class_statistics
from ._validation import (
    check_class_totals,
    check_classes,
    validate_chunk,
)


def _same_parameter(a, b):
    if a is None or b is None:
        return a is b
    if np.ndim(a) or np.ndim(b):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))
    return bool(a == b)


class StatisticsEstimatorMixin:
    """``fit`` / ``partial_fit`` / ``merge`` / ``fit_statistics`` on class statistics.

    A subclass implements ``_model(stats) -> dict`` of fitted attributes (raising
    ValueError when the statistics define none) and may override
    ``_check_model_params``, ``_check_streaming`` and ``_per_class``.
    """

    # Classifiers need ``classes`` on the first partial_fit, as SGDClassifier does;
    # a transformer may take them from its first chunk (scikit-learn's checks call
    # a non-classifier's partial_fit without them).
    _classes_from_first_chunk = False

    # Statistics take sparse X as it is: its rows centred implicitly (wide data)
    # or its scatter formed by one sparse product, never densified.
    _accept_sparse = True

    def _per_class(self, n_classes):
        """Whether the statistics keep the scatter of each class."""
        return False

    def _check_model_params(self, n_classes, n_features):
        """Raise for parameters that cannot fit K classes and p features."""

    def _check_streaming(self, method):
        """Raise if the model needs more than the statistics (``method`` names the
        caller that only has them)."""

    def _model(self, stats):
        raise NotImplementedError

    # --- fitted state ---

    def __sklearn_is_fitted__(self):
        return hasattr(self, "statistics_") and self._not_fitted_reason is None

    def _check_is_fitted(self):
        reason = getattr(self, "_not_fitted_reason", None)
        if hasattr(self, "statistics_") and reason is not None:
            raise NotFittedError(
                f"This {type(self).__name__} instance has accumulated class statistics "
                f"but they define no model yet: {reason} Keep calling partial_fit (or "
                "merge) with more rows before using it."
            )
        check_is_fitted(self)

    def _set_statistics(self, stats, *, strict, **model_args):
        """Store ``stats`` and the model they define (``model_args`` go to
        ``_model``).

        ``strict`` (fit, fit_statistics) raises when they define none; otherwise
        (partial_fit, merge) the estimator keeps the statistics, reports not fitted
        and says why at prediction: more rows may still define a model (a class
        unseen so far, weights too small so far).
        """
        try:
            check_class_totals(stats.counts, self.classes_)
            model = self._model(stats, **model_args)
        except ValueError as error:
            if strict:
                raise
            model, reason = {}, str(error)
        else:
            reason = None
        for name in getattr(self, "_model_names", ()):
            self.__dict__.pop(name, None)
        for name, value in model.items():
            setattr(self, name, value)
        self._model_names = tuple(model)
        self._not_fitted_reason = reason
        self.statistics_ = stats

    # --- the four ways in ---

    def _statistics_for_fit(self, X, y, sample_weight):
        """``(stats, rows)`` of a fit on all rows (:func:`~._rows.rows_of`: in
        memory, or reduced where the blocks of a dask array live, so that nothing
        of size n comes to the client).

        Sets ``classes_``, ``n_features_in_`` and the feature names.
        """
        with fitted_or_reset(self):
            rows = rows_of(
                X,
                y,
                sample_weight,
                name=type(self).__name__,
                estimator=self,
                finite=False,  # checked in the statistics' pass
            )
            stats = rows.statistics(per_class=self._per_class)
            self._check_model_params(len(rows.classes), rows.n_features)
            self.classes_ = rows.classes
        return stats, rows

    @staticmethod
    def _classes_of_first_chunk(y, name):
        """The labels of a first chunk given without ``classes``: two at least."""
        labels = np.unique(np.asarray(y).ravel())
        if labels.shape[0] < 2:
            raise ValueError(
                f"The first chunk given to {name}.partial_fit holds one class only "
                f"({labels.tolist()!r}); pass classes=[...] listing every label on "
                "the first call."
            )
        return labels

    def _partial_fit(self, X, y, classes, sample_weight):
        name = type(self).__name__
        if not in_memory(X, y, sample_weight):
            raise TypeError(
                f"{name}.partial_fit takes in-memory chunks; pass a whole dask array "
                "to fit, which reduces it block by block where the blocks live."
            )
        self._check_streaming("partial_fit")
        first_call = not hasattr(self, "statistics_")
        if first_call:
            if classes is None and not self._classes_from_first_chunk:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: a "
                    "chunk need not hold every class, so the labels cannot be "
                    "taken from it."
                )
            if classes is None:
                classes = self._classes_of_first_chunk(y, name)
            classes = check_classes(np.unique(classes), name)
        else:
            if classes is not None and not _same_parameter(
                np.unique(classes), self.classes_
            ):
                raise ValueError(
                    f"classes={np.asarray(classes).tolist()!r} is not the same as on "
                    f"the first call to partial_fit: {self.classes_.tolist()!r}."
                )
            classes = self.classes_
        X, y_encoded, sample_weight = validate_chunk(
            self, X, y, sample_weight, classes, reset=first_call, accept_sparse=True
        )
        n_classes = len(classes)
        self._check_model_params(n_classes, X.shape[1])
        chunk = class_statistics(
            X, y_encoded, n_classes, sample_weight, per_class=self._per_class(n_classes)
        )
        if first_call:
            self.classes_ = classes
            stats = chunk
        else:
            stats = self.statistics_.merge(chunk)
        self._set_statistics(stats, strict=False)
        return self

    def _merge(self, other):
        name = type(self).__name__
        if type(other) is not type(self):
            raise TypeError(
                f"{name}.merge takes another {name}; got {type(other).__name__}."
            )
        for which, estimator in (("this", self), ("the other", other)):
            if not hasattr(estimator, "statistics_"):
                raise NotFittedError(
                    f"Cannot merge: {which} {name} has no statistics yet; fit or "
                    "partial_fit it first."
                )
        self._check_streaming("merge")
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        differing = [
            f"{key}={mine[key]!r} and {theirs[key]!r}"
            for key in mine
            if not _same_parameter(mine[key], theirs[key])
        ]
        if differing:
            raise ValueError(
                f"Cannot merge {name}s of different parameters: {'; '.join(differing)}."
            )
        if not _same_parameter(self.classes_, other.classes_):
            raise ValueError(
                f"Cannot merge {name}s of different classes: "
                f"{self.classes_.tolist()!r} and {other.classes_.tolist()!r}. Pass "
                "the same classes to the first partial_fit of each."
            )
        if self.n_features_in_ != other.n_features_in_:
            raise ValueError(
                f"Cannot merge {name}s fitted on {self.n_features_in_} and "
                f"{other.n_features_in_} features."
            )
        names = getattr(self, "feature_names_in_", None)
        if not _same_parameter(names, getattr(other, "feature_names_in_", None)):
            raise ValueError(f"Cannot merge {name}s fitted on different feature names.")
        merged = clone(self)
        merged.classes_ = self.classes_
        merged.n_features_in_ = self.n_features_in_
        if names is not None:
            merged.feature_names_in_ = names
        merged._set_statistics(self.statistics_.merge(other.statistics_), strict=False)
        return merged

    def _fit_statistics(self, statistics, classes):
        name = type(self).__name__
        if not isinstance(statistics, ClassStatistics):
            raise TypeError(
                f"{name}.fit_statistics takes a ClassStatistics; got "
                f"{type(statistics).__name__}."
            )
        self._check_streaming("fit_statistics")
        classes = check_classes(classes, name)
        if len(classes) != statistics.n_classes:
            raise ValueError(
                f"{len(classes)} classes given for statistics of "
                f"{statistics.n_classes} classes."
            )
        self._check_model_params(len(classes), statistics.n_features)
        reset_fitted_state(self)
        self.classes_ = classes
        self.n_features_in_ = statistics.n_features
        self._set_statistics(statistics, strict=True)
        return self
