"""An interior point on the least-hinge LP over all the rows, through one weighted
Gram pass per iteration: the guess from which the exact LP starts."""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ...exceptions import SolverError
from .._result import Hyperplane, Status


def least_hinge_ipm(gram, combine, products, upper, tol=1e-9, max_iter=80):
    r"""An approximate least-total-hinge Hyperplane of all rows (``(w, b) = -y``,
    ``dual`` α), the guess the exact LP starts from: Mehrotra's predictor-corrector on
    :func:`total_hinge_lp`'s dual, ``min -Σ α_i``, ``A α = 0``, ``0 ≤ α ≤ s``, ``A``'s
    columns ``c_i (z_i, 1)``. Normal matrix ``A Θ Aᵀ`` of order p + 1: one weighted
    Gram pass (O(n p²)) an iteration (1e5 × 50: ~30 iterations, 2 s; dual simplex 11 s).

    Parameters
    ----------
    gram : callable
        ``gram(theta)`` is ``Σ θ_i (z_i, 1)(z_i, 1)ᵀ``.
    combine : callable
        ``combine(v)`` is ``A v = Σ v_i c_i (z_i, 1)``.
    products : callable
        ``products(y)`` is ``Aᵀ y``, ``c_i (z_i, 1)·y`` for every row.
    upper : ndarray of shape (n,)
        The sample weights ``s > 0``.
    """
    n = len(upper)
    alpha, lower_dual, upper_dual = upper / 2, np.ones(n), np.ones(n)
    # s - α is an iterate of its own: formed as a difference it rounds to 0 once α
    # is within an ulp of s (a row with a twin of the other label), and Θ is 0/0.
    room = upper / 2
    y = np.zeros(len(combine(np.zeros(n))))
    scale = 1.0 + upper.sum()
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
        newton = _NewtonSystem(
            _cholesky(gram(theta)),
            theta,
            combine,
            products,
            (alpha, room, lower_dual, upper_dual),
            (primal_residual, dual_residual),
        )
        lower_gap, upper_gap = alpha * lower_dual, room * upper_dual
        # Predictor (affine scaling), then Mehrotra's centring and second order.
        d_alpha, d_y, d_lower, d_upper = newton.direction(-lower_gap, -upper_gap)
        primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
        predicted = (
            (alpha + primal * d_alpha) @ (lower_dual + dual * d_lower)
            + (room - primal * d_alpha) @ (upper_dual + dual * d_upper)
        ) / (2 * n)
        target = (predicted / mu) ** 3 * mu
        d_alpha, d_y, d_lower, d_upper = newton.direction(
            target - lower_gap - d_alpha * d_lower,
            target - upper_gap + d_alpha * d_upper,
        )
        primal, dual = newton.step_lengths(d_alpha, d_lower, d_upper)
        alpha = alpha + 0.995 * primal * d_alpha
        room = room - 0.995 * primal * d_alpha
        y = y + 0.995 * dual * d_y
        lower_dual = lower_dual + 0.995 * dual * d_lower
        upper_dual = upper_dual + 0.995 * dual * d_upper
    return Hyperplane(
        True,
        coef=-y[:-1],
        intercept=float(-y[-1]),
        dual=alpha,
        status=Status.APPROXIMATE,
    )


@dataclass
class _NewtonSystem:
    """One iteration's Newton system of the interior point: the Cholesky factor
    of ``A Θ Aᵀ``, the iterate ``(α, s - α, z, w)`` and the residuals."""

    factor: tuple
    theta: np.ndarray
    combine: object
    products: object
    point: tuple
    residuals: tuple

    def direction(self, lower_target, upper_target):
        """``(dα, dy, dz, dw)`` towards ``α z = lower_target``,
        ``(s - α) w = upper_target`` (as increments of those products)."""
        alpha, room, lower_dual, upper_dual = self.point
        primal_residual, dual_residual = self.residuals
        rho = -dual_residual + lower_target / alpha - upper_target / room
        d_y = cho_solve(self.factor, primal_residual - self.combine(self.theta * rho))
        d_alpha = self.theta * (self.products(d_y) + rho)
        d_lower = (lower_target - lower_dual * d_alpha) / alpha
        d_upper = (upper_target + upper_dual * d_alpha) / room
        return d_alpha, d_y, d_lower, d_upper

    def step_lengths(self, d_alpha, d_lower, d_upper):
        """The largest primal and dual steps (at most 1) that keep the bounds."""
        alpha, room, lower_dual, upper_dual = self.point
        primal = min(_largest_step(alpha, d_alpha), _largest_step(room, -d_alpha), 1.0)
        dual = min(
            _largest_step(lower_dual, d_lower), _largest_step(upper_dual, d_upper), 1.0
        )
        return primal, dual


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
