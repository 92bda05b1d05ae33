"""The Mahalanobis distance between the class means, √(dᵀS⁺d): invariant to any
invertible affine map of the features, and free of κ. Infinite where the means
differ along a direction in which no row of either class varies; finite or
infinite only with a proof on the rows as given (:mod:`..._fredholm`), else
undecided."""

import textwrap
from functools import partial
from itertools import combinations

import numpy as np
from scipy.special import ndtr

from ..._angle import class_mean_distance
from ..._fredholm import MeanRange, decide_mean_range
from .._layout import columns, number, pair_name
from .._section import HeadlineParts, Section

# Words for Δ: two equally likely Gaussian classes Δ = 1, 2, 4 apart are split by
# the best linear rule with error 31%, 16%, 2.3%.
_WORDS = ((1.0, "overlapping"), (2.0, "close"), (4.0, "apart"))
# A direction of more features than this is given in the JSON only.
_NAMED_TERMS = 3


def distance_words(delta):
    return next((word for limit, word in _WORDS if delta < limit), "well apart")


def corrected(delta, n, p, counts):
    """The unbiased estimate of the squared distance from the sample's:
    D²ᵤ = (n − p − 3)/(n − 2) D² − p (1/n₁ + 1/n₂), floored at 0, as its root.
    The sample's D² overstates the distance by about p (1/n₁ + 1/n₂), much of it
    where p is not small against n (on noise with n = 100, p = 45: D = 1.8)."""
    if not np.isfinite(delta):
        return None
    if n - p - 3 <= 0:
        return 0.0
    squared = (n - p - 3) / (n - 2) * delta**2 - p * (1 / counts[0] + 1 / counts[1])
    return float(np.sqrt(max(squared, 0.0)))


def pair_range(data, a, b, numerical_rank):
    """The :class:`~..._fredholm.MeanRange` of classes a and b on the rows in
    memory. A sample of the rows proves a finite distance for all of them (its
    differences are some of theirs), never an infinite one."""
    X, y = data.X, data.y
    keep = (y == a) | (y == b)
    if not keep.all():  # two classes: no copy of X (80 MB at 1e6 x 10)
        X, y = X[keep], y[keep]
    decision = decide_mean_range(X, y, numerical_rank=numerical_rank, exact_rank=True)
    if data.sampled and decision.finite is False:
        return MeanRange(
            None,
            "the rows in memory are a sample (--sample-rows): no row of it varies "
            "where the means differ, but the other rows were not checked",
        )
    return decision


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
            "within each class: a leaked label?). Finite or infinite only with a "
            "proof in exact arithmetic on the rows as given (else 'undecided', "
            "with the reason); the rank is numerical (eigenvalues cut at a "
            "tolerance), and a '*' marks a distance that leaves out directions "
            "the cut drops though the rows vary along them.",
        ),
    )

    def compute(self, data, errors):
        p = int(data.X.shape[1])
        pairs = []
        for a, b in combinations(range(data.n_classes), 2):
            # Standardized: Δ is unit-free where it is finite; whether d lies in
            # S's range is decided exactly on the rows as given.
            stats = data.standardized_statistics
            if data.n_classes > 2:
                stats = stats.pair(a, b)
            delta, rank, decision = class_mean_distance(
                stats, partial(pair_range, data, a, b)
            )
            if decision.finite and not np.isfinite(delta):
                # Said here, not left to the text as a missing number (the text
                # report failed on one: a feature of 1.7e308 in every row, which
                # the statistics now take; found by review).
                raise ValueError(
                    "the distance is finite (proved), but float64 overflowed "
                    "computing it: features of extreme magnitude; rescale them"
                )
            counts = stats.counts
            unbiased = corrected(delta, float(counts.sum()), p, counts)
            pairs.append({
                "classes": [data.class_names[a], data.class_names[b]],
                "rank": int(rank),
                "mahalanobis": float(delta) if np.isfinite(delta) else None,
                "infinite": decision.finite if decision.finite is None
                else not decision.finite,
                "proof": decision.proof if decision.finite is not None else None,
                "undecided": decision.proof if decision.finite is None else None,
                "exact_rank_at_least": decision.rank_at_least,
                "exact_rank": decision.exact_rank,
                "direction": _named_direction(decision, data.feature_names),
                "corrected": unbiased,
                "gaussian_error": None if unbiased is None
                else float(ndtr(-unbiased / 2)),
            })  # fmt: skip
        return {"n_features": p, "pairs": pairs}

    def section_lines(self, report):
        section = report[self.key]
        pairs = sorted(section["pairs"], key=_closest_first)[:10]
        rows = [
            [pair_name(p), _distance_cell(p), number(p["corrected"], 3),
             _error_cell(p), f"{p['rank']} of {section['n_features']}"]
            for p in pairs
        ]  # fmt: skip
        header = ["pair", "distance", "corrected", "Gaussian error", "rank of S"]
        lines = [self.title] + columns(header, rows)
        for pair in pairs:
            if pair["infinite"]:
                lines += _note(f"{pair_name(pair)}: infinite, proved: the means "
                               f"differ along {_direction_text(pair['direction'])}, "
                               "in which no row of either class varies")  # fmt: skip
        if any(_cut(pair) for pair in pairs):
            lines += _note(
                "*: the rank cut drops directions in which the rows vary by less "
                "than the tolerance, not zero (the exact rank is larger); the "
                "distance leaves them out"
            )
        for reason in dict.fromkeys(p["undecided"] for p in pairs if p["undecided"]):
            lines += _note(f"undecided: {reason}")
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
        if pair["infinite"] is None:
            return HeadlineParts(
                how_well=f"whether {means} a finite Mahalanobis distance apart is "
                f"undecided: {pair['undecided']}",
                precedence=1,
            )
        if pair["infinite"]:
            return HeadlineParts(
                how_well=f"{means} infinitely far apart (proved): they differ "
                f"along {_direction_text(pair['direction'])}, in which no row of "
                "either class varies (a leaked label?)",
                precedence=1,
            )
        delta = pair["corrected"]
        undecided = sum(p["infinite"] is None for p in section["pairs"])
        return HeadlineParts(
            how_well=f"{means} {delta:.2f} apart in Mahalanobis distance (unbiased "
            f"estimate; {pair['mahalanobis']:.2f} as measured): "
            f"{distance_words(delta)}; two equally likely Gaussian classes that far "
            f"apart would be split with error {pair['gaussian_error']:.1%} (the "
            "idealised Gaussian error Phi(-distance/2), not a measured one)"
            + (f"; undecided for {undecided} pairs" if undecided else ""),
            precedence=1,
            estimate=True,
        )


def _closest_first(pair):
    """Finite distances, nearest first; then the undecided; then the infinite."""
    order = {False: 0, None: 1, True: 2}[pair["infinite"]]
    return order, pair["corrected"] or 0.0


def closest(section):
    """The pair with the smallest distance (an undecided or infinite one only
    if no distance is finite)."""
    return min(section["pairs"], key=_closest_first)


def _cut(pair):
    """Whether a finite distance leaves out directions the rank cut drops
    (the exact rank, proved, above the numerical one)."""
    least = pair["exact_rank"] or pair["exact_rank_at_least"] or 0
    return pair["infinite"] is False and least > pair["rank"]


def _distance_cell(pair):
    if pair["infinite"] is None:
        return "undecided"
    if pair["infinite"]:
        return "infinite"
    return number(pair["mahalanobis"], 3) + ("*" if _cut(pair) else "")


def _error_cell(pair):
    if pair["infinite"] is None:
        return "n/a"
    return "0" if pair["infinite"] else f"{pair['gaussian_error']:.2%}"


def _named_direction(decision, names):
    """The proof's direction v by feature name (largest weight 1), or None."""
    if decision.exact_direction is None:
        return None
    return {str(names[j]): float(value) for j, value in decision.exact_direction.items()}


def _direction_text(direction):
    """``a - 2 b``: the direction where it is short, else how many features;
    where none was computed (``None``), why one exists."""
    if direction is None:
        return ("a direction that the rows' differences within each class leave "
                "(they and the means' difference are linearly independent)")
    if len(direction) > _NAMED_TERMS:
        return f"a combination of {len(direction)} features (--json lists it)"
    text = ""
    for name, weight in direction.items():
        size = "" if abs(weight) == 1 else f"{abs(weight):.3g} "
        sign = ("-" if weight < 0 else "") if not text else (" - " if weight < 0 else " + ")
        text += f"{sign}{size}{name}"
    return text


def _note(text):
    """A note under the table, in lines of at most 80 characters."""
    return textwrap.wrap(text, width=80, initial_indent="  ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False)
