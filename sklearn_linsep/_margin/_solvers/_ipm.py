"""An interior point on the least-hinge LP over all the rows, through one weighted
Gram pass per iteration: the guess from which the exact LP starts."""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ..._threads import one_blas_thread
from ...exceptions import SolverError
from .._result import Hyperplane, Status

# Rows whose θ_i falls below this share of the largest leave the normal matrix: a
# row at a bound has θ_i → 0, and once few rows remain between their bounds the
# Gram pass reads only those. dα keeps every row; dy solves the normal equations
# without them (refinement puts them back on a float32 factor). On 5e4 × 768
# embeddings 1e-10 to 1e-8 took the same 22 iterations as none left out, and the
# fit 21% less time; 1e-7 stalled (80 iterations).
NEGLIGIBLE_WEIGHT = 1e-9
# From this many features the normal matrix starts as float32's, its directions
# refined against the exact products until their residual is REFINED of the
# right-hand side, in at most MAX_REFINEMENTS steps; else float64 from then on. A
# step is one pass of O(n p), the saving half a Gram pass of O(n p²): the interior
# point took 1.25x its float64 time at p = 50, 1.12x at 100, 1.0x at 200, 0.92x at
# 300, 0.85x at 400 and 0.80x at 768 (1e4-1e5 rows; 1 or 2 steps a direction until
# the last iterations).
SINGLE_FROM_FEATURES = 256
# The interior point only guesses, and the exact LP after it takes the weights as
# given: a weight more than this far below the largest overflowed its 1/α (α starts
# at s/2; found by review at 1e-300 and 1e-320 against 1), so the guess sees the
# weights over the largest, raised to this share at least; its α is scaled back and
# cut to the weights given ((w, b) does not depend on the weights' scale).
GUESS_WEIGHT_RANGE = 1e-100
REFINED = 1e-10
MAX_REFINEMENTS = 3


def least_hinge_ipm(gram, combine, products, normal, upper, tol=1e-9, max_iter=80):
    r"""An approximate least-total-hinge Hyperplane of all rows (``(w, b) = -y``,
    ``dual`` α), the guess the exact LP starts from: Mehrotra's predictor-corrector on
    :func:`total_hinge_lp`'s dual, ``min -Σ α_i``, ``A α = 0``, ``0 ≤ α ≤ s``, ``A``'s
    columns ``c_i (z_i, 1)``. Normal matrix ``A Θ Aᵀ`` of order p + 1: one weighted
    Gram pass (O(n p²)) an iteration (1e5 × 50: ~30 iterations, 2 s; dual simplex 11 s),
    float32's from ``SINGLE_FROM_FEATURES`` while refinement converges. The rows come
    as operators: ``gram(θ, single)`` is ``Σ θ_i (z_i, 1)(z_i, 1)ᵀ`` (in float32 where
    ``single``; rows of ``θ_i = 0`` need not be read), ``combine(v)`` is ``A v``,
    ``products(y)`` is ``Aᵀ y``, ``normal(θ, y)`` is ``(Aᵀ y, A Θ Aᵀ y)`` in one pass;
    ``upper``: the sample weights ``s > 0``."""
    n, given, largest_weight = len(upper), upper, upper.max()
    upper = np.maximum(upper / largest_weight, GUESS_WEIGHT_RANGE)
    alpha, lower_dual, upper_dual = upper / 2, np.ones(n), np.ones(n)
    # s - α is an iterate of its own: formed as a difference it rounds to 0 once α
    # is within an ulp of s (a row with a twin of the other label), and Θ is 0/0.
    room = upper / 2
    y = np.zeros(len(combine(np.zeros(n))))
    scale = 1.0 + upper.sum()
    single = len(y) > SINGLE_FROM_FEATURES
    for _ in range(max_iter):
        primal_residual = -combine(alpha)
        dual_residual = -1.0 - products(y) - lower_dual + upper_dual
        mu = (alpha @ lower_dual + room @ upper_dual) / (2 * n)
        if (
            np.max(np.abs(primal_residual)) <= tol * scale
            and np.max(np.abs(dual_residual)) <= tol
            and 2 * n * mu <= tol * scale
        ):
            break
        theta = 1.0 / (lower_dual / alpha + upper_dual / room)
        # θ / max θ ≤ 1 into the Gram: θ grows as μ → 0, and float32 overflows
        # past 3e38.
        largest = theta.max()
        kept = np.where(theta >= NEGLIGIBLE_WEIGHT * largest, theta / largest, 0)
        while True:
            matrix = largest * gram(kept, single)
            newton = _NewtonSystem(
                _on_one_thread(_cholesky)(matrix),
                np.diag(matrix).copy(),
                single,
                theta,
                combine,
                products,
                normal,
                (alpha, room, lower_dual, upper_dual),
                (primal_residual, dual_residual),
            )
            try:
                d_alpha, d_y, d_lower, d_upper, primal, dual = _mehrotra(newton, mu)
                break
            except _Unrefined:
                single = False
        alpha = alpha + 0.995 * primal * d_alpha
        room = room - 0.995 * primal * d_alpha
        y = y + 0.995 * dual * d_y
        lower_dual = lower_dual + 0.995 * dual * d_lower
        upper_dual = upper_dual + 0.995 * dual * d_upper
    alpha = np.minimum(alpha * largest_weight, given)
    return Hyperplane(True, -y[:-1], float(-y[-1]), alpha, Status.APPROXIMATE)


def _mehrotra(newton, mu):
    """Mehrotra's step: the predictor (affine scaling), then the corrector's
    centring and second order; ``(dα, dy, dz, dw, primal step, dual step)``."""
    alpha, room, lower_dual, upper_dual = newton.point
    lower_gap, upper_gap = alpha * lower_dual, room * upper_dual
    d_alpha, d_y, d_lower, d_upper = newton.direction(-lower_gap, -upper_gap)
    primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
    predicted = (
        (alpha + primal * d_alpha) @ (lower_dual + dual * d_lower)
        + (room - primal * d_alpha) @ (upper_dual + dual * d_upper)
    ) / (2 * len(alpha))
    target = (predicted / mu) ** 3 * mu
    d_alpha, d_y, d_lower, d_upper = newton.direction(
        target - lower_gap - d_alpha * d_lower,
        target - upper_gap + d_alpha * d_upper,
    )
    primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
    return d_alpha, d_y, d_lower, d_upper, primal, dual


class _Unrefined(Exception):
    """Iterative refinement did not converge on a float32 normal matrix."""


@dataclass
class _NewtonSystem:
    """One iteration's Newton system of the interior point: the Cholesky factor
    of ``A Θ Aᵀ`` (of its float32 Gram where ``refine``), the iterate
    ``(α, s - α, z, w)`` and the residuals."""

    factor: tuple
    diagonal: np.ndarray
    refine: bool
    theta: np.ndarray
    combine: object
    products: object
    normal: object
    point: tuple
    residuals: tuple

    def direction(self, lower_target, upper_target):
        """``(dα, dy, dz, dw)`` towards ``α z = lower_target``,
        ``(s - α) w = upper_target`` (as increments of those products)."""
        alpha, room, lower_dual, upper_dual = self.point
        primal_residual, dual_residual = self.residuals
        rho = -dual_residual + lower_target / alpha - upper_target / room
        d_y, image = self._solve(primal_residual - self.combine(self.theta * rho))
        d_alpha = self.theta * (image + rho)
        d_lower = (lower_target - lower_dual * d_alpha) / alpha
        d_upper = (upper_target + upper_dual * d_alpha) / room
        return d_alpha, d_y, d_lower, d_upper

    def _solve(self, rhs):
        """``dy`` with ``A Θ Aᵀ dy = rhs`` (without the rows left out of the factor,
        unless refined), and ``Aᵀ dy``; refined against the exact products where the
        factor is float32's (raises _Unrefined), the residual in the units of the
        diagonal (a feature of small scale converges as one of large; one 0 on every
        row of the factor has a floor for its unit)."""
        solve = _on_one_thread(cho_solve)
        d_y = solve(self.factor, rhs)
        if not self.refine:
            return d_y, self.products(d_y)
        diagonal = self.diagonal
        units = np.sqrt(np.maximum(diagonal, np.finfo(float).eps * diagonal.max()))
        enough = REFINED * np.max(np.abs(rhs) / units)
        for step in range(MAX_REFINEMENTS + 1):
            image, product = self.normal(self.theta, d_y)
            residual = rhs - product
            if np.max(np.abs(residual) / units) <= enough:
                return d_y, image
            if step < MAX_REFINEMENTS:
                d_y = d_y + solve(self.factor, residual)
        raise _Unrefined

    def step_lengths(self, d_alpha, d_lower, d_upper):
        """The largest primal and dual steps (at most 1) that keep the bounds."""
        alpha, room, lower_dual, upper_dual = self.point
        primal = min(_largest_step(alpha, d_alpha), _largest_step(room, -d_alpha), 1.0)
        dual = min(
            _largest_step(lower_dual, d_lower), _largest_step(upper_dual, d_upper), 1.0
        )
        return primal, dual


def _on_one_thread(function):
    """``function`` with BLAS on one thread: for the factor and its solves
    (scipy's BLAS), between the passes over X (numpy's). With two threads each,
    the two pools contend on two cores: at 5e4 × 768 the factor of order 769 took
    14x its one-thread time and the interior point 1.75x in all; the passes on
    one thread too cost 8% at 1e5 × 50."""

    def call(*args):
        with one_blas_thread():
            return function(*args)

    return call


def _largest_step(values, steps):
    """The largest ``t`` with ``values + t steps ≥ 0`` (``values > 0``)."""
    falling = steps < 0
    return float(np.min(-values[falling] / steps[falling], initial=np.inf))


def _cholesky(matrix):
    """Cholesky of the normal matrix, nudged on its diagonal when it is singular
    to working precision (rows all at a bound in some direction)."""
    ridge = 0.0
    for _ in range(8):
        try:
            return cho_factor(matrix + ridge * np.eye(len(matrix)))
        except np.linalg.LinAlgError:
            ridge = max(ridge * 100, 1e-14 * np.trace(matrix) / len(matrix), 1e-300)
    raise SolverError("The interior point's normal matrix is not positive definite.")
