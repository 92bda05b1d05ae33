"""Ho & Basu's complexity measures (Lorena et al. 2019), one line each: the
feature measures on the rows in memory, the linearity ones from what the verdict
already found (its least total hinge with that soft limit's hyperplane, and its
fewest errors of a hyperplane), so that nothing is solved twice."""

from itertools import combinations

import numpy as np
from sklearn.utils import check_random_state

from ... import _complexity as kernels
from ..._rows import rows_of
from .._section import Section

# (key, name, what the value says and which way is better): the section's lines.
_MEANINGS = (
    ("f1", "F1", "the best single feature's Fisher ratio (low: means apart)"),
    ("f1v", "F1v", "Fisher's ratio along Fisher's direction (low: means apart)"),
    ("f2", "F2", "volume where the classes' ranges overlap (low: little)"),
    ("f3", "F3", "rows in the best feature's overlap (low: it sorts most)"),
    ("f4", "F4", "rows in every feature's overlap in turn (low: few left)"),
    ("l1", "L1", "least total hinge per row d, as d/(1+d) (0: separable)"),
    ("l2", "L2", "least training error rate of any hyperplane (0: separable)"),
    ("l3", "L3", "L1's hyperplane's error between rows of a class (low: convex)"),
)


class Complexity(Section):
    key = "complexity"
    title = "Complexity (Ho & Basu; in [0, 1], lower is simpler)"
    help = (
        (
            "F1..L3",
            "the data-complexity measures of Ho & Basu as Lorena et al. (2019) "
            "define them (problexity, pymfe and ECoL compute them too): F1-F4 "
            "from each feature's class ranges and Fisher's ratios, L1-L3 from "
            "hyperplanes. Where those tools fit one linear SVM at a finite C, "
            "L1 here is the exact least total hinge (the verdict's, per row; "
            "no affine map of the features moves it), "
            "L2 the least training error of any hyperplane with proven bounds "
            "(on the 'must be removed' line), and L3 the error of L1's "
            "hyperplane (the C -> infinity soft margin's) on points drawn "
            "between two rows of a class. K > 2 classes: the mean "
            "over the class pairs (--json has each pair's).",
        ),
    )

    def compute(self, data, errors):
        rng = check_random_state(data.settings.seed)
        pairs = []
        for pair in combinations(range(data.n_classes), 2):
            names = [data.class_names[k] for k in pair]
            values = self.guarded(
                errors,
                lambda pair=pair: _pair_measures(data, pair, rng),
                part=f"{names[0]} vs {names[1]}",
                failed={},
            )
            pairs.append({"classes": names, **values})
        measures = {key: _mean([p.get(key) for p in pairs]) for key, *_ in _MEANINGS}
        measures["f1"] = self.guarded(
            errors,
            lambda: kernels.maximum_fisher_ratio(data.X, data.y, data.n_classes, None),
            part="F1",
        )
        return {"measures": measures, "pairs": pairs, "rows": int(data.X.shape[0])}

    def section_lines(self, report):
        section = report[self.key]
        measures, pairs = section["measures"], section["pairs"]
        lines = [self.title]
        if len(pairs) > 1:
            lines[0] += f"; mean of {len(pairs)} pairs"
        for key, name, meaning in _MEANINGS:
            value = measures.get(key)
            shown = "n/a" if value is None else f"{value:.4f}"
            if key == "l2" and value:
                shown, meaning = _l2_line(pairs, shown, meaning)
            lines.append(f"  {name:<4}{shown:>8}  {meaning}")
        return lines


def _l2_line(pairs, shown, meaning):
    """Two classes: L2's bounds are on the verdict's 'must be removed' line, said
    once; K > 2 (whose pairs' removals the verdict's matrix does not list): the
    pairs' mean bounds here."""
    if len(pairs) == 1:
        return "above", "least training error rate of any hyperplane: see 'removed'"
    lower = _mean([pair.get("l2_bounds", [0.0, 0.0])[0] for pair in pairs])
    if lower is not None and f"{lower:.4f}" != shown:
        meaning = f"least training error of any hyperplane, at least {lower:.4f}"
    return shown, meaning


def _mean(values):
    """The mean of the pairs' values, None where any pair has none."""
    if not values or any(v is None for v in values):
        return None
    return float(np.mean(values))


def _pair_measures(data, pair, rng):
    """The measures of one class pair: F1v-F4 on its rows in memory, L1-L3 from
    the verdict's findings (None where the verdict has none)."""
    rows = kernels.pair_of(data.X, data.y, *pair)
    values = {
        "f1v": _f1v(rows),
        "f2": kernels.overlap_volume(*kernels.class_extremes(rows.X, rows.c)),
        "f3": kernels.feature_efficiency(rows),
        "f4": kernels.collective_efficiency(rows),
    }
    return values | _linearity(data, pair, rng)


def _f1v(rows):
    """F1v at κ = ∞ on the pair's rows in memory, its rank decided on them."""
    library_rows = rows_of(rows.X, rows.c, name="the report's F1v")
    statistics = library_rows.statistics(per_class=lambda k: False)
    ratio, _, _ = kernels.directional_ratio(
        statistics, library_rows, 0, 1, np.inf, None
    )
    return 1.0 / (1.0 + ratio)


def _linearity(data, pair, rng):
    found = data.findings.get(pair)
    if found is None:
        return {"l1": None, "l2": None, "l3": None}
    l1 = None
    if found.hinge is not None:
        l1 = kernels.error_distance(found.hinge, found.hinge_rows)
    n = len(found.rows)
    values = {"l1": l1, "l2": None, "l3": None, "linearity_rows": int(n)}
    if found.errors is not None:
        values |= {"l2": found.errors / n,
                   "l2_bounds": [found.lower / n, found.errors / n]}  # fmt: skip
    if found.soft is not None:
        Z = data.standardized[found.rows]
        c = (data.y[found.rows] == pair[1]).astype(np.intp)
        rows = kernels.Pair(pair[0], pair[1], Z, c, None, found.rows)
        points, labels = kernels.interpolated(rows, rng)
        values["l3"] = float(kernels.misclassified(points, labels, *found.soft).mean())
    return values
