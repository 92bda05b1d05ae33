"""The exact verdict of all classes at once (K > 2), on standardized features:
whether one linear machine classifies every row right, with its proof either
way."""

import numpy as np

from ..._certificates import linear_separability
from .._layout import certificate_lines, number, of_rows, plain
from .._section import HeadlineParts, Section
from ._verdict import (
    NOT_PROVEN,
    Verdict,
    among,
    conclusive,
    exact_weights,
    fewest_removed,
    proof_words,
    removal_text,
)


class JointVerdict(Section):
    key = "joint_separability"
    title = (
        "Exact joint linear separability of all classes, standardized features "
        "(one linear machine; certificate either way)"
    )
    help = (
        (
            "joint",
            "whether one linear machine (predict the class of largest score "
            "w_k.z + b_k) classifies every row right: exact, with a proof either "
            "way. When yes, its margin (the Crammer-Singer maximal margin: the "
            "least distance of a row to a boundary between its class and "
            "another); when no, weights on (row, other class) pairs that balance "
            "per class, which no machine can satisfy, and the fewest rows to "
            "remove for one machine to classify the rest (bounded as for a pair, "
            "below). One class against the rest "
            "separable implies jointly separable, which implies every pair "
            "separable; neither converse holds.",
        ),
    )

    def applies(self, data):
        return data.n_classes > 2

    def compute(self, data, errors):
        whole = None if data.verdicts is None else data.verdicts["joint"]
        if whole is None:
            result = linear_separability(
                data.standardized, data.y, multiclass="joint", tol=data.settings.tol
            )
        else:  # over every row, on a cluster
            result = among(whole, data.row_ids)
        names = data.class_names
        of_rows = int(round(data.statistics.counts.sum()))
        verdict = {
            "separable": bool(result.separable),
            "conclusive": conclusive(result, data, whole),
            "rows": int(len(data.y)) if whole is None else of_rows,
            "of_rows": of_rows,
        }
        if result.separable:
            return verdict | {"margin": float(result.margin)}
        pairs = zip(  # data.y is encoded: the other classes are codes too
            result.certificate_indices,
            result.certificate_classes,
            result.certificate_weights,
            exact_weights(result),
            strict=True,
        )
        rows = np.union1d(data.fitting_rows(), result.certificate_indices)
        everything = np.arange(len(data.y))
        removal = fewest_removed(
            data, data.standardized, data.y, np.arange(len(names)), rows, everything
        )
        return (
            verdict
            | removal
            | {
                "certificate": [
                    {
                        "row": plain(data.row_ids[i]),
                        "class": names[data.y[i]],
                        "other_class": names[k],
                        "weight": float(weight),
                    }
                    | exact
                    for i, k, weight, exact in pairs
                ],
                "certificate_size": len(result.certificate_indices),
                "certificate_rows": len(np.unique(result.certificate_indices)),
                "certificate_proven": bool(result.proven),
            }
        )

    def section_lines(self, report):
        verdict = report[self.key]
        lines = [self.title]
        if verdict["separable"]:
            sample = "" if verdict["conclusive"] else " (on the sample)"
            return lines + [
                "  separable: one linear machine classifies every row right, "
                f"margin {number(verdict['margin'], 6)}{sample}"
            ]
        rows = of_rows(verdict["certificate_rows"], verdict["of_rows"])
        return lines + [
            f"  not separable: weights on {verdict['certificate_size']} (row, other "
            f"class) pairs over {rows} balance per class, so no linear machine "
            f"classifies every row right; for one to, {removal_text(verdict)}"
        ] + certificate_lines(
            "  certificate: row (other class, weight); the weights balance per class"
            + ("" if verdict.get("certificate_proven", True) else NOT_PROVEN),
            verdict["certificate"], report["data"]["classes"],
        )  # fmt: skip

    def headline(self, report):
        """The verdict's first clause, before the pairs': where the pairs' test
        failed, the verdict line says that alone."""
        joint = report.get(self.key)
        if joint is None or report.get(Verdict.key) is None:
            return HeadlineParts()
        if joint["separable"]:
            sample = "" if joint["conclusive"] else ", on the sample"
            return HeadlineParts(
                verdict="one linear machine separates all classes (margin "
                f"{number(joint['margin'], 6)}{sample})"
            )
        proof = proof_words(joint["certificate_rows"],
                            joint.get("certificate_proven", True))  # fmt: skip
        return HeadlineParts(verdict=f"no linear machine separates all classes ({proof})")
