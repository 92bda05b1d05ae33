"""The exact verdict of every class pair, on standardized features: the maximal
margin and its hyperplane, or the certificate's rows and the least total hinge."""

import warnings
from dataclasses import replace
from itertools import combinations

import numpy as np

from ..._certificates import linear_separability
from ..._complexity import fewest_misclassified, misclassified
from ..._margin import minimum_errors
from ..._svm import HardMarginSVM
from ...exceptions import SolverError
from .._context import PairFindings
from .._layout import (
    COMPACT_ABOVE,
    LISTED_PAIRS,
    certificate_lines,
    columns,
    count,
    escaped,
    number,
    of_rows,
    pair_name,
    plain,
    wrapped,
)
from .._section import HeadlineParts, Section
from .._stdout import native_stdout_silenced

# Beyond this many features, the text shows the hyperplane's largest weights only.
SHOWN_WEIGHTS = 30
_FAILED = "the separability test failed (see 'Not available')"  # in the headline


class Verdict(Section):
    key = "separability"
    title = (
        "Exact linear separability, standardized features (certificate either "
        "way; maximal margin)"
    )
    help = (
        (
            "verdict",
            "exact, with a proof either way: when separable, the maximal margin "
            "(distance from the best separating hyperplane to the nearest row); "
            "when not, a few rows whose weighted means per class coincide (a point "
            "in both convex hulls), which no hyperplane can split.",
        ),
        (
            "margin",
            "in standardized units (every feature at unit variance over all rows): "
            "no unit of any feature, and no kappa, moves it.",
        ),
        (
            "hinge",
            "the least total violation sum max(0, 1 - c (w.x + b)) of any "
            "hyperplane (the C -> infinity soft margin), standardized: 0 when "
            "separable, larger the further from it.",
        ),
        (
            "remove",
            "the fewest rows whose removal leaves the rest separable, bounded: at "
            "least L (each certificate found needs one of its rows out), at most U "
            "(a removal that separates); exact where the bounds meet. No unit and "
            "no affine map of the features moves it. --effort sets the search's "
            "rounds (the same lines on any machine), --time-limit caps its seconds.",
        ),
    )

    def compute(self, data, errors):
        verdicts = []
        for pair in combinations(range(data.n_classes), 2):
            names = [data.class_names[k] for k in pair]
            verdicts.append(
                self.guarded(
                    errors,
                    lambda pair=pair: pair_verdict(data, pair),
                    part=f"{names[0]} vs {names[1]}",
                    failed={"classes": names, "separable": None},
                )
            )
        return verdicts

    def section_lines(self, report):
        names = report["data"]["classes"]
        lines = [self.title]
        verdicts = report[self.key]
        if len(names) == 2:
            lines.append("  " + self.text(verdicts[0], report))
            return lines + _evidence_lines(verdicts[0])
        if len(names) > COMPACT_ABOVE:
            lines += self._listed(verdicts, report)
            inseparable = [v for v in verdicts if v["separable"] is False]
            inseparable = inseparable[:LISTED_PAIRS]
        else:
            lines += _matrix(verdicts, names)
            inseparable = [v for v in verdicts if v["separable"] is False]
        for verdict in inseparable:
            lines += _evidence_lines(verdict, f"{pair_name(verdict)}: ")
        return lines

    def _listed(self, verdicts, report):
        decided = [v for v in verdicts if v["separable"] is not None]
        inseparable = [v for v in decided if not v["separable"]]
        closest = sorted((v for v in decided if v["separable"]),
                         key=lambda v: v["margin"])  # fmt: skip
        lines = [
            f"  {len(decided) - len(inseparable)} of {len(verdicts)} pairs separable"
        ]
        rows = [[pair_name(v), self.text(v, report)] for v in inseparable + closest]
        lines += columns(["pair (inseparable, then smallest margins)", ""],
                         rows[:LISTED_PAIRS])  # fmt: skip
        failed = [v for v in verdicts if v["separable"] is None]
        return lines + [
            f"  {pair_name(v)}: {self.error(report, pair_name(v))}" for v in failed
        ]

    @classmethod
    def text(cls, verdict, report):
        """One pair's verdict in a line."""
        if verdict["separable"] is None:
            return cls.error(report, pair_name(verdict))
        if verdict["separable"]:
            text = f"separable, margin {number(verdict['margin'], 6)}"
            return text + ("" if verdict["conclusive"] else " (on the sample)")
        return (
            f"not separable: certificate of {verdict['certificate_size']} rows, "
            f"hinge {hinge_text(verdict)}; {removal_text(verdict)}"
        )

    def headline(self, report):
        """The verdict of two classes, or how many pairs are separable; and the
        certificate's rows to look at where a pair is not."""
        verdicts = report.get(self.key)
        if verdicts is None:
            return HeadlineParts(verdict=_FAILED)
        if len(verdicts) == 1:
            clause = _two_class_clause(verdicts[0])
        else:
            clause = _pairs_clause(verdicts)
        steps = ()
        if any(v["separable"] is False for v in verdicts):
            steps = ("the certificate's rows (below) are where the classes meet",)
        return HeadlineParts(verdict=clause, next_steps=steps)


def _two_class_clause(verdict):
    """The headline's verdict of two classes: the margin, or the certificate and
    the least total hinge."""
    if verdict["separable"] is None:
        return _FAILED
    margin = number(verdict.get("margin"), 6)
    if verdict["separable"] and not verdict["conclusive"]:
        return (
            f"the sample of {count(verdict['rows'])} of {count(verdict['of_rows'])} "
            f"rows is linearly separable (margin {margin}, standardized); that "
            "proves nothing of the other rows (raise --sample-rows to test them all)"
        )
    if verdict["separable"]:
        return (
            f"linearly separable, with maximal margin {margin} in standardized units "
            "(every feature at unit variance; the hyperplane is below)"
        )
    proof = proof_words(verdict["certificate_size"],
                        verdict.get("certificate_proven", True))  # fmt: skip
    return (
        f"not linearly separable: {proof} (a point in both convex hulls); least "
        f"total hinge, standardized, {hinge_text(verdict)}"
    )


def _pairs_clause(verdicts):
    """The headline's verdict of K > 2 classes: how many pairs are separable,
    and the first few that are not."""
    decided = [v for v in verdicts if v["separable"] is not None]
    separable = [v for v in decided if v["separable"]]
    inseparable = [
        f"{pair_name(v)} ({proof_words(v['certificate_size'], v.get('certificate_proven', True))})"
        for v in decided
        if not v["separable"]
    ]
    text = f"{len(separable)} of {len(verdicts)} class pairs are linearly separable"
    if inseparable:
        text += "; not: " + ", ".join(inseparable[:3])
        text += ", ..." if len(inseparable) > 3 else ""
    if any(not v["conclusive"] for v in separable):
        text += " (separable ones on the sample only)"
    return text


def removal_text(verdict):
    """The fewest rows to remove, as far as the search went."""
    removal = verdict.get("removal")
    if removal is None:
        return f"rows to remove n/a ({verdict.get('removal_error', 'not computed')})"
    lower = removal["lower_bound"]
    if "upper_bound" not in removal:  # a sample: only its lower bound holds
        return (
            f"at least {lower} rows must be removed (proved on "
            f"{of_rows(removal['rows'], verdict['of_rows'])})"
        )
    upper = removal["upper_bound"]
    of = f"of {count(removal['rows'])} rows"
    if removal["optimal"]:
        return f"exactly {upper} {of} must be removed (proven)" + _l2_text(removal)
    why = (
        "the search's --time-limit ran out"
        if removal["stopped_by"] == "time_limit"
        else "the search's --effort ran out"
    )
    return (
        f"at least {lower} and at most {upper} {of} must be removed ({why})"
        + _l2_text(removal)
    )


def _l2_text(removal):
    """Ho & Basu's L2 where the removal has it: the least training error rate of
    any hyperplane, bounded (the upper one a hyperplane's proved errors)."""
    if "error_rate" not in removal:
        return ""
    lower, upper = removal["error_rate"]
    if lower == upper:
        return f"; L2 (least error rate) {number(upper)}"
    return f"; L2 (least error rate) {number(lower)} to {number(upper)}"


def hinge_text(verdict):
    """The least total hinge, and what it covers: on part of the rows it is a
    lower bound (rows added can only add to the least total)."""
    if verdict["hinge_violation"] is None:
        return f"n/a ({verdict['hinge_error']})"
    rows = of_rows(verdict["hinge_rows"], verdict["of_rows"])
    if verdict["hinge_rows"] >= verdict["of_rows"]:
        return f"{number(verdict['hinge_violation'])} (all {rows})"
    return f">= {number(verdict['hinge_violation'])} (on {rows})"


# What a certificate header adds where the certificate is not proven.
NOT_PROVEN = " to 1e-9 of each feature's spread (not proven exactly)"


def conclusive(result, data, whole):
    """Whether a verdict holds for every row of the data: a separable one where
    every row was tested (no sample, or a cluster's pass over all); an inseparable
    one where its certificate is proven (it then holds for any rows added; one that
    balances to a tolerance only proves nothing)."""
    if not result.separable:
        return bool(result.proven)
    return bool(whole is not None or not data.sampled)


def proof_words(size, proven):
    """What a certificate of ``size`` rows says: it proves, or (not proven in
    exact arithmetic) its weighted means meet to float64's tolerance only, which
    may be separable by a narrower gap."""
    if proven:
        return f"{size} rows prove it"
    return (f"to float64's tolerance only: {size} rows meet to 1e-9 of each "
            "feature's spread, not proven exactly")  # fmt: skip


def pair_verdict(data, pair):
    """Separability of one pair on standardized rows: the maximal margin and its
    hyperplane (also in the data's units), or the certificate with its rows and
    the least total hinge of the C → ∞ soft margin.

    ``linear_separability`` scales to many rows; the soft limit does not (its
    working set holds every margin violator), so on inseparable data it is fitted
    on at most ``fit_rows`` rows, and the verdict says how many. A soft limit that
    float64 cannot certify leaves the hinge n/a, with the reason under
    ``hinge_error``, and the rest of the verdict stands."""
    mask = np.isin(data.y, pair)
    members = np.flatnonzero(mask)
    Z, y = data.standardized[mask], data.y[mask]
    whole = None if data.verdicts is None else data.verdicts[pair]
    if whole is None:
        result = linear_separability(Z, y, tol=data.settings.tol)
    else:
        result = among(whole, data.row_ids[members])
    names = data.class_names
    of_rows = int(round(data.statistics.counts[list(pair)].sum()))
    verdict = {
        "classes": [names[k] for k in pair],
        "separable": bool(result.separable),
        "conclusive": conclusive(result, data, whole),
        "rows": int(len(y)) if whole is None else of_rows,
        "of_rows": of_rows,
    }
    if result.separable:
        c = (y == pair[1]).astype(np.intp)
        errors = int(misclassified(Z, c, result.coef, result.intercept).sum())
        data.findings[pair] = PairFindings(members, 0.0, len(members),
                                           (result.coef, result.intercept), 0,
                                           errors)  # fmt: skip
        return (
            verdict
            | _hyperplanes(data, result, names[pair[1]])
            | {"margin": float(result.margin)}
        )
    verdict["certificate"] = [
        {"row": plain(data.row_ids[i]), "class": names[data.y[i]],
         "weight": float(weight)} | exact
        for i, weight, exact in zip(members[result.certificate_indices],
                                    result.certificate_weights,
                                    exact_weights(result), strict=True)
    ]  # fmt: skip
    verdict["certificate_size"] = len(result.certificate_indices)
    verdict["certificate_proven"] = bool(result.proven)
    rows = np.union1d(
        data.fitting_rows(np.searchsorted(pair, y)), result.certificate_indices
    )
    c = np.where(y == y.max(), 1.0, -1.0)
    search = {}
    verdict |= _least_hinge(data, Z, y, rows, search) | fewest_removed(
        data, Z, c, np.unique(y), rows, members, search
    )
    _error_rates(data, pair, verdict, Z[rows], c[rows] > 0, members[rows], search)
    return verdict


def among(result, positions):
    """A verdict over every row as one of the rows in memory (their
    ``positions`` among all rows, sorted): its certificate's rows among them (the
    error it raised, raised)."""
    if isinstance(result, Exception):
        raise result
    if result.separable:
        return result
    at = np.searchsorted(positions, result.certificate_indices)
    if not np.array_equal(positions[np.minimum(at, len(positions) - 1)],
                          result.certificate_indices):  # fmt: skip
        raise AssertionError("a certificate's row was not brought over")
    return replace(result, certificate_indices=at)


def _error_rates(data, pair, verdict, Z, positive, members, search):
    """L2 with the fewest rows to remove: its bounds as error rates, the upper one
    the proved error count of the search's hyperplane (at most the rows it
    removes); and the pair's :class:`~.._context.PairFindings`."""
    removal, found = verdict.get("removal"), search.get("result")
    lower = errors = None
    if found is not None and removal is not None and "upper_bound" in removal:
        c = positive.astype(np.intp)
        coef, intercept, errors = fewest_misclassified(
            Z, c, found.coef, found.intercept, found.lower_bound
        )
        lower = min(found.lower_bound, errors)
        if errors < removal["upper_bound"]:  # its errors out, the rest separate
            wrong = misclassified(Z, c, coef, intercept)
            removal["upper_bound"] = errors
            removal["optimal"] = lower == errors
            removal["removed"] = [plain(data.row_ids[i]) for i in members[wrong]]
        removal["misclassified"] = errors
        removal["error_rate"] = [lower / len(Z), errors / len(Z)]
    data.findings[pair] = PairFindings(
        members, verdict.get("hinge_violation"), verdict["hinge_rows"],
        search.get("soft"), lower, errors,
    )  # fmt: skip


def _hyperplanes(data, result, positive_class):
    """The hyperplane in standardized units, and the same one in the data's."""
    mean, scale = data.scaling
    coef = np.asarray(result.coef, dtype=float)
    raw = coef / scale
    names = data.feature_names
    return {
        "hyperplane": {
            "coef": dict(zip(names, map(float, coef), strict=True)),
            "intercept": float(result.intercept),
            "positive_class": positive_class,
        },
        "hyperplane_in_data_units": {
            "coef": dict(zip(names, map(float, raw), strict=True)),
            "intercept": float(result.intercept - raw @ mean),
        },
    }


def _least_hinge(data, Z, y, rows, search):
    """The soft limit on ``rows``: the fitting rows and the certificate's (so that
    the rows fitted are inseparable too, and the hinge is positive, as it is on
    all); its hyperplane goes to ``search["soft"]``."""
    found = {"hinge_rows": int(len(rows))}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            svm = HardMarginSVM(tol=data.settings.tol).fit(Z[rows], y[rows])
        found["hinge_violation"] = float(svm.hinge_violation_)
        search["soft"] = (svm.coef_[0], float(svm.intercept_[0]))
    except SolverError as error:
        found["hinge_violation"] = None
        found["hinge_error"] = str(error)
    return found


def exact_weights(result):
    """Per certificate entry, ``{"weight_exact": "p/q"}`` where the weights were
    found in rationals (``certificate_weights_exact``), else ``{}``."""
    exact = result.certificate_weights_exact
    if exact is None:
        return [{}] * len(result.certificate_weights)
    return [{"weight_exact": str(value)} for value in exact]


def fewest_removed(data, Z, labels, classes, rows, members, search=None):
    """The fewest rows to remove of ``rows`` (as the hinge's), with ``labels``
    the signs ±1 of two ``classes`` or the codes of K > 2 (joint): on all rows,
    both bounds; on a sample, only the lower bound holds for all rows (and the
    greedy removal behind the upper bound is skipped). ``members`` are the rows
    of the data that ``Z`` holds; ``search["result"]`` gets the search's
    :class:`~..._margin.MinimumErrorResult` where a dict is given."""
    whole = len(rows) == len(labels) and not data.sampled
    try:
        with native_stdout_silenced():  # the report owns stdout (see there)
            result = minimum_errors(
                Z[rows],
                labels[rows],
                classes,
                time_limit=data.settings.time_limit,
                effort=data.settings.effort,
                tol=data.settings.tol,
                greedy=whole,
            )
    except SolverError as error:
        return {"removal": None, "removal_error": str(error)}
    if search is not None:
        search["result"] = result
    removal = {
        "lower_bound": int(result.lower_bound),
        "stopped_by": result.stopped_by,
        "rows": int(len(rows)),
    }
    if whole:  # on a sample, only the lower bound speaks of all the rows
        removal |= {
            "upper_bound": int(result.upper_bound),
            "optimal": bool(result.optimal),
            "removed": [plain(data.row_ids[i]) for i in members[rows[result.removed]]],
        }
    return {"removal": removal}


def _evidence_lines(verdict, pair=""):
    """The hyperplane (separable) or the certificate's rows (not), of the
    ``pair`` named."""
    if verdict.get("hyperplane"):
        return _hyperplane_lines(verdict["hyperplane"])
    if verdict.get("certificate"):
        header = (
            f"  {pair}certificate: row (weight); the weighted means coincide"
            + ("" if verdict.get("certificate_proven", True) else NOT_PROVEN)
        )  # fmt: skip
        return certificate_lines(header, verdict["certificate"], verdict["classes"])
    return []


def _hyperplane_lines(plane):
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
        f"  hyperplane (w.z + b > 0 on {plane['positive_class']}, z standardized; "
        f"--json has it in the data's units too): b = {plane['intercept']:.6g}, "
        f"w{largest} ="
    ]
    return lines + wrapped([f"{escaped(name)} {value:.6g}" for name, value in weights])


def _matrix(verdicts, names):
    short = {}
    for verdict in verdicts:
        first, second = verdict["classes"]
        if verdict["separable"] is None:
            cell = "n/a"
        elif verdict["separable"]:
            cell = f"margin {number(verdict['margin'], 4)}"
            cell += "" if verdict["conclusive"] else "*"
        else:
            cell = f"no ({verdict['certificate_size']} pts)"
        short[first, second] = short[second, first] = cell
    rows = [[a] + [short.get((a, b), "-") for b in names] for a in names]
    notes = ["  no (k pts): k rows whose convex combinations coincide, a certificate"]
    if any(v["separable"] and not v["conclusive"] for v in verdicts):
        notes.append("  *: on the sample of rows in memory only")
    return columns([""] + names, rows) + notes
