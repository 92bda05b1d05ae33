"""The Farkas certificate of inseparability from a subset of rows (two classes) or
pairs (K classes) that admits no separator, verified before it is returned."""

import numpy as np

from .._exact._farkas import EXACT_ENTRIES, EXACT_SOLVE_WORK, decidable, side_pairs
from .._exact._simplex import EXACT_PIVOTS, EXACT_SIMPLEX_EQUATIONS
from .._kesler import pairs_of
from .._proofs import pairs_proof
from .._working_set import per_feature_rows, problem_rows, touched_rows
from ..exceptions import SolverError
from ._result import PROOF_RTOL, JointSeparabilityResult, SeparabilityResult
from ._solvers import hull_intersection_lp


def certificate_from_subset(two_class, working, classes=(0, 1), weights=None,
                            per_feature=False):  # fmt: skip
    """The Farkas certificate of a subset of samples that admits no separator.

    ``λ`` of the hull-intersection LP on scaled rows holds on X too
    (``Σ λ_i c_i (x_i - m) / s = 0`` and ``Σ λ_i c_i = 0`` give
    ``Σ λ_i c_i x_i = 0``); valid for the subset, so for all samples. Two equal
    samples of opposite labels, if any, are the (smallest) certificate. It is
    verified first: a wrong infeasibility gives a SolverError, never a false one.
    With ``per_feature`` (sparse rows) the LP's rows are only divided by each
    feature's spread (:func:`~.._working_set.per_feature_rows`: centring would
    fill them)."""
    pair = two_class.opposite_duplicates()
    if pair is not None:
        return checked_certificate(two_class, np.asarray(pair), np.ones(2), classes)
    if weights is not None:  # the nearest points' common point, when it verifies
        keep = weights > 0
        try:
            return checked_certificate(
                two_class, working[keep], weights[keep], classes, proof_only=True
            )
        except SolverError:
            pass  # the LP below finds a basic one, often where rounding hurt λ
    # λ is the same in every affine frame: the LP sees each feature at its own
    # spread, so its tolerances do not hide a gap in a feature of small units.
    frame = two_class if per_feature else two_class.equilibrated()
    rows = per_feature_rows(two_class, working) if per_feature else frame.rows(working)
    weights = hull_intersection_lp(rows, frame.labels(working))
    if weights is None:
        raise SolverError(
            "The classes come too close to touching for float precision to decide "
            "whether a hyperplane separates them: no separator was found on a subset "
            "of the samples, and no point in both convex hulls either. Check for "
            "near-duplicate rows with different labels, or rescale the features."
        )
    keep = weights > 0
    return checked_certificate(two_class, working[keep], weights[keep], classes)


def checked_certificate(rows, ids, weights, classes, proof_only=False,
                        exact_weights=None):  # fmt: skip
    """The inseparability result of ``weights`` on ``ids``: rows of two classes (λ,
    a :class:`SeparabilityResult`) or constraint ids of Kesler's pairs (μ, a
    :class:`JointSeparabilityResult`), two classes being K = 2 pairs, one a row
    (λ = 2μ). Proved on them (:func:`~.._proofs.pairs_proof`, whose rational weights
    replace the stated ones; or ``exact_weights``, known to balance exactly), its
    stated form checked against the spreads; else a SolverError. Unproved beyond an
    exact decision (and not ``proof_only``): ``proven`` False."""
    # Pairs by the protocol's mark (PairRows' ``n_classes`` and ``codes``), not a
    # class, so any backend of pairs is read as pairs.
    of_pairs = hasattr(rows, "n_classes") and hasattr(rows, "codes")
    if of_pairs:
        verdict, n_classes, what = JointSeparabilityResult, rows.n_classes, "pairs"
        row_ids, others = pairs_of(ids, n_classes)
        own = rows.codes[row_ids]
    else:
        verdict, n_classes, what = SeparabilityResult, 2, "rows"
        row_ids, (own, others) = ids, side_pairs(rows.labels(ids))
    points, features = touched_rows(rows, row_ids)
    active = problem_rows(rows)
    proved, exact = True, exact_weights
    if exact_weights is None:
        proved, exact = pairs_proof(points, own, others, n_classes, active)
        exact = verdict._from_pair_weights(exact)
    beyond = not (proof_only or decidable(active, rows.n_features, n_classes))
    if not (proved or beyond):  # beyond: the stated form's tolerance only
        raise SolverError(unproved_certificate(proved, len(ids), what))
    if exact is not None:  # the pairs of positive exact weight, rounded
        keep = np.flatnonzero([value > 0 for value in exact])
        row_ids, others, points, own = (a[keep] for a in (row_ids, others, points, own))
        exact = [exact[j] for j in keep]
        weights = np.array([float(value) for value in exact])
    proof = {"certificate_weights_exact": exact, "proven": bool(proved)}
    if of_pairs:
        result = JointSeparabilityResult(
            separable=False,
            classes=classes,
            certificate_indices=rows.indices_in_X(row_ids),
            certificate_classes=classes[others],
            certificate_weights=weights / weights.sum(),
            n_features=rows.n_features,
            **proof,
        )
    else:
        signs = rows.labels(row_ids)
        result = SeparabilityResult(
            separable=False,
            classes=np.asarray(classes),
            certificate_indices=row_ids,
            certificate_weights=weights,
            common_point=weights[signs > 0] @ points[signs > 0],  # on ``features``
            certificate_signs=signs,
            **proof,
        )
    pairs = own, others, n_classes
    spread = np.broadcast_to(rows.spread, (rows.n_features,))[features]
    if not result._stated_agrees(points, pairs, spread, PROOF_RTOL):
        raise SolverError(unproved_certificate(False, len(ids), what))
    if not of_pairs:  # in all of X's features: 0 on every certificate row off these
        common_point = np.zeros(rows.n_features)
        common_point[features] = result.common_point
        result.common_point = common_point
    return result


def without_proof(rows, features):
    """The UserWarning's message for a certificate held to a tolerance only, its
    problem (``rows`` × ``features``) beyond an exact decision."""
    return (
        f"Float64 finds the classes inseparable to within {PROOF_RTOL:g} of each "
        f"feature's spread (a certificate holds to that tolerance), but that is not "
        f"proven in exact arithmetic, and the classes may be separable by a narrower "
        f"gap: neither the certificate's float enclosure nor rational arithmetic on "
        f"its rows proves it, and the problem ({rows} rows of {features} features) is "
        f"beyond an exact decision: beyond sklearn_linsep._exact._farkas."
        f"EXACT_ENTRIES = {EXACT_ENTRIES} entries of its Farkas system for a whole "
        f"rational solve, and beyond the simplex method in rationals from the "
        f"certificate (its limits sklearn_linsep._exact._simplex.EXACT_PIVOTS = "
        f"{EXACT_PIVOTS} steps and EXACT_SIMPLEX_EQUATIONS = "
        f"{EXACT_SIMPLEX_EQUATIONS} equations; the rows in memory only). The result "
        f"has proven=False, and verify(X, y, check='tolerance') checks what holds. "
        f"Features that are rounded linear combinations of others cause this: "
        f"dropping them usually gives a proof."
    )


def unproved_certificate(proved, size, what):
    """The SolverError's message for a certificate of ``size`` ``what`` (rows,
    pairs) that is no proof: False in exact arithmetic, or None: undecided."""
    if proved is False:
        return (
            "The solvers declared the classes inseparable, but their certificate "
            "does not hold in exact arithmetic: the classes come within float64's "
            "precision of touching. Check for near-duplicate rows with different "
            "labels."
        )
    return (
        f"The solvers declared the classes inseparable, but their certificate of "
        f"{size} {what} could be proved neither by its float enclosure (its "
        f"system too close to singular, or a weight too close to 0) nor in "
        f"rational arithmetic within sklearn_linsep._exact._farkas.EXACT_SOLVE_WORK "
        f"(= {EXACT_SOLVE_WORK}: independent equations times unknowns squared). "
        f"Raise that limit to decide it exactly, at a cost that grows with its cube."
    )
