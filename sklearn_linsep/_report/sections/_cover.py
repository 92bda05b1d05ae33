"""Cover's counting theorem: how likely random labels are separable here."""

from ..._certificates import cover_separability_probability
from .._layout import count, number, probability
from .._section import HeadlineParts, Section

_SAYS_LITTLE = 0.5  # the probability above which a verdict says little


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
            f"Cover: a random two-class labelling of {count(data['n_samples'])} "
            "points in "
            f"general position in R^{data['n_features']} is separable with probability "
            + probability(value)
        ]

    def headline(self, report):
        """Where random labels are likely separable, the headline's "How well"
        (before the distance): separability then says little."""
        section = report.get(self.key)
        value = section["probability_random_labelling_separable"] if section else 0.0
        if value > _SAYS_LITTLE:
            data = report["data"]
            return HeadlineParts(
                how_well="by Cover's theorem a random two-class labelling of "
                f"{count(data['n_samples'])} rows in {data['n_features']} dimensions "
                f"is separable with probability {number(value, 3)}, so separability "
                "says little here; cross-validated accuracy says more",
                precedence=2,
            )
        return HeadlineParts()
