"""The report as a dict of plain values: every section computed on its own."""

import numpy as np

from .._stats import ClassStatistics
from ._context import ReportData, ReportSettings
from .sections import SECTIONS
from .sections._validation import largest_folds


def separability_report(
    X,
    y,
    *,
    class_names=None,
    statistics=None,
    kappa=1.0,
    cv=10,
    standardize=False,
    cv_raw=False,
    seed=0,
    tol=1e-9,
    fit_rows=5000,
    effort=80,
    time_limit=60.0,
    progress=None,
    feature_names=None,
    row_ids=None,
):
    """Every measure of linear separability of ``(X, y)``, as plain values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite floats: all the rows, or a sample of them (see ``statistics``).
    y : ndarray of shape (n_samples,)
        Class indices ``0, ..., K - 1`` (K ≥ 2), or labels.
    class_names : list of str, default=None
        The name of each class, for display; by default the sorted labels of y.
    statistics : ClassStatistics, default=None
        The class statistics of all the rows when X is a sample of them (e.g. read
        in chunks from a file): the angle, the distance, the standardization and
        Cover's probability then speak of all rows. Needs the per-class scatter
        for more than two classes. By default computed from X.
    kappa : float, default=1.0
        The regularisation κ of the angle and of FisherDiscriminant.
    cv : int, default=10
        Folds of the stratified cross-validation; 0 skips it.
    standardize : bool, default=False
        Compute the angle on features scaled to unit variance (over all rows).
        The verdict, its margin and hinge, and the Mahalanobis distance are
        unit-free whatever this says (the verdict's figures are computed on
        standardized features).
    cv_raw : bool, default=False
        Cross-validate the models on the features as they are; by default each
        model is a pipeline with a StandardScaler, fitted on each fold's
        training rows (the perceptrons and Adaline depend on the features'
        units).
    seed : int, default=0
        Seeds the folds and the stochastic models.
    tol : float, default=1e-9
        Tolerance of the exact separability test and the hard margin.
    fit_rows : int, default=5000
        Rows (a sample uniform within each class, keeping every class) for what
        does not scale to many: the soft-margin limit behind the hinge of
        inseparable data and the cross-validation. The exact test uses every row.
    effort : int, default=80
        Exact verdicts the search for the fewest rows to remove of an inseparable
        pair may make (:func:`~sklearn_linsep.minimum_error_separation`): the same
        bounds on any machine.
    time_limit : float, default=60.0
        Seconds that search may take per pair at most (a safety cap).
    progress : callable, default=None
        Called once per cross-validation fit.
    feature_names : list of str, default=None
        The name of each column, for the hyperplane (default ``x0, x1, ...``).
    row_ids : ndarray of shape (n_samples,), default=None
        Each row's name in its source (an identifier column's value, or the
        position among a file's data rows), for the certificate (default the
        positions in X, ``0, ..., n - 1``).

    Returns
    -------
    report : dict
        ``data``, ``settings`` and one entry per section (``separability``,
        ``distance``, ``angle``, ``cover``, and with ``cv`` ``cross_validation``),
        plain values. Each section (each class pair, each cross-validated model)
        is computed on its own: one that fails is None (a verdict: ``separable``
        None; a model: ``mean`` None), with the reason under ``errors`` at the
        section's key (and the pair's or model's name), and the rest stands.

        A separable pair's verdict holds its ``margin`` and maximal-margin
        ``hyperplane`` in standardized units (``coef`` by feature name,
        ``intercept``, ``positive_class`` on the positive side), and the same
        hyperplane in the data's units; an inseparable pair's holds its
        ``certificate``: the rows (``row`` from ``row_ids``), their class and
        weight, whose weighted means per class coincide, and the least total
        ``hinge_violation`` on standardized features, of ``hinge_rows`` rows,
        and the fewest rows to remove of those, ``removal``: ``lower_bound``,
        ``upper_bound``, ``optimal``, ``stopped_by`` and the ``removed`` rows of
        the upper bound (by ``row_ids``).

    Examples
    --------
    >>> from sklearn_linsep import load_breast_cancer_wisconsin
    >>> from sklearn_linsep._report import separability_report
    >>> X, y = load_breast_cancer_wisconsin(return_X_y=True)
    >>> report = separability_report(X, y, cv=0)
    >>> round(report["angle"]["euclidean"]["angle_degrees"], 2)
    43.01
    >>> report["separability"][0]["separable"]
    False
    >>> round(report["distance"]["pairs"][0]["mahalanobis"], 2)
    4.76
    """
    X = np.asarray(X, dtype=np.float64)
    labels, y = np.unique(np.asarray(y), return_inverse=True)
    class_names = class_names or [str(label) for label in labels]
    if statistics is None:
        statistics = ClassStatistics.from_data(
            X, y, np.arange(len(labels)), per_class=len(labels) > 2
        )
    settings = ReportSettings(
        kappa=kappa,
        cv=cv,
        standardize=standardize,
        cv_raw=cv_raw,
        seed=seed,
        tol=tol,
        fit_rows=fit_rows,
        effort=effort,
        time_limit=time_limit,
    )
    data = ReportData(
        X=X,
        y=y,
        class_names=list(class_names),
        statistics=statistics,
        feature_names=list(feature_names or [f"x{j}" for j in range(X.shape[1])]),
        row_ids=np.arange(len(y)) if row_ids is None else np.asarray(row_ids),
        settings=settings,
        progress=progress,
    )
    return compute_report(data)


def compute_report(data, *, source=None, notes=(), rows_named_by=None, left_out=()):
    """The report of a :class:`~._context.ReportData` (see
    :func:`separability_report`); ``source``, ``notes``, ``rows_named_by`` and
    ``left_out`` say where the rows came from (a file's
    :class:`~._read.Table`)."""
    settings = data.settings.as_json()  # then what the run finds (run_settings)
    report = {
        "source": source,
        "data": {
            "n_samples": data.n_rows,
            "n_features": int(data.X.shape[1]),
            "classes": list(data.class_names),
            "counts": [int(round(count)) for count in data.statistics.counts],
            "rows_in_memory": int(data.X.shape[0]),
            "rows_named_by": rows_named_by or "position among the rows given, from 0",
            "left_out": [{"column": name, "rule": rule} for name, rule in left_out],
        },
        "settings": settings,
        "notes": list(notes),
    }
    data.run_settings["cv_possible"] = largest_folds(data)
    errors = {}
    for section in SECTIONS:
        if section.applies(data):
            report[section.key] = section.run(data, errors)
    settings.update(data.run_settings)
    report["errors"] = errors
    return report
