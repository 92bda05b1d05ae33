"""The angle of separability θ(κ) of Ben-Israel & Levin, in both metrics."""

from itertools import combinations

import numpy as np

from ..._separability import SeparabilityAngle
from .._layout import COMPACT_ABOVE, LISTED_PAIRS, columns, number
from .._section import Section

METRICS = ("euclidean", "mahalanobis")
# The key of each metric's length L (both distances sit under each metric too:
# those copies are kept for one release, see CHANGELOG).
_LENGTH = {"euclidean": "scaled_distance", "mahalanobis": "mahalanobis_distance"}


class Angle(Section):
    key = "angle"
    help = (
        (
            "theta",
            "the angle of separability, theta(kappa) = arctan(kappa L / 2), with L "
            "= ||S(kappa)^-1 d|| (euclidean, the paper's) or sqrt(d' S(kappa)^-1 d) "
            "(mahalanobis), d the difference of the class means: near 90 deg far "
            "apart for the spread, near 0 overlapping. It is a family of numbers, "
            "one per kappa: it grows with kappa even when S is nonsingular (on the "
            "Wisconsin data 5.3, 43.0, 83.9 deg at kappa 0.1, 1, 10). Compare data "
            "sets at one kappa. The euclidean theta also depends on the features' "
            "units (--standardize).",
        ),
        (
            "kappa",
            "the weight of the null-space term in S(kappa) = S + kappa Q. The "
            "lifted axis (the classes at z = -1 and +1) is always in that null "
            "space, so kappa scales tan(theta) even when S is nonsingular; where S is "
            "singular it also weighs the data's own null space. Never tune kappa by "
            "theta itself (the largest kappa always wins); tune it by a "
            "classifier's cross-validated score (FisherDiscriminantCV).",
        ),
        ("length", "L above: the class means' distance in units of the spread."),
        (
            "T2",
            "Hotelling's test of equal class means (theta = 0); n/a when the "
            "scatter is singular.",
        ),
    )
    _TWO_CLASS_ONLY = ("length", "T2")

    def compute(self, data, errors):
        settings = data.settings
        stats = (
            data.standardized_statistics if settings.standardize else data.statistics
        )
        classes = np.arange(data.n_classes)
        section = {}
        for metric in METRICS:
            estimator = SeparabilityAngle(kappa=settings.kappa, metric=metric)
            section[metric] = _figures(estimator.fit_statistics(stats, classes))
            if data.n_classes == 2:  # the L of this metric's θ
                section[metric]["length"] = section[metric][_LENGTH[metric]]
        return section

    def help_entries(self, report):
        if len(report["data"]["classes"]) == 2:
            return list(self.help)
        return [entry for entry in self.help if entry[0] not in self._TWO_CLASS_ONLY]

    def heading(self, report):
        settings = report["settings"]
        units = ", standardized features" if settings["standardize"] else ""
        return f"Angle of separability, kappa = {settings['kappa']:g}{units}"

    def section_lines(self, report):
        angle, names = report[self.key], report["data"]["classes"]
        settings = report["settings"]
        lines = [self.heading(report)]
        if len(names) == 2:
            return lines + _two_class_lines(angle, settings["standardize"])
        if len(names) > COMPACT_ABOVE:
            return lines + _listed(angle, names)
        for metric, figures in angle.items():
            lines.append(f"  {metric}: pairwise theta (deg)")
            rows = [[name] + [f"{value:.2f}" for value in row]
                    for name, row in zip(names, figures["pairwise_angle_degrees"],
                                         strict=True)]  # fmt: skip
            lines += columns([""] + names, rows, indent="    ")
        return lines


def _figures(estimator):
    if len(estimator.classes_) > 2:
        degrees = np.degrees(estimator.pairwise_angles_)
        return {"pairwise_angle_degrees": degrees.tolist()}
    test = estimator.hotelling_
    return {
        "angle_degrees": float(np.degrees(estimator.angle_)),
        "cos_angle": float(estimator.cos_angle_),
        "scaled_distance": float(estimator.scaled_distance_),
        "mahalanobis_distance": float(estimator.mahalanobis_distance_),
        "hotelling_pvalue": None if test is None else float(test.pvalue),
    }


def _two_class_lines(angle, standardized):
    rows = [
        [metric, f"{figures['angle_degrees']:.2f}", number(figures["cos_angle"]),
         number(figures["scaled_distance" if metric == "euclidean"
                        else "mahalanobis_distance"])]
        for metric, figures in angle.items()
    ]  # fmt: skip
    lines = columns(["metric", "theta (deg)", "cos theta", "length"], rows)
    units = "" if standardized else "; depends on the units: --standardize"
    lines.append(f"  length: ||S^-1 d|| (euclidean, the paper's{units}),")
    lines.append(
        "          sqrt(d' S^-1 d) (mahalanobis, unit-free where S is nonsingular)"
    )
    test = angle["euclidean"]["hotelling_pvalue"]
    if test is None:
        shown = (
            "n/a (the within-class scatter is singular: more features than rows, "
            "or dependent features)"
        )
    else:  # below the smallest double the p-value rounds to 0: say so
        shown = "p < 1e-300" if test == 0.0 else f"p = {number(test)}"
    lines.append(f"  Hotelling's T2 test of theta = 0 (equal class means): {shown}")
    lines.append("  theta grows with kappa: a family of numbers, not one (see below)")
    return lines


def pairs_by_angle(angle, names):
    """``(a, b, euclidean, mahalanobis)`` of every pair, smallest mahalanobis θ
    first."""
    euclidean = angle["euclidean"]["pairwise_angle_degrees"]
    mahalanobis = angle["mahalanobis"]["pairwise_angle_degrees"]
    pairs = [
        (names[i], names[j], euclidean[i][j], mahalanobis[i][j])
        for i, j in combinations(range(len(names)), 2)
    ]
    return sorted(pairs, key=lambda pair: pair[3])


def _listed(angle, names):
    pairs = pairs_by_angle(angle, names)
    lines = [
        f"  the {min(LISTED_PAIRS, len(pairs))} least separable of {len(pairs)} "
        "pairs, theta (deg)"
    ]
    rows = [
        [f"{a} vs {b}", f"{e:.2f}", f"{m:.2f}"] for a, b, e, m in pairs[:LISTED_PAIRS]
    ]
    return lines + columns(["pair", "euclidean", "mahalanobis"], rows)
