"""The frame of the rows' principal axes, near-null coordinates correctly rounded.

Where features are rounded linear combinations of others (``make_classification``'s
redundant features, sums of columns, a reconstruction from a few components), the
rows lie, in exact arithmetic, in general position: their near-null directions
hold nothing but the rounding of the combinations, some 1e-16 of the data's size.
Float64 cannot see those directions in X's own frame. In the frame of the
principal axes, each scaled to a unit spread, with the near-null axes'
coordinates ``(x - t)·v`` computed with correct rounding (every product split
exactly, Dekker, then summed by ``math.fsum``), it can: an invertible linear map,
under which separability and Farkas' systems do not change. Every coordinate
comes with a bound on its error, so that proofs in the frame hold for the rows as
given (:func:`two_class_enclosed_in_axes`, the LPs of
:mod:`sklearn_linsep._margin._principal`).
"""

import math

import numpy as np

from ._enclosure import (
    ROUNDING_UNIT,
    enclosed_positive,
    rounding_factor,
    square_system,
)
from ._exact import pairs_matrix, two_class_matrix

# Axes whose singular value is below this fraction of the largest are near-null:
# their coordinates are computed with correct rounding.
NEAR_NULL = 1e-8
# Above this many rows, correct rounding costs more than the question is worth
# here (a Python sum per row and near-null axis).
FRAME_ROWS = 20_000
_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64
# Entries below this are kept out of the exact products (their errors would
# underflow): a row's is a reason to skip the frame, an axis' is set to 0.
_TINY = 2.0**-400


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
    n, size = len(points), np.abs(points)
    if n > FRAME_ROWS or not np.all(size < 1e290):  # the splits overflow
        return None
    if np.any((size > 0) & (size < _TINY)):  # their products underflow
        return None
    center = points[0].copy()
    _, singular, axes = np.linalg.svd(points - center, full_matrices=False)
    axes[np.abs(axes) < _TINY] = 0.0  # any axes will do: these keep products exact
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


def two_class_enclosed_in_axes(points, signs):
    """The weights (rounded) where the enclosure proves, in the frame of these
    rows' principal axes, that positive weights on them, summing to 1 on each
    side, make the two combinations coincide exactly; else None. The frame's
    coordinates are known to their error bounds: the enclosure takes those as
    the radius of its matrix."""
    frame = _invertible_frame(points)
    if frame is None:
        return None
    Z, bound = frame[0], frame[4]
    A, e = two_class_matrix(Z, signs)
    radius, _ = two_class_matrix(bound, np.ones(len(Z)), constants=False)
    system = square_system(A, radius, e)
    return None if system is None else enclosed_positive(*system, radius=True)


def pairs_enclosed_in_axes(points, own, others, n_classes):
    """:func:`two_class_enclosed_in_axes` for K classes jointly, on pairs."""
    frame = _invertible_frame(points)
    if frame is None:
        return None
    Z, bound = frame[0], frame[4]
    A, e = pairs_matrix(Z, own, others, n_classes)
    radius = np.abs(pairs_matrix(bound, own, others, n_classes, constants=False)[0])
    width = Z.shape[1] + 1
    groups = [range(f, n_classes * width, width) for f in range(width)]
    system = square_system(A, radius, e, groups)
    return None if system is None else enclosed_positive(*system, radius=True)


def _invertible_frame(points):
    """:func:`principal_frame` where it has as many axes as features: a
    certificate's system is the same in it only then (fewer rows than features
    give fewer axes, and the frame would drop equations)."""
    points = np.asarray(points, dtype=float)
    frame = principal_frame(points)
    if frame is None or len(frame[2]) != points.shape[1]:
        return None
    return frame
