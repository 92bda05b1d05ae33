"""Cover's counting theorem: how likely random labels are separable here."""

from ..._certificates import cover_separability_probability
from .._layout import count, probability
from .._section import Section


class Cover(Section):
    key = "cover"
    title = "Cover"
    help = (
        (
            "Cover",
            "the chance that labels drawn at random are separable for this many "
            "points in this dimension: near 1, separability says little.",
        ),
    )

    def compute(self, data, errors):
        p = data.X.shape[1]
        value = cover_separability_probability(data.n_rows, p)
        return {"probability_random_labelling_separable": float(value)}

    def section_lines(self, report):
        data = report["data"]
        value = report[self.key]["probability_random_labelling_separable"]
        return [
            f"Cover: a random two-class labelling of {count(data['n_samples'])} points in "
            f"general position in R^{data['n_features']} is separable with probability "
            + probability(value)
        ]
