"""The separability report: every measure of the suite on one data set, as a dict.

``separability_report`` computes; ``format_report`` lays the dict out as aligned
terminal tables; ``plot_report`` draws the data on the Fisher direction. The
command line (``cli``) reads the file and calls these; tests and notebooks can call
them directly. The dict holds plain Python values only, so ``json.dumps`` takes it
as it is.
"""

import warnings
from itertools import combinations

import numpy as np
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from .._certificates import cover_separability_probability, linear_separability
from .._fisher import FisherDiscriminant
from .._online import Adaline, Perceptron, PocketPerceptron
from .._separability import SeparabilityAngle
from .._stats import ClassStatistics
from .._svm import HardMarginSVM
from ..exceptions import SolverError
from ._read import stratified_sample
from ._source import escaped

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
    total = stats.scatter_diagonal() + stats.counts @ between**2
    scale = np.sqrt(total / stats.total_weight)
    return mean, np.where(scale > 0, scale, 1.0)


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


def _pair_verdict(X, y, pair, context):
    """Separability of one pair: the maximal margin and its hyperplane, or the
    certificate with its rows, and then the least total hinge of the C → ∞ soft
    margin.

    ``linear_separability`` gives the maximal margin itself and scales to many rows;
    the soft limit does not (its working set holds every margin violator), so on
    inseparable data it is fitted on at most ``fit_rows`` rows, and the verdict says
    how many. A soft limit that float64 cannot certify leaves the hinge n/a, with
    the reason under ``hinge_error``, and the rest of the verdict stands."""
    mask = np.isin(y, pair)
    members = np.flatnonzero(mask)
    X_pair, y_pair = X[mask], y[mask]
    result = linear_separability(X_pair, y_pair, tol=context["tol"])
    names = context["class_names"]
    verdict = {
        "classes": [names[k] for k in pair],
        "separable": bool(result.separable),
        # An inseparable sample proves the whole data inseparable (the certificate
        # holds for any superset); a separable one proves nothing about the rest.
        "conclusive": bool(not context["sampled"] or not result.separable),
    }
    if result.separable:
        verdict["margin"] = float(result.margin)
        verdict["hyperplane"] = {
            "coef": dict(
                zip(context["feature_names"], map(float, result.coef), strict=True)
            ),
            "intercept": float(result.intercept),
            "positive_class": names[pair[1]],
        }
        return verdict
    indices = members[result.certificate_indices]
    verdict["certificate"] = [
        {
            "row": _plain(context["row_ids"][i]),
            "class": names[y[i]],
            "weight": float(weight),
        }
        for i, weight in zip(indices, result.certificate_weights, strict=True)
    ]
    verdict["certificate_size"] = len(indices)
    rows = fitting_rows(np.searchsorted(pair, y_pair), context["fit_rows"],
                        context["seed"])  # fmt: skip
    verdict["hinge_rows"] = int(len(rows))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            svm = HardMarginSVM(tol=context["tol"]).fit(X_pair[rows], y_pair[rows])
        verdict["hinge_violation"] = float(svm.hinge_violation_)
    except SolverError as error:
        verdict["hinge_violation"] = None
        verdict["hinge_error"] = str(error)
    return verdict


def _plain(value):
    """A row id as JSON takes it (numpy integers are no ``int``)."""
    return value.item() if hasattr(value, "item") else value


def _guarded(errors, name, compute, failed=None):
    """``compute()``, or ``failed`` with the reason under ``errors[name]``: one
    section that fails never costs the others (the report degrades, never
    aborts)."""
    try:
        return compute()
    except Exception as error:  # noqa: BLE001 - any failure, said in the report
        errors[name] = f"{type(error).__name__}: {error}"
        return failed


def _cross_validate(X, y, models, n_splits, seed, standardize, progress, errors):
    folds = list(
        StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed).split(X, y)
    )

    def scores_of(model):
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
        return {"mean": float(np.mean(scores)), "sd": float(np.std(scores))}

    results = {}
    for name, model in models.items():
        if standardize:
            model = make_pipeline(StandardScaler(), model)
        failed = {"mean": None, "sd": None}
        results[name] = _guarded(
            errors, f"cross_validation {name}", lambda m=model: scores_of(m), failed
        )
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
    feature_names : list of str, default=None
        The name of each column, for the hyperplane (default ``x0, x1, ...``).
    row_ids : ndarray of shape (n_samples,), default=None
        Each row's name in its source (an identifier column's value, or the
        position among a file's data rows), for the certificate (default the
        positions in X, ``0, ..., n - 1``).

    Returns
    -------
    report : dict
        ``data``, ``settings``, ``angle``, ``separability``, ``cover`` and (with
        ``cv``) ``cross_validation`` sections of plain values. Each section (each
        class pair, each cross-validated model) is computed on its own: one that
        fails is None (a verdict: ``separable`` None; a model: ``mean`` None), with
        the reason in ``errors``, and the rest stands.

        A separable pair's verdict holds its maximal-margin ``hyperplane``
        (``coef`` by feature name, ``intercept``, with ``positive_class`` on the
        positive side; in standardised units with ``standardize``); an inseparable
        pair's holds its ``certificate``: the rows (``row`` from ``row_ids``),
        their class and weight, whose weighted means per class coincide.

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
        statistics = statistics.rescaled(mean, scale)
        X = (X - mean) / scale
    n_rows = int(statistics.n_samples)
    errors = {}

    def angle_section():
        angles = {
            metric: SeparabilityAngle(kappa=kappa, metric=metric).fit_statistics(
                statistics, np.arange(n_classes)
            )
            for metric in METRICS
        }
        return _angle_section(angles, class_names)

    context = {
        "class_names": class_names,
        "feature_names": list(feature_names or [f"x{j}" for j in range(X.shape[1])]),
        "row_ids": np.arange(len(y)) if row_ids is None else row_ids,
        "tol": tol,
        "sampled": X.shape[0] < n_rows,
        "fit_rows": fit_rows,
        "seed": seed,
    }
    verdicts = []
    for pair in combinations(range(n_classes), 2):
        pair_names = [class_names[k] for k in pair]
        failed = {"classes": pair_names, "separable": None}
        verdicts.append(
            _guarded(
                errors,
                f"separability {pair_names[0]} vs {pair_names[1]}",
                lambda pair=pair: _pair_verdict(X, y, pair, context),
                failed,
            )
        )
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
        "angle": _guarded(errors, "angle", angle_section),
        "separability": verdicts,
        "cover": _guarded(
            errors,
            "cover",
            lambda: {
                "probability_random_labelling_separable": float(
                    cover_separability_probability(n_rows, X.shape[1])
                )
            },
        ),
    }
    if cv:
        models = report_models(kappa, seed)
        rows = fitting_rows(y, fit_rows, seed)
        report["settings"]["cv_rows"] = int(len(rows))
        report["cross_validation"] = _cross_validate(
            X_folds[rows], y[rows], models, cv, seed, standardize,
            progress or (lambda: None), errors,
        )  # fmt: skip
    report["errors"] = errors
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


# More classes than this: the pairwise tables give way to lists of the pairs,
# least separable first (ten classes made tables ~170 characters wide).
COMPACT_ABOVE = 6
LISTED_PAIRS = 10

READING = [
    "How to read this (--quiet leaves it out):",
    "  verdict   exact, with a proof either way: when separable, the maximal margin",
    "            (distance from the best separating hyperplane to the nearest row);",
    "            when not, a few rows whose weighted means per class coincide (a",
    "            point in both convex hulls), which no hyperplane can split.",
    "  theta     angle between the class-mean difference d and the Fisher direction",
    "            S(kappa)^-1 d: near 90 deg the means stand far apart for the spread,",
    "            near 0 deg the classes overlap. The euclidean theta depends on the",
    "            features' units (see --standardize); the mahalanobis one does not,",
    "            unless S is singular (more features than rows): then both depend on",
    "            kappa and the units, and are large for random labels too.",
    "  kappa     the weight of the null-space term in S(kappa) = S + kappa Q: it",
    "            matters only when the scatter S is singular (more features than",
    "            rows, or dependent features).",
    "  length    ||S^-1 d|| (euclidean) or sqrt(d' S^-1 d) (mahalanobis): the",
    "            class means' distance in units of the spread.",
    "  T2        Hotelling's test of equal class means (theta = 0); n/a when the",
    "            scatter is singular.",
    "  hinge     the least total violation sum max(0, 1 - c (w.x + b)) of any",
    "            hyperplane (the C -> infinity soft margin): 0 when separable,",
    "            larger the further from it.",
    "  Cover     the chance that labels drawn at random are separable for this many",
    "            points in this dimension: near 1, separability says little.",
]


def _reading(two_classes, two_class_only):
    """READING, without the entries of quantities this report does not show."""
    lines, skipping = [], False
    for line in READING:
        if line.startswith("  ") and not line.startswith("   "):
            skipping = not two_classes and line.startswith(two_class_only)
        if not skipping:
            lines.append(line)
    return lines


def _unavailable(report, name, width=60):
    """The reason a section is missing, cut to ``width`` characters (the whole of
    it is under "Not available" at the end, and in the JSON)."""
    reason = report["errors"].get(name, "failed")
    if len(reason) > width:
        reason = reason[: width - 3].rstrip() + "..."
    return f"not available: {reason}"


def _pair_name(verdict):
    first, second = verdict["classes"]
    return f"{first} vs {second}"


def _verdict_lines(report):
    """The first lines: the verdict in words, how well, what to look at next."""
    names, verdicts = report["data"]["classes"], report["separability"]
    angle = report["angle"]
    if len(names) == 2:
        verdict = verdicts[0]
        if verdict["separable"] is None:
            lines = ["Verdict: the separability test failed (see 'Not available')."]
        elif verdict["separable"] and not verdict["conclusive"]:
            lines = [
                f"Verdict: the sample of {report['data']['rows_in_memory']} rows is "
                "linearly separable (maximal margin "
                f"{_number(verdict['margin'], 6)}); that proves nothing of the other "
                "rows (raise --sample-rows to test them all)."
            ]
        elif verdict["separable"]:
            lines = [
                f"Verdict: linearly separable, with maximal margin "
                f"{_number(verdict['margin'], 6)} (the hyperplane is below)."
            ]
        else:
            hinge = verdict["hinge_violation"]
            lines = [
                f"Verdict: not linearly separable: {verdict['certificate_size']} rows "
                "prove it (a point in both convex hulls); least total hinge "
                f"{_number(hinge)}."
            ]
        if angle is not None:
            lines.append(
                f"How well: theta = {angle['euclidean']['angle_degrees']:.1f} deg "
                f"(euclidean), {angle['mahalanobis']['angle_degrees']:.1f} deg "
                "(mahalanobis); 90 is far apart, 0 overlapping"
                + (
                    "; with more features than rows it is large for random labels too."
                    if _wide(report)
                    else "."
                )
            )
        lines += _next_lines(report, verdict)
        return lines
    decided = [v for v in verdicts if v["separable"] is not None]
    separable = [v for v in decided if v["separable"]]
    inseparable = [_pair_name(v) for v in decided if not v["separable"]]
    lines = [
        f"Verdict: {len(separable)} of {len(verdicts)} class pairs are linearly "
        "separable"
        + (f"; not: {', '.join(inseparable[:5])}" if inseparable else "")
        + (", ..." if len(inseparable) > 5 else "")
        + "."
    ]
    if angle is not None:
        pairs = _pairs_by_angle(angle, names)
        first, second, degrees = pairs[0][0], pairs[0][1], pairs[0][3]
        lines.append(
            f"How well: the closest pair is {first} vs {second} (mahalanobis theta "
            f"{degrees:.1f} deg; 90 is far apart, 0 overlapping)."
        )
    lines.append(
        "Next: the pairs below, least separable first; --positive CLASS reports "
        "one class against the rest."
    )
    return lines


def _wide(report):
    """Whether the data have at least as many features as rows (S singular)."""
    return report["data"]["n_features"] >= report["data"]["rows_in_memory"]


def _next_lines(report, verdict):
    """What to look at after a two-class verdict."""
    if verdict["separable"] is None:
        return []
    validated = "cross_validation" in report
    if verdict["separable"]:
        cover = report["cover"]
        if cover and cover["probability_random_labelling_separable"] > 0.5:
            return [
                "Next: with this few rows for the features, random labels are "
                "separable too (see Cover's line): the verdict says little here; "
                + ("the cross-validated accuracy says more."
                   if validated else "cross-validate (--cv) to learn more.")
            ]  # fmt: skip
        return [
            "Next: the margin is in the features' units (compare it with their "
            "spread, or use --standardize); "
            + ("cross-validation says whether it holds on new rows."
               if validated else "--cv says whether it holds on new rows.")
        ]  # fmt: skip
    return [
        "Next: "
        + ("the cross-validated accuracy says" if validated else "--cv says")
        + " how well a linear classifier still does; the certificate's rows are "
        "where the classes meet."
    ]


def _pairs_by_angle(angle, names):
    """``(a, b, euclidean, mahalanobis)`` of every pair, smallest mahalanobis θ
    first."""
    euclidean = angle["euclidean"]["pairwise_angle_degrees"]
    mahalanobis = angle["mahalanobis"]["pairwise_angle_degrees"]
    pairs = [
        (names[i], names[j], euclidean[i][j], mahalanobis[i][j])
        for i, j in combinations(range(len(names)), 2)
    ]
    return sorted(pairs, key=lambda pair: pair[3])


def _angle_lines(report):
    angle, names = report["angle"], report["data"]["classes"]
    kappa = report["settings"]["kappa"]
    lines = [f"Angle of separability, kappa = {kappa:g}"]
    if angle is None:
        return lines + ["  " + _unavailable(report, "angle")]
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
        if test is None:
            shown = (
                "n/a (the within-class scatter is singular: more features than "
                "rows, or dependent features)"
            )
        else:  # below the smallest double the p-value rounds to 0: say so
            shown = "p < 1e-300" if test == 0.0 else f"p = {_number(test)}"
        lines.append(f"  Hotelling's T2 test of theta = 0 (equal class means): {shown}")
        return lines
    if len(names) > COMPACT_ABOVE:
        pairs = _pairs_by_angle(angle, names)
        lines.append(
            f"  the {min(LISTED_PAIRS, len(pairs))} least separable of {len(pairs)} "
            "pairs, theta (deg)"
        )
        rows = [
            [f"{a} vs {b}", f"{e:.2f}", f"{m:.2f}"]
            for a, b, e, m in pairs[:LISTED_PAIRS]
        ]
        return lines + _columns(["pair", "euclidean", "mahalanobis"], rows)
    for metric, figures in angle.items():
        lines.append(f"  {metric}: pairwise theta (deg)")
        matrix = figures["pairwise_angle_degrees"]
        rows = [
            [name] + [f"{value:.2f}" for value in row]
            for name, row in zip(names, matrix, strict=True)
        ]
        lines += _columns([""] + names, rows, indent="    ")
    return lines


def _verdict_text(verdict, report):
    if verdict["separable"] is None:
        return _unavailable(report, f"separability {_pair_name(verdict)}")
    if verdict["separable"]:
        text = f"separable, margin {_number(verdict['margin'], 6)}"
        return text if verdict["conclusive"] else text + " (on the sample)"
    hinge = _number(verdict["hinge_violation"])
    if verdict["hinge_violation"] is None:
        hinge += f" ({verdict['hinge_error']})"
    return (
        f"not separable: certificate of {verdict['certificate_size']} samples, "
        f"hinge {hinge} (soft-margin limit on {verdict['hinge_rows']} rows)"
    )


def _wrapped(items, indent="    ", width=88):
    """Items joined by ``, ``, in lines of at most ``width`` characters, the first
    after ``indent`` and the others aligned under it."""
    lines, line, start = [], indent, indent
    for item in items:
        if len(line) > len(start) and len(line) + len(item) + 2 > width:
            lines.append(line.rstrip())
            start = line = " " * len(indent)
        line += item + ", "
    if len(line) > len(start):
        lines.append(line.rstrip().rstrip(","))
    return lines


# Beyond this many features, the text shows the hyperplane's largest weights only.
SHOWN_WEIGHTS = 30


def _evidence_lines(verdict, standardize):
    """The hyperplane (separable) or the certificate's rows (not)."""
    if verdict.get("hyperplane"):
        plane = verdict["hyperplane"]
        units = ", standardized units" if standardize else ""
        weights = list(plane["coef"].items())
        largest = ""
        if len(weights) > SHOWN_WEIGHTS:
            # Wide data: the weights of largest size, in the order of the columns.
            sizes = np.abs([value for _, value in weights])
            kept = np.sort(np.argsort(-sizes, kind="stable")[:SHOWN_WEIGHTS])
            largest = (
                f" (the {SHOWN_WEIGHTS} largest of {len(weights)}; --json has them all)"
            )
            weights = [weights[i] for i in kept]
        lines = [
            f"  hyperplane (w.x + b > 0 on {plane['positive_class']}{units}): "
            f"b = {plane['intercept']:.6g}, w{largest} ="
        ]
        return lines + _wrapped(
            [f"{escaped(name)} {value:.6g}" for name, value in weights]
        )
    if verdict.get("certificate"):
        lines = ["  certificate: data row (weight); the weighted means coincide"]
        for name in verdict["classes"]:
            rows = [entry for entry in verdict["certificate"] if entry["class"] == name]
            lines += _wrapped(
                [f"{entry['row']} ({entry['weight']:.4g})" for entry in rows],
                indent=f"    {name}: ",
            )
        return lines
    return []


def _separability_lines(report):
    names = report["data"]["classes"]
    lines = ["Exact linear separability (certificate either way; maximal margin)"]
    verdicts = report["separability"]
    if len(names) == 2:
        lines.append("  " + _verdict_text(verdicts[0], report))
        return lines + _evidence_lines(verdicts[0], report["settings"]["standardize"])
    if len(names) > COMPACT_ABOVE:
        decided = [v for v in verdicts if v["separable"] is not None]
        inseparable = [v for v in decided if not v["separable"]]
        closest = sorted((v for v in decided if v["separable"]),
                         key=lambda v: v["margin"])  # fmt: skip
        lines.append(
            f"  {len(decided) - len(inseparable)} of {len(verdicts)} pairs separable"
        )
        listed = inseparable + closest
        rows = [[_pair_name(v), _verdict_text(v, report)] for v in listed]
        lines += _columns(["pair (inseparable, then smallest margins)", ""],
                          rows[:LISTED_PAIRS])  # fmt: skip
        return lines + [
            f"  {name}: {_unavailable(report, name)}"
            for name in report["errors"]
            if name.startswith("separability")
        ]
    short = {}
    for verdict in verdicts:
        first, second = verdict["classes"]
        if verdict["separable"] is None:
            cell = "n/a"
        elif verdict["separable"]:
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


def format_report(report, title="data", explain=True):
    """The report as aligned terminal tables (plain text, one string): the verdict
    first, then the sections, then (with ``explain``) how to read them."""
    data = report["data"]
    lines = [f"Linear separability report: {title}", ""]
    lines += _verdict_lines(report) + [""]
    lines.append(f"Data: {data['n_samples']} rows, {data['n_features']} features")
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
    if report["cover"] is None:
        lines.append("Cover: " + _unavailable(report, "cover"))
    else:
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
                [name]
                + (
                    [f"{scores['mean']:.4f}", f"{scores['sd']:.4f}"]
                    if scores["mean"] is not None
                    else [_unavailable(report, f"cross_validation {name}"), ""]
                )
                for name, scores in report["cross_validation"].items()
            ],
        )
    if report.get("errors"):
        lines += ["", "Not available:"]
        lines += [f"  {name}: {reason}" for name, reason in report["errors"].items()]
    if explain:
        two_class_only = ("  length", "  T2")  # shown for two classes only
        lines += [""] + [
            line for line in _reading(len(data["classes"]) == 2, two_class_only)
        ]
    return "\n".join(lines) + "\n"


PLOT_SIZE = (10.0, 4.5)  # inches, at PLOT_DPI: 1000 x 450 pixels
PLOT_DPI = 100


def _line_in_plane(coef, intercept, origin, axes):
    """``(a, b, c)`` of ``a u + b v + c = 0``: the hyperplane ``coef·x + intercept
    = 0`` cut by the plane ``origin + u axes[0] + v axes[1]``."""
    return coef @ axes[0], coef @ axes[1], coef @ origin + intercept


def plot_report(X, y, class_names, path, *, kappa=1.0, tol=1e-9, title=None):
    """Save a figure (its format from the suffix of ``path``: png, svg, pdf): the
    data on the Fisher direction and the direction of largest variance orthogonal
    to it, both classes coloured, with the Fisher and the hard-margin boundaries;
    beside it, a histogram of the Fisher projection per class. Two classes only
    (``y`` holds 0 and 1); ``title`` names the data in the figure's title."""
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
    verdict = "separable" if svm.separable_ else "not separable"
    figure.suptitle(
        f"{title + ': ' if title else ''}{class_names[0]} vs {class_names[1]}, "
        f"{verdict} (Fisher direction at kappa = {kappa:g})"
    )
    scatter.set_xlabel("Fisher direction")
    scatter.set_ylabel("largest spread across it")
    scatter.legend(loc="best", fontsize="small")
    histogram.set_xlabel("Fisher direction")
    histogram.set_ylabel("rows")
    histogram.legend(loc="best", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=PLOT_DPI)
    plt.close(figure)
