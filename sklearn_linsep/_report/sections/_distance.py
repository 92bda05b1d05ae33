"""The Mahalanobis distance between the class means, √(dᵀS⁺d): invariant to any
invertible affine map of the features, and free of κ. Infinite where the means
differ along a direction in which no row of either class varies."""

from itertools import combinations

import numpy as np
from scipy.stats import norm

from ..._separability import class_mean_distance
from .._layout import columns, number, pair_name
from .._section import HeadlineParts, Section

# Words for Δ: two equally likely Gaussian classes Δ = 1, 2, 4 apart are split by
# the best linear rule with error 31%, 16%, 2.3%.
_WORDS = ((1.0, "overlapping"), (2.0, "close"), (4.0, "apart"))


def distance_words(delta):
    return next((word for limit, word in _WORDS if delta < limit), "well apart")


def corrected(delta, n, p, counts):
    """The unbiased estimate of the squared distance from the sample's:
    D²ᵤ = (n − p − 3)/(n − 2) D² − p (1/n₁ + 1/n₂), floored at 0, as its root.
    The sample's D² overstates the distance by about p (1/n₁ + 1/n₂), much of it
    where p is not small against n (on noise with n = 100, p = 45: D = 1.8)."""
    if not np.isfinite(delta) or n - p - 3 <= 0:
        return None if not np.isfinite(delta) else 0.0
    squared = (n - p - 3) / (n - 2) * delta**2 - p * (1 / counts[0] + 1 / counts[1])
    return float(np.sqrt(max(squared, 0.0)))


class Distance(Section):
    key = "distance"
    title = "Distance between the class means (Mahalanobis; unit-free)"
    help = (
        (
            "distance",
            "the Mahalanobis distance between the class means, sqrt(d' S^+ d) with "
            "S the pooled within-class covariance: no unit, no affine map of the "
            "features and no kappa moves it. Measured on the rows it overstates "
            "the distance where the features are many for the rows; 'corrected' "
            "is the unbiased estimate. Two equally likely Gaussian classes that "
            "far apart with a common covariance are split by the best linear rule "
            "with error Phi(-distance/2). Infinite where the means differ along a "
            "direction in which no row of either class varies (a feature constant "
            "within each class: a leaked label?).",
        ),
    )

    def compute(self, data, errors):
        p = int(data.X.shape[1])
        pairs = []
        for a, b in combinations(range(data.n_classes), 2):
            # Standardized: Δ is unit-free where it is finite, but whether d lies
            # in S's range is a tolerance, which must not see the units.
            stats = data.standardized_statistics
            if data.n_classes > 2:
                stats = stats.pair(a, b)
            delta, rank = class_mean_distance(stats)
            counts = stats.counts
            unbiased = corrected(delta, float(counts.sum()), p, counts)
            pairs.append({
                "classes": [data.class_names[a], data.class_names[b]],
                "rank": int(rank),
                "mahalanobis": None if np.isinf(delta) else delta,
                "infinite": bool(np.isinf(delta)),
                "corrected": unbiased,
                "gaussian_error": None if unbiased is None
                else float(norm.cdf(-unbiased / 2)),
            })  # fmt: skip
        return {"n_features": p, "pairs": pairs}

    def section_lines(self, report):
        section = report[self.key]
        pairs = sorted(section["pairs"], key=_closest_first)
        rows = [
            [pair_name(p), "infinite" if p["infinite"] else number(p["mahalanobis"], 3),
             number(p["corrected"], 3),
             "0" if p["infinite"] else f"{p['gaussian_error']:.2%}",
             f"{p['rank']} of {section['n_features']}"]
            for p in pairs[:10]
        ]  # fmt: skip
        header = ["pair", "distance", "corrected", "Gaussian error", "rank of S"]
        lines = [self.title] + columns(header, rows)
        if any(p["infinite"] for p in pairs):
            lines.append(
                "  infinite: the means differ where no row varies (a feature "
                "constant within each class?)"
            )
        return lines

    def headline(self, report):
        """How far apart the closest means are, in words and as the error of
        two Gaussian classes that far apart: an estimate, which a measured
        accuracy follows."""
        section = report.get(self.key)
        if section is None:
            return HeadlineParts(
                how_well="the distance between the class means could not be "
                "computed (see 'Not available')",
                precedence=1,
            )
        pair = closest(section)
        means = "the class means are"
        if len(report["data"]["classes"]) > 2:
            means = f"the closest pair's means, {pair_name(pair)}, are"
        if pair["infinite"]:
            return HeadlineParts(
                how_well=f"{means} infinitely far apart: they differ along a "
                "direction in which no row of either class varies (a feature "
                "constant within each class: a leaked label?)",
                precedence=1,
            )
        delta = pair["corrected"]
        return HeadlineParts(
            how_well=f"{means} {delta:.2f} apart in Mahalanobis distance (unbiased "
            f"estimate; {pair['mahalanobis']:.2f} as measured): "
            f"{distance_words(delta)}; two equally likely Gaussian classes that far "
            f"apart would be split with error {pair['gaussian_error']:.1%} (the "
            "idealised Gaussian error Phi(-distance/2), not a measured one)",
            precedence=1,
            estimate=True,
        )


def _closest_first(pair):
    return (pair["infinite"], pair["corrected"] or 0.0)


def closest(section):
    """The pair with the smallest distance (an infinite one only if all are)."""
    return min(section["pairs"], key=_closest_first)
