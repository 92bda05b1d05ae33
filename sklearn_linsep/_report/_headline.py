"""The report's first lines: what the data are, the verdict, how well, and what to
look at next. Nothing in them moves with κ or with the units of a feature: the
verdict is exact, its margin and hinge are in standardized units, and the
distance is Mahalanobis' (or, where any labelling would be separable, Cover's
probability says so)."""

from ._layout import count, number, pair_name
from .sections._distance import closest, distance_words
from .sections._validation import best_model
from .sections._verdict import hinge_text

_SAYS_LITTLE = 0.5  # Cover's probability above which a verdict says little


def headline_lines(report, title):
    return [
        _title_line(report, title),
        _verdict_line(report),
        _how_well_line(report),
        _next_line(report),
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


def _verdict_line(report):
    verdicts = report["separability"]
    if verdicts is None:
        return "Verdict: the separability test failed (see 'Not available')."
    if len(verdicts) == 1:
        return "Verdict: " + _two_class_verdict(verdicts[0])
    decided = [v for v in verdicts if v["separable"] is not None]
    separable = [v for v in decided if v["separable"]]
    inseparable = [
        f"{pair_name(v)} ({v['certificate_size']} rows prove it)"
        for v in decided
        if not v["separable"]
    ]
    text = (
        f"Verdict: {_joint_text(report)}{len(separable)} of {len(verdicts)} class "
        "pairs are linearly separable"
    )
    if inseparable:
        text += "; not: " + ", ".join(inseparable[:3])
        text += ", ..." if len(inseparable) > 3 else ""
    if any(not v["conclusive"] for v in separable):
        text += " (separable ones on the sample only)"
    return text + "."


def _joint_text(report):
    """The joint verdict of K > 2 classes, as the headline's first clause."""
    joint = report.get("joint_separability")
    if joint is None:
        return ""
    if joint["separable"]:
        sample = "" if joint["conclusive"] else ", on the sample"
        return (
            "one linear machine separates all classes (margin "
            f"{number(joint['margin'], 6)}{sample}); "
        )
    return (
        "no linear machine separates all classes "
        f"({joint['certificate_rows']} rows prove it); "
    )


def _two_class_verdict(verdict):
    if verdict["separable"] is None:
        return "the separability test failed (see 'Not available')."
    margin = number(verdict.get("margin"), 6)
    if verdict["separable"] and not verdict["conclusive"]:
        return (
            f"the sample of {count(verdict['rows'])} of {count(verdict['of_rows'])} "
            f"rows is linearly separable (margin {margin}, standardized); that "
            "proves nothing of the other rows (raise --sample-rows to test them all)."
        )
    if verdict["separable"]:
        return (
            f"linearly separable, with maximal margin {margin} in standardized units "
            "(every feature at unit variance; the hyperplane is below)."
        )
    return (
        f"not linearly separable: {verdict['certificate_size']} rows prove it (a "
        "point in both convex hulls); least total hinge, standardized, "
        f"{hinge_text(verdict)}."
    )


def _how_well_line(report):
    data, cover, distance = report["data"], report["cover"], report["distance"]
    probability = cover["probability_random_labelling_separable"] if cover else 0.0
    if probability > _SAYS_LITTLE:
        return (
            f"How well: by Cover's theorem a random two-class labelling of "
            f"{count(data['n_samples'])} rows in {data['n_features']} dimensions is "
            f"separable with probability {number(probability, 3)}, so separability "
            "says little here; cross-validated accuracy says more."
        )
    if distance is None:
        return (
            "How well: the distance between the class means could not be computed "
            "(see 'Not available')."
        )
    pair = closest(distance)
    means = "the class means are"
    if len(data["classes"]) > 2:
        means = f"the closest pair's means, {pair_name(pair)}, are"
    if pair["infinite"]:
        return (
            f"How well: {means} infinitely far apart: they differ along a direction "
            "in which no row of either class varies (a feature constant within each "
            "class: a leaked label?)."
        )
    delta = pair["corrected"]
    return (
        f"How well: {means} {delta:.2f} apart in Mahalanobis distance (unbiased "
        f"estimate; {pair['mahalanobis']:.2f} as measured): {distance_words(delta)}; "
        "two equally likely Gaussian classes that far apart would be split with "
        f"error {pair['gaussian_error']:.1%} (the idealised Gaussian error "
        f"Phi(-distance/2), not a measured one){_measured(report)}."
    )


def _measured(report):
    """The best cross-validated accuracy, beside the Gaussian error."""
    best = best_model(report.get("cross_validation"))
    if best is None:
        return ""
    name, mean = best
    return f"; measured: the best cross-validated accuracy is {mean:.4f} ({name})"


def _next_line(report):
    steps = []
    verdicts = report["separability"] or []
    if any(v["separable"] is False for v in verdicts):
        steps.append("the certificate's rows (below) are where the classes meet")
    validation = report.get("cross_validation")
    possible = report["settings"].get("cv_possible", 10)
    if validation is not None and "skipped" not in validation:
        steps.append(
            "the cross-validated accuracy says how a linear rule does on new rows"
        )
    elif possible >= 2:  # only folds this file allows
        steps.append(
            f"--cv {min(10, possible)} says how a linear rule does on new rows"
        )
    if len(report["data"]["classes"]) > 2:
        steps.append("--positive CLASS reports one class against the rest")
    return "Next: " + "; ".join(steps) + "."
