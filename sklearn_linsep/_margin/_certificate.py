"""The Farkas certificate of inseparability from a subset of rows that admits no
separator, verified before it is returned."""

import numpy as np

from .._exact import decidable, exact_two_class_weights, problem_rows
from .._working_set import per_feature_rows
from ..exceptions import SolverError
from ._result import SeparabilityResult
from ._solvers import hull_intersection_lp


def certificate_from_subset(
    two_class, working, classes=(0, 1), fit_intercept=True, weights=None
):
    """The Farkas certificate of a subset of samples that admits no separator.

    ``λ`` from the hull-intersection LP on the scaled rows is valid on the original
    X too: ``Σ λ_i c_i (x_i - m) / s = 0`` and ``Σ λ_i c_i = 0`` give
    ``Σ λ_i c_i x_i = 0``. Being valid for the subset, it is valid for all samples.
    Two equal samples with opposite labels, when there are any, are the certificate
    (the smallest there is). The certificate is verified before it is returned: a
    solver that wrongly declared the subset infeasible gives a SolverError, never
    a false certificate.
    """
    pair = two_class.opposite_duplicates() if fit_intercept else None
    if pair is not None:
        return checked_certificate(two_class, np.asarray(pair), np.ones(2), classes)
    if weights is not None:  # the nearest points' common point, when it verifies
        keep = weights > 0
        try:
            return checked_certificate(two_class, working[keep], weights[keep], classes)
        except SolverError:
            pass  # the LP below finds a basic one, often where rounding hurt λ
    # λ is the same in every affine frame: the LP sees each feature at its own
    # spread, so its tolerances do not hide a gap in a feature of small units.
    frame = two_class.equilibrated() if fit_intercept else two_class
    weights = hull_intersection_lp(
        frame.rows(working), frame.labels(working), fit_intercept
    )
    if weights is None:
        raise SolverError(
            "The classes come too close to touching for float precision to decide "
            "whether a hyperplane separates them: no separator was found on a subset "
            "of the samples, and no point in both convex hulls either. Check for "
            "near-duplicate rows with different labels, or rescale the features."
        )
    keep = weights > 0
    return checked_certificate(two_class, working[keep], weights[keep], classes)


def sparse_certificate(two_class, classes=(0, 1)):
    """The Farkas certificate of sparse rows from one LP over all of them, or None
    where they have none (they are separable) or it does not verify.

    The hull-intersection LP takes the sparse rows as they are: λ is the same in
    every affine frame, so the rows are only divided by each feature's spread
    (centring would fill them). One sparse dual simplex, as HiGHS's own
    separating LP costs, where the working set would densify its rows.
    """
    pair = two_class.opposite_duplicates()
    try:
        if pair is not None:
            return checked_certificate(two_class, np.asarray(pair), np.ones(2), classes)
        active = np.flatnonzero(two_class.active)
        weights = hull_intersection_lp(
            per_feature_rows(two_class, active), two_class.labels(active)
        )
        if weights is None:
            return None
        keep = weights > 0
        return checked_certificate(two_class, active[keep], weights[keep], classes)
    except SolverError:
        return None  # the working set decides it


def checked_certificate(two_class, indices, weights, classes):
    """The SeparabilityResult of weights on rows, verified on those rows: in
    rational arithmetic where they are few enough (its weights then the exact
    ones, rounded), else with float64's rounding bounded and ``1e-9`` of each
    feature's spread (:func:`~.._proofs.certificate_holds`)."""
    points = two_class.original_rows(indices)
    signs = two_class.labels(indices)
    rows = problem_rows(two_class)
    decided, exact = exact_two_class_weights(points, signs, rows)
    if decided and exact is None:
        # False in rationals on these rows. Where the whole problem is small
        # enough, the driver decides it exactly; else the float test below
        # stands, as for certificates too large for rationals (not a proof in
        # exact arithmetic: certificate_weights_exact stays None).
        if decidable(rows, two_class.n_features):
            raise SolverError(_FALSE_CERTIFICATE)
        decided = False
    if decided:
        keep = np.array([value > 0 for value in exact])
        indices, points, signs = indices[keep], points[keep], signs[keep]
        exact = [value for value in exact if value > 0]
        weights = np.array([float(value) for value in exact])
    common = weights[signs > 0] @ points[signs > 0]
    result = SeparabilityResult(
        separable=False,
        classes=np.asarray(classes),
        certificate_indices=indices,
        certificate_weights=weights,
        common_point=common,
        certificate_signs=signs,
        certificate_weights_exact=exact,
    )
    # Checked on its own rows, feature by feature against the data's spreads.
    if not decided and not result._certificate_holds(
        points, signs, two_class.spread, 1e-9, rows
    ):
        raise SolverError(_FALSE_CERTIFICATE)
    return result


_FALSE_CERTIFICATE = (
    "The solvers declared the classes inseparable, but the certificate they gave "
    "does not hold: the classes come within the solvers' precision (about 1e-9 of "
    "a feature's spread) of touching, too close to decide. Check for "
    "near-duplicate rows with different labels."
)
