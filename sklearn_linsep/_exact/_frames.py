"""The frames the exact layer re-expresses rows in, side by side: exact or
error-bounded changes of coordinates that keep Farkas' alternative (an affine
map keeps a certificate's weights, a separator maps back).

- :func:`pairs_enclosed` (the enclosure's, :mod:`sklearn_linsep._proofs`): features far
  from 0 taken about one of their values, so the system's feature rows stop
  repeating its constant ones (a near-dependence that costs every digit);
- :class:`CentredFrame` (the rational simplex's, :mod:`._simplex`): exactly
  offset and scaled by powers of two;
- :func:`principal_frame` (:mod:`sklearn_linsep._margin._principal`): where
  features are rounded combinations of others (``make_classification``'s
  redundant ones, sums of columns), the rows are in exact arithmetic in general
  position only by that rounding (~1e-16 of the data): unseen by float64 in X's
  frame, seen in the principal axes, their near-null coordinates summed
  exactly from sliced products and every coordinate's error bounded.
"""

import math

import numpy as np

from ._enclosure import (
    ROUNDING_UNIT,
    enclosed_positive,
    exact_difference,
    rounding_factor,
    square_system,
)
from ._farkas import class_groups, pairs_matrix
from ._numbers import fraction, rational_scalar

# Near-null axes: singular value below this fraction of the largest.
NEAR_NULL = 1e-8
# Rows beyond which the frame (its SVD, the LPs on its coordinates) costs too much.
FRAME_ROWS = 20_000
_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64
# Slices of a row or axis at most (:func:`near_null_coordinates`): 53-bit entries
# of one scale take 3 of 21 bits; a remainder past 6 is bounded, not summed.
SLICES = 6
# Entries below this are kept out of the exact products (their errors would
# underflow): a row's is a reason to skip the frame, an axis' is set to 0. The
# slices' products are then at least 2^-904, and their Sum2 term 2k² size stays
# normal (about 2^-1008): a smaller floor, or more slices or bits, breaks that.
_TINY = 2.0**-400


def _split(values):
    """``(high, low)`` with ``values = high + low`` and 26-bit halves."""
    scaled = values * _SPLITTER
    high = scaled - (scaled - values)
    return high, values - high


def _exact_products(a, b):
    """``(p, e)``: ``a * b = p + e`` exactly, elementwise (Dekker; no overflow)."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + (
        a_low * b_low
    )
    return product, error


def correctly_rounded_coordinates(points, center, axis, offset=0.0):
    """``(x - center)·axis + offset`` per row, correctly rounded (exact products,
    fsum; entries within ``splittable``)."""
    product, error = _exact_products(points, axis[None, :])
    shift, shift_error = _exact_products(-center, axis)
    tail = np.r_[shift, shift_error, offset]
    return np.array(
        [math.fsum(np.r_[p, e, tail]) for p, e in zip(product, error, strict=True)]
    )


def _slices(rows, bits):
    """``(slices, remainder)``: ``rows = Σ slices + remainder`` exactly, each
    slice's row a multiple of ``2^(E - bits)`` at most ``2^E (1 + 2^-bits)``
    (``2^E`` above the row's largest entry left): Rump's extraction,
    ``fl(r + σ) - σ`` with ``σ = 2^(E + 53 - bits)``, until the remainder is
    zero or ``SLICES`` are taken. Entries within :func:`splittable`."""
    slices, remainder = [], rows.copy()
    for _ in range(SLICES):
        largest = np.max(np.abs(remainder), axis=1, keepdims=True)
        if not largest.any():
            break
        sigma = np.ldexp(1.0, np.frexp(largest)[1] + 53 - bits)
        sigma[largest == 0] = 0.0  # a row already exhausted
        piece = (remainder + sigma) - sigma
        slices.append(piece)
        remainder = remainder - piece
    return slices, remainder


def near_null_coordinates(points, center, axes):
    """``((x - center) @ axes.T, bound)`` with ``bound`` bounding each entry's
    error against the exact value, about ``2u`` of the entry where it cancels.

    The rows of ``points`` and ``-center`` and the ``axes`` are split into
    slices of few bits (:func:`_slices`) whose every product is summed exactly
    by BLAS (Ozaki's scheme: ``bits_x + bits_a + log2(p) + 1 <= 53`` keeps each
    partial sum an integer below 2^53 of its unit), and the slice products are
    added by Ogita, Rump and Oishi's Sum2 (|error| ≤ u|s| + γ²Σ|terms|); a
    remainder the slices did not take is bounded by its products' sizes. Where
    :func:`correctly_rounded_coordinates` made one ``math.fsum`` per row and
    axis (979 rows, 460 axes: 133 s), this is a few matrix products (0.3 s).
    Entries outside :func:`splittable` are refused (ValueError): their slices
    would underflow or overflow, and the bound with them."""
    if not all(map(splittable, (points, center, axes))):
        raise ValueError("entries beyond splittable's range: no exact slices")
    p = points.shape[1]
    bits = (52 - int(np.ceil(np.log2(max(p, 2))))) // 2
    stacked = np.vstack([points, -center[None, :]])  # the centre's row: own slices
    x_slices, x_left = _slices(stacked, bits)
    a_slices, a_left = _slices(axes, bits)
    shape = (len(points), len(axes))
    total, carried, size = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for x_slice in x_slices:
        for a_slice in a_slices:
            product = x_slice @ a_slice.T  # exact: see above
            for term in (product[:-1], product[-1]):  # a row's, the centre's
                total, error = _two_sum(total, term)
                carried += error
                size += np.abs(term)
    values = total + carried
    k = rounding_factor(2 * len(x_slices) * len(a_slices))
    # What the slices left: x·a less the slices' products is xl·a + (x - xl)·al.
    left = np.abs(x_left) @ np.abs(axes).T + (
        np.abs(stacked) + np.abs(x_left)
    ) @ np.abs(a_left).T
    left = (1 + 2 * rounding_factor(p + 2)) * (left[:-1] + left[-1])
    bound = 2 * ROUNDING_UNIT * np.abs(values) + 2 * k * k * size + left
    return values, bound


def _two_sum(a, b):
    """``(s, e)``: ``s = fl(a + b)``, ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    virtual = s - a
    return s, (a - (s - virtual)) + (b - virtual)


def splittable(values):
    """Whether Dekker's exact products of these entries neither overflow nor
    underflow (the range :func:`correctly_rounded_coordinates` needs)."""
    size = np.abs(values)
    return bool(np.all(size < 1e290) and not np.any((size > 0) & (size < _TINY)))


def principal_frame(points):
    """``(Z, center, axes, spread, bound)``: ``Z = ((x - center) @ axes.T) /
    spread`` in the rows' principal axes, each at unit spread, near-null axes'
    coordinates to about their last bit (:func:`near_null_coordinates`);
    ``bound[i, j]`` bounds ``Z_ij``'s error against the exact value. None where
    no axis is near-null, or the data are too many or too large to split."""
    n = len(points)
    if n > FRAME_ROWS or not splittable(points):
        return None
    center = points[0].copy()
    _, singular, axes = np.linalg.svd(points - center, full_matrices=False)
    axes[np.abs(axes) < _TINY] = 0.0  # any axes will do: these keep products exact
    near_null = singular < NEAR_NULL * singular[0]
    if not near_null.any():
        return None
    Z = (points - center) @ axes.T
    # Error bound: x - center (one unit), the product (γ_p), ÷ spread (one unit).
    magnitude = (np.abs(points) + np.abs(center)) @ np.abs(axes.T)
    bound = 2 * rounding_factor(points.shape[1] + 2) * magnitude
    null = np.flatnonzero(near_null)
    Z[:, null], bound[:, null] = near_null_coordinates(points, center, axes[null])
    spread = Z.max(axis=0) - Z.min(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    Z = Z / spread
    with np.errstate(over="ignore"):  # an infinite bound proves nothing: refused
        bound = bound / spread + 2 * ROUNDING_UNIT * np.abs(Z)
    return Z, center, axes, spread, bound


def pairs_enclosed(points, own, others, n_classes, axes=False):
    """The (rounded) weights where the enclosure of Kesler's square system proves
    that ``μ > 0`` on these pairs, summing to 1, balance its rows exactly; else
    None. In X's frame about the features' own values: each feature far from 0
    against its spread (a constant one too) taken about its first value, ``x - t
    = offsets + remainders`` exactly (signed remainders), the others about 0 (the
    constant rows absorb ``t``). With ``axes``, in the rows' principal axes
    (:func:`principal_frame`), the coordinates' error bounds its radius."""
    points = np.asarray(points, dtype=float)
    if axes and len(points) < points.shape[1]:
        return None  # fewer axes than features: the frame drops equations
    if axes:
        frame = principal_frame(points)
        # As many axes as features, or (fewer rows than features) equations dropped.
        if frame is None or len(frame[2]) != points.shape[1]:
            return None
        Z, errors = frame[0], frame[4]
    else:
        spread = np.ptp(points, axis=0) if len(points) else np.zeros(points.shape[1])
        center = np.where(np.abs(points[0]) > spread, points[0], 0.0)
        Z, errors = exact_difference(points, center)
    A, e = pairs_matrix(Z, own, others, n_classes)
    E = pairs_matrix(errors, own, others, n_classes, constants=False)[0]
    # Each feature's (and the constant's) K class rows sum to zero: one left out.
    groups = class_groups(n_classes, Z.shape[1])
    del Z, errors  # (each m x p: gone before the square system's copies)
    system = square_system(A, np.abs(E) if axes else E, e, groups)
    del A, E
    return None if system is None else enclosed_positive(*system, radius=axes)


class CentredFrame:
    """The rows moved and scaled exactly: each feature less an offset, one of
    its values where every difference is exact (Sterbenz's lemma: the offset
    dwarfs the spread; else 0), times a power of two bringing its largest value
    into [1, 2). Farkas' alternative is the same there, and where features sit
    2^30 spreads from 0 the bases are far better conditioned (float steps tell
    them from singular) and the exact numbers shorter.

    Attributes
    ----------
    points : ndarray of shape (n, p)
        ``(x - offsets) * scales``, exactly.
    offsets, scales : ndarray of shape (p,)
    """

    def __init__(self, points):
        points = np.asarray(points, dtype=float)
        offsets = np.zeros(points.shape[1])
        if len(points):
            middle = np.sort(points, axis=0)[len(points) // 2]
            moved, error = exact_difference(points, middle)  # exact where 0
            exact = np.all(error == 0, axis=0) & np.all(np.isfinite(moved), axis=0)
            offsets[exact] = middle[exact]
        moved = points - offsets
        largest = np.abs(moved).max(axis=0, initial=0.0)
        exponents = np.where(largest > 0, np.frexp(largest)[1] - 1, 0)
        # Kept where the scaling stays exact: no value scaled down below the
        # normal range, and no scale beyond float64's (subnormal features).
        smallest = np.where(moved != 0, np.abs(moved), np.inf).min(axis=0,
                                                                  initial=np.inf)
        low = np.frexp(np.where(np.isfinite(smallest), smallest, 1.0))[1]
        exponents = np.clip(exponents, -1022, low + 1020)
        self.offsets, self.scales = offsets, np.ldexp(1.0, -exponents)
        self.points = moved * self.scales

    def in_units(self, w, b):
        """``(w, b)`` on the frame's points as the same hyperplane on the
        rows as given, in rationals: ``w ∘ scales`` and ``b - w·offsets``."""
        w = [value * rational_scalar(scale) for value, scale in zip(w, self.scales)]
        shift = sum((value * rational_scalar(o) for value, o in zip(w, self.offsets)
                     if o), fraction(0))  # fmt: skip
        return w, b - shift
