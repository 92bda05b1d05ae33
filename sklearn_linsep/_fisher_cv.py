"""Fisher's discriminant with κ chosen by cross-validation
(:class:`FisherDiscriminantCV`): one decomposition of each fold's S serves every
κ, and the choice is ``GridSearchCV``'s: the same fold scores, means, ranks,
routing of metadata, failures and warnings."""

import numbers
import warnings
from dataclasses import replace
from inspect import signature

import numpy as np
import sklearn
from sklearn.base import _fit_context
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import accuracy_score, check_scoring, get_scorer_names
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.fixes import parse_version
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    _raise_for_params,
    _routing_enabled,
    process_routing,
)
from sklearn.utils.validation import _check_method_params, indexable

from ._fisher import FisherDiscriminant
from ._rows import in_memory
from ._validation import PositiveValues


def _never(estimator):
    return False


# Since scikit-learn 1.9, GridSearchCV passes sample_weight to a scorer that
# takes it; before, to the fits only.
_SCORES_TAKE_WEIGHTS = parse_version(sklearn.__version__) >= parse_version("1.9")


def _accepts_weights(scorer):
    if hasattr(scorer, "_accept_sample_weight"):
        return scorer._accept_sample_weight()
    return "sample_weight" in signature(scorer).parameters


def _takes_weights(scorer):
    """Whether GridSearchCV would pass sample_weight to this scorer."""
    return _SCORES_TAKE_WEIGHTS and _accepts_weights(scorer)


class FisherDiscriminantCV(FisherDiscriminant):
    r"""Fisher's discriminant with κ chosen by cross-validation, each fold's
    decomposition reused for every κ.

    The direction :math:`u(\kappa) = S^\dagger d + Q d/\kappa` is affine in 1/κ:
    once a fold's pooled covariance S is decomposed (the costly part: O(p³), or
    O(n²p) in the span of the n samples when p > n), every
    κ costs a solve and a score. ``GridSearchCV(FisherDiscriminant(), {"kappa":
    kappas}, cv=cv)`` decomposes S again for every κ of every fold; this estimator
    does it once per fold, and scores and chooses exactly as that search does (the
    same fold scores, the same κ: the first of the best mean scores), then refits
    on all rows at the chosen κ, as ``RidgeCV`` and ``LogisticRegressionCV`` do.

    Parameters
    ----------
    kappas : array-like of shape (n_kappas,), default=(0.01, 0.1, 1, 10, 100, inf)
        The values of κ > 0 to try (``np.inf``: the Moore–Penrose inverse alone).
        κ has the units of X squared and acts only where S is singular (more
        features than samples, or dependent features).
    cv : int, cross-validation generator or iterable, default=None
        As in ``GridSearchCV``: None is 5-fold ``StratifiedKFold``.
    scoring : str or callable, default=None
        As in ``GridSearchCV``; None is the accuracy (``score``).
    threshold : {"midpoint", "accuracy"}, default="midpoint"
        As in :class:`FisherDiscriminant`.
    priors : array-like of shape (n_classes,), default=None
        As in :class:`FisherDiscriminant`.
    n_components : int, default=None
        As in :class:`FisherDiscriminant`.
    store_covariance : bool, default=False
        As in :class:`FisherDiscriminant`.
    tol : float, default=None
        As in :class:`FisherDiscriminant`.

    Attributes
    ----------
    kappa_ : float
        The κ chosen.
    best_score_ : float
        Its mean cross-validated score.
    cv_results_ : dict of ndarray
        As ``GridSearchCV``'s: ``param_kappa``, ``params``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score`` and
        ``rank_test_score``, computed as it computes them (the means along the
        folds of a (n_kappas, n_folds) array, nan means ranked last, the first
        best kept). A κ whose fit fails on a fold scores nan there (with a
        ``FitFailedWarning``), as ``GridSearchCV(error_score=np.nan)`` scores it;
        where every fit fails, ``fit`` raises as that search does; where every
        mean score is nan, it warns and refits the first κ.
    scorer_ : callable
        The scorer of ``scoring``.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The refit's, as every other fitted attribute of :class:`FisherDiscriminant`
        (``intercept_``, ``classes_``, ``means_``, ``rank_``, ``null_space_dim_``,
        ``scalings_``, ``explained_variance_ratio_``, ``xbar_``, ``statistics_``,
        ``n_features_in_``, ``feature_names_in_``): fitted on all rows at
        ``kappa_``.

    See Also
    --------
    FisherDiscriminant : The discriminant at one κ.
    separability_curve : The angle of separability at every κ, the same way.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_linsep import FisherDiscriminant, FisherDiscriminantCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(40, 100))   # p > n: κ matters
    >>> y = np.repeat([0, 1], 20)
    >>> X[y == 1, :5] += 1.0
    >>> kappas = [0.01, 0.1, 1.0, 10.0, np.inf]
    >>> clf = FisherDiscriminantCV(kappas=kappas, cv=5).fit(X, y)
    >>> search = GridSearchCV(FisherDiscriminant(), {"kappa": kappas}, cv=5).fit(X, y)
    >>> clf.kappa_ == search.best_params_["kappa"]
    True
    >>> bool(np.array_equal(clf.cv_results_["mean_test_score"],
    ...                     search.cv_results_["mean_test_score"]))
    True
    """

    _parameter_constraints: dict = {
        **{
            key: value
            for key, value in FisherDiscriminant._parameter_constraints.items()
            if key != "kappa"
        },
        "kappas": [PositiveValues()],
        "cv": ["cv_object"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
    }

    def __init__(
        self,
        kappas=(0.01, 0.1, 1.0, 10.0, 100.0, np.inf),
        *,
        cv=None,
        scoring=None,
        threshold="midpoint",
        priors=None,
        n_components=None,
        store_covariance=False,
        tol=None,
    ):
        self.kappas = kappas
        self.cv = cv
        self.scoring = scoring
        self.threshold = threshold
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol

    # The folds need the rows: no statistics-only ways in.
    partial_fit = available_if(_never)(FisherDiscriminant.partial_fit)
    merge = available_if(_never)(FisherDiscriminant.merge)
    fit_statistics = available_if(_never)(FisherDiscriminant.fit_statistics)

    def _at(self, kappa):
        """The FisherDiscriminant of these parameters at ``kappa``."""
        own = ("kappas", "cv", "scoring")
        shared = {
            key: value
            for key, value in self.get_params(deep=False).items()
            if key not in own
        }
        model = FisherDiscriminant(kappa=kappa, **shared)
        if _routing_enabled():  # the scorer of scoring=None asks what self asks
            model.set_score_request(**self._get_metadata_request().score.requests)
        return model

    def _model(self, stats, reg=None):
        return self._at(self.kappa_)._model(stats, reg)

    def get_metadata_routing(self):
        """The metadata routing of this object (see scikit-learn's User Guide on
        metadata routing): ``sample_weight`` for its own fits
        (``set_fit_request``), the splitter's ``groups``, and the scorer's
        requests (``set_score_request`` on the scorer).

        Returns
        -------
        routing : MetadataRouter
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                splitter=self.cv,  # as given: a generator is consumed once
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
            .add(
                scorer=self._scorer(),
                method_mapping=MethodMapping()
                .add(caller="fit", callee="score")
                .add(caller="score", callee="score"),
            )
        )

    def _scorer(self):
        return check_scoring(self._at(1.0), scoring=self.scoring)

    def _routed(self, method, sample_weight, params):
        """``(splitter params, scorer params)`` as GridSearchCV routes them: by
        the requests with metadata routing on; else ``groups`` to the splitter,
        ``sample_weight`` to a scorer that takes it, and anything else refused."""
        if _routing_enabled():
            try:
                routed = process_routing(
                    self, method, sample_weight=sample_weight, **params
                )
            except UnsetMetadataPassedError as error:
                # scikit-learn names the inner FisherDiscriminant's score, which
                # the user cannot reach: name what works.
                raise UnsetMetadataPassedError(
                    message=self._unrequested_message(method, error),
                    unrequested_params=error.unrequested_params,
                    routed_params=error.routed_params,
                ) from None
            split = routed.splitter.split if method == "fit" else {}
            return split, dict(routed.scorer.score)
        params = dict(params)
        groups = params.pop("groups", None) if method == "fit" else None
        _raise_for_params(params, self, method)
        score = {}
        if sample_weight is not None and _takes_weights(self._scorer()):
            score["sample_weight"] = sample_weight
        return {"groups": groups}, score

    def _unrequested_message(self, method, error):
        """What to call for metadata that reached no request: this estimator's
        own set_score_request for scoring=None, a scorer object's for the
        rest."""
        names = sorted(error.unrequested_params)
        asked = ", ".join(f"{key}=True" for key in names)
        where = "the folds' scoring" if method == "fit" else "the score"
        if self.scoring is None:
            how = (f"call FisherDiscriminantCV(...).set_score_request({asked}) "
                   "(scoring=None scores by FisherDiscriminant.score)")  # fmt: skip
        else:
            how = ("give scoring as a scorer object that requests it, e.g. "
                   f"make_scorer(accuracy_score).set_score_request({asked})")
        return (f"{names} passed to FisherDiscriminantCV.{method} must be "
                f"requested (or refused) for {where}: {how}.")  # fmt: skip

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, **params):
        """Choose κ by cross-validation, then fit on all rows at it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            In memory (the folds are rows): a dask array is refused.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the fit of every fold and to the refit, and to the scoring
            as ``GridSearchCV`` passes it: to a scorer that takes it, or, with
            metadata routing on, to one that requests it.
        **params : dict
            ``groups`` (group labels for a group splitter, ``GroupKFold``, ...,
            as in ``GridSearchCV.fit(X, y, groups=groups)``); with metadata
            routing on (``sklearn.set_config(enable_metadata_routing=True)``),
            any metadata the splitter or the scorer requests; anything else is
            refused, as ``GridSearchCV`` refuses it.

        Returns
        -------
        self : FisherDiscriminantCV
        """
        if not in_memory(X, y, sample_weight):
            raise TypeError(
                "FisherDiscriminantCV cross-validates on the rows in memory; for "
                "dask arrays tune FisherDiscriminant's kappa on a sample, or compute "
                "the arrays first."
            )
        kappas = np.asarray(self.kappas, dtype=np.float64).reshape(-1)
        X_given, _ = indexable(X, y)  # the folds are cut from X as given, as
        # the search cuts them: a frame's layout moves the last bits
        stats, rows = self._statistics_for_fit(X, y, sample_weight)
        X, y_encoded, sample_weight = rows.X, rows.y_encoded, rows.sample_weight
        # Routed once validated: a scalar weight is one per row by then (the
        # scorer of each fold took the scalar, and every fold failed).
        split_params, score_params = self._routed("fit", sample_weight, params)
        labels = self.classes_[y_encoded]
        splits = list(
            check_cv(self.cv, labels, classifier=True).split(X, labels, **split_params)
        )
        if not splits:
            raise ValueError(
                "No fits were performed. Was the CV iterator empty? Were there no "
                "candidates?"
            )
        search = _KappaSearch(
            self, kappas, X_given, labels, sample_weight, score_params
        )
        self.cv_results_ = _cv_results(kappas, search.scores(splits))
        best = int(np.argmin(self.cv_results_["rank_test_score"]))  # the first best
        self.kappa_ = float(kappas[best])
        self.best_score_ = float(self.cv_results_["mean_test_score"][best])
        self.scorer_ = search.scorer
        return self._finish_fit(stats, rows)

    def score(self, X, y, sample_weight=None, **params):
        """The score of the refit by ``scoring``, as ``LogisticRegressionCV.score``
        gives it (the accuracy where ``scoring`` is None; the scorer is handed
        this estimator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to a scorer that takes it; with metadata routing on, to one
            that requests it (``set_score_request`` on the scorer, or on this
            estimator where ``scoring`` is None).
        **params : dict
            Metadata for the scorer, with metadata routing on.

        Returns
        -------
        score : float
        """
        self._check_is_fitted()
        if _routing_enabled():
            score_params = self._routed("score", sample_weight, params)[1]
        else:
            _raise_for_params(params, self, "score")
            score_params = {}
            if sample_weight is not None and (
                self.scoring is None or _accepts_weights(self._scorer())
            ):
                score_params["sample_weight"] = sample_weight
        if self.scoring is None:
            return float(accuracy_score(y, self.predict(X), **score_params))
        return check_scoring(self, scoring=self.scoring)(self, X, y, **score_params)


class _KappaSearch:
    """Every κ's score on every fold, from one decomposition of each fold's S;
    fit failures and scoring failures kept apart, as ``GridSearchCV`` keeps
    them."""

    def __init__(self, estimator, kappas, X, labels, sample_weight, score_params):
        self.estimator, self.kappas = estimator, kappas
        self.X, self.labels, self.sample_weight = X, labels, sample_weight
        self.score_params = score_params
        self.scorer = estimator._scorer()
        self.failed_fits = 0
        self.first_failure = None

    def scores(self, splits):
        """(n_kappas, n_folds), C-contiguous: GridSearchCV's layout, whose means
        along axis 1 break ties as it breaks them."""
        scores = np.column_stack([self._fold(train, test) for train, test in splits])
        if self.failed_fits == scores.size:
            raise ValueError(
                f"All the {scores.size} fits failed. It is very likely that the "
                f"model is misconfigured. The first failure: {self.first_failure}"
            )
        return np.ascontiguousarray(scores)

    def _fold(self, train, test):
        """The score of every κ on one fold."""
        estimator, kappas = self.estimator, self.kappas
        scores = np.full(len(kappas), np.nan)
        weights = None if self.sample_weight is None else self.sample_weight[train]
        scratch = estimator._at(kappas[0])
        try:
            stats, rows = scratch._statistics_for_fit(
                _safe_indexing(self.X, train), self.labels[train], weights
            )
            reg = stats.regularized_inverse(kappas[0], estimator.tol)  # any κ: same
        except Exception as error:  # noqa: BLE001 - as GridSearchCV(error_score=nan)
            self._failed("every kappa", error, FitFailedWarning, len(kappas))
            return scores
        score_params = _check_method_params(self.X, self.score_params, indices=test)
        X_test = _safe_indexing(self.X, test)
        for k, kappa in enumerate(kappas):
            model = estimator._at(kappa)
            for name in ("classes_", "n_features_in_", "feature_names_in_"):
                if hasattr(scratch, name):
                    setattr(model, name, getattr(scratch, name))
            try:
                model._finish_fit(stats, rows, reg=replace(reg, kappa=float(kappa)))
            except Exception as error:  # noqa: BLE001
                self._failed(f"kappa={kappa:g}", error, FitFailedWarning, 1)
                continue
            try:
                score = self.scorer(model, X_test, self.labels[test], **score_params)
            except Exception as error:  # noqa: BLE001 - scored nan, as GridSearchCV
                self._failed(f"scoring kappa={kappa:g}", error, UserWarning, 0)
                continue
            scores[k] = _number(score, self.scorer)
        return scores

    def _failed(self, what, error, category, fits):
        self.failed_fits += fits
        if fits and self.first_failure is None:
            self.first_failure = f"{type(error).__name__}: {error}"
        warnings.warn(
            f"FisherDiscriminant failed on a fold ({what}), which scores nan there: "
            f"{type(error).__name__}: {error}",
            category,
            stacklevel=5,
        )


def _number(score, scorer):
    """A score as GridSearchCV takes one: a number, or its ValueError."""
    if isinstance(score, numbers.Number) and not isinstance(score, bool):
        return float(score)
    if isinstance(score, np.ndarray) and score.ndim == 0:
        return float(score)
    raise ValueError(
        f"scoring must return a number, got {score!r} ({type(score)}) instead. "
        f"(scorer={scorer})"
    )


def _cv_results(kappas, scores):
    """``cv_results_`` of (n_kappas, n_folds) scores, as GridSearchCV's ``_store``
    makes them: means and stds along the folds, a warning for non-finite means,
    nan means ranked below every other (all nan: all first)."""
    means = np.average(scores, axis=1)
    if np.any(~np.isfinite(means)):
        warnings.warn(
            f"One or more of the test scores are non-finite: {means}", UserWarning,
            stacklevel=3,
        )  # fmt: skip
    stds = np.sqrt(np.average((scores - means[:, np.newaxis]) ** 2, axis=1))
    if np.isnan(means).all():
        ranks = np.ones_like(means, dtype=np.int32)
    else:  # nan below the least; -inf, as nan_to_num does, the least finite
        filled = np.nan_to_num(means, nan=np.nanmin(means) - 1)
        # Rank 1 the best; ties share their least rank (rankdata's "min").
        ranks = (np.searchsorted(np.sort(-filled), -filled, side="left") + 1)
        ranks = ranks.astype(np.int32)
    return {
        "param_kappa": kappas.copy(),
        "params": [{"kappa": float(kappa)} for kappa in kappas],
        **{f"split{k}_test_score": scores[:, k] for k in range(scores.shape[1])},
        "mean_test_score": means,
        "std_test_score": stds,
        "rank_test_score": ranks,
    }
