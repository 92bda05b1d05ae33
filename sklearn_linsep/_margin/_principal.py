"""K classes jointly, and two as K = 2, decided where features are rounded linear
combinations of others (``make_classification``'s redundant features, sums of
columns, a reconstruction from a few components).

In exact arithmetic such data are in general position: their near-null directions
hold only the combinations' rounding, ~1e-16 of the data's size, which float64's
LPs cannot see; their certificate holds to a tolerance only, yet the classes may
be inseparable, or separable by the rounding alone. Here the rows are taken in the
frame of their principal axes (an invertible linear map: the verdict is unchanged;
:mod:`sklearn_linsep._exact._frames`), each axis at unit spread, the near-null
coordinates ``(x - t)·v`` to about their last bit (products of few-bit slices,
summed exactly) so the LPs see them at full size. The answer is proved on
the rows as given: a certificate by :func:`~sklearn_linsep._proofs.pairs_proof`,
a separator mapped back to X in rationals, its every margin bounded below in
float64, the frame's rounding included.
"""

import numpy as np

from .._exact._enclosure import rounding_factor
from .._exact._farkas import every_pair
from .._exact._frames import principal_frame
from .._exact._numbers import (
    exact_dot,
    exact_matrix_product,
    rational,
    rational_scalar,
)
from ._solvers import kesler_flow_lp, kesler_hinge_lp


def decide_jointly_in_principal_frame(points, codes, n_classes):
    """K classes jointly: ``("certificate", (ids, weights))`` on pairs
    ``row * K + other`` from the frame's flow LP (the caller proves it on X),
    ``("separator", (W, b))`` in rationals, every pair margin ≥ 1 (proved), or None."""
    frame = principal_frame(points)
    if frame is None:
        return None
    Z, bound = frame[0], frame[4]
    K = n_classes
    rows, others = every_pair(codes, K)
    own = codes[rows]
    hinge = kesler_hinge_lp(Z[rows], own, others, K, rows, np.ones(len(points)))
    if hinge.total > 1e-6:  # no machine in the frame: its certificate
        weights = kesler_flow_lp(Z[rows], own, others, K)
        if weights is None:
            return None
        keep = np.flatnonzero(weights > 0)
        return "certificate", (rows[keep] * K + others[keep], weights[keep])
    W, b = hinge.coef, hinge.intercept
    difference, offsets = W[own] - W[others], np.abs(b[own]) + np.abs(b[others])
    margins = np.sum(difference * Z[rows], axis=1) + b[own] - b[others]
    terms = np.sum(np.abs(difference) * np.abs(Z[rows]), axis=1) + offsets
    rounding = 2 * rounding_factor(Z.shape[1] + 4) * (terms + np.abs(margins))
    least = margins - np.sum(np.abs(difference) * bound[rows], axis=1) - rounding
    if not least.min() > 0:
        return None
    return "separator", _on_x(W, b, frame, float(least.min()))


def _on_x(W, b, frame, least):
    """``(W_X, b_X)`` in rationals: the frame's hyperplanes (rows of ``W``,
    ``b``) on X, ``w_X = Σ_j (w_j / s_j) v_j`` and ``b_X = b - w_X·t``, divided
    by ``least`` (a lower bound of every margin: then each is ≥ 1)."""
    _, center, axes, spread, _ = frame
    center_exact, scale = rational(center), rational_scalar(least)
    factors = [[rational_scalar(value) / rational_scalar(s) for value, s in
                zip(w, spread, strict=True)] for w in W]  # fmt: skip
    coefs, intercepts = [], []
    for coef, offset in zip(exact_matrix_product(factors, axes), b, strict=True):
        intercept = rational_scalar(offset) - exact_dot(coef, center_exact)
        coefs.append([a / scale for a in coef])
        intercepts.append(intercept / scale)
    return coefs, intercepts
