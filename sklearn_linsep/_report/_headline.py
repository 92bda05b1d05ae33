"""The report's first lines: what the data are, the verdict, how well, and what to
look at next. Nothing in them moves with κ or with the units of a feature: the
verdict is exact, its margin and hinge are in standardized units, and the
distance is Mahalanobis' (or, where any labelling would be separable, Cover's
probability says so).

Each registered section says its part (:meth:`~._section.Section.headline`);
this module only puts the parts together, so that a new section needs nothing
here.
"""

from ._layout import count
from ._section import HeadlineParts
from .sections import SECTIONS

_NOT_SAID = HeadlineParts(how_well="n/a")  # no section says how well


def headline_lines(report, title):
    parts = [section.headline(report) for section in SECTIONS]
    return [
        _title_line(report, title),
        _verdict_line(parts),
        _how_well_line(parts),
        _next_line(report, parts),
    ]


def _title_line(report, title):
    data = report["data"]
    shape = (
        f"{count(data['n_samples'])} rows, {data['n_features']} features, "
        f"{len(data['classes'])} classes"
    )
    left_out = [
        f"column '{entry['column']}' left out as an identifier"
        for entry in data.get("left_out", [])
    ]
    return f"Linear separability report: {title} ({'; '.join([shape, *left_out])})"


def _verdict_line(parts):
    clauses = [part.verdict for part in parts if part.verdict]
    return f"Verdict: {'; '.join(clauses)}."


def _how_well_line(parts):
    """The "How well" of highest precedence, and where it is an estimate, the
    figures measured after it."""
    said = max(
        (part for part in parts if part.how_well),
        key=lambda part: part.precedence,
        default=_NOT_SAID,
    )
    measured = [part.measured for part in parts if part.measured]
    text = said.how_well
    if said.estimate and measured:
        text += "; " + "; ".join(measured)
    return f"How well: {text}."


def _next_line(report, parts):
    steps = [step for part in parts for step in part.next_steps]
    if len(report["data"]["classes"]) > 2:  # of the data alone
        steps.append("--positive CLASS reports one class against the rest")
    return "Next: " + "; ".join(steps) + "."
