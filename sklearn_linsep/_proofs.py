"""What makes an answer of the exact core a proof, with float64's rounding bounded.

One rule each, used by the solvers' own final check, by
:meth:`~sklearn_linsep.SeparabilityResult.verify` in memory and by its check on dask
blocks:

* a hyperplane separates when every row's margin ``c_i (w·x_i + b)``, less a bound on
  the rounding of its evaluation, is at least 1 (:func:`proven_margins`);
* an inseparability certificate holds when weights exist on its rows whose two
  convex combinations coincide exactly, over the rationals that the float64
  inputs are (:func:`certificate_holds`, by :mod:`._exact`), and its stated
  weights and common point agree with that in every feature to ``rtol`` of the
  feature's own spread plus the rounding of the sums. Where the certificate is
  too large for rationals (``_exact.EXACT_SOLVE_ENTRIES``), or fails in
  rationals on a problem too large to decide in them (``problem_rows`` beyond
  ``_exact.EXACT_ENTRIES``), only the second test is made: a gap in a feature of
  small units is not hidden by the size of the others, but a gap below that
  tolerance is (stated in the user guide: not a proof in exact arithmetic).

Both are invariant under ``x ↦ D x + t`` (``D`` diagonal positive) as the verdict is.
"""

import numpy as np
import scipy.sparse as sp

from ._exact import decidable, exact_pair_weights, exact_two_class_weights

ROUNDING_UNIT = np.finfo(float).eps / 2
ROWS_PER_BLOCK = 1 << 16  # rows of |X| formed at a time (a few MB at p = 10)


def rounding_factor(terms):
    """Higham's ``γ_k = k u / (1 - k u)``: the relative error bound of a sum of
    ``terms`` products, whatever the order of summation (BLAS's included)."""
    k = terms * ROUNDING_UNIT
    return k / (1 - k)


def proven_margins(X, c, coef, intercept, center=None, intercept_at_center=None):
    """Lower bounds of ``c_i (w·x_i + b)`` for every row, rounding included.

    With ``center`` the scores are ``w·(x_i - center) + intercept_at_center``: the
    subtraction is exact or rounds relative to ``x_i - center``, so a hyperplane far
    from the origin (an offset float64 cannot add to ``w·x``) keeps its digits.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    c : ndarray of shape (n_samples,)
        ±1.
    coef : ndarray of shape (n_features,)
    intercept : float
    center : ndarray of shape (n_features,), default=None
    intercept_at_center : float, default=None

    Returns
    -------
    margins : ndarray of shape (n_samples,)
    """
    coef = np.asarray(coef, dtype=float)
    n, p = X.shape
    if center is None:
        center, offset = None, float(intercept)
    else:
        center = np.asarray(center, dtype=float)
        offset = float(intercept_at_center)
    out = np.empty(n)
    for start in range(0, n, ROWS_PER_BLOCK):
        rows = slice(start, min(start + ROWS_PER_BLOCK, n))
        block = X[rows]
        if sp.issparse(block):  # not centred (that would fill it): the shift apart
            shift = 0.0 if center is None else center @ coef
            scores = np.asarray(block @ coef).ravel() + (offset - shift)
            terms = np.asarray(abs(block) @ np.abs(coef)).ravel() + abs(offset)
            if center is not None:
                terms += np.abs(center) @ np.abs(coef) + abs(shift)
        else:
            block = np.asarray(block, dtype=float)
            if center is not None:
                block = block - center
            scores = block @ coef + offset
            terms = np.abs(block) @ np.abs(coef) + abs(offset)
        # p products and the offset, +1 for the subtraction of the centre
        out[rows] = c[rows] * scores - rounding_factor(p + 3) * terms
    return out


def column_extremes(X):
    """Each feature's largest and smallest value over the rows, as 1-d arrays
    (dense or sparse X)."""
    high, low = X.max(axis=0), X.min(axis=0)
    if sp.issparse(X):
        high, low = high.toarray(), low.toarray()
    return np.asarray(high, dtype=float).ravel(), np.asarray(low, dtype=float).ravel()


def feature_spread(points):
    """Each feature's range over the rows (0 for a constant feature)."""
    if points.shape[0] == 0:
        return np.zeros(points.shape[1])
    high, low = column_extremes(points)
    return high - low


def certificate_gap(points, signs, weights, common_point, spread, rtol):
    """Per feature: how far the certificate's two convex combinations (and the
    stored common point) are apart, less what ``rtol`` of the feature's spread and
    the rounding of the sums allow. Positive entries are failures.

    The weights are normalised on each side (any ``λ ≥ 0`` whose normalised
    combinations coincide proves inseparability), and the combinations are taken
    of ``x - common_point``: equal to the combinations of x less the common point,
    and free of the rounding of x's own magnitude (far from the origin that
    rounding outgrows the spread).

    Parameters
    ----------
    points : ndarray of shape (k, n_features)
        The certificate's rows of X.
    signs : ndarray of shape (k,)
        ±1.
    weights : ndarray of shape (k,)
        λ ≥ 0, with a positive sum on each side.
    common_point : ndarray of shape (n_features,)
    spread : ndarray of shape (n_features,)
        Each feature's spread over the data the certificate speaks of.
    rtol : float
    """
    positive, negative = signs > 0, signs < 0
    weights = np.where(
        positive, weights / weights[positive].sum(), weights / weights[negative].sum()
    )
    offsets = points - common_point  # exact, or rounded relative to the offset
    plus = weights[positive] @ offsets[positive]
    minus = weights[negative] @ offsets[negative]
    magnitude = weights @ np.abs(offsets)
    allowed = rtol * spread + 4 * rounding_factor(len(weights) + 3) * magnitude
    # The common point itself is stored to its own magnitude's rounding: that
    # much more room for it, none for the coincidence (the proof).
    stored = allowed + 4 * rounding_factor(len(weights) + 3) * np.abs(common_point)
    return np.maximum(np.abs(plus - minus) - allowed, np.abs(plus) - stored)


def certificate_holds(points, signs, weights, common_point, spread, rtol,
                      problem_rows=0):  # fmt: skip
    """Whether weights ``λ ≥ 0``, summing to 1 on each side, put a point in both
    convex hulls: :func:`certificate_gap` nowhere positive."""
    weights = np.asarray(weights, dtype=float)
    if weights.size == 0 or np.any(weights < 0) or not np.all(np.isfinite(weights)):
        return False
    sums = np.array([weights[signs > 0].sum(), weights[signs < 0].sum()])
    if not np.all(np.abs(sums - 1.0) <= 1e-9):  # the stated form; then normalised
        return False
    decided, exact = exact_two_class_weights(points, signs, problem_rows)
    if decided and exact is None and decidable(problem_rows, points.shape[1]):
        return False  # where the problem is beyond rationals, the float test
    # The stated weights and common point, to the float tolerance, as well.
    gap = certificate_gap(points, signs, weights, common_point, spread, rtol)
    return bool(np.all(gap <= 0))


def hyperplane_forms_agree(coef, intercept, center, intercept_at_center):
    """Whether ``intercept`` is the hyperplane's intercept about the origin when
    ``intercept_at_center`` is its intercept about ``center``: equal to the
    rounding of ``intercept_at_center - coef · center``."""
    shift = np.asarray(coef, dtype=float) @ np.asarray(center, dtype=float)
    terms = np.abs(coef) @ np.abs(center) + abs(intercept_at_center) + abs(intercept)
    difference = abs(intercept - (intercept_at_center - shift))
    return bool(difference <= 4 * rounding_factor(len(coef) + 2) * terms)


def joint_proven_margins(
    X, codes, coef, intercept, center=None, intercept_at_center=None
):
    """Lower bounds of each row's least margin ``(w_{y_i} - w_k)·x_i + b_{y_i} -
    b_k`` over the other classes k (Kesler's construction), rounding included.

    Each score ``s_k = w_k·x + b_k`` rounds by at most ``γ_{p+3} T_k`` with
    ``T_k = |w_k|·|x| + |b_k|``, and their difference by its own unit, so a
    margin is at least ``fl(s_y - s_k) - γ_{p+4} (T_y + T_k + |s_y - s_k|)``.
    With ``center``, the scores are ``w_k·(x - center) + intercept_at_center_k``,
    as in :func:`proven_margins`.
    """
    coef = np.asarray(coef, dtype=float)
    n, p = X.shape
    if center is None:
        offset = np.asarray(intercept, dtype=float)
    else:
        center = np.asarray(center, dtype=float)
        offset = np.asarray(intercept_at_center, dtype=float)
    rows = np.arange(n)
    out = np.empty(n)
    factor = rounding_factor(p + 4)
    for start in range(0, n, ROWS_PER_BLOCK):
        block_rows = slice(start, min(start + ROWS_PER_BLOCK, n))
        block = X[block_rows]
        if sp.issparse(block):  # not centred (that would fill it): the shift apart
            shift = 0.0 if center is None else coef @ center
            scores = np.asarray(block @ coef.T) + (offset - shift)
            terms = np.asarray(abs(block) @ np.abs(coef).T) + np.abs(offset)
            if center is not None:
                terms += np.abs(coef) @ np.abs(center) + np.abs(shift)
        else:
            block = np.asarray(block, float)
            if center is not None:
                block = block - center
            scores = block @ coef.T + offset
            terms = np.abs(block) @ np.abs(coef).T + np.abs(offset)
        own = codes[block_rows]
        local = rows[: len(own)]
        margins = scores[local, own][:, None] - scores
        bounds = factor * (terms[local, own][:, None] + terms + np.abs(margins))
        least = margins - bounds
        least[local, own] = np.inf
        out[block_rows] = least.min(axis=1)
    return out


def kesler_certificate_gap(points, own, others, weights, n_classes, spread, rtol):
    """Per class and feature: how far the weight of the pairs (row, other class)
    is from balancing, less what ``rtol`` of the feature's spread and the
    rounding of the sums allow. Positive entries are failures.

    For class k the pairs whose row is of class k carry ``Σ μ (x - t)`` out and
    the pairs naming k as the other class carry it in; the two must coincide
    (``t``, the first point, takes the offset of the data out of the rounding).
    The weight itself must balance per class too (checked by
    :func:`kesler_certificate_holds`). ``(K, p)``.
    """
    offsets = points - points[0]
    out_sum = np.zeros((n_classes, points.shape[1]))
    in_sum = np.zeros_like(out_sum)
    magnitude = np.zeros_like(out_sum)
    np.add.at(out_sum, own, weights[:, None] * offsets)
    np.add.at(in_sum, others, weights[:, None] * offsets)
    np.add.at(magnitude, own, weights[:, None] * np.abs(offsets))
    np.add.at(magnitude, others, weights[:, None] * np.abs(offsets))
    mass = np.bincount(own, weights, minlength=n_classes)
    allowed = (
        rtol * spread * mass[:, None]
        + 4 * rounding_factor(len(weights) + 3) * magnitude
    )
    return np.abs(out_sum - in_sum) - allowed


def kesler_certificate_holds(points, own, others, weights, n_classes, spread, rtol,
                             problem_rows=0):  # fmt: skip
    """Whether weights ``μ ≥ 0`` summing to 1 on pairs (row of class ``own``,
    class ``others``) prove that no linear machine separates the classes: the
    weight and the weighted rows balance per class (Farkas on Kesler's
    construction: ``Σ μ (e_own - e_other) ⊗ (x, 1) = 0``)."""
    weights = np.asarray(weights, dtype=float)
    own, others = np.asarray(own, np.intp), np.asarray(others, np.intp)
    if (
        weights.size == 0
        or np.any(weights < 0)
        or not np.all(np.isfinite(weights))
        or np.any(own == others)
        or abs(weights.sum() - 1.0) > 1e-9
    ):
        return False
    balance = np.bincount(own, weights, minlength=n_classes) - np.bincount(
        others, weights, minlength=n_classes
    )
    if np.any(np.abs(balance) > 1e-9):
        return False
    decided, exact = exact_pair_weights(points, own, others, n_classes, problem_rows)
    if (
        decided
        and exact is None
        and decidable(problem_rows, points.shape[1], n_classes)
    ):
        return False  # where the problem is beyond rationals, the float test
    gap = kesler_certificate_gap(points, own, others, weights, n_classes, spread, rtol)
    return bool(np.all(gap <= 0))
