"""What makes an answer of the exact core a proof, with float64's rounding bounded.

One rule each, used by the solvers' final check and by
:meth:`~sklearn_linsep.SeparabilityResult.verify` (in memory and on dask blocks):

* a hyperplane separates when every row's margin ``c_i (w·x_i + b)``, less a bound
  on its evaluation's rounding, is at least 1 (:func:`proven_margins`);
* an inseparability certificate holds when positive weights on its rows make its
  two convex combinations coincide exactly over the rationals the float64 inputs
  are (:func:`certificate_holds`, :func:`pairs_proof`: a float enclosure, else
  rationals), and its stated weights and common point agree with that in every
  feature to ``rtol`` of the feature's spread plus the sums' rounding
  (:func:`stated_certificate_agrees`, :func:`stated_pairs_agree`).

Both are invariant under ``x ↦ D x + t`` (``D`` diagonal positive), as the verdict is.
"""

import numpy as np
import scipy.sparse as sp

from . import _kernels
from ._exact._enclosure import rounding_factor
from ._exact._farkas import pairs_matrix, solves_exactly
from ._exact._frames import pairs_enclosed
from ._exact._simplex import exact_pair_weights

ROWS_PER_BLOCK = 1 << 16  # rows of |X| formed at a time (a few MB at p = 10)


def proven_margins(X, c, coef, intercept, center=None, intercept_at_center=None):
    """Lower bounds of ``c_i (w·x_i + b)`` (``c`` ±1) for every row, rounding included:
    ``γ_{p+3}`` of its :func:`_scores`' terms (p products and the offset, +1 for the
    subtraction of the centre)."""
    out = np.empty(X.shape[0])
    for rows, scores, terms in _scores(X, coef, intercept, center, intercept_at_center):
        out[rows] = c[rows] * scores - rounding_factor(X.shape[1] + 3) * terms
    return out


def _scores(X, coef, intercept, center, intercept_at_center):
    """``(rows, scores, terms)`` block by block: each row's ``w·x + b`` (a column per
    hyperplane of a machine) and ``|w|·|x| + |b|``, which bounds its rounding. With
    ``center`` the scores are ``w·(x - center) + intercept_at_center``: the
    subtraction is exact or rounds relative to ``x - center``, so a hyperplane far
    from the origin (an offset float64 cannot add to ``w·x``) keeps its digits."""
    coef = np.asarray(coef, dtype=float)
    n = X.shape[0]
    if center is not None:
        center, intercept = np.asarray(center, dtype=float), intercept_at_center
    offset = np.asarray(intercept, dtype=float)
    for start in range(0, n, ROWS_PER_BLOCK):
        rows = slice(start, min(start + ROWS_PER_BLOCK, n))
        block = X[rows]
        if sp.issparse(block):  # not centred (that would fill it): the shift apart
            shift = 0.0 if center is None else coef @ center
            scores = np.asarray(block @ coef.T) + (offset - shift)
            terms = np.asarray(abs(block) @ np.abs(coef).T) + np.abs(offset)
            if center is not None:
                terms += np.abs(coef) @ np.abs(center) + np.abs(shift)
        else:
            block = np.asarray(block, dtype=float)
            if center is not None:
                block = block - center
            scores = block @ coef.T + offset
            terms = np.abs(block) @ np.abs(coef).T + np.abs(offset)
        yield rows, scores, terms


def column_extremes(X):
    """Each feature's largest and smallest value, as 1-d arrays (dense or sparse;
    dense C-ordered floats in one compiled pass, ``_kernels.column_extremes``)."""
    if isinstance(X, np.ndarray) and _one_pass_extremes(X):
        high, low = np.empty(X.shape[1]), np.empty(X.shape[1])
        _kernels.column_extremes(X, high, low)
        return high, low
    high, low = X.max(axis=0), X.min(axis=0)
    if sp.issparse(X):
        high, low = high.toarray(), low.toarray()
    return np.asarray(high, dtype=float).ravel(), np.asarray(low, dtype=float).ravel()


# The kernel reads X once, numpy's max and min twice: with selects in place of
# branches the kernel is faster at every width (AMD EPYC, 2026-12-02: 1e5 rows,
# 1.3 against 7.9 ms at 10 columns, 11.7 against 22.6 ms at 100; 2e4 x 256, 5.7
# against 11.3 ms). Where it still branched it lost from about 50 columns.
def _one_pass_extremes(X):
    """Whether the kernel reads X (else numpy: no rows, which it refuses;
    another layout or dtype)."""
    return X.ndim == 2 and X.shape[0] > 0 and _kernels.reads_rows(X)


def certificate_holds(result, points, labels, spread, rtol, problem_rows=np.inf,
                      check="proof"):  # fmt: skip
    """Whether ``result``'s certificate holds on its own rows ``points`` (labelled
    ``labels``) of a problem of ``problem_rows`` rows, as the module says: stated
    (the kind's rule, against the features' ``spread``) and, unless ``check`` is
    ``"tolerance"``, proved on its pairs (``result._pairs_of``):
    ``certificate_weights_exact`` balancing exactly, else :func:`pairs_proof` (in
    rationals at any size with ``check="exact"``)."""
    pairs = result._pairs_of(labels)
    if pairs is None or not result._stated_agrees(points, pairs, spread, rtol):
        return False
    if check == "tolerance":
        return True
    exact_weights = result._pair_weights(result.certificate_weights_exact)
    if exact_weights is not None:
        return solves_exactly(*pairs_matrix(points, *pairs), exact_weights)
    return bool(pairs_proof(points, *pairs, problem_rows, check == "exact")[0])


def stated_certificate_agrees(result, points, pairs, spread, rtol):
    """Whether a two-class ``result``'s stated ``certificate_weights`` (λ ≥ 0) sum to
    1 per side and put its ``common_point`` in both hulls: the float form of what
    :func:`pairs_proof` proves of K = 2 (``pairs``: one per row). Per feature, the two
    convex combinations (and the stored common point) may be apart by ``rtol`` of the
    feature's ``spread`` (over the data the certificate speaks of) and the sums'
    rounding. Combining ``x - common_point`` gives the same difference, free of the
    rounding of x's own magnitude (which far from the origin outgrows the spread)."""
    weights = np.asarray(result.certificate_weights, dtype=float)
    common_point = np.asarray(result.common_point, dtype=float)
    if weights.size == 0 or np.any(weights < 0) or not np.all(np.isfinite(weights)):
        return False
    positive, negative = pairs[0] == 1, pairs[0] != 1
    sums = np.array([weights[positive].sum(), weights[negative].sum()])
    if not np.all(np.abs(sums - 1.0) <= 1e-9):  # the stated form; then normalised
        return False
    # Any λ whose normalised combinations coincide proves inseparability.
    weights = np.where(positive, weights / sums[0], weights / sums[1])
    offsets = points - common_point  # exact, or rounded relative to the offset
    plus = weights[positive] @ offsets[positive]
    minus = weights[negative] @ offsets[negative]
    rounding = 4 * rounding_factor(len(weights) + 3)
    allowed = rtol * spread + rounding * (weights @ np.abs(offsets))
    # The common point itself is stored to its own magnitude's rounding: that
    # much more room for it, none for the coincidence (the proof).
    stored = allowed + rounding * np.abs(common_point)
    gap = np.maximum(np.abs(plus - minus) - allowed, np.abs(plus) - stored)
    return bool(np.all(gap <= 0))


def hyperplane_forms_agree(coef, intercept, center, intercept_at_center):
    """Whether ``intercept`` (one per row of a machine's ``coef``) is the hyperplane's
    intercept about the origin when ``intercept_at_center`` is its intercept about
    ``center``: equal to the rounding of ``intercept_at_center - coef · center``."""
    intercepts = np.atleast_1d(intercept), np.atleast_1d(intercept_at_center)
    for w, b, b_c in zip(np.atleast_2d(coef), *intercepts, strict=True):
        shift = np.asarray(w, dtype=float) @ np.asarray(center, dtype=float)
        terms = np.abs(w) @ np.abs(center) + abs(b_c) + abs(b)
        if not abs(b - (b_c - shift)) <= 4 * rounding_factor(len(w) + 2) * terms:
            return False
    return True


def joint_proven_margins(
    X, codes, coef, intercept, center=None, intercept_at_center=None
):
    """Lower bounds of each row's least margin ``(w_{y_i} - w_k)·x_i + b_{y_i} -
    b_k`` over the other classes k (Kesler's construction), rounding included. Each
    score ``s_k = w_k·x + b_k`` rounds by at most ``γ_{p+3} T_k``,
    ``T_k = |w_k|·|x| + |b_k|`` (:func:`_scores`), and their difference by its own
    unit, so a margin is at least ``fl(s_y - s_k) - γ_{p+4} (T_y + T_k + |s_y -
    s_k|)``. ``center`` as in :func:`proven_margins`."""
    out = np.empty(X.shape[0])
    factor = rounding_factor(X.shape[1] + 4)
    for rows, scores, terms in _scores(X, coef, intercept, center, intercept_at_center):
        own = codes[rows]
        local = np.arange(len(own))
        margins = scores[local, own][:, None] - scores
        bounds = factor * (terms[local, own][:, None] + terms + np.abs(margins))
        least = margins - bounds
        least[local, own] = np.inf
        out[rows] = least.min(axis=1)
    return out


def stated_pairs_agree(result, points, pairs, spread, rtol):
    """Whether a K-class ``result``'s stated ``certificate_weights`` (μ ≥ 0) sum to 1
    on ``pairs`` ``(own, others, K)`` of two classes and balance per class, in weight
    and in rows to ``rtol`` of the spread and the sums' rounding (Farkas on Kesler's
    construction: ``Σ μ (e_own - e_other) ⊗ (x, 1) = 0``). For class k, pairs whose
    row is of class k carry ``Σ μ (x - t)`` out, pairs naming k as the other class
    carry it in (``t``, the first point, keeps the data's offset out of the rounding).
    """
    weights = np.asarray(result.certificate_weights, dtype=float)
    own, others, n_classes = pairs
    own, others = np.asarray(own, np.intp), np.asarray(others, np.intp)
    if (
        weights.size == 0
        or np.any(weights < 0)
        or not np.all(np.isfinite(weights))
        or np.any(own == others)
        or abs(weights.sum() - 1.0) > 1e-9
    ):
        return False
    mass = np.bincount(own, weights, minlength=n_classes)
    if np.any(np.abs(mass - np.bincount(others, weights, minlength=n_classes)) > 1e-9):
        return False
    offsets = points - points[0]
    out_sum = np.zeros((n_classes, points.shape[1]))
    in_sum = np.zeros_like(out_sum)
    magnitude = np.zeros_like(out_sum)
    np.add.at(out_sum, own, weights[:, None] * offsets)
    np.add.at(in_sum, others, weights[:, None] * offsets)
    np.add.at(magnitude, own, weights[:, None] * np.abs(offsets))
    np.add.at(magnitude, others, weights[:, None] * np.abs(offsets))
    allowed = (
        rtol * spread * mass[:, None]
        + 4 * rounding_factor(len(weights) + 3) * magnitude
    )
    return bool(np.all(np.abs(out_sum - in_sum) - allowed <= 0))


def pairs_proof(points, own, others, n_classes, problem_rows=0, exact=False):
    """``(proved, μ)``: whether ``μ > 0`` on these pairs, summing to 1, balance
    Kesler's rows exactly (True, False, or None beyond the limits), with the
    rational μ where computed. First the float enclosure
    (:func:`~._exact._frames.pairs_enclosed`), then the same in the rows' principal
    axes (features that are rounded combinations of others make X's system
    near-singular); where neither decides, or with ``exact``, in rationals
    (:func:`~._exact._simplex.exact_pair_weights`: within its limits for
    ``problem_rows`` rows, or any size with ``exact``). In the features the rows
    touch: the others' equations are ``0 = 0`` (text: a fraction of the words)."""
    points = np.asarray(points, dtype=float)
    points = points[:, np.any(points != 0, axis=0)]
    for axes in () if exact else (False, True):
        if pairs_enclosed(points, own, others, n_classes, axes) is not None:
            return True, None
    decided, weights = exact_pair_weights(
        points, own, others, n_classes, problem_rows, exact
    )
    return (weights is not None if decided else None), weights


def refuse_unverifiable(result, n_features, labels):
    """A ValueError for data a check cannot read: another number of features, no
    rows, none of the result's classes, or one of them without a row (zero rows
    prove nothing). ``labels``: y's distinct labels."""
    expected = result.n_features
    if expected is not None and n_features != expected:
        raise ValueError(
            f"verify needs X of the result's {expected} features; got {n_features}."
        )
    if not len(labels):
        raise ValueError("verify needs rows to check; X has none.")
    classes = np.asarray(result.classes)
    missing = [label for label in classes.tolist() if label not in set(labels)]
    if len(missing) == len(classes):
        shown = ", ".join(map(repr, list(labels)[:5]))
        raise ValueError(
            f"verify found no label of the result's classes {classes.tolist()!r} "
            f"in y (its labels: {shown}{', ...' if len(labels) > 5 else ''}): "
            "there is no row to check."
        )
    if missing:
        raise ValueError(
            f"verify needs rows of every class the result speaks of; y has none of "
            f"{missing!r} (the result's classes are {classes.tolist()!r})."
        )
