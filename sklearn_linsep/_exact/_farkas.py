"""Farkas' systems of two and K classes, and the exact checks of an answer.

Every float64 is a rational (a dyadic one), so a statement about the rows as
given can be decided exactly. Two systems speak of separability (Farkas'
lemma), built once in float64, whose entries (signs times inputs) are exact
(:func:`pairs_matrix`), for the enclosure and the
rationals alike:

- **K classes jointly** (:func:`pairs_system`): weights ``μ ≥ 0`` on pairs (row
  i, other class k), summing to 1, with ``Σ μ (e_{y_i} - e_k) ⊗ (x_i, 1) = 0``, or
  else a machine ``W, b`` whose every pair margin is positive;
- **two classes** are its case K = 2, one pair per row (:func:`side_pairs`):
  ``λ = 2 μ`` on the rows sums to 1 on each side and puts a point in both
  convex hulls, and a machine is the hyperplane ``w = w_1 - w_0``
  (:func:`as_machine`, :func:`as_hyperplane`), its pair margins ``c (w·x + b)``.

Here are the systems, the separators their rays give, the limits of what is
decided in rationals, and the exact checks: stored weights that solve a system
(:func:`solves_exactly`), a hyperplane's or a machine's least margin
(:func:`least_pair_margin`: bounded in float64 first,
:func:`bounded_scores`, the rows that may be the least in rationals). The
decisions themselves are :mod:`._simplex`'s.
"""

import numpy as np

from ._enclosure import ROUNDING_UNIT, rounding_factor
from ._numbers import as_fmpq, as_fraction, exact_dot, fmpq_matrix, fraction, rational

# The largest problems decided in rationals, as their Farkas system's entries
# (equations times unknowns), whatever a float certificate says: a Fraction
# tableau took 19 x 80 (K = 3, p = 5, n = 40) ~10 ms, 12 x 100 2 s, 67 x 56
# 78 s; FLINT's simplex (:mod:`._simplex`) replaced it, at the same limit, so
# that the problems decided this way are the same.
EXACT_ENTRIES = 1_600


# The largest certificate solved in rationals where the float enclosure cannot
# decide it, as an elimination's work (equations times unknowns squared): in
# Python's integers, 22 x 22 (p = 20) took 0.01-0.02 s, 42 x 42 0.2-0.3 s,
# 102 x 102 6.7 s (its integers grow to ~10 000 bits); a degenerate certificate
# of 5 rows at p = 768 costs 5 x 5 x 770. Kept with FLINT's solve, so that which
# certificates are decided does not move.
EXACT_SOLVE_WORK = 42**3


def in_rationals(A, e):
    """A float64 system as lists of exact Fractions."""
    return [rational(row) for row in A], rational(e)


def side_pairs(signs):
    """``(own, others)``: two classes as K = 2 pairs, one per row: the row's
    class (1 where ``c > 0``) against the other. Their weights are half a
    two-class certificate's (``μ`` sums to 1, ``λ`` to 1 on each side)."""
    own = (np.asarray(signs, dtype=float) > 0).astype(np.intp)
    return own, 1 - own


def as_machine(w, b):
    """The hyperplane ``(w, b)`` (rationals) as the machine of K = 2 classes
    with the same pair margins ``c (w·x + b)``: ``W = (-w/2, w/2)``."""
    one_half = fraction(1, 2)  # exact for ints too, not a float
    half = [one_half * value for value in w]
    return [[-value for value in half], half], [-one_half * b, one_half * b]


def as_hyperplane(W, b):
    """The machine of K = 2 classes as the hyperplane ``(w_1 - w_0, b_1 - b_0)``."""
    return [high - low for low, high in zip(*W, strict=True)], b[1] - b[0]


def pairs_matrix(points, own, others, n_classes, constants=True):
    """``(A, e)`` in float64 of the K-class Farkas system on pairs (row
    ``points[j]`` of class ``own[j]``, other class ``others[j]``): per class and
    feature, and per class for the constant (zero without ``constants``),
    ``Σ μ (e_own - e_other) ⊗ (x, 1) = 0``; and ``Σ μ = 1``. Every entry is a
    sign times an input, so exact: the system is the rational one. Two classes
    are its case K = 2 (:func:`side_pairs`)."""
    points = np.asarray(points, dtype=float)
    m, p = points.shape
    extended = np.hstack([points, np.full((m, 1), float(constants))])
    classes = np.arange(n_classes)[:, None]
    sign = (np.asarray(own) == classes).astype(float) - (np.asarray(others) == classes)
    A = (sign[:, None, :] * extended.T[None]).reshape(n_classes * (p + 1), m)
    A = np.vstack([A, np.ones((1, m)) if constants else np.zeros((1, m))])
    return A, np.r_[np.zeros(n_classes * (p + 1)), 1.0]


def pairs_system(points, own, others, n_classes):
    """``(A, e)`` of :func:`pairs_matrix` in rationals."""
    return in_rationals(*pairs_matrix(points, own, others, n_classes))


def pairs_separator(ray, n_classes, p):
    """``(W, b)`` in rationals (K rows of p, K) from a ray of
    :func:`pairs_system`: ``Aᵀ y ≤ 0`` with ``y_last > 0`` gives every pair
    ``(w_own - w_other)·x + b_own - b_other ≥ y_last > 0`` for ``-y``."""
    width = p + 1
    W = [[-ray[k * width + f] for f in range(p)] for k in range(n_classes)]
    b = [-ray[k * width + p] for k in range(n_classes)]
    return W, b


def every_pair(codes, n_classes):
    """``(rows, others)``: every pair (row i, other class k ≠ codes[i]), in
    order of rows, then classes."""
    rows = np.repeat(np.arange(len(codes)), n_classes)
    others = np.tile(np.arange(n_classes), len(codes))
    keep = others != np.asarray(codes)[rows]
    return rows[keep], others[keep]


def equations(features, n_classes=2):
    """The size of Farkas' system that the limits measure: ``p + 2`` equations
    for two classes (the pairs' system less its redundant class rows), all
    ``K (p + 1) + 1`` jointly (as the limits were measured)."""
    return features + 2 if n_classes == 2 else n_classes * (features + 1) + 1


def decidable(rows, features, n_classes=2):
    """Whether the Farkas system of ``rows`` rows of ``features`` features
    (two classes, or K jointly: every pair) is within ``EXACT_ENTRIES``: the
    rows can then be decided in rationals whatever a float certificate says."""
    return rows * (n_classes - 1) * equations(features, n_classes) <= EXACT_ENTRIES


def solves_exactly(A, e, weights):
    """Whether rational ``weights ≥ 0`` solve ``A λ = e`` exactly (``A``, ``e``
    float64 with exact entries, as :func:`pairs_matrix`'s): a stored
    certificate checked without solving for it."""
    if weights is None or len(weights) != np.shape(A)[1]:
        return False
    if any(value < 0 for value in weights):
        return False
    return all(exact_dot(rational(row), weights) == rational(target)[0]
               for row, target in zip(A, e, strict=True))  # fmt: skip


def tightest_pairs(points, codes, n_classes, W, b, count):
    """``(rows, others)``: the ``count`` pairs (row, other class) of least
    margin under the machine ``W``, ``b`` (rationals). Every pair is bounded in
    float64 first (:func:`bounded_scores`); those that may be among the
    ``count`` least are ordered by their exact margins (a separator found in
    rationals may have no correct digit in float64: its weights cancel, and
    then every pair is). Two classes are the case K = 2 with ``W = (-w/2,
    w/2)``: a row's one pair, its margin ``c (w·x + b)``."""
    points = np.asarray(points, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    rows, others = every_pair(codes, n_classes)
    scores = bounded_scores(points, W, b)
    if scores is not None and rows.size > count:
        margins, spread = bounded_pair_margins(*scores, rows, codes[rows], others)
        cut = np.partition(margins + spread, count - 1)[count - 1]
        near = margins - spread <= cut
        rows, others = rows[near], others[near]
    margins = _exact_pair_margins(points, codes, n_classes, W, b, rows, others)
    order = sorted(range(len(margins)), key=margins.__getitem__)[:count]
    return rows[order], others[order]


def least_pair_margin(points, codes, n_classes, W, b):
    """The least pair margin of the machine ``W``, ``b`` exactly (None
    without a pair): every pair bounded in float64 first
    (:func:`bounded_scores`), only those that may be the least evaluated in
    rationals. Two classes: :func:`as_machine`'s, ``min c (w·x + b)``."""
    points = np.asarray(points, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    rows, others = every_pair(codes, n_classes)
    if not rows.size:
        return None
    scores = bounded_scores(points, W, b)
    if scores is not None:
        margins, spread = bounded_pair_margins(*scores, rows, codes[rows], others)
        near = margins - spread <= np.min(margins + spread)
        rows, others = rows[near], others[near]
    exact = _exact_pair_margins(points, codes, n_classes, W, b, rows, others)
    return min(exact, default=None)


def bounded_pair_margins(value, radius, rows, own, others):
    """``(margins, spread)``: the pairs' margins from :func:`bounded_scores`'
    ``(value, radius)`` (row ``rows[j]``, class ``own[j]`` against
    ``others[j]``), each within ``spread`` of the exact one."""
    margins = value[rows, own] - value[rows, others]
    spread = radius[rows, own] + radius[rows, others]
    spread += 2 * ROUNDING_UNIT * np.abs(margins)  # the subtraction's own
    return margins, spread


def _exact_pair_margins(points, codes, n_classes, W, b, rows, others):
    """The margins of the pairs ``(rows, others)`` in rationals (Fractions),
    each row's K scores computed once, in FLINT's rationals (Python's
    Fractions spent 2 s in gcd on 80 pairs of a machine of 16 classes whose
    entries have hundreds of digits)."""
    if not rows.size:
        return []
    unique, position = np.unique(rows, return_inverse=True)
    entries = [as_fmpq(v) for v in points[unique].ravel().tolist()]
    X = fmpq_matrix(unique.size, points.shape[1], entries)
    machine = fmpq_matrix(n_classes, points.shape[1],
                             [as_fmpq(v) for w in W for v in w])  # fmt: skip
    scores = (X * machine.transpose()).tolist()
    intercepts = [as_fmpq(v) for v in b]
    exact = []
    for at, i, k in zip(position.tolist(), rows.tolist(), others.tolist()):
        own = int(codes[i])
        value = scores[at][own] - scores[at][k] + intercepts[own] - intercepts[k]
        exact.append(as_fraction(value))
    return exact


def bounded_scores(points, W, b):
    """``(scores, radius)``: ``x_i·w_k + b_k`` in float64 for every row and
    hyperplane (rows of ``W``, rationals), each within ``radius`` of the exact
    value (Higham's γ with ``w``'s own rounding; entries below float64's
    normal range counted at its smallest step); None where a value does not
    fit float64."""
    try:
        W_float = np.array([[float(v) for v in w] for w in W], dtype=float)
        b_float = np.array([float(v) for v in b], dtype=float)
    except OverflowError:
        return None
    with np.errstate(all="ignore"):
        scores = points @ W_float.T + b_float
        magnitude = np.abs(points) @ np.abs(W_float).T + np.abs(b_float)
        gamma = rounding_factor(points.shape[1] + 2) + 2 * ROUNDING_UNIT
        radius = gamma * magnitude * (1 + gamma) + (
            np.abs(points).sum(axis=1, keepdims=True) + 1
        ) * 2.0**-1070
    if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(radius))):
        return None
    return scores, radius
