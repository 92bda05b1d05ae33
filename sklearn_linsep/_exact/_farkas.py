"""Farkas' systems of two and K classes, their separators, the limits of what
is decided in rationals, and the exact checks of an answer (:func:`solves_exactly`,
:func:`least_pair_margin`); the decisions are :mod:`._simplex`'s. The systems are
built once in float64, exact (signs times inputs), for enclosure and rationals.
K classes jointly (:func:`pairs_matrix`): weights ``μ ≥ 0`` on pairs (row i,
other class k) summing to 1 with ``Σ μ (e_{y_i} - e_k) ⊗ (x_i, 1) = 0``, or else
a machine ``W, b`` whose every pair margin is positive. Two classes are its case
K = 2 with a pair per row (:func:`side_pairs`): ``λ = 2 μ`` sums to 1 on each
side and puts a point in both convex hulls; a machine is the hyperplane
``w = w_1 - w_0`` (:func:`as_machine`, :func:`as_hyperplane`), its pair margins
``c (w·x + b)``.
"""

import numpy as np

from ._enclosure import ROUNDING_UNIT, rounding_factor
from ._numbers import as_fmpq, as_fraction, exact_dot, fmpq_matrix, fraction, rational

# The largest problems decided in rationals whatever a float certificate says,
# as their Farkas system's entries (equations times unknowns): a Fraction
# tableau's limit, kept with FLINT so that the problems decided stay the same.
EXACT_ENTRIES = 1_600


# The largest certificate solved in rationals where the enclosure cannot decide
# it, as an elimination's work (independent equations times unknowns squared):
# FLINT solves 100 x 100 float64 systems in 0.06 s, 200 x 200 in 0.4 s (42**3,
# Python's integers' limit, left integer data of rank 40 unproven after 75 s).
EXACT_SOLVE_WORK = 100**3


def side_pairs(signs):
    """``(own, others)``: two classes as K = 2 pairs, a row's class (1 where
    ``c > 0``) against the other; their weights are half a two-class certificate's."""
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
    feature, and per class for the constant (0 without ``constants``), ``Σ μ
    (e_own - e_other) ⊗ (x, 1) = 0``, and ``Σ μ = 1``; exact (signs times inputs)."""
    points = np.asarray(points, dtype=float)
    m, p = points.shape
    extended = np.hstack([points, np.full((m, 1), float(constants))])
    classes = np.arange(n_classes)[:, None]
    sign = (np.asarray(own) == classes).astype(float) - (np.asarray(others) == classes)
    A = np.empty((n_classes * (p + 1) + 1, m))  # filled in place: no second copy
    np.multiply(sign[:, None, :], extended.T[None],
                out=A[:-1].reshape(n_classes, p + 1, m))  # fmt: skip
    A[-1] = float(constants)
    return A, np.r_[np.zeros(n_classes * (p + 1)), 1.0]


def pairs_separator(ray, n_classes, p):
    """``(W, b)`` in rationals (K rows of p, K) from a ray of
    :func:`pairs_matrix`'s system: ``Aᵀ y ≤ 0`` with ``y_last > 0`` gives every pair
    ``(w_own - w_other)·x + b_own - b_other ≥ y_last > 0`` for ``-y``."""
    width = p + 1
    W = [[-ray[k * width + f] for f in range(p)] for k in range(n_classes)]
    b = [-ray[k * width + p] for k in range(n_classes)]
    return W, b


def every_pair(codes, n_classes):
    """``(rows, others)``: every pair (row i, class k ≠ codes[i]) by row, then class."""
    rows = np.repeat(np.arange(len(codes)), n_classes)
    others = np.tile(np.arange(n_classes), len(codes))
    keep = others != np.asarray(codes)[rows]
    return rows[keep], others[keep]


def class_groups(n_classes, features):
    """The equations of the pairs' system that sum to zero: per feature (and
    the constant), its K class rows (each pair adds ``e_own - e_other``)."""
    width = features + 1
    return [range(f, n_classes * width, width) for f in range(width)]


def equations(features, n_classes=2):
    """The Farkas system's equations as the limits measure them: ``p + 2`` for two
    classes (less the K = 2 system's redundant rows), ``K (p + 1) + 1`` jointly."""
    return features + 2 if n_classes == 2 else n_classes * (features + 1) + 1


def decidable(rows, features, n_classes=2):
    """Whether the Farkas system of ``rows`` rows of ``features`` features (two
    classes, or K jointly) is within ``EXACT_ENTRIES``, so decided in rationals."""
    return rows * (n_classes - 1) * equations(features, n_classes) <= EXACT_ENTRIES


def solves_exactly(A, e, weights):
    """Whether rational ``weights ≥ 0`` solve ``A λ = e`` exactly (``A``, ``e``
    float64, exact entries): a stored certificate checked without solving for it."""
    if weights is None or len(weights) != np.shape(A)[1] or min(weights, default=0) < 0:
        return False
    return all(exact_dot(rational(row), weights) == rational(target)[0]
               for row, target in zip(A, e, strict=True))  # fmt: skip


def tightest_pairs(points, codes, n_classes, W, b, count):
    """``(rows, others)``: the ``count`` pairs of least margin under the machine
    ``W``, ``b`` (rationals), bounded in float64 first, those that may be least
    ordered exactly (a rational separator's weights may cancel, leaving no
    correct float64 digit). Two classes: K = 2, ``W = (-w/2, w/2)``."""
    rows, others, margins = _least_pairs(points, codes, n_classes, W, b, count)
    order = sorted(range(len(margins)), key=margins.__getitem__)[:count]
    return rows[order], others[order]


def least_pair_margin(points, codes, n_classes, W, b):
    """The least pair margin of the machine ``W``, ``b`` exactly (None without
    a pair): :func:`tightest_pairs`' one pair, its margin. Two classes:
    :func:`as_machine`'s, ``min c (w·x + b)``."""
    return min(_least_pairs(points, codes, n_classes, W, b, 1)[2], default=None)


def _least_pairs(points, codes, n_classes, W, b, count):
    """``(rows, others, margins)``: the pairs whose margin may be among the
    ``count`` least, their margins as Fractions."""
    points = np.asarray(points, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    rows, others = every_pair(codes, n_classes)

    def near(margins, spread):
        return margins - spread <= np.partition(margins + spread, count - 1)[count - 1]

    ids, margins = pair_margins_near(points, W, b, rows, codes[rows], others,
                                     near if rows.size > count else None)  # fmt: skip
    return rows[ids], others[ids], [as_fraction(value) for value in margins]


def pair_margins_near(points, W, b, rows, own, others, near, exact_rows=None):
    """``(ids, margins)``: the pairs (row ``rows[j]`` of ``points``, class
    ``own[j]`` against ``others[j]``) whose margin under the machine ``W``, ``b``
    (rationals), bounded in float64, may be ``near`` (a test of the margins and
    their spread; all without it, or where a score overflows), and their margins
    exactly (``fmpq``), each row's K scores once in FLINT's rationals (Python's
    Fractions spend their time in gcd). ``exact_rows(unique)``: those rows as an
    ``fmpq_mat``, if cached."""
    ids, p = np.arange(len(rows)), points.shape[1]
    found = bounded_scores(points, W, b) if near else None
    if found is not None:
        value, radius = found
        margins = value[rows, own] - value[rows, others]
        spread = radius[rows, own] + radius[rows, others]
        spread += 2 * ROUNDING_UNIT * np.abs(margins)  # the subtraction's own
        ids = np.flatnonzero(near(margins, spread))
    unique, at = np.unique(rows[ids], return_inverse=True)
    if exact_rows is None:
        entries = [as_fmpq(v) for v in points[unique].ravel().tolist()]
        X = fmpq_matrix(unique.size, p, entries)
    else:
        X = exact_rows(unique.tolist())
    machine = fmpq_matrix(len(W), p, [as_fmpq(v) for w in W for v in w])
    scores, b = (X * machine.transpose()).tolist(), [as_fmpq(v) for v in b]
    pairs = at.ravel().tolist(), own[ids].tolist(), others[ids].tolist()
    return ids, [scores[a][o] - scores[a][k] + b[o] - b[k]
                 for a, o, k in zip(*pairs, strict=True)]  # fmt: skip


def bounded_scores(points, W, b):
    """``(scores, radius)``: ``x_i·w_k + b_k`` in float64 for every row and
    rational hyperplane, each within ``radius`` of exact (Higham's γ with ``w``'s
    rounding, subnormals at the smallest step); None where one overflows float64."""
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
