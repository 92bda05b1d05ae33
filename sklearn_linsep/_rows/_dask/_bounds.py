"""What a block proves of its rows outside its early pool, for every hyperplane near
its own: a bound that lets the exact core confirm an answer without a second pass.

In the class summary's pass each block of two labels picks the hyperplane of its
*early pool* (:func:`refined_plane`: the nearest points of its pool's two hulls,
whose direction is within 1e-4 of the whole data's maximal margin where the class
means' difference is 6e-3 to 9e-3 off: ``bench_scale.py``'s rows, blocks of 5e5),
keeps the rows of each side nearest it in its pool, and records for the others the
least signed distance ``T`` to that hyperplane ``(d, h)`` and their box
(:class:`BlockBound`). For a hyperplane ``w·x + b`` near it, write
``w = κ d + u`` (``κ = w·d / d·d``, so ``u`` is nearly orthogonal to ``d``); every row
``x`` outside the pool on side ``σ`` of the block, in the box of centre ``m`` and
half-widths ``R``, has

    σ (w·x + b) = κ σ (d·x + h) + σ u·(x - m) + σ (u·m + b - κ h) + σ r·x
                ≥ κ (T - e) - Σ_j |u_j| R_j + σ (u·m + b - κ h) - Σ_j |r_j| M_j

with ``r = w - κ d - u`` (the rounding of ``u``), ``e`` the rounding of the block's
signed distances and ``M`` the box's largest ``|x_j|`` (:func:`least_margins`). Where
that is at least 1 for every side of every block, no row outside the pools has a
margin below 1: the pools' rows, read on the workers, are then every row that the
check of an answer needs.
"""

from dataclasses import dataclass

import numpy as np

from ..._working_set import hull_nearest_points

# Rows of each side of a block's pool that the refined hyperplane is computed on
# (the nearest points of 2 x 2 048 rows of 20 features: 5-10 ms a block).
REFINE_ROWS = 2048
# Rows of each side of a block's early pool nearest its own hyperplane (at most an
# eighth of the pool; the others are nearest the class means' hyperplane, the seed's
# candidates). Within 1e-4 of the maximal margin's direction, 1e7 x 20 in blocks of
# 5e5 needs the rows within 0.002 of it: a few hundred a side.
OWN_POOL_ROWS = 1024
EPS = np.finfo(float).eps


@dataclass
class BlockBound:
    """Of one block's rows outside its early pool, per side (``c = +1``, then
    ``c = -1``): ``least``, the smallest ``c (direction·x + shift)`` as computed
    (``inf`` for a side with none), and the box ``[low, high]`` of the side's rows."""

    direction: np.ndarray
    shift: float
    least: np.ndarray  # (2,)
    high: np.ndarray  # (2, p)
    low: np.ndarray  # (2, p)


def refined_plane(X, c, rows):
    """``(d, h)``: the hyperplane halfway between the nearest points of the hulls of
    the two sides of ``X[rows]`` (``c`` ±1), on which ``c (d·x + h) > 0``; None
    where the hulls meet (the block keeps the class means' hyperplane)."""
    Z, c = X[rows], np.ascontiguousarray(c[rows], dtype=float)
    centre = Z.mean(axis=0)
    Z = Z - centre
    scale = float(np.max(np.abs(Z), initial=0.0))
    if not (scale > 0 and np.isfinite(scale)):
        return None
    Z /= scale
    # Any direction serves the bound (its proof takes d as given): a kernel that
    # stalled or ran out of steps still gives one, as good as its hulls are apart.
    _, v, (upper, lower), _, _ = hull_nearest_points(Z, c, np.zeros(len(c)))
    if not upper > lower:  # the pool's hulls meet: no hyperplane of its own
        return None
    direction = v / scale
    return direction, float(-direction @ centre - (upper + lower) / 2)


def block_bound(signed, c, active, pool, direction, shift, high, low):
    """The :class:`BlockBound` of a block's active rows outside ``pool``: ``signed``
    their ``c (direction·x + shift)`` (``c`` ±1); ``high`` and ``low`` each side's extremes
    (rows: c = +1, c = -1)."""
    outside = np.where(active, signed, np.inf)  # a copy, whatever active is
    outside[pool] = np.inf
    positive = c > 0  # c is ±1: the others are c = -1 (a masked min is slower)
    least = np.array([float(np.min(outside[positive], initial=np.inf)),
                      float(np.min(outside[~positive], initial=np.inf))])  # fmt: skip
    return BlockBound(np.asarray(direction, float), float(shift), least,
                      np.asarray(high, float), np.asarray(low, float))  # fmt: skip


def _gamma(k):
    return k * EPS / (1 - k * EPS)


def least_margins(bounds, coef, intercept, centre):
    """For each block's :class:`BlockBound` (None: no bound), a lower bound on the
    margin ``c (coef·(x - centre) + intercept)`` of its rows outside its pool
    (``-inf`` where it has none; ``inf`` where it has no such rows), every rounding
    bounded: that of ``b = intercept - coef·centre`` too."""
    w = np.asarray(coef, dtype=float)
    b = float(intercept) - float(w @ centre)
    b_rounding = _gamma(len(w) + 2) * (abs(float(intercept)) + np.abs(w) @ np.abs(centre))
    return np.array([_least_margin(bound, w, b) for bound in bounds]) - b_rounding


def _least_margin(bound, w, b):
    if bound is None:
        return -np.inf
    d, h, p = bound.direction, bound.shift, len(w)
    kappa = float(w @ d) / float(d @ d)
    if not kappa > 0 or not np.isfinite(kappa):
        return -np.inf
    u = w - kappa * d
    reach = np.maximum(np.abs(bound.high), np.abs(bound.low)).max(axis=0)  # M
    distance_rounding = _gamma(p + 2) * (reach @ np.abs(d) + abs(h))  # e
    least = np.inf
    for side, sign in enumerate((1.0, -1.0)):
        if not np.isfinite(bound.least[side]):
            continue  # no row of this side outside the pool
        high, low = bound.high[side], bound.low[side]
        centre = (high + low) / 2
        radius = np.maximum(high - centre, centre - low) * (1 + 2 * EPS)
        spread = np.abs(u) @ radius
        offset = sign * (u @ centre + b - kappa * h)
        value = kappa * (bound.least[side] - distance_rounding) - spread + offset
        # The rounding of this sum, of u·centre, and of u itself (r = w - κd - u).
        magnitude = (
            abs(kappa) * (abs(bound.least[side]) + distance_rounding) + spread
            + np.abs(u) @ np.abs(centre) + abs(b) + abs(kappa * h)
            + (np.abs(w) + np.abs(kappa * d)) @ reach
        )  # fmt: skip
        least = min(least, value - _gamma(2 * p + 8) * magnitude)
    return least
