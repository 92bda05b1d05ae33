"""The separability report: every measure of the suite on one data set, as a dict.

``separability_report`` computes; ``format_report`` lays the dict out as aligned
terminal tables; ``plot_report`` draws the data on the Fisher direction. The
command line (``cli``) reads the file and calls these; tests and notebooks can call
them directly. The dict holds plain Python values only, so ``json.dumps`` takes it
as it is.
"""

import warnings
from dataclasses import replace
from itertools import combinations

import numpy as np
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from ._certificates import cover_separability_probability, linear_separability
from ._fisher import FisherDiscriminant
from ._online import Adaline, Perceptron, PocketPerceptron
from ._separability import SeparabilityAngle
from ._stats import ClassStatistics
from ._svm import HardMarginSVM
from ._table import stratified_sample
from .exceptions import SolverError

METRICS = ("euclidean", "mahalanobis")


def report_models(kappa=1.0, seed=0):
    """The classifiers the report cross-validates: ours, then scikit-learn's peers."""
    return {
        "FisherDiscriminant": FisherDiscriminant(kappa=kappa),
        "Perceptron": Perceptron(random_state=seed),
        "PocketPerceptron": PocketPerceptron(random_state=seed),
        "Adaline": Adaline(random_state=seed),
        "HardMarginSVM": HardMarginSVM(),
        "sklearn LinearDiscriminantAnalysis": LinearDiscriminantAnalysis(),
        "sklearn Perceptron": SklearnPerceptron(random_state=seed),
        "sklearn LinearSVC": LinearSVC(random_state=seed),
    }


def _angle_section(angles, class_names):
    """Per metric: the two-class figures, or the matrix of pairwise angles."""
    section = {}
    for metric, estimator in angles.items():
        if len(class_names) == 2:
            test = estimator.hotelling_
            section[metric] = {
                "angle_degrees": float(np.degrees(estimator.angle_)),
                "cos_angle": float(estimator.cos_angle_),
                "scaled_distance": float(estimator.scaled_distance_),
                "mahalanobis_distance": float(estimator.mahalanobis_distance_),
                "hotelling_pvalue": None if test is None else float(test.pvalue),
            }
        else:
            section[metric] = {
                "pairwise_angle_degrees": np.degrees(
                    estimator.pairwise_angles_
                ).tolist()
            }
    return section


def standardizing_map(stats):
    """``(mean, scale)`` of StandardScaler on all the rows behind ``stats``
    (population variance, a constant feature keeping scale 1), from the class
    statistics alone: the total scatter is ``W + Σ_k c_k (m_k - m)(m_k - m)ᵀ``."""
    mean = stats.grand_mean
    between = stats.means - mean
    total = np.diag(stats.within_scatter) + stats.counts @ between**2
    scale = np.sqrt(total / stats.total_weight)
    return mean, np.where(scale > 0, scale, 1.0)


def standardized(stats, mean, scale):
    """The statistics of ``(X - mean) / scale``: exact, no pass over X."""
    outer = np.outer(scale, scale)
    class_scatter = None if stats.class_scatter is None else stats.class_scatter / outer
    return replace(
        stats,
        means=(stats.means - mean) / scale,
        mean_residual=stats.residual / scale,
        within_scatter=stats.within_scatter / outer,
        class_scatter=class_scatter,
    )


def fitting_rows(y, limit, seed):
    """Indices of at most about ``limit`` rows, uniform within each class and
    keeping every class (see :func:`~sklearn_linsep._table.stratified_sample`);
    all rows when there are no more."""
    if len(y) <= limit:
        return np.arange(len(y))
    n_classes = int(y.max()) + 1
    members = [np.flatnonzero(y == k) for k in range(n_classes)]
    chosen = stratified_sample(np.array([m.size for m in members]), limit, seed)
    return np.sort(np.concatenate([m[c] for m, c in zip(members, chosen, strict=True)]))


def _pair_verdict(X, y, pair, class_names, tol, sampled, fit_rows, seed):
    """Separability of one pair: the maximal margin or the certificate, and then
    the least total hinge of the C → ∞ soft margin.

    ``linear_separability`` gives the maximal margin itself and scales to many rows;
    the soft limit does not (its working set holds every margin violator), so on
    inseparable data it is fitted on at most ``fit_rows`` rows, and the verdict says
    how many. A soft limit that float64 cannot certify leaves the hinge n/a, with
    the reason under ``hinge_error``, and the rest of the verdict stands."""
    mask = np.isin(y, pair)
    X_pair, y_pair = X[mask], y[mask]
    result = linear_separability(X_pair, y_pair, tol=tol)
    verdict = {
        "classes": [class_names[k] for k in pair],
        "separable": bool(result.separable),
        # An inseparable sample proves the whole data inseparable (the certificate
        # holds for any superset); a separable one proves nothing about the rest.
        "conclusive": bool(not sampled or not result.separable),
    }
    if result.separable:
        verdict["margin"] = float(result.margin)
        return verdict
    rows = fitting_rows(np.searchsorted(pair, y_pair), fit_rows, seed)
    verdict["certificate_size"] = int(len(result.certificate_indices))
    verdict["hinge_rows"] = int(len(rows))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            svm = HardMarginSVM(tol=tol).fit(X_pair[rows], y_pair[rows])
        verdict["hinge_violation"] = float(svm.hinge_violation_)
    except SolverError as error:
        verdict["hinge_violation"] = None
        verdict["hinge_error"] = str(error)
    return verdict


def _cross_validate(X, y, models, n_splits, seed, standardize, progress):
    folds = list(
        StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed).split(X, y)
    )
    results = {}
    for name, model in models.items():
        if standardize:
            model = make_pipeline(StandardScaler(), model)
        scores = []
        for train, test in folds:
            with warnings.catch_warnings():
                # Inseparable data make the perceptrons stop at max_iter and the
                # hard margin fall back to its soft limit, each with a warning:
                # expected here, and the accuracy says what matters.
                warnings.simplefilter("ignore")
                fitted = clone(model).fit(X[train], y[train])
                scores.append(float(fitted.score(X[test], y[test])))
            progress()
        results[name] = {"mean": float(np.mean(scores)), "sd": float(np.std(scores))}
    return results


def separability_report(
    X,
    y,
    *,
    class_names=None,
    statistics=None,
    kappa=1.0,
    cv=10,
    standardize=False,
    seed=0,
    tol=1e-9,
    fit_rows=5000,
    progress=None,
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
        in chunks from a file): the angle and Cover's probability then speak of all
        rows. Needs the per-class scatter for more than two classes. By default
        computed from X.
    kappa : float, default=1.0
        The regularisation κ of the angle and of FisherDiscriminant.
    cv : int, default=10
        Folds of the stratified cross-validation; 0 skips it.
    standardize : bool, default=False
        Scale every feature to unit variance (over all rows) first: the angle in
        the Euclidean metric depends on the units, the verdict and the Mahalanobis
        angle do not. The cross-validated models get a StandardScaler in their
        pipelines instead (fitted on each training fold).
    seed : int, default=0
        Seeds the folds and the stochastic models.
    tol : float, default=1e-9
        Tolerance of the exact separability test and the hard margin.
    fit_rows : int, default=5000
        Rows (a sample uniform within each class, keeping every class) for what
        does not scale to many: the soft-margin limit behind the hinge violation of
        inseparable data (its cost grows about as the square of the rows) and the
        cross-validation. The exact test and the hard margin use every row of X.
    progress : callable, default=None
        Called once per cross-validation fit.

    Returns
    -------
    report : dict
        ``data``, ``settings``, ``angle``, ``separability``, ``cover`` and (with
        ``cv``) ``cross_validation`` sections of plain values.

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
    """
    X = np.asarray(X, dtype=np.float64)
    labels, y = np.unique(np.asarray(y), return_inverse=True)
    n_classes = len(labels)
    class_names = class_names or [str(label) for label in labels]
    if statistics is None:
        statistics = ClassStatistics.from_data(
            X, y, np.arange(n_classes), per_class=n_classes > 2
        )
    X_folds = X
    if standardize:
        mean, scale = standardizing_map(statistics)
        statistics = standardized(statistics, mean, scale)
        X = (X - mean) / scale
    angles = {
        metric: SeparabilityAngle(kappa=kappa, metric=metric).fit_statistics(
            statistics, np.arange(n_classes)
        )
        for metric in METRICS
    }
    n_rows = int(statistics.n_samples)
    sampled = X.shape[0] < n_rows
    report = {
        "data": {
            "n_samples": n_rows,
            "n_features": int(X.shape[1]),
            "classes": list(class_names),
            "counts": [int(round(count)) for count in statistics.counts],
            "rows_in_memory": int(X.shape[0]),
        },
        "settings": {
            "kappa": float(kappa),
            "cv": int(cv),
            "standardize": bool(standardize),
            "seed": int(seed),
        },
        "angle": _angle_section(angles, class_names),
        "separability": [
            _pair_verdict(X, y, pair, class_names, tol, sampled, fit_rows, seed)
            for pair in combinations(range(n_classes), 2)
        ],
        "cover": {
            "probability_random_labelling_separable": float(
                cover_separability_probability(n_rows, X.shape[1])
            )
        },
    }
    if cv:
        models = report_models(kappa, seed)
        rows = fitting_rows(y, fit_rows, seed)
        report["settings"]["cv_rows"] = int(len(rows))
        report["cross_validation"] = _cross_validate(
            X_folds[rows], y[rows], models, cv, seed, standardize,
            progress or (lambda: None),
        )  # fmt: skip
    return report


def _columns(headers, rows, indent="  "):
    """Rows of cells as aligned text: the first column to the left, numbers
    (the others) to the right."""
    cells = [headers] + [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])]
        parts += [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append(indent + "   ".join(parts).rstrip())
    return lines


def _number(value, digits=4):
    if value is None:
        return "n/a"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
        return f"{value:.3g}"
    return f"{value:.{digits}f}"


def _angle_lines(report):
    angle, names = report["angle"], report["data"]["classes"]
    kappa = report["settings"]["kappa"]
    lines = [f"Angle of separability, kappa = {kappa:g}"]
    if len(names) == 2:
        rows = [
            [
                metric,
                f"{figures['angle_degrees']:.2f}",
                _number(figures["cos_angle"]),
                _number(
                    figures[
                        "scaled_distance"
                        if metric == "euclidean"
                        else "mahalanobis_distance"
                    ]
                ),
            ]
            for metric, figures in angle.items()
        ]
        header = ["metric", "theta (deg)", "cos theta", "length"]
        lines += _columns(header, rows)
        lines.append(
            "  length: ||S^-1 d|| (euclidean, the paper's; depends on the units), "
            "sqrt(d' S^-1 d) (mahalanobis, affine-invariant)"
        )
        test = angle["euclidean"]["hotelling_pvalue"]
        # Below the smallest double the p-value rounds to 0: say so, not "0".
        shown = "p < 1e-300" if test == 0.0 else f"p = {_number(test)}"
        lines.append(f"  Hotelling's T2 test of theta = 0 (equal class means): {shown}")
        return lines
    for metric, figures in angle.items():
        lines.append(f"  {metric}: pairwise theta (deg)")
        matrix = figures["pairwise_angle_degrees"]
        rows = [
            [name] + [f"{value:.2f}" for value in row]
            for name, row in zip(names, matrix, strict=True)
        ]
        lines += _columns([""] + names, rows, indent="    ")
    return lines


def _verdict_text(verdict):
    if verdict["separable"]:
        text = f"separable, margin {_number(verdict['margin'], 6)}"
        return text if verdict["conclusive"] else text + " (on the sample)"
    return (
        f"not separable: certificate of {verdict['certificate_size']} samples, "
        f"hinge {_number(verdict['hinge_violation'])} "
        f"(soft-margin limit on {verdict['hinge_rows']} rows)"
    )


def _separability_lines(report):
    names = report["data"]["classes"]
    lines = ["Exact linear separability (certificate either way; maximal margin)"]
    verdicts = report["separability"]
    if len(names) == 2:
        lines.append("  " + _verdict_text(verdicts[0]))
        return lines
    short = {}
    for verdict in verdicts:
        first, second = verdict["classes"]
        if verdict["separable"]:
            cell = f"margin {_number(verdict['margin'], 4)}"
        else:
            cell = f"no ({verdict['certificate_size']} pts)"
        short[first, second] = short[second, first] = cell
    rows = [[a] + [short.get((a, b), "-") for b in names] for a in names]
    lines += _columns([""] + names, rows)
    lines.append(
        "  no (k pts): k samples whose convex combinations coincide, a certificate"
    )
    return lines


def format_report(report, title="data"):
    """The report as aligned terminal tables (plain text, one string)."""
    data = report["data"]
    lines = [
        f"Linear separability report: {title}",
        "",
        f"Data: {data['n_samples']} rows, {data['n_features']} features",
    ]
    lines += _columns(
        ["class", "count"],
        [
            [name, count]
            for name, count in zip(data["classes"], data["counts"], strict=True)
        ],
    )
    for note in report.get("notes", []):
        lines.append(f"  note: {note}")
    if report["settings"]["standardize"]:
        lines.append("  features standardized to unit variance")
    lines += [""] + _angle_lines(report) + [""] + _separability_lines(report) + [""]
    probability = report["cover"]["probability_random_labelling_separable"]
    lines.append(
        f"Cover: a random labelling of {data['n_samples']} points in general "
        f"position in R^{data['n_features']} is separable with probability "
        + ("< 1e-300" if probability == 0.0 else _number(probability))
    )
    if "cross_validation" in report:
        settings = report["settings"]
        lines += [
            "",
            f"Cross-validated accuracy ({settings['cv']}-fold stratified, "
            f"seed {settings['seed']}, {settings['cv_rows']} rows)",
        ]
        lines += _columns(
            ["model", "mean", "sd"],
            [
                [name, f"{scores['mean']:.4f}", f"{scores['sd']:.4f}"]
                for name, scores in report["cross_validation"].items()
            ],
        )
    return "\n".join(lines) + "\n"


PLOT_SIZE = (10.0, 4.5)  # inches, at PLOT_DPI: 1000 x 450 pixels
PLOT_DPI = 100


def _line_in_plane(coef, intercept, origin, axes):
    """``(a, b, c)`` of ``a u + b v + c = 0``: the hyperplane ``coef·x + intercept
    = 0`` cut by the plane ``origin + u axes[0] + v axes[1]``."""
    return coef @ axes[0], coef @ axes[1], coef @ origin + intercept


def plot_report(X, y, class_names, path, *, kappa=1.0, tol=1e-9):
    """Save a PNG: the data on the Fisher direction and the direction of largest
    variance orthogonal to it, both classes coloured, with the Fisher and the
    hard-margin boundaries; beside it, a histogram of the Fisher projection per
    class. Two classes only (``y`` holds 0 and 1)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fisher = FisherDiscriminant(kappa=kappa).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svm = HardMarginSVM(tol=tol).fit(X, y)
    direction = fisher.coef_[0] / np.linalg.norm(fisher.coef_[0])
    origin = X.mean(axis=0)
    centred = X - origin
    rest = centred - np.outer(centred @ direction, direction)
    if X.shape[1] > 1 and np.any(rest):
        other = np.linalg.svd(rest, full_matrices=False)[2][0]
    else:
        other = np.zeros_like(direction)
    u, v = centred @ direction, centred @ other
    figure, (scatter, histogram) = plt.subplots(
        1, 2, figsize=PLOT_SIZE, dpi=PLOT_DPI, width_ratios=[3, 2]
    )
    bins = np.histogram_bin_edges(u, bins=40)  # the same bins for both classes
    for k, colour in ((0, "tab:blue"), (1, "tab:orange")):
        scatter.scatter(u[y == k], v[y == k], s=8, alpha=0.6, c=colour,
                        label=class_names[k])  # fmt: skip
        histogram.hist(u[y == k], bins=bins, alpha=0.6, color=colour,
                       label=class_names[k])  # fmt: skip
    span = np.linspace(v.min(), v.max(), 2) if v.size else np.zeros(2)
    for name, model, style in (
        ("Fisher", fisher, "k-"),
        ("hard margin" if svm.separable_ else "soft limit", svm, "r--"),
    ):
        a, b, c = _line_in_plane(model.coef_[0], model.intercept_[0], origin,
                                 (direction, other))  # fmt: skip
        if abs(a) > 1e-12 * max(abs(b), 1e-300):  # u as a function of v
            scatter.plot(-(b * span + c) / a, span, style, label=name)
    threshold = -(fisher.coef_[0] @ origin + fisher.intercept_[0]) / np.linalg.norm(
        fisher.coef_[0]
    )
    histogram.axvline(threshold, color="k", label="Fisher threshold")
    scatter.set_xlabel("Fisher direction")
    scatter.set_ylabel("largest variance orthogonal to it")
    scatter.legend(loc="best", fontsize="small")
    histogram.set_xlabel("Fisher projection")
    histogram.set_ylabel("samples")
    histogram.legend(loc="best", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=PLOT_DPI)
    plt.close(figure)
