"""Rump's enclosure of a square system's solution and his positive-definiteness
proof, in float64 with every rounding bounded (Higham's γ, Knuth's TwoSum): the
float64 half of the proofs (:mod:`._proofs`), without rational solves.
"""

import numpy as np

ROUNDING_UNIT = np.finfo(float).eps / 2


def rounding_factor(terms):
    """Higham's ``γ_k = k u / (1 - k u)``: the relative error bound of a sum of
    ``terms`` products, whatever the order of summation (BLAS's included)."""
    k = terms * ROUNDING_UNIT
    return k / (1 - k)


def exact_difference(a, b):
    """``(d, r)``: ``d = fl(a - b)`` and ``a - b = d + r`` exactly (Knuth's TwoSum
    of ``a`` and ``-b``, round to nearest; overflow aside)."""
    d = a - b
    b_virtual = d - a
    a_virtual = d - b_virtual
    return d, (a - a_virtual) + (-b - b_virtual)


def enclosed_positive(A, E, e, radius=False):
    """λ (rounded) where ``(A + E) λ = e`` is proved in float64 to have exactly
    one solution, a positive one; else None (``A`` square; ``A``, ``E``, ``e``
    exact float64). With ``radius``, ``E`` bounds entrywise how far the exact
    matrix is from ``A``, and the proof holds for every matrix within it. Rump:
    with ``R ≈ A⁻¹``, ``λ̃ ≈ R e``, every rounding bounded (Higham's ``γ``),
    ``‖I - R (A + E)‖∞ ≤ α < 1`` makes ``A + E`` nonsingular and ``‖λ - λ̃‖∞ ≤
    ‖R (e - (A + E) λ̃)‖∞ / (1 - α)``; λ > 0 where that is below every ``λ̃_i``."""
    m = len(e)
    if A.shape != (m, m) or m == 0:
        return None
    with np.errstate(all="ignore"):
        try:
            R = np.linalg.inv(A)
        except np.linalg.LinAlgError:
            return None
        has_remainder = bool(np.any(E)) and not radius
        weights = R @ e
        for _ in range(2):  # refined: the radius shrinks with the residual
            residual = e - A @ weights - (E @ weights if has_remainder else 0.0)
            weights = weights + R @ residual
        gamma = 2 * rounding_factor(m + 4)
        magnitude_R = np.abs(R)
        products = magnitude_R @ np.abs(A)
        defect = R @ A  # |R A - I| = |I - R A| in place: m x m arrays 4, not 8
        defect.flat[:: m + 1] -= 1.0
        np.abs(defect, out=defect)
        if np.any(E):  # a remainder, or the radius: |R||E| bounds R E
            through = magnitude_R @ np.abs(E)
            products += through
            defect += through
            del through
        products += defect  # the bound, defect + γ (products + defect), in place
        products *= gamma
        products += defect
        alpha = float(products.sum(axis=1).max()) * (1 + gamma)
        del defect, products
        residual = e - A @ weights - (E @ weights if has_remainder else 0.0)
        terms = np.abs(A) @ np.abs(weights) + np.abs(e)
        if has_remainder:
            terms += np.abs(E) @ np.abs(weights)
        residual_bound = np.abs(residual) + gamma * (terms + np.abs(residual))
        if radius:  # the exact matrix's distance from A, on λ̃
            residual_bound += np.abs(E) @ np.abs(weights) * (1 + gamma)
        spread = float((magnitude_R @ residual_bound).max()) * (1 + gamma)
        radius = spread / (1 - alpha) * (1 + gamma) if alpha < 1 else np.inf
    proved = np.isfinite(radius) and np.all(weights > radius)
    return weights if proved else None


def square_system(A, E, e, groups=None):
    """The system less its vanishing rows and, in each of ``groups`` (rows
    summing to zero in ``A``, ``E``, ``e``), its last row left; each row scaled
    exactly by a power of two to a largest entry in [1, 2). None where that
    scaling is inexact (a remainder underflowing)."""
    keep = np.any(A != 0, axis=1) | np.any(E != 0, axis=1) | (e != 0)
    for group in groups or ():
        if kept := [row for row in group if keep[row]]:
            keep[kept[-1]] = False
    A, E, e = A[keep], E[keep], e[keep]
    _, exponent = np.frexp(np.abs(A).max(axis=1, initial=0.0))
    shift = (1 - exponent)[:, None]
    scaled = np.ldexp(E, shift)
    if not np.array_equal(np.ldexp(scaled, -shift), E):  # underflow: not exact
        return None  # the rationals decide instead
    return np.ldexp(A, shift), scaled, np.ldexp(e, shift[:, 0])


def proven_positive_definite(G, radius=0.0):
    """Whether every symmetric matrix within ``radius`` (spectral norm) of
    the float64 ``G`` is positive definite, proved in float64 (Rump, BIT 46,
    2006): a Cholesky factorisation of ``G - σI`` that completes gives ``L Lᵀ =
    G - σI + F + ΔB``, ``F`` the shift's rounding (diagonal, ``|F| ≤ u |G -
    σI|``), ``|ΔB| ≤ γ_{p+1} |L| |Lᵀ|`` (Demmel; Higham's Theorem 10.3, any
    order of inner products, BLAS's blocks included); so ``λ_min(G) ≥ σ - ‖F‖ -
    γ_{p+1} ‖L‖_F²``, which less the radius must stay positive."""
    p = len(G)
    if not p:
        return True
    diagonal = np.diagonal(G)
    if not (np.all(np.isfinite(G)) and np.all(diagonal > 0) and np.isfinite(radius)):
        return False
    if radius < 0 or not np.array_equal(G, G.T):  # the proof reads one triangle
        return False
    gamma = 2 * rounding_factor(p + 2)  # twice the bound: a margin for its terms
    trace = float(diagonal.sum()) * (1 + gamma)
    shift = 2 * (radius + gamma * trace) + np.finfo(float).tiny * (p + 1)
    try:
        lower = np.linalg.cholesky(G - shift * np.eye(p))
    except np.linalg.LinAlgError:
        return False
    frobenius = float(np.sum(lower * lower)) * (1 + gamma)
    shift_rounding = ROUNDING_UNIT * (float(diagonal.max()) + shift)
    # Underflow: each of the p² entries' products rounded by at most tiny.
    underflow = np.finfo(float).tiny * p * (p + 1)
    return bool(shift * (1 - gamma) > radius + shift_rounding + gamma * frobenius
                + underflow)  # fmt: skip
