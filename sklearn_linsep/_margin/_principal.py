"""Two classes decided where features are rounded linear combinations of others.

Such data (``make_classification``'s redundant features, sums of columns, a
reconstruction from a few components) lie, in exact arithmetic, in general
position: their near-null directions hold nothing but the rounding of the
combinations, some 1e-16 of the data's size. Float64's LPs cannot see those
directions, so a certificate they give holds to a tolerance only, and is no
proof; yet the classes may well be inseparable, or separable by the rounding
alone.

Here the rows are taken in the frame of their principal axes (an invertible
linear map: the verdict does not change), each axis scaled to a unit spread.
The near-null axes' coordinates ``(x - t)·v`` are computed with correct
rounding (every product split exactly, Dekker, then summed by ``math.fsum``),
so that the LPs see them at full size. The frame's answer is then proved on the
rows as given: a certificate by :func:`~sklearn_linsep._proofs.two_class_proof`,
a separator by mapping it back to X in rationals, its every margin bounded
below in float64 with the frame's rounding accounted for.
"""

import math

import numpy as np

from .._exact import rational
from .._proofs import ROUNDING_UNIT, rounding_factor
from ._solvers import hull_intersection_lp, total_hinge_lp

# Axes whose singular value is below this fraction of the largest are near-null:
# their coordinates are computed with correct rounding.
NEAR_NULL = 1e-8
# Above this many rows, correct rounding costs more than the question is worth
# here (a Python sum per row and near-null axis).
FRAME_ROWS = 20_000
_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64


def _split(values):
    """``(high, low)`` with ``values = high + low`` and 26-bit halves."""
    scaled = values * _SPLITTER
    high = scaled - (scaled - values)
    return high, values - high


def _exact_products(a, b):
    """``(product, error)`` with ``a * b = product + error`` exactly (Dekker's
    two-product, elementwise; no overflow assumed)."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + (
        a_low * b_low
    )
    return product, error


def correctly_rounded_coordinates(points, center, axis):
    """``fl((x - center)·axis)`` for every row, correctly rounded: the exact
    products of ``x`` and of ``-center`` with ``axis``, summed by ``fsum``."""
    product, error = _exact_products(points, axis[None, :])
    shift, shift_error = _exact_products(-center, axis)
    tail = np.r_[shift, shift_error]
    return np.array(
        [math.fsum(np.r_[p, e, tail]) for p, e in zip(product, error, strict=True)]
    )


def principal_frame(points):
    """``(Z, center, axes, spread, bound)``: the rows in the frame of their
    principal axes, ``Z = ((x - center) @ axes.T) / spread``, near-null axes'
    coordinates correctly rounded; ``bound[i, j]`` bounds ``|Z_ij``'s error|``
    (relative to the exact ``(x_i - center)·axes[j] / spread[j]``). None where
    no axis is near-null, or the data are too large or too big for the splits."""
    n = len(points)
    if n > FRAME_ROWS or not np.all(np.abs(points) < 1e290):
        return None
    center = points[0].copy()
    _, singular, axes = np.linalg.svd(points - center, full_matrices=False)
    near_null = singular < NEAR_NULL * singular[0]
    if not near_null.any():
        return None
    Z = (points - center) @ axes.T
    # Rounding of x - center (one unit) and of the product (γ_p), then of the
    # division by the spread (one unit): bounded per entry.
    magnitude = (np.abs(points) + np.abs(center)) @ np.abs(axes.T)
    bound = 2 * rounding_factor(points.shape[1] + 2) * magnitude
    for j in np.flatnonzero(near_null):
        Z[:, j] = correctly_rounded_coordinates(points, center, axes[j])
        bound[:, j] = 2 * ROUNDING_UNIT * np.abs(Z[:, j])
    spread = Z.max(axis=0) - Z.min(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    Z = Z / spread
    bound = bound / spread + 2 * ROUNDING_UNIT * np.abs(Z)
    return Z, center, axes, spread, bound


def decide_in_principal_frame(points, signs):
    """``("certificate", (indices, weights))`` from the frame's hull LP (the
    caller proves it on X), ``("separator", (w, b))`` in rationals with
    ``c_i (w·x_i + b) ≥ 1`` on every row (proved here), or None."""
    frame = principal_frame(points)
    if frame is None:
        return None
    Z, center, axes, spread, bound = frame
    hinge = total_hinge_lp(Z, signs)
    if hinge.total > 1e-6:  # inseparable in the frame: its certificate
        weights = hull_intersection_lp(Z, signs)
        if weights is None:
            return None
        keep = np.flatnonzero(weights > 0)
        return "certificate", (keep, weights[keep])
    from fractions import Fraction  # on first use: not at import

    w, b = hinge.coef, hinge.intercept
    margins = signs * (Z @ w + b)
    terms = np.abs(Z) @ np.abs(w) + abs(b)
    least = margins - bound @ np.abs(w) - 2 * rounding_factor(len(w) + 2) * terms
    if not least.min() > 0:
        return None
    # The hyperplane on X, exactly: w_X = Σ_j (w_j / s_j) v_j, b_X = b - w_X·t,
    # scaled so that the least margin (bounded below by least.min()) is ≥ 1.
    scale = Fraction(float(least.min()))
    factors = [Fraction(float(value)) / Fraction(float(s)) for value, s in
               zip(w, spread, strict=True)]  # fmt: skip
    axes_exact = [rational(axis) for axis in axes]
    coef = [sum((f * axis[k] for f, axis in zip(factors, axes_exact, strict=True)),
                Fraction(0)) for k in range(points.shape[1])]  # fmt: skip
    intercept = Fraction(float(b)) - sum(
        (a * t for a, t in zip(coef, rational(center), strict=True)), Fraction(0)
    )
    return "separator", ([a / scale for a in coef], intercept / scale)
